'use strict';
// dl.ones, dl.full, dl.arange, the *Like forms and t.fill_ / t.zero_ (docs/API.md "Creating
// tensors", "Tensor"): values over every dtype, fills into strided views that
// leave the rest of the memory alone, and arange against torch.arange
// (PyTorch 1.13, /usr/bin/python3 or DLPACK_TEST_PYTHON) where it is there.
// The misuses are docs/errors.md rows C17-C24, T12 and T22 (test/bad-input/).
const { spawnSync } = require('child_process');
const dl = require('../lib');

const PYTHON = process.env.DLPACK_TEST_PYTHON || '/usr/bin/python3';
const torchWhy = (() => {
  const probe = spawnSync(PYTHON, ['-c', 'import torch'], { encoding: 'utf8', timeout: 60000 });
  if (probe.error) return `${PYTHON} cannot run (${probe.error.code})`;
  return probe.status === 0 ? null : `${PYTHON} cannot import torch`;
})();
const withTorch = torchWhy === null ? test : test.skip;
if (torchWhy !== null) console.log(`arange against torch.arange skipped: ${torchWhy}`);

const caps = dl.capabilities().cuda;
const withGpu = caps.available ? test : test.skip;
if (!caps.available) console.log(`full/fill_ on a CUDA device skipped: ${caps.reason}`);

const REAL = ['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'float16',
  'bfloat16', 'float32', 'float64'];

describe('ones and full', () => {
  test.each(REAL)('ones of %s is 1 everywhere', (dtype) => {
    const t = dl.ones([2, 3], { dtype });
    expect([t.dtype, t.shape]).toEqual([dtype, [2, 3]]);
    const one = dtype === 'bool' ? true : dtype.endsWith('int64') ? 1n : 1;
    expect(t.toArray()).toEqual([[one, one, one], [one, one, one]]);
  });

  test('complex ones are 1 + 0i, and full takes an [re, im] pair', () => {
    expect(dl.ones([2], { dtype: 'complex64' }).toArray()).toEqual([[1, 0], [1, 0]]);
    expect(dl.full([1, 2], [0.5, -2], { dtype: 'complex128' }).toArray()).toEqual([[[0.5, -2], [0.5, -2]]]);
    expect(dl.full([2], 3, { dtype: 'complex64' }).toArray()).toEqual([[3, 0], [3, 0]]);
  });

  test('full infers the dtype as dl.tensor does, and converts by its rules', () => {
    expect([dl.full([2], 0.25).dtype, dl.full([2], true).dtype, dl.full([2], 5n).dtype])
      .toEqual(['float32', 'bool', 'int64']);
    expect(dl.full([3], 2.7, { dtype: 'int32' }).toArray()).toEqual([2, 2, 2]); // toward zero
    expect(dl.full([2], -2.7, { dtype: 'int8' }).toArray()).toEqual([-2, -2]);
    expect(dl.full([2], 2n ** 63n - 1n).toArray()).toEqual([2n ** 63n - 1n, 2n ** 63n - 1n]);
    expect(dl.full([1], 0.1, { dtype: 'float16' }).toArray())
      .toEqual(dl.tensor([0.1], { dtype: 'float16' }).toArray());
    expect(dl.full([2], NaN).toArray().every(Number.isNaN)).toBe(true);
    expect(dl.full([], -0).toArray()).toBe(-0);
    expect(dl.full([0, 4], 9).shape).toEqual([0, 4]);
    expect(dl.full(3, true, { dtype: 'float64' }).toArray()).toEqual([1, 1, 1]);
  });

  test('shared: true gives memory another process can map, filled', () => {
    const t = dl.full([4], 7, { dtype: 'int16', shared: true });
    expect(t.toArray()).toEqual([7, 7, 7, 7]);
    const seen = dl.open(t.share());
    expect(seen.toArray()).toEqual([7, 7, 7, 7]);
    seen.dispose();
  });
});

