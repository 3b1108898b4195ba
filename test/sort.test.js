'use strict';
// sort, argsort, cumsum, cumprod (docs/API.md "Sorting and scans") against
// torch 2.x and 1.13 (test/pipeline-oracle.js): values and result dtypes over
// dtypes x layouts (contiguous, permuted, reversed, 0-size, 0-d, NaN and
// infinities) x dims; the same results at any thread count; bad input coded;
// nothing leaked.
const dl = require('../lib');
const { caseSubset, expectError, nativeStats, collect } = require('./helpers');
const { oracles, ask, encode, spec } = require('./pipeline-oracle');

const DTYPES = ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'bfloat16', 'float32', 'float64'];
const FLOATS = ['float16', 'bfloat16', 'float32', 'float64'];

function valuesFor(dtype, n, seed) {
  let s = seed >>> 0;
  const out = [];
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const r = s / 2 ** 32;
    if (dtype === 'bool') out.push(r < 0.5);
    else if (dtype === 'uint8') out.push(Math.floor(r * 5));
    else if (dtype.startsWith('int')) out.push(Math.floor(r * 7) - 3);
    else out.push(Math.floor(r * 16) / 4 - 2);
  }
  if (FLOATS.includes(dtype) && n >= 7) {
    out[1] = NaN;
    out[4] = Infinity;
    out[n - 2] = -Infinity;
    out[3] = -0;
  }
  return out;
}

// [name, shape, view]
const INPUTS = [
  ['[3,4,5]', [3, 4, 5], null],
  ['permuted', [3, 4, 5], (t) => t.permute(2, 0, 1)],
  ['reversed', [4, 6], (t) => t.slice(1, null, null, -1)],
  ['[9]', [9], null],
  ['0-size', [2, 0, 3], null],
  ['0-d', [], null],
];

// An out tensor of `shape` and `dtype` filled with -7, a transposed view
// (its dims reversed) where it has two or more: torch's out= writes any
// strided tensor of the right shape.
function outFor(shape, dtype) {
  const reversed = shape.slice().reverse();
  const base = dl.full(reversed, -7, { dtype });
  return shape.length < 2 ? base : base.permute(...shape.map((_, i) => shape.length - 1 - i));
}

function build(dtype, i) {
  const [, shape, view] = INPUTS[i];
  const n = shape.reduce((a, b) => a * b, 1);
  const base = dl.tensor(valuesFor(dtype, n, 11 + i), { dtype, shape });
  if (view === null) return { t: base, dispose: () => base.dispose() };
  const t = view(base);
  return { t, dispose: () => { t.dispose(); base.dispose(); } };
}

// Every case: { op, dtype, input, kwargs, run(t) -> tensors }.
function generate() {
  const cases = [];
  for (const dtype of DTYPES) {
    for (let i = 0; i < INPUTS.length; i++) {
      const ndim = INPUTS[i][1].length;
      const dims = ndim === 0 ? [0, -1] : [0, -1, ...(ndim > 2 ? [1] : [])];
      for (const dim of dims) {
        for (const descending of [false, true]) {
          cases.push({ op: 'sort', dtype, input: i, kwargs: { dim, descending },
            run: (t) => { const r = dl.sort(t, dim, { descending }); return [r.values, r.indices]; } });
          cases.push({ op: 'argsort', dtype, input: i, kwargs: { dim, descending },
            run: (t) => [t.argsort({ dim, descending })] });
        }
        if (dtype === 'float32' || dtype === 'int64' || dtype === 'bfloat16') {
          // { out }: the same answers as torch's, written into (transposed) outs that are returned.
          const descending = dim === 0;
          cases.push({ op: 'sort', dtype, input: i, kwargs: { dim, descending }, run: (t) => {
            const out = [outFor(t.shape, dtype), outFor(t.shape, 'int64')];
            const r = dl.sort(t, dim, { descending, out });
            expect(r.values).toBe(out[0]);
            expect(r.indices).toBe(out[1]);
            return out;
          } });
          cases.push({ op: 'argsort', dtype, input: i, kwargs: { dim, descending }, run: (t) => {
            const out = outFor(t.shape, 'int64');
            expect(t.argsort(dim, { descending, out })).toBe(out);
            return [out];
          } });
        }
        for (const op of ['cumsum', 'cumprod']) {
          cases.push({ op, dtype, input: i, kwargs: { dim }, run: (t) => [dl[op](t, dim)] });
        }
        if (dtype === 'int32' || dtype === 'float16') {
          // (float to int64 would convert NaN and infinities, which C++ leaves undefined)
          for (const to of dtype === 'int32' ? ['float64', 'int64', 'float32'] : ['float64', 'float32']) {
            cases.push({ op: 'cumsum', dtype, input: i, kwargs: { dim, dtype: to },
              run: (t) => [t.cumsum(dim, { dtype: to })] });
          }
        }
      }
    }
  }
  return cases;
}

