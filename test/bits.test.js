'use strict';
// The float32 math the library computes itself (src/core/compute/fast_math.h's exp,
// sigmoid and tanh, softmax, normalize, the arithmetic) gives the same bits on
// every machine: x64 with whichever clone the CPU picks at load (AVX2 or the
// SSE2 baseline), arm64 (.ci/run runs this file under qemu-aarch64), any thread
// count, and any element offset (a vector body and its scalar head and tail
// round alike). The digests below were taken on x64; a build that lets the
// compiler fuse a * b + c into one FMA (GCC's default for C++ wherever the
// target has one: arm64 always) changes the exp, sigmoid, tanh, softmax over
// dim 0 and normalize digests on arm64, and that is what this file catches
// (binding.gyp, CMakeLists.txt: -ffp-contract=off). float64 math calls the C
// library, whose bits are its own, so it is not here.
const crypto = require('crypto');
const dl = require('../lib');

// Numerical Recipes' LCG: the inputs are the same on every run and machine.
function lcg(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0);
}

function digest(t) {
  const d = t.contiguous().data;
  return crypto.createHash('sha256').update(new Uint8Array(d.buffer, d.byteOffset, d.byteLength))
    .digest('hex').slice(0, 16);
}

// 65,536 float32: every other one a random bit pattern (every exponent, NaNs,
// subnormals), the rest uniform over [-110, 110] (exp's whole finite range and
// past it), and the edges of each function's cases at the front.
function inputs() {
  const bits = new Uint32Array(1 << 16);
  const f = new Float32Array(bits.buffer);
  const next = lcg(12345);
  for (let i = 0; i < f.length; i++) {
    if (i % 2) bits[i] = next();
    else f[i] = (next() / 2 ** 32) * 220 - 110;
  }
  f.set([0, -0, Infinity, -Infinity, NaN, 1e-45, -1e-45, 88.72, 88.73, -103.97, -104, 0.625, -0.625, 9.01]);
  return f;
}

function float32(values, shape) {
  const t = dl.fromBuffer(Float32Array.from(values).buffer, { dtype: 'float32' });
  return shape ? t.view(shape) : t;
}

// Every digest under each thread count the machine allows (1, and 2 where it
// has 2 cores or more): the split is by fixed blocks, so they agree.
function digests() {
  const f = inputs();
  const x = float32(f);
  const finite = float32(Array.from(f, (v, i) => (Number.isFinite(v) ? v / 4 : i % 7)), [256, 256]);
  const frame = new Uint8Array(8 * 16 * 16 * 3);
  const next = lcg(7);
  for (let i = 0; i < frame.length; i++) frame[i] = next() >>> 24;
  const frames = dl.fromBuffer(frame.buffer, { dtype: 'uint8' }).view([8, 16, 16, 3]).permute([0, 3, 1, 2]);
  const mean = float32([0.485, 0.456, 0.406], [3, 1, 1]);
  const std = float32([0.229, 0.224, 0.225], [3, 1, 1]);
  const g = float32(Array.from(f.subarray(0, 3 * 4096), (v, i) => (Number.isFinite(v) ? v : i)), [3, 64, 64]);
  return {
    exp: digest(x.exp()),
    sigmoid: digest(x.sigmoid()),
    tanh: digest(x.tanh()),
    softmaxLastDim: digest(finite.softmax(-1)),
    softmaxDim0: digest(finite.softmax(0)),
    normalize: digest(dl.normalize(frames, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225], { scale: 1 / 255 })),
    subDiv: digest(g.sub(mean).div(std)),
    mulAdd: digest(g.mul(std).add(mean)),
  };
}

const EXPECTED = {
  exp: 'f13c99598abd3abd',
  sigmoid: '1135bbc2f39e8ffa',
  tanh: 'e0457f86027cbd50',
  softmaxLastDim: 'e6bebc39fb66ad4b',
  softmaxDim0: '3c862a3534f01d5f',
  normalize: 'ed0bd46fa611f32e',
  subDiv: '327138fb27e36f8a',
  mulAdd: '56ddfe03cf8d6aaa',
};

describe('float32 math gives the same bits everywhere', () => {
  const threadsBefore = dl.getNumThreads();
  afterEach(() => dl.setNumThreads(threadsBefore));

  test.each([1, 2])('the recorded digests, on %i thread(s)', (threads) => {
    dl.setNumThreads(threads);
    expect(digests()).toEqual(EXPECTED);
  });

  // The same values at element offsets 0..8 of a larger buffer: each start
  // moves which elements the aligned head, the vector body and the tail get.
  test.each(['exp', 'sigmoid', 'tanh'])('%s gives the same bits at every offset', (op) => {
    const f = inputs().subarray(0, 1000);
    const want = digest(float32(f)[op]());
    const at = (offset) => {
      const storage = new Float32Array(offset + f.length + 3).fill(7);
      storage.set(f, offset);
      return dl.fromBuffer(storage.buffer, { dtype: 'float32' }).narrow(0, offset, f.length);
    };
    for (let offset = 1; offset <= 8; offset++) {
      expect([offset, digest(at(offset)[op]())]).toEqual([offset, want]);
      expect([offset, digest(at(offset)[`${op}_`]())]).toEqual([offset, want]);
    }
  });
});