describe('the *Like forms', () => {
  test('input\'s shape, dtype and device; row-major whatever its strides', () => {
    const input = dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'int16' }).transpose(0, 1);
    for (const made of [dl.emptyLike(input), dl.zerosLike(input), dl.onesLike(input), dl.fullLike(input, 9)]) {
      expect([made.shape, made.dtype, String(made.device), made.isContiguous]).toEqual([[3, 2], 'int16', 'cpu', true]);
    }
    expect(dl.zerosLike(input).toArray()).toEqual([[0, 0], [0, 0], [0, 0]]);
    expect(dl.onesLike(input).toArray()).toEqual([[1, 1], [1, 1], [1, 1]]);
    expect(input.toArray()).toEqual([[1, 4], [2, 5], [3, 6]]); // untouched
  });

  test('fullLike takes input\'s dtype, not the value\'s; options override', () => {
    const ints = dl.zeros([2], { dtype: 'int32' });
    expect(dl.fullLike(ints, 2.7).toArray()).toEqual([2, 2]);
    expect(dl.fullLike(ints, 2.7, { dtype: 'float64' }).toArray()).toEqual([2.7, 2.7]);
    expect(dl.onesLike(ints, { dtype: 'bool' }).toArray()).toEqual([true, true]);
    expect(() => dl.fullLike(dl.zeros([2], { dtype: 'uint8' }), 256)).toThrow(RangeError);
    const shared = dl.zerosLike(ints, { shared: true });
    expect(dl.open(shared.share()).toArray()).toEqual([0, 0]);
  });
});

describe('fill_ and zero_', () => {
  test('fill_ writes every element of a strided view and nothing else', () => {
    const base = dl.tensor(Array.from({ length: 24 }, (_, i) => i), { dtype: 'int32' }).view([4, 6]);
    const view = base.slice(0, 1, 4, 2).slice(1, null, null, -2); // rows 1 and 3, every other column reversed
    expect(view.fill_(-1)).toBe(view);
    const want = Array.from({ length: 24 }, (_, i) => i);
    for (const r of [1, 3]) for (const c of [5, 3, 1]) want[r * 6 + c] = -1;
    expect(Array.from(base.data)).toEqual(want);
    base.transpose(0, 1).narrow(0, 2, 1).zero_(); // column 2
    for (let r = 0; r < 4; r++) want[r * 6 + 2] = 0;
    expect(Array.from(base.data)).toEqual(want);
  });

  test('fill_ converts to the tensor\'s dtype and returns it', () => {
    const f16 = dl.empty([3], { dtype: 'float16' }).fill_(1 / 3);
    expect(f16.toArray()).toEqual(dl.tensor([1 / 3, 1 / 3, 1 / 3], { dtype: 'float16' }).toArray());
    expect(dl.zeros([2], { dtype: 'uint64' }).fill_(2n ** 64n - 1n).toArray()).toEqual([2n ** 64n - 1n, 2n ** 64n - 1n]);
    expect(dl.zeros([2], { dtype: 'bool' }).fill_(2).toArray()).toEqual([true, true]);
    expect(dl.zeros([2], { dtype: 'complex64' }).fill_([1, 2]).toArray()).toEqual([[1, 2], [1, 2]]);
    expect(dl.zeros([]).fill_(4).item()).toBe(4);
    expect(dl.zeros([0]).fill_(4).shape).toEqual([0]);
  });

  test('two tensors over one buffer see the fill', () => {
    const ab = new ArrayBuffer(32);
    const a = dl.fromBuffer(ab, { dtype: 'float32' });
    const b = dl.fromBuffer(ab, { dtype: 'float32', offset: 8, count: 4 });
    b.fill_(3);
    expect(Array.from(a.data)).toEqual([0, 0, 3, 3, 3, 3, 0, 0]);
  });

  test('{ async: true } resolves to the tensor once filled, the value checked at the call', async () => {
    const t = dl.zeros([1 << 20]);
    const pending = t.fill_(2.5, { async: true });
    expect(typeof pending.then).toBe('function');
    expect(await pending).toBe(t);
    expect(t.data.every((v) => v === 2.5)).toBe(true);
    expect(await t.zero_({ async: true })).toBe(t);
    expect(t.data.every((v) => v === 0)).toBe(true);
    expect(() => dl.zeros([2], { dtype: 'uint8' }).fill_(300, { async: true })).toThrow(RangeError);
  });
});

