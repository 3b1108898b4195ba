'use strict';
// dl.Generator, manualSeed, rand, randn, randint, multinomial (docs/API.md
// "Random numbers"). The bits are not torch's, so what is checked is the
// generator as documented (src/core/compute/random.h): rand's float32 values
// against a Philox4x32-10 written here from the paper (seed = key, counter =
// the generator's offset + block, four elements a block), the offset moving
// past each draw, the same values at any thread count, the distributions'
// moments and frequencies, torch's refusals of bad probability rows as coded
// errors, and nothing leaked.
const dl = require('../lib');
const { expectError, nativeStats, collect } = require('./helpers');

const M32 = 0xffffffffn;

// Philox4x32-10 (Salmon et al., SC'11) of counter (index, 0) under key seed.
function philox(seed, index) {
  let c = [index & M32, (index >> 32n) & M32, 0n, 0n];
  let k0 = seed & M32;
  let k1 = (seed >> 32n) & M32;
  for (let round = 0; round < 10; round++) {
    const p0 = 0xD2511F53n * c[0];
    const p1 = 0xCD9E8D57n * c[2];
    c = [((p1 >> 32n) ^ c[1] ^ k0) & M32, p1 & M32, ((p0 >> 32n) ^ c[3] ^ k1) & M32, p0 & M32];
    k0 = (k0 + 0x9E3779B9n) & M32;
    k1 = (k1 + 0xBB67AE85n) & M32;
  }
  return c;
}

// rand's float32 element i of a draw from counter `offset`.
const randFloat32 = (seed, offset, i) =>
  Number(philox(seed, offset + BigInt(Math.floor(i / 4)))[i % 4] >> 8n) / 2 ** 24;

test('rand (float32) is Philox4x32-10 of (seed, offset + i / 4), and each draw moves the offset past it', () => {
  const g = new dl.Generator().manualSeed(20260601);
  expect(g.initialSeed()).toBe(20260601n);
  expect(g.offset).toBe(0n);
  const a = dl.rand([10], { generator: g });
  expect(a.dtype).toBe('float32');
  expect(g.offset).toBe(3n); // ceil(10 / 4) counters
  const b = dl.rand([3], { generator: g });
  expect(a.toArray()).toEqual(Array.from({ length: 10 }, (_, i) => randFloat32(20260601n, 0n, i)));
  expect(b.toArray()).toEqual(Array.from({ length: 3 }, (_, i) => randFloat32(20260601n, 3n, i)));
  const big = new dl.Generator().manualSeed((1n << 64n) - 1n);
  expect(dl.rand([2], { generator: big }).toArray()).toEqual([0, 1].map((i) => randFloat32((1n << 64n) - 1n, 0n, i)));
});

test('the same seed gives the same values; manualSeed restarts; the default generator is dl.manualSeed\'s', () => {
  dl.manualSeed(7);
  const first = [dl.rand([5]).toArray(), dl.randn([5]).toArray(), dl.randint(0, 100, [5]).toArray()];
  dl.manualSeed(7);
  expect([dl.rand([5]).toArray(), dl.randn([5]).toArray(), dl.randint(0, 100, [5]).toArray()]).toEqual(first);
  dl.manualSeed(8);
  expect(dl.rand([5]).toArray()).not.toEqual(first[0]);
  const g = new dl.Generator();
  const s = g.seed();
  expect(typeof s).toBe('bigint');
  expect(g.initialSeed()).toBe(s);
});

test('the same values at any thread count', () => {
  const before = dl.getNumThreads();
  const draw = () => {
    const g = new dl.Generator().manualSeed(3);
    return [dl.rand([70001], { generator: g }).toArray(), dl.randn([70001], { dtype: 'float64', generator: g }).toArray(),
      dl.randint(-5, 5, [70001], { generator: g }).toArray(),
      dl.multinomial(dl.tensor([0.2, 0.3, 0.5]), 5000, { replacement: true, generator: g }).toArray()];
  };
  try {
    dl.setNumThreads(1);
    const one = draw();
    dl.setNumThreads(Math.max(2, before));
    expect(draw()).toEqual(one);
  } finally {
    dl.setNumThreads(before);
  }
});

describe.each(['float16', 'bfloat16', 'float32', 'float64'])('%s', (dtype) => {
  test('rand in [0, 1), randn with mean 0 and std 1 (200,000 draws)', () => {
    const g = new dl.Generator().manualSeed(11);
    const u = dl.rand([200000], { dtype, generator: g });
    expect(u.dtype).toBe(dtype);
    const uv = u.toArray();
    expect(uv.reduce((a, b) => Math.min(a, b), 1)).toBeGreaterThanOrEqual(0);
    expect(uv.reduce((a, b) => Math.max(a, b), 0)).toBeLessThan(1);
    expect(uv.reduce((a, b) => a + b, 0) / uv.length).toBeCloseTo(0.5, 2);
    const n = dl.randn([200000], { dtype, generator: g }).toArray();
    const mean = n.reduce((a, b) => a + b, 0) / n.length;
    const sd = Math.sqrt(n.reduce((a, b) => a + (b - mean) ** 2, 0) / n.length);
    expect(Math.abs(mean)).toBeLessThan(0.01);
    expect(Math.abs(sd - 1)).toBeLessThan(0.01);
  });
});

test('randint: [low, high) of int64 (or the dtype asked), every value drawn', () => {
  const g = new dl.Generator().manualSeed(5);
  const r = dl.randint(-3, 4, [7000], { generator: g });
  expect(r.dtype).toBe('int64');
  const seen = new Set(r.toArray().map(Number));
  expect([...seen].sort((a, b) => a - b)).toEqual([-3, -2, -1, 0, 1, 2, 3]);
  const h = dl.randint(10, [100], { dtype: 'uint8', generator: g });
  expect(h.dtype).toBe('uint8');
  expect(h.toArray().every((v) => v < 10)).toBe(true);
  const wide = dl.randint(-(2n ** 62n), 2n ** 62n, [1000], { generator: g }).toArray();
  expect(wide.some((v) => v > 2n ** 61n)).toBe(true);
});

