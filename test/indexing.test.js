'use strict';
// gather, indexSelect, take, nonzero, where(condition), maskedFill (docs/API.md
// "Indexing") against torch 2.x and 1.13 (test/pipeline-oracle.js): values
// and result dtypes over dtypes x layouts x int64/int32 indices; an index
// out of range refused with its code, naming the index, nothing written;
// nothing leaked.
const dl = require('../lib');
const { caseSubset, expectError, nativeStats, collect } = require('./helpers');
const { oracles, ask, encode, spec } = require('./pipeline-oracle');

const DTYPES = ['bool', 'uint8', 'int16', 'int32', 'int64', 'float16', 'bfloat16', 'float32', 'float64'];

function valuesFor(dtype, n, seed) {
  let s = seed >>> 0;
  const out = [];
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const r = s / 2 ** 32;
    if (dtype === 'bool') out.push(r < 0.5);
    else if (dtype === 'uint8') out.push(Math.floor(r * 3));
    else if (dtype.startsWith('int')) out.push(Math.floor(r * 5) - 2);
    else out.push(r < 0.3 ? 0 : Math.floor(r * 16) / 4 - 2);
  }
  if (dtype.startsWith('float') || dtype === 'bfloat16') {
    if (n > 3) out[3] = NaN;
    if (n > 5) out[5] = -0;
  }
  return out;
}

function indices(dtype, shape, bound, seed, negative = false) {
  const n = shape.reduce((a, b) => a * b, 1);
  let s = seed >>> 0;
  const out = [];
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const r = Math.floor((s / 2 ** 32) * bound);
    out.push(negative && i % 2 === 1 ? r - bound : r);
  }
  return dl.tensor(out, { dtype, shape });
}

// [name, shape, view]
const INPUTS = [
  ['[3,4]', [3, 4], null],
  ['transposed [4,3]', [3, 4], (t) => t.transpose(0, 1)],
  ['[2,3,4] reversed', [2, 3, 4], (t) => t.slice(2, null, null, -1)],
];

function build(dtype, i, seed = 5) {
  const [, shape, view] = INPUTS[i];
  const n = shape.reduce((a, b) => a * b, 1);
  const base = dl.tensor(valuesFor(dtype, n, seed + i), { dtype, shape });
  if (view === null) return base;
  const t = view(base);
  base.dispose();
  return t;
}

// Every case: { op, make() -> [inputs], kwargs, run(inputs) -> tensors }.
function generate() {
  const cases = [];
  for (const dtype of DTYPES) {
    for (let i = 0; i < INPUTS.length; i++) {
      for (const itype of ['int64', 'int32']) {
        const t0 = build(dtype, i);
        const shape = t0.shape.slice();
        t0.dispose();
        for (const dim of [0, shape.length - 1]) {
          const ishape = shape.map((n, d) => (d === dim ? 5 : Math.max(1, n - 1)));
          cases.push({ op: 'gather', name: `${dtype} ${INPUTS[i][0]} ${itype} dim ${dim}`, kwargs: { dim },
            make: () => [build(dtype, i), indices(itype, ishape, shape[dim], 3 + dim)],
            run: ([t, idx]) => [dl.gather(t, dim, idx)] });
          cases.push({ op: 'indexSelect', name: `${dtype} ${INPUTS[i][0]} ${itype} dim ${dim}`, kwargs: { dim },
            make: () => [build(dtype, i), indices(itype, [4], shape[dim], 9 + dim)],
            run: ([t, idx]) => [t.indexSelect(dim, idx)] });
        }
        const size = shape.reduce((a, b) => a * b, 1);
        cases.push({ op: 'take', name: `${dtype} ${INPUTS[i][0]} ${itype} (negative too)`, kwargs: {},
          make: () => [build(dtype, i), indices(itype, [2, 3], size, 1, true)], run: ([t, idx]) => [t.take(idx)] });
      }
      cases.push({ op: 'nonzero', name: `${dtype} ${INPUTS[i][0]}`, kwargs: {}, make: () => [build(dtype, i)],
        run: ([t]) => [dl.nonzero(t)] });
      if (dtype === 'bool') {
        cases.push({ op: 'where1', name: `${INPUTS[i][0]}`, kwargs: {}, make: () => [build(dtype, i)],
          run: ([t]) => dl.where(t) });
      }
      for (const value of [7, -1.5, true]) {
        // A mask of the last dim, broadcast over the others.
        cases.push({ op: 'maskedFill', name: `${dtype} ${INPUTS[i][0]} value ${value}`, kwargs: { value },
          make: () => {
            const t = build(dtype, i);
            const n = t.shape[t.ndim - 1];
            return [t, dl.tensor(valuesFor('bool', n, 17 + i), { dtype: 'bool' })];
          },
          run: ([t, mask]) => [dl.maskedFill(t, mask, value)] });
      }
    }
  }
  return cases;
}

const CASES = caseSubset(generate()); // all of them natively (test/helpers.js)
const { found, skipped } = oracles();
for (const reason of skipped) console.log(`indexing.test.js: skipping the oracle ${reason}`);