describe('arange', () => {
  test('the forms, the dtype rule and exact bigints', () => {
    expect(dl.arange(4).toArray()).toEqual([0, 1, 2, 3]);
    expect(dl.arange(4).dtype).toBe('float32');
    expect(dl.arange(2, 5).toArray()).toEqual([2, 3, 4]);
    expect(dl.arange(1, 2, 0.25, { dtype: 'float64' }).toArray()).toEqual([1, 1.25, 1.5, 1.75]);
    expect(dl.arange(10, 0, -3, { dtype: 'int32' }).toArray()).toEqual([10, 7, 4, 1]);
    const big = dl.arange(2n ** 62n, 2n ** 62n + 7n, 3n);
    expect([big.dtype, big.toArray()]).toEqual(['int64', [2n ** 62n, 2n ** 62n + 3n, 2n ** 62n + 6n]]);
    expect(dl.arange(-3n, 4n, 2n).toArray()).toEqual([-3n, -1n, 1n, 3n]);
    expect(dl.arange(5n, { dtype: 'float32' }).toArray()).toEqual([0, 1, 2, 3, 4]);
    expect(dl.arange(0, 3n).dtype).toBe('float32'); // a number among the bounds: float32
    expect(dl.arange(0, 10, 3, { dtype: 'uint64' }).toArray()).toEqual([0n, 3n, 6n, 9n]);
    expect(dl.arange(3, 3).shape).toEqual([0]);
    expect(dl.arange(0).shape).toEqual([0]);
    expect(dl.arange(-128, 128, 85, { dtype: 'int8' }).toArray()).toEqual([-128, -43, 42, 127]);
  });

  test('each value is start + i * step in double, rounded once', () => {
    const t = dl.arange(-3.7, 9.1, 0.77, { dtype: 'float64' });
    const want = Array.from({ length: Math.ceil((9.1 + 3.7) / 0.77) }, (_, i) => -3.7 + i * 0.77);
    expect(t.toArray()).toEqual(want);
    const f = dl.arange(5, -5, -0.3);
    expect(f.size).toBe(Math.ceil(-10 / -0.3));
    expect(Array.from(f.data)).toEqual(Array.from(new Float32Array(f.size).map((_, i) => 5 + i * -0.3)));
    expect(f.data[10]).toBe(2); // torch's float32 vector arithmetic gives 1.9999999 here
  });

  withTorch('agrees with torch.arange: the same count, values to 2^-22 of the largest bound', () => {
    const cases = [
      [[0, 1, 0.1], 'float32'], [[1, 2, 0.3], 'float32'], [[-3.7, 9.1, 0.77], 'float64'], [[0, 5, 1.5], 'float32'],
      [[0, 10, 0.1], 'float16'], [[1e6, 1e6 + 10, 0.7], 'float32'], [[5, -5, -0.3], 'float32'],
      [[0, 1, 0.1], 'bfloat16'], [[-7, 100, 3], 'int8'], [[0.1, 1e7, 333.3], 'float32'], [[17], 'int64'],
      [[-1000, 1000, 7], 'int16'], [[2.5, -2.5, -0.125], 'float64'],
    ];
    const script = `import json, sys, torch
out = []
for args, dtype in json.loads(sys.argv[1]):
    out.append(torch.arange(*args, dtype=getattr(torch, dtype)).double().tolist())
print(json.dumps(out))`;
    const run = spawnSync(PYTHON, ['-c', script, JSON.stringify(cases)], { encoding: 'utf8', timeout: 120000 });
    if (run.status !== 0) throw new Error(`torch failed (${run.status} ${run.signal}): ${run.stderr}`);
    const want = JSON.parse(run.stdout);
    cases.forEach(([args, dtype], k) => {
      const got = dl.arange(...args, { dtype }).to('float64').toArray();
      expect([args, dtype, got.length]).toEqual([args, dtype, want[k].length]);
      const scale = Math.max(...args.slice(0, 2).map(Math.abs), 1);
      const tolerance = dtype === 'float16' || dtype === 'bfloat16' ? scale * 2 ** -7 : scale * 2 ** -22;
      got.forEach((v, i) => {
        if (Math.abs(v - want[k][i]) > tolerance) throw new Error(`${dtype} ${args}: [${i}] ${v} vs ${want[k][i]}`);
      });
    });
  });
});

describe('on a CUDA device', () => {
  withGpu('full, ones, fill_ and arange fill device memory', () => {
    const t = dl.full([3, 4], 2.5, { device: 'cuda' });
    expect(t.device.type).toBe('cuda');
    expect(t.cpu().toArray()).toEqual([[2.5, 2.5, 2.5, 2.5], [2.5, 2.5, 2.5, 2.5], [2.5, 2.5, 2.5, 2.5]]);
    t.transpose(0, 1).narrow(0, 1, 2).fill_(-1);
    expect(t.cpu().toArray()).toEqual([[2.5, -1, -1, 2.5], [2.5, -1, -1, 2.5], [2.5, -1, -1, 2.5]]);
    expect(dl.ones([2], { dtype: 'int64', device: 'cuda' }).cpu().toArray()).toEqual([1n, 1n]);
    expect(dl.arange(0, 6, 2, { device: 'cuda', dtype: 'int32' }).cpu().toArray()).toEqual([0, 2, 4]);
  });
});