const CASES = caseSubset(generate()); // all of them natively (test/helpers.js)
const { found, skipped } = oracles();
for (const reason of skipped) console.log(`sort.test.js: skipping the oracle ${reason}`);

describe.each(found)('against torch under %s', (python) => {
  let answers;
  beforeAll(() => {
    answers = ask(python, CASES.map((c) => {
      const [, shape] = INPUTS[c.input];
      const n = shape.reduce((a, b) => a * b, 1);
      const { t, dispose } = build(c.dtype, c.input);
      const input = encode(t);
      dispose();
      void n;
      return { op: c.op, inputs: [spec(input.dtype, input.shape, input.values)], kwargs: c.kwargs };
    }));
    console.log(`sort.test.js: torch ${answers.version} under ${python}`);
  });

  test.each(CASES.map((c, i) => [`${c.op} ${c.dtype} ${INPUTS[c.input][0]} ${JSON.stringify(c.kwargs)}`, i]))(
    '%s', (_, i) => {
      const c = CASES[i];
      const want = answers.results[i];
      const { t, dispose } = build(c.dtype, c.input);
      try {
        // Where this torch lacks the op for the dtype (1.13: cumprod of float16), there is nothing to compare.
        if (want.error !== undefined) return;
        const got = c.run(t);
        try {
          expect(got.map(encode)).toEqual(want);
        } finally {
          for (const x of got) x.dispose();
        }
      } finally {
        dispose();
      }
    });
});

test('every sort is stable, ascending and descending (ties keep their order)', () => {
  const t = dl.tensor([2, 1, 2, 1, 2, 1], { dtype: 'int32' });
  expect(t.argsort().toArray()).toEqual([1n, 3n, 5n, 0n, 2n, 4n]);
  expect(t.argsort({ descending: true }).toArray()).toEqual([0n, 2n, 4n, 1n, 3n, 5n]);
});

test('the same results at any thread count', () => {
  const before = dl.getNumThreads();
  const x = dl.tensor(valuesFor('float32', 64 * 257, 3), { shape: [64, 257] });
  const run = () => [x.sort(1).values.toArray(), x.cumsum(1).toArray(), x.cumprod(0).toArray()];
  try {
    dl.setNumThreads(1);
    const one = run();
    dl.setNumThreads(Math.max(2, before));
    expect(run()).toEqual(one);
  } finally {
    dl.setNumThreads(before);
  }
});

test('{ out } of cumsum: the result written there (converted), out returned', () => {
  const x = dl.tensor([1, 2, 3], { dtype: 'int32' });
  const out = dl.zeros([3], { dtype: 'float64' });
  expect(dl.cumsum(x, 0, { out })).toBe(out);
  expect(out.toArray()).toEqual([1, 3, 6]);
  expectError(() => dl.cumsum(x, 0, { out: dl.zeros([4]) }), TypeError, 'ERR_INVALID_ARG_VALUE', /shape \[3\]/);
});

test('{ out } of sort and argsort: the non-out results written there, the outs returned', () => {
  const x = dl.tensor(valuesFor('float32', 12, 5), { shape: [3, 4] });
  const want = x.sort(1, { descending: true });
  const values = dl.zeros([4, 3]).permute(1, 0);
  const indices = dl.zeros([4, 3], { dtype: 'int64' }).permute(1, 0);
  const r = x.sort(1, { descending: true, out: [values, indices] });
  expect(r.values).toBe(values);
  expect(r.indices).toBe(indices);
  expect(values.toArray()).toEqual(want.values.toArray());
  expect(indices.toArray()).toEqual(want.indices.toArray());
  const order = dl.full([3, 4], -1, { dtype: 'int64' });
  expect(dl.argsort(x, { dim: 0, out: order })).toBe(order);
  expect(order.toArray()).toEqual(x.argsort(0).toArray());
});

test('{ out } of sort that is the input itself: read before it is written', () => {
  const x = dl.tensor([3, 1, 2, 1], { dtype: 'int64' });
  const indices = dl.zeros([4], { dtype: 'int64' });
  x.sort({ out: [x, indices] });
  expect(x.toArray()).toEqual([1n, 1n, 2n, 3n]);
  expect(indices.toArray()).toEqual([1n, 3n, 2n, 0n]);
  const y = dl.tensor([[3, 1], [2, 0]], { dtype: 'int64' });
  y.argsort(1, { out: y.permute(1, 0) }); // the out overlaps the input, transposed
  expect(y.toArray()).toEqual([[1n, 1n], [0n, 0n]]);
});