describe.each(found)('against torch under %s', (python) => {
  let answers;
  beforeAll(() => {
    answers = ask(python, CASES.map((c) => {
      const inputs = c.make();
      const specs = inputs.map((t) => {
        const e = encode(t);
        return spec(e.dtype, e.shape, e.values);
      });
      for (const t of inputs) t.dispose();
      return { op: c.op, inputs: specs, kwargs: c.kwargs };
    }));
    console.log(`indexing.test.js: torch ${answers.version} under ${python}`);
  });

  test.each(CASES.map((c, i) => [`${c.op} ${c.name}`, i]))('%s', (_, i) => {
    const c = CASES[i];
    const want = answers.results[i];
    if (want.error !== undefined) return; // this torch lacks the op for the dtype
    const inputs = c.make();
    try {
      const got = c.run(inputs);
      try {
        expect(got.map(encode)).toEqual(want);
      } finally {
        for (const x of got) x.dispose();
      }
    } finally {
      for (const t of inputs) t.dispose();
    }
  });
});

test('maskedFill_ writes in place and returns its input', () => {
  const t = dl.tensor([1, 2, 3, 4], { dtype: 'int32', shape: [2, 2] });
  const mask = dl.tensor([true, false], { dtype: 'bool' });
  expect(t.maskedFill_(mask, 9)).toBe(t);
  expect(t.toArray()).toEqual([[9, 2], [9, 4]]);
});

test('where with three arguments is still the elementwise op', () => {
  const c = dl.tensor([true, false], { dtype: 'bool' });
  expect(dl.where(c, dl.tensor([1, 2]), 0).toArray()).toEqual([1, 0]);
});

test('an index out of range: ERR_OUT_OF_RANGE naming the index and the bound, out left as it was', () => {
  const t = dl.tensor([1, 2, 3, 4, 5, 6], { shape: [2, 3] });
  const out = dl.full([2, 2], -7);
  expectError(() => dl.gather(t, 1, dl.tensor([[0, 1], [3, 0]], { dtype: 'int64' }), { out }), RangeError,
    'ERR_OUT_OF_RANGE', /3/);
  expect(out.toArray()).toEqual([[-7, -7], [-7, -7]]);
  expectError(() => dl.indexSelect(t, 0, dl.tensor([-1], { dtype: 'int32' })), RangeError, 'ERR_OUT_OF_RANGE', /-1/);
  expectError(() => dl.take(t, dl.tensor([6], { dtype: 'int64' })), RangeError, 'ERR_OUT_OF_RANGE', /6/);
  expectError(() => dl.take(t, dl.tensor([-7], { dtype: 'int64' })), RangeError, 'ERR_OUT_OF_RANGE', /-7/);
});

describe('bad input is coded', () => {
  const t = dl.tensor([1, 2, 3, 4], { shape: [2, 2] });
  const i64 = dl.tensor([[0], [1]], { dtype: 'int64' });
  test.each([
    ['a float index', () => dl.gather(t, 0, dl.tensor([[0]])), TypeError, 'ERR_INVALID_ARG_VALUE'],
    ['an int16 index', () => dl.take(t, dl.tensor([0], { dtype: 'int16' })), TypeError, 'ERR_INVALID_ARG_VALUE'],
    ['an index not a tensor', () => dl.take(t, [0]), TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['gather of another rank', () => dl.gather(t, 0, dl.tensor([0], { dtype: 'int64' })), TypeError,
      'ERR_INVALID_ARG_VALUE'],
    ['gather too wide', () => dl.gather(t, 0, dl.zeros([1, 3], { dtype: 'int64' })), TypeError, 'ERR_INVALID_ARG_VALUE'],
    ['a dim out of range', () => dl.gather(t, 2, i64), RangeError, 'ERR_OUT_OF_RANGE'],
    ['a 2-d indexSelect index', () => dl.indexSelect(t, 0, i64), TypeError, 'ERR_INVALID_ARG_VALUE'],
    ['a float mask', () => dl.maskedFill(t, dl.ones([2]), 1), TypeError, 'ERR_INVALID_ARG_VALUE'],
    ['a mask that does not broadcast', () => dl.maskedFill(t, dl.ones([3], { dtype: 'bool' }), 1), TypeError,
      'ERR_INVALID_ARG_VALUE'],
    ['a string value', () => dl.maskedFill(t, dl.ones([2], { dtype: 'bool' }), '1'), TypeError, 'ERR_INVALID_ARG_TYPE'],
    ['a complex nonzero', () => dl.nonzero(dl.zeros([2], { dtype: 'complex64' })), TypeError, 'ERR_INVALID_ARG_VALUE'],
    ['an unknown option', () => dl.take(t, i64, { outt: null }), TypeError, 'ERR_INVALID_ARG_VALUE'],
  ])('%s', (_, fn, Class, code) => {
    expectError(fn, Class, code);
  });
});

test('nothing leaked', async () => {
  await collect();
  const before = nativeStats().hostBlocksLive;
  for (let i = 0; i < 20; i++) {
    const t = dl.tensor(valuesFor('float32', 60, i), { shape: [6, 10] });
    const idx = indices('int64', [6, 3], 10, i);
    const results = [dl.gather(t, 1, idx), dl.take(t, idx), dl.nonzero(t), ...dl.where(dl.gt(t, 0)),
      dl.maskedFill(t, dl.gt(t, 0), 0)];
    for (const r of results) r.dispose();
    try {
      dl.take(t, dl.tensor([99], { dtype: 'int64' }));
    } catch {
      // refused: nothing it allocated stays
    }
    t.dispose();
    idx.dispose();
  }
  await collect();
  expect(nativeStats().hostBlocksLive).toBe(before);
});
