'use strict';
// Views and conversion (docs/API.md "Views", "Conversion") against torch/numpy as the oracle
// (test/fixtures/torch_oracle.py: values, shapes, strides, offsets), every
// view through DLPack round trips, and the conversion rules of
// src/core/convert.h. Bad input: docs/errors.md rows F19-F21, V01-V07 (test/bad-input/).
const fs = require('fs');
const { spawnSync } = require('child_process');
const path = require('path');
const dl = require('../lib');
const { PYTHON } = require('./helpers');

const ALL = Object.keys(dl.dtypes);

// Each case: a chain of [method, args]; the JS call is t[method](...args).
const VIEWS = [
  [['permute', [2, 0, 1]]],
  [['permute', [-1, 1, 0]]],
  [['transpose', [0, 2]]],
  [['transpose', [-1, -2]], ['narrow', [0, 1, 2]]],
  [['narrow', [1, 1, 2]]],
  [['narrow', [-1, 2, 3]], ['select', [0, -1]]],
  [['select', [1, 2]]],
  [['select', [0, 1]], ['select', [0, 3]], ['select', [0, 4]]],
  [['slice', [2, 1, 5, 2]]],
  [['slice', [1, -3, null, null]]],
  [['slice', [0, null, null, -1]]],
  [['slice', [2, 4, 0, -2]]],
  [['permute', [2, 0, 1]], ['slice', [0, null, null, -2]]],
  [['slice', [1, 10, 20, 1]]], // empty
  [['unsqueeze', [0]]],
  [['unsqueeze', [-1]]],
  [['unsqueeze', [2]], ['squeeze', []]],
  [['narrow', [0, 0, 1]], ['squeeze', [0]]],
  [['narrow', [0, 0, 1]], ['squeeze', [1]]],
  [['flatten', []]],
  [['flatten', [1]]],
  [['permute', [1, 0, 2]], ['flatten', [1, 2]]],
  [['permute', [2, 1, 0]], ['flatten', []]], // a copy
  [['narrow', [0, 0, 1]], ['expand', [2, 3, 4, 5]]],
  [['select', [2, 0]], ['unsqueeze', [2]], ['expand', [-1, -1, 6]]],
  [['asStrided', [[2, 2], [1, 5], 8]]],
  [['asStrided', [[4, 3], [0, 7], 0]]],
  [['reshape', [12, 5]]],
  [['permute', [1, 2, 0]], ['reshape', [20, 3]]],
  [['transpose', [1, 2]], ['reshape', [3, 20]]],
  [['view', ['int16']]],
  [['view', ['int8']], ['narrow', [2, 4, 8]]],
  [['reshape', [6, 10]], ['view', ['int64']]],
];

const SOURCE_VALUES = {
  bool: [true, false, true],
  int8: [0, 1, 100, 127, 7],
  int16: [0, 1, 100, 127, 300],
  int32: [0, 1, 100, 127, 50000],
  int64: [0, 1, 100, 127, 50000],
  uint8: [0, 1, 100, 255, 7],
  uint16: [0, 1, 100, 255, 60000],
  uint32: [0, 1, 100, 255, 50000],
  uint64: [0, 1, 100, 255, 50000],
  float16: [0, 1, 2.5, 100.5, 3.75, 127, 64.5],
  bfloat16: [0, 1, 2.5, 100, 3.75, 127, 64.5],
  float32: [0, 1, 2.5, 100.25, 3.75, 127, 64.5],
  float64: [0, 1, 2.5, 100.25, 3.75, 127, 64.5],
  complex64: [[1.5, 2], [0, 0], [100.25, -3], [0, 1]],
  complex128: [[1.5, 2], [0, 0], [100.25, -3], [0, 1]],
};

