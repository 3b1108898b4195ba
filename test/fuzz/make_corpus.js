'use strict';
// Writes the seed corpora test/fuzz/corpus/<target>/ from the cases below, in
// the input formats described at the top of fuzz_checklist.cc and
// fuzz_buffer_view.cc. Run it after changing a format or a case:
//   node test/fuzz/make_corpus.js
// The fuzzers start from these files; run.sh copies them first, so the
// directories in the repository never grow.
const fs = require('fs');
const path = require('path');

class Bytes {
  constructor() {
    this.parts = [];
  }

  int(value, size) {
    const b = Buffer.alloc(size);
    let v = BigInt.asUintN(size * 8, BigInt(value));
    for (let i = 0; i < size; i++, v >>= 8n) b[i] = Number(v & 0xffn);
    this.parts.push(b);
    return this;
  }

  u8(v) { return this.int(v, 1); }
  u16(v) { return this.int(v, 2); }
  u32(v) { return this.int(v, 4); }
  u64(v) { return this.int(v, 8); }

  // fuzz_input.h: a signed byte, or 0x80 and the raw value.
  small(value, size) {
    const v = BigInt(value);
    if (v > -128n && v < 128n) return this.int(v, 1);
    return this.u8(0x80).int(v, size);
  }

  double(d) {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(d);
    this.parts.push(b);
    return this;
  }

  get buffer() {
    return Buffer.concat(this.parts);
  }
}

// --- checklist -----------------------------------------------------------------
const FLOAT32 = [2, 32];
const FLOAT64 = [2, 64];
const COMPLEX128 = [5, 128];
const CPU = 1;
const CUDA = 2;

function tensor({
  versioned = true, version = [1, 3], flags = 0, nullShape = false, nullStrides = false,
  ndim, dtype = FLOAT32, lanes = 1, device = [CPU, 0], data = 0x10000n, byteOffset = 0n,
  shape = [], strides = [],
}) {
  const b = new Bytes();
  b.u8((versioned ? 1 : 0) | (nullShape ? 2 : 0) | (nullStrides ? 4 : 0));
  b.u32(version[0]).u32(version[1]).u64(flags);
  b.small(ndim === undefined ? shape.length : ndim, 4);
  b.u8(dtype[0]).u8(dtype[1]).u16(lanes);
  b.small(device[0], 4).small(device[1], 4);
  b.u64(data).u64(byteOffset);
  for (const d of shape) b.small(d, 8);
  for (const s of strides) b.small(s, 8);
  return b.buffer;
}

const TOP = (1n << 64n) - 1n;
const checklist = {
  'legacy-float32-2x3': tensor({ versioned: false, shape: [2, 3], strides: [3, 1] }),
  'versioned-reversed-float64': tensor({ dtype: FLOAT64, shape: [4], strides: [-1], byteOffset: 24n }),
  'null-strides-row-major': tensor({ versioned: false, nullStrides: true, shape: [2, 3, 4] }),
  'null-strides-empty-overflow': tensor({ nullStrides: true, version: [1, 1], shape: [0, 2 ** 40, 2 ** 40] }),
  'ndim-64-ones': tensor({ shape: Array(64).fill(1), strides: Array(64).fill(1) }),
  'ndim-65': tensor({ shape: Array(65).fill(1), strides: Array(65).fill(1) }),
  'ndim-negative': tensor({ ndim: -1 }),
  'ndim-huge': tensor({ ndim: 0x7fffffff }),
  'zero-dim-null-shape': tensor({ nullShape: true, nullStrides: true, ndim: 0 }),
  'cuda-device': tensor({ device: [CUDA, 0], shape: [8], strides: [1] }),
  'vector-lanes': tensor({ lanes: 4, shape: [8], strides: [1] }),
  'complex128-mixed-strides': tensor({ dtype: COMPLEX128, shape: [3, 2, 2], strides: [-4, 1, 2], byteOffset: 128n }),
  'int64-min-stride': tensor({ shape: [2, 1], strides: [1, -(2n ** 63n)] }),
  'byte-offset-wraps': tensor({ shape: [4], strides: [1], data: TOP - 15n, byteOffset: 8n }),
  'extent-at-the-top': tensor({ shape: [4], strides: [1], data: TOP - 16n }),
  'below-address-zero': tensor({ shape: [100], strides: [-1], data: 0x10n }),
  'safe-integer-extent': tensor({ dtype: [1, 8], shape: [2, 2], strides: [2 ** 52, -(2 ** 52)] }),
};

// --- buffer_view ---------------------------------------------------------------
// Tags: 0 small integer, 1 double bits, 2 special (index * 4 + 2), 3 int64.
const SPECIAL = { nan: 0, inf: 1, negInf: 2, negZero: 3, half: 4, minusOne: 5, safe: 6, twoTo53: 7 };
const small = (v) => new Bytes().u8(0).int(v, 1).buffer;
const dbl = (d) => new Bytes().u8(1).double(d).buffer;
const special = (name) => new Bytes().u8(SPECIAL[name] * 4 + 2).buffer;
const view = (...values) => Buffer.concat(values);

const bufferView = {
  'all-remaining': view(small(16), small(0), small(4), small(4), small(-1)),
  'count-fits-exactly': view(small(16), small(0), small(2), small(6), small(5)),
  'count-too-big': view(small(16), small(0), small(4), small(4), small(4)),
  'misaligned-view-base': view(small(13), small(1), small(2), small(0), small(-1)),
  'partial-element': view(small(10), small(0), small(4), small(0), small(-1)),
  'offset-past-end': view(small(8), small(0), small(1), small(9), small(-1)),
  'negative-zero': view(small(16), small(0), small(4), special('negZero'), special('negZero')),
  'nan-offset': view(small(16), small(0), small(1), special('nan'), small(-1)),
  'infinite-count': view(small(16), small(0), small(1), small(0), special('inf')),
  'fractional-count': view(small(16), small(0), small(1), small(0), special('half')),
  'largest-buffer': view(special('safe'), small(0), small(1), small(0), special('safe')),
  'count-past-2-53': view(special('safe'), small(0), small(1), small(0), special('twoTo53')),
  'count-times-item-overflows': view(special('safe'), small(0), dbl(8192), small(0), dbl(2 ** 52)),
  'zero-item-size': view(small(16), small(0), small(0), small(0), small(-1)),
};

function write(target, cases) {
  const dir = path.join(__dirname, 'corpus', target);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(cases)) fs.writeFileSync(path.join(dir, name), bytes);
  console.log(`${dir}: ${Object.keys(cases).length} files`);
}

write('checklist', checklist);
write('buffer_view', bufferView);