test('{ out } refused before anything is written', () => {
  const x = dl.tensor([[2, 1], [0, 3]]);
  const values = dl.full([2, 2], -1);
  const indices = dl.full([2, 2], -1, { dtype: 'int64' });
  expectError(() => x.sort({ out: [values, dl.zeros([2, 2], { dtype: 'int32' })] }), TypeError,
    'ERR_INVALID_ARG_VALUE', /int64 for `options.out\[1\]`.*int32/);
  expectError(() => x.sort({ out: [values, dl.zeros([2, 3], { dtype: 'int64' })] }), TypeError,
    'ERR_INVALID_ARG_VALUE', /shape \[2, 2\] for `options.out\[1\]`/);
  expectError(() => x.sort({ out: [dl.zeros([2, 2], { dtype: 'float64' }), indices] }), TypeError,
    'ERR_INVALID_ARG_VALUE', /float32 for `options.out\[0\]`/);
  expectError(() => x.sort({ out: [values] }), TypeError, 'ERR_INVALID_ARG_VALUE', /`options.out`/);
  expectError(() => x.sort({ out: values }), TypeError, 'ERR_INVALID_ARG_TYPE', /`options.out`/);
  expectError(() => x.sort({ out: [values, undefined] }), TypeError, 'ERR_INVALID_ARG_TYPE', /`options.out\[1\]`/);
  expectError(() => x.argsort({ out: dl.zeros([2, 2], { dtype: 'int32' }) }), TypeError, 'ERR_INVALID_ARG_VALUE',
    /int64 for `options.out`/);
  const both = dl.zeros([2, 2, 2], { dtype: 'int64' });
  expectError(() => both.select(0, 0).sort({ out: [both.select(0, 1), both.select(0, 1)] }), dl.DLPackError,
    'ERR_DLPACK_UNSUPPORTED', /share memory/);
  expect(values.toArray()).toEqual([[-1, -1], [-1, -1]]);
  expect(indices.toArray()).toEqual([[-1n, -1n], [-1n, -1n]]);
});

describe('bad input is coded', () => {
  const x = dl.tensor([1, 2, 3]);
  test.each([
    ['not a tensor', () => dl.sort([1, 2]), TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['a dim out of range', () => dl.sort(x, 1), RangeError, 'ERR_OUT_OF_RANGE'],
    ['a fractional dim', () => dl.argsort(x, 0.5), RangeError, 'ERR_OUT_OF_RANGE'],
    ['a dim of the wrong type', () => dl.sort(x, '0'), TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['the dim twice', () => dl.sort(x, 0, { dim: 0 }), TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['descending not a boolean', () => dl.sort(x, { descending: 1 }), TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['an unknown option', () => dl.sort(x, { decending: true }), TypeError, 'ERR_INVALID_ARG_VALUE'],
    ['complex', () => dl.sort(dl.zeros([2], { dtype: 'complex64' })), TypeError, 'ERR_INVALID_ARG_VALUE'],
    ['cumsum without a dim', () => dl.cumsum(x), TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['cumsum to a complex dtype', () => dl.cumsum(x, 0, { dtype: 'complex64' }), RangeError, 'ERR_OUT_OF_RANGE'],
    ['a disposed input', () => { const y = dl.tensor([1]); y.dispose(); return dl.sort(y); }, dl.DLPackError,
      'ERR_DLPACK_DISPOSED'],
  ])('%s', (_, fn, Class, code) => {
    expectError(fn, Class, code);
  });
});

test('nothing leaked: results freed once (those copied into { out } too), inputs untouched', async () => {
  await collect();
  const before = nativeStats().hostBlocksLive;
  for (let i = 0; i < 20; i++) {
    const x = dl.tensor(valuesFor('float32', 300, i), { shape: [30, 10] });
    const { values, indices } = x.sort(0, { descending: true });
    const c = x.cumsum(1);
    // { out }: the results computed aside are freed once they are copied.
    const outs = [dl.empty([30, 10]), dl.empty([30, 10], { dtype: 'int64' })];
    x.sort(0, { out: outs });
    x.argsort(1, { out: outs[1] });
    for (const o of outs) o.dispose();
    values.dispose();
    indices.dispose();
    c.dispose();
    x.dispose();
  }
  await collect();
  expect(nativeStats().hostBlocksLive).toBe(before);
});