// [values, dtype, shape] printed by both.
const PRINTS = [
  [[0.12345679104328156, 1, 2.5], 'float32', [3]],
  [[1e-5, 1, 1e6], 'float32', [3]],
  [[1, 2, -3], 'float64', [3]],
  [[1e10, 1], 'float32', [2]],
  [[NaN, Infinity, -1.5], 'float32', [3]],
  [[1, -20, 300], 'int32', [3]],
  [Array.from({ length: 24 }, (_, i) => i * 1.5), 'float32', [2, 3, 4]],
  [Array.from({ length: 24 }, (_, i) => i - 12), 'int64', [2, 3, 4]],
  [Array.from({ length: 2400 }, (_, i) => i / 7), 'float32', [40, 60]],
  [[3.5], 'float64', []],
  [[100, 0.001], 'float16', [2]],
  [[], 'float32', [0, 3]],
  [[], 'int32', [0]],
];

function runOracle() {
  if (!fs.existsSync(PYTHON)) return { skip: `${PYTHON} is absent` };
  const probe = spawnSync(PYTHON, ['-c', 'import torch, numpy'], { encoding: 'utf8', timeout: 60000 });
  if (probe.status !== 0) return { skip: `${PYTHON} has no torch/numpy (${(probe.stderr || '').trim().split('\n').pop()})` };
  const request = { views: VIEWS.map((ops) => ops.map(([m, a]) => [m, a])), values: SOURCE_VALUES, dtypes: ALL,
    prints: PRINTS.map(([v, d, s]) => [v.map((x) => (Number.isFinite(x) ? x : String(x))), d, s]) };
  const child = spawnSync(PYTHON, [path.join(__dirname, 'fixtures', 'torch_oracle.py'), JSON.stringify(request)],
    { encoding: 'utf8', timeout: 120000, maxBuffer: 64 << 20 });
  // A child that dies or hangs fails the suite at once.
  if (child.status !== 0) throw new Error(`torch oracle failed (${child.signal || child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout);
}

const oracle = runOracle();
if (oracle.skip) console.log(`views.test.js: torch oracle skipped: ${oracle.skip}`);
const itOracle = oracle.skip ? it.skip : it;

const base = () => dl.tensor(Array.from({ length: 60 }, (_, i) => i), { dtype: 'int32', shape: [3, 4, 5] });
const apply = (t, ops) => ops.reduce((v, [m, args]) => v[m](...args), t);
const plain = (v) => (Array.isArray(v) ? v.map(plain) : typeof v === 'bigint' ? Number(v) : v);
const describeOps = (ops) => ops.map(([m, a]) => `${m}(${a.map((x) => JSON.stringify(x)).join(', ')})`).join('.');

// What torch calls storage_offset, in elements of the view's dtype.
const elementOffset = (v) => v.byteOffset / v.itemSize;

describe('views against torch', () => {
  describe.each(VIEWS.map((ops, i) => [describeOps(ops), ops, i]))('%s', (name, ops, i) => {
    itOracle('has torch\'s shape, strides, offset and values', () => {
      const want = oracle.views[i];
      const v = apply(base(), ops);
      expect(v.shape).toEqual(want.shape);
      expect(plain(v.toArray())).toEqual(want.values);
      if (v.size === 0) return; // strides and offset of an empty view are arbitrary
      expect(v.strides).toEqual(want.strides);
      expect(elementOffset(v)).toBe(want.offset);
    });

    it('shares memory with its base and survives the DLPack round trips', () => {
      const t = base();
      const v = apply(t, ops);
      const values = v.toArray();
      const sameBuffer = v.buffer === t.buffer;
      // toPointer / fromPointer, versioned and legacy: the importer's checklist reads the struct.
      for (const maxVersion of [undefined, [0, 0]]) {
        const pointer = v.__dlpack__(maxVersion && { maxVersion }).toPointer();
        const back = dl.fromDLPack(dl.DLPackCapsule.fromPointer(pointer, { versioned: maxVersion === undefined }));
        expect(back.shape).toEqual(v.shape);
        expect(back.toArray()).toEqual(values);
        if (v.size > 1) expect(back.strides).toEqual(v.strides);
        expect(back.buffer === t.buffer).toBe(sameBuffer);
        back.dispose();
      }
      const direct = dl.fromDLPack(v);
      expect(direct.strides).toEqual(v.strides);
      expect(direct.byteOffset).toBe(v.byteOffset);
      expect(direct.toArray()).toEqual(values);
      if (sameBuffer && v.size > 0) {
        // A write through the base shows in the view: no copy was made.
        const flat = t.reshape(-1);
        flat.copyFrom(dl.zeros([60], { dtype: 'int32' }));
        expect([plain(v.toArray())].flat(64).every((x) => x === 0)).toBe(true);
      }
      v.dispose();
      t.dispose();
    });
  });
});

describe('views', () => {
  test('a view keeps the storage alive; dispose of the base leaves the view usable', () => {
    const t = base();
    const v = t.permute(2, 0, 1);
    t.dispose();
    expect(v.select(0, 1).select(0, 0).toArray()).toEqual([1, 6, 11, 16]);
    v.dispose();
    expect(v.disposed).toBe(true);
  });

  test('fromBuffer strides: an HWC image as CHW (docs/API.md "Creating tensors"), then converted', () => {
    const raw = new Uint8Array(15).map((_, i) => i); // 1 x 5 pixels x 3 channels
    const chw = dl.fromBuffer(raw, { dtype: 'uint8', shape: [3, 1, 5], strides: [1, 15, 3] });
    expect(chw.strides).toEqual([1, 15, 3]);
    expect(chw.toArray()).toEqual([[[0, 3, 6, 9, 12]], [[1, 4, 7, 10, 13]], [[2, 5, 8, 11, 14]]]);
    const f = chw.to('float32');
    expect(f.isContiguous).toBe(true);
    expect(Array.from(f.data)).toEqual([0, 3, 6, 9, 12, 1, 4, 7, 10, 13, 2, 5, 8, 11, 14]);
    // A negative stride from an offset: the bytes backwards.
    const back = dl.fromBuffer(raw, { dtype: 'uint8', shape: [15], strides: [-1], offset: 14 });
    expect(back.toArray()).toEqual(Array.from(raw).reverse());
  });

  test('views work on any device as metadata: a view of a view of a view', () => {
    const t = base();
    const v = t.transpose(0, 2).slice(0, null, null, -1).unsqueeze(1).expand(5, 2, 4, 3);
    expect(v.shape).toEqual([5, 2, 4, 3]);
    expect(v.strides).toEqual([-1, 0, 5, 20]);
    expect(v.toArray()[0][1][0]).toEqual([4, 24, 44]);
  });

  test('copyFrom into views: batch.select(0, i).copyFrom(img), transposed and reversed targets', () => {
    const batch = dl.zeros([2, 2, 3], { dtype: 'float32' });
    batch.select(0, 1).copyFrom(dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'uint8' }));
    batch.select(0, 0).transpose(0, 1).copyFrom([[1, 2], [3, 4], [5, 6]]);
    expect(batch.toArray()).toEqual([[[1, 3, 5], [2, 4, 6]], [[1, 2, 3], [4, 5, 6]]]);
    const r = dl.zeros([4], { dtype: 'int16' });
    r.slice(0, null, null, -1).copyFrom(dl.tensor([1, 2, 3, 4], { dtype: 'float64' }));
    expect(r.toArray()).toEqual([4, 3, 2, 1]);
  });

  test('overlap by memory range goes through a temporary, whatever objects describe it', () => {
    const buffer = new ArrayBuffer(32);
    const a = dl.fromBuffer(buffer, { dtype: 'int32' });
    a.copyFrom(dl.tensor([0, 1, 2, 3, 4, 5, 6, 7], { dtype: 'int32' }));
    const b = dl.fromBuffer(new Uint8Array(buffer, 4), { dtype: 'int32' }); // another Storage, same bytes
    a.narrow(0, 0, 7).copyFrom(b); // shift left by one
    expect(a.toArray()).toEqual([1, 2, 3, 4, 5, 6, 7, 7]);
    const c = dl.fromBuffer(buffer, { dtype: 'int32' });
    c.narrow(0, 1, 7).copyFrom(a.narrow(0, 0, 7)); // shift right, the overlapping direction
    expect(a.toArray()).toEqual([1, 1, 2, 3, 4, 5, 6, 7]);
    // Converting in place over the same bytes: int32 -> float32 reads every source element first.
    const f = dl.fromBuffer(buffer, { dtype: 'float32' });
    f.copyFrom(c.slice(0, null, null, -1));
    expect(Array.from(f.data)).toEqual([7, 6, 5, 4, 3, 2, 1, 1]);
  });

  test('shared-memory tensors opened twice over one segment copy through a temporary', () => {
    const t = dl.zeros([8], { dtype: 'int32', shared: true });
    t.copyFrom([0, 1, 2, 3, 4, 5, 6, 7]);
    const twin = dl.open(t.share()); // another mapping of the same segment
    twin.narrow(0, 1, 7).copyFrom(t.narrow(0, 0, 7));
    expect(t.toArray()).toEqual([0, 0, 1, 2, 3, 4, 5, 6]);
    twin.dispose();
    t.dispose();
  });

  test('exported strides are always representable: an empty tensor with huge row-major strides', () => {
    const t = dl.zeros([0, 2 ** 40, 2 ** 40], { dtype: 'uint8' });
    const back = dl.fromDLPack(dl.DLPackCapsule.fromPointer(t.__dlpack__().toPointer(), { versioned: true }));
    expect(back.shape).toEqual([0, 2 ** 40, 2 ** 40]);
    for (const s of back.strides) expect(Number.isSafeInteger(s)).toBe(true);
    for (const s of t.strides) expect(Number.isSafeInteger(s)).toBe(true);
  });
});

describe('printing', () => {
  // torch prints float32 and int64 without dtype=; this library always adds it.
  const body = (text) => text.replace(/, dtype=(torch\.)?\w+\)$/, ')');
  itOracle.each(PRINTS.map((p, i) => [p[1], JSON.stringify(p[2]), i]))('%s %s as torch prints it', (dtype, shape, i) => {
    const [values, , dims] = PRINTS[i];
    const t = dl.tensor(values, { dtype, shape: dims });
    expect(body(String(t))).toBe(body(oracle.prints[i]));
  });
});

describe('conversion', () => {
  const pairs = [];
  for (const src of ALL) for (const dst of ALL) pairs.push([src, dst]);

  itOracle.each(pairs)('%s -> %s matches numpy/torch, contiguous and strided', (src, dst) => {
    const want = oracle.conversions[`${src}>${dst}`];
    const t = dl.tensor(SOURCE_VALUES[src], { dtype: src });
    const got = t.to(dst);
    expect(got.dtype).toBe(dst);
    expect(plain(got.toArray())).toEqual(want);
    // The same values reversed, read through a negative stride.
    const reversed = t.slice(0, null, null, -1).to({ dtype: dst });
    expect(plain(reversed.toArray())).toEqual(want.slice().reverse());
    if (src === dst) expect(t.to(dst).buffer).toBe(t.buffer); // no copy (docs/API.md "Decisions")
  });

  const ints = ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64'];
  const bounds = {
    int8: [-128, 127], int16: [-32768, 32767], int32: [-(2 ** 31), 2 ** 31 - 1], int64: [-(2n ** 63n), 2n ** 63n - 1n],
    uint8: [0, 255], uint16: [0, 65535], uint32: [0, 2 ** 32 - 1], uint64: [0n, 2n ** 64n - 1n],
  };

  test.each(ints.flatMap((d) => ['float16', 'bfloat16', 'float32', 'float64', 'complex128'].map((s) => [s, d])))(
    '%s -> %s: NaN is 0, out of range and infinities saturate, fractions truncate toward zero', (src, dst) => {
      const [lo, hi] = bounds[dst];
      const zero = typeof lo === 'bigint' ? 0n : 0;
      const t = dl.tensor([NaN, Infinity, -Infinity, 1e30, -1e30, 2.75, -2.75], { dtype: src });
      const signed = !dst.startsWith('u');
      const two = typeof lo === 'bigint' ? 2n : 2;
      expect(t.to(dst).toArray()).toEqual([zero, hi, lo, hi, lo, two, signed ? -two : zero]);
    });

  test('integer -> integer wraps modulo 2^bits (torch, numpy); bool is value != 0', () => {
    expect(dl.tensor([300, -1, 128], { dtype: 'int32' }).to('uint8').toArray()).toEqual([44, 255, 128]);
    expect(dl.tensor([300, -1, 128], { dtype: 'int32' }).to('int8').toArray()).toEqual([44, -1, -128]);
    expect(dl.tensor([2n ** 64n - 1n], { dtype: 'uint64' }).to('int64').toArray()).toEqual([-1n]);
    expect(dl.tensor([0, NaN, -0, 0.1], { dtype: 'float32' }).to('bool').toArray()).toEqual([false, true, false, true]);
    expect(dl.tensor([[0, 0], [0, 1]], { dtype: 'complex64' }).to('bool').toArray()).toEqual([false, true]);
    // Bytes other than 0/1 in a bool tensor read as true.
    const raw = dl.fromBuffer(new Uint8Array([0, 2, 255]), { dtype: 'bool' });
    expect(raw.to('int32').toArray()).toEqual([0, 1, 1]);
  });

  test('float16 and bfloat16 round to nearest, ties to even', () => {
    // 2049 lies halfway between float16's 2048 and 2050: even mantissa wins (2048); 2051 -> 2052.
    expect(dl.tensor([2049, 2051, 65520, 1e-8], { dtype: 'float32' }).to('float16').toArray())
      .toEqual([2048, 2052, Infinity, 0]);
    // bfloat16 keeps 8 bits: 257 is a tie between 256 and 258 -> 256; 259 -> 260.
    expect(dl.tensor([257, 259, -257], { dtype: 'float64' }).to('bfloat16').toArray()).toEqual([256, 260, -256]);
    expect(dl.tensor([NaN], { dtype: 'float32' }).to('bfloat16').toArray()).toEqual([NaN]);
  });

  test('to() of an empty tensor and of a 0-d tensor', () => {
    expect(dl.zeros([0, 3], { dtype: 'uint8' }).to('float32').shape).toEqual([0, 3]);
    expect(dl.tensor(3.5, { dtype: 'float64' }).to('int8').item()).toBe(3);
  });
});

// Issue 37, finding 4: a view of 2^64 elements of one value was reduced as if
// empty (sum 0, mean NaN), and UBSan saw the loops' products overflow.
describe('the element count a view may have', () => {
  test('views of 2^53 or more elements or bytes are refused when they are made (torch: numel overflow)', () => {
    const one = dl.ones([1, 1]);
    const overflow = expect.objectContaining({ code: 'ERR_OUT_OF_RANGE',
      message: expect.stringMatching(/numel: integer multiplication overflow/) });
    expect(() => one.expand([2 ** 32, 2 ** 32])).toThrow(overflow); // 2^64 elements: was summed as empty
    expect(() => one.expand([2 ** 27, 2 ** 26])).toThrow(overflow); // 2^53 elements
    expect(one.expand([2 ** 26, 2 ** 26]).size).toBe(2 ** 52);
    expect(() => dl.zeros([4]).asStrided([2 ** 30, 2 ** 30], [0, 0])).toThrow(overflow);
    expect(() => dl.fromBuffer(new ArrayBuffer(4), { dtype: 'float32', shape: [2 ** 30, 2 ** 30], strides: [0, 0] }))
      .toThrow(overflow);
    // A broadcast of two views that fit, whose result would not.
    expect(() => dl.add(one.expand([2 ** 27, 1]), one.expand([1, 2 ** 27]))).toThrow(overflow);
    // An empty view of huge dims has no elements.
    expect(dl.zeros([0, 1]).expand(0, 2 ** 52).size).toBe(0);
  });
});