test('multinomial with replacement: frequencies follow the weights (chi-square), zero weights never drawn', () => {
  const g = new dl.Generator().manualSeed(9);
  const w = [1, 0, 2, 3, 4];
  const probs = dl.tensor([w, w.slice().reverse()], { dtype: 'float64' });
  const s = dl.multinomial(probs, 20000, { replacement: true, generator: g });
  expect(s.dtype).toBe('int64');
  expect(s.shape).toEqual([2, 20000]);
  const rows = s.toArray();
  rows.forEach((row, r) => {
    const weights = r === 0 ? w : w.slice().reverse();
    const total = weights.reduce((a, b) => a + b, 0);
    const counts = new Array(5).fill(0);
    for (const v of row) counts[Number(v)]++;
    let chi = 0;
    weights.forEach((x, k) => {
      if (x === 0) expect(counts[k]).toBe(0);
      else chi += (counts[k] - (20000 * x) / total) ** 2 / ((20000 * x) / total);
    });
    expect(chi).toBeLessThan(18.5); // chi-square, 3 degrees of freedom, p = 0.0003
  });
});

test('multinomial without replacement: distinct categories, zero weights never drawn, 1-d gives [numSamples]', () => {
  const g = new dl.Generator().manualSeed(4);
  for (let i = 0; i < 50; i++) {
    const s = dl.multinomial(dl.tensor([0.5, 0, 0.25, 0.25]), 3, { generator: g }).toArray().map(Number);
    expect(s.length).toBe(3);
    expect(new Set(s).size).toBe(3);
    expect(s).not.toContain(1);
  }
  const probs = dl.tensor([0.2, 0.8]);
  expect(probs.multinomial(1, { generator: g }).shape).toEqual([1]);
});

describe('bad input is coded (torch refuses each)', () => {
  test.each([
    ['a row summing to 0', () => dl.multinomial(dl.tensor([[1, 1], [0, 0]]), 1), TypeError, 'ERR_INVALID_ARG_VALUE',
      /row 1/],
    ['a NaN weight', () => dl.multinomial(dl.tensor([1, NaN]), 1), RangeError, 'ERR_OUT_OF_RANGE'],
    ['a negative weight', () => dl.multinomial(dl.tensor([1, -1]), 1), RangeError, 'ERR_OUT_OF_RANGE'],
    ['an infinite weight', () => dl.multinomial(dl.tensor([1, Infinity]), 1), RangeError, 'ERR_OUT_OF_RANGE'],
    ['more samples than categories without replacement', () => dl.multinomial(dl.tensor([1, 1]), 3), RangeError,
      'ERR_OUT_OF_RANGE'],
    ['fewer nonzero weights than samples', () => dl.multinomial(dl.tensor([1, 0, 0]), 2), TypeError,
      'ERR_INVALID_ARG_VALUE'],
    ['0 samples', () => dl.multinomial(dl.tensor([1, 1]), 0), RangeError, 'ERR_OUT_OF_RANGE'],
    ['integer probabilities', () => dl.multinomial(dl.tensor([1, 1], { dtype: 'int32' }), 1), TypeError,
      'ERR_INVALID_ARG_VALUE'],
    ['3-d probabilities', () => dl.multinomial(dl.ones([1, 1, 2]), 1), TypeError, 'ERR_INVALID_ARG_VALUE'],
    ['a generator that is not one', () => dl.rand([2], { generator: {} }), TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['a negative seed', () => dl.manualSeed(-1), RangeError, 'ERR_OUT_OF_RANGE'],
    ['a seed of 2^64', () => dl.manualSeed(1n << 64n), RangeError, 'ERR_OUT_OF_RANGE'],
    ['a fractional seed', () => dl.manualSeed(1.5), RangeError, 'ERR_OUT_OF_RANGE'],
    ['a string seed', () => dl.manualSeed('1'), TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['rand of an integer dtype', () => dl.rand([2], { dtype: 'int32' }), TypeError, 'ERR_INVALID_ARG_VALUE'],
    ['randint with high <= low', () => dl.randint(3, 3, [2]), RangeError, 'ERR_OUT_OF_RANGE'],
    ['randint outside the dtype', () => dl.randint(0, 300, [2], { dtype: 'uint8' }), RangeError, 'ERR_OUT_OF_RANGE'],
    ['a negative size', () => dl.rand([-1]), RangeError, 'ERR_OUT_OF_RANGE'],
  ])('%s', (_, fn, Class, code, ...pattern) => { // (a rest parameter: Jest reads the arity as a done callback)
    expectError(fn, Class, code, pattern[0]);
  });
  test('a refused draw leaves the generator where it was', () => {
    const g = new dl.Generator().manualSeed(1);
    expect(() => dl.multinomial(dl.tensor([0, 0]), 1, { generator: g })).toThrow();
    expect(g.offset).toBe(0n);
  });
});

test('nothing leaked', async () => {
  await collect();
  const before = nativeStats().hostBlocksLive;
  for (let i = 0; i < 20; i++) {
    for (const t of [dl.rand([100]), dl.randn([100]), dl.randint(5, [100]),
      dl.multinomial(dl.tensor([0.5, 0.5]), 10, { replacement: true })]) t.dispose();
    try {
      dl.multinomial(dl.tensor([0, 0]), 1);
    } catch {
      // refused
    }
  }
  await collect();
  expect(nativeStats().hostBlocksLive).toBe(before);
});
