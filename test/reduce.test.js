'use strict';
// Reductions, softmax and topk (docs/API.md "Reductions") against torch 1.13
// as the oracle (test/fixtures/reduce_oracle.py), generated over dtypes x
// inputs (contiguous, permuted, reversed, narrowed, broadcast, 0-size, 0-d)
// x dims x keepdim; and the rules torch leaves open (ties, NaN order, the
// same bits for any thread count). Bad input: docs/errors.md R rows
// (test/bad-input/r-reduce.test.js).
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { isDeepStrictEqual } = require('util');
const dl = require('../lib');
const { PYTHON } = require('./helpers');

const ALL = Object.keys(dl.dtypes);
const FLOATS = ['float16', 'bfloat16', 'float32', 'float64'];
const COMPLEX = ['complex64', 'complex128'];

// Deterministic values: small integers (many ties) for every dtype, quarter
// steps for floats (exact in bfloat16), pairs for complex.
function valuesFor(dtype, n, seed, special = false) {
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const out = [];
  for (let i = 0; i < n; i++) {
    const r = next();
    if (dtype === 'bool') out.push(r < 0.5);
    else if (dtype.startsWith('uint')) out.push(Math.floor(r * 12));
    else if (dtype.startsWith('int')) out.push(Math.floor(r * 12) - 6);
    else if (COMPLEX.includes(dtype)) out.push([Math.floor(r * 40) / 4 - 5, Math.floor(next() * 40) / 4 - 5]);
    else out.push(Math.floor(r * 40) / 4 - 5);
  }
  if (special && FLOATS.includes(dtype) && n >= 7) {
    out[2] = NaN;
    out[5] = Infinity;
    out[n - 1] = -Infinity;
  }
  return out;
}

// [name, base shape, views, special values]: views as [method, args] for
// dlpack; 'flip' is dlpack's slice(dim, null, null, -1) (a negative stride).
const INPUTS = [
  ['contiguous [3,4,5]', [3, 4, 5], [], false],
  ['permuted [5,3,4]', [3, 4, 5], [['permute', [2, 0, 1]]], false],
  ['reversed dim 1', [3, 4, 5], [['flip', [1]]], false],
  ['transposed, narrowed [3,6]', [6, 5], [['transpose', [0, 1]], ['narrow', [0, 1, 3]]], false],
  ['broadcast [3,4] (stride 0)', [1, 4], [['expand', [3, 4]]], false],
  ['0-size [2,0,3]', [2, 0, 3], [], false],
  ['0-d', [], [], false],
  ['1-d [9] with NaN and infinities', [9], [], true],
  ['[4,9] reversed, with NaN and infinities', [4, 9], [['flip', [0]]], true],
];

const REDUCE_DIMS = [undefined, 0, -1, [0, -1], [], [-1, 0]];
const build = (dtype, i) => {
  const [, shape, views, special] = INPUTS[i];
  const n = shape.reduce((a, b) => a * b, 1);
  let t = dl.tensor(n === 0 ? [] : valuesFor(dtype, n, 7 + i, special), { dtype, shape });
  for (const [m, args] of views) t = m === 'flip' ? t.slice(args[0], null, null, -1) : t[m](...args);
  return t;
};
const json = (v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);
const spec = (dtype, i) => {
  const [, shape, views, special] = INPUTS[i];
  const n = shape.reduce((a, b) => a * b, 1);
  const values = n === 0 ? [] : valuesFor(dtype, n, 7 + i, special);
  return { dtype, shape, views, values: values.map((v) => (Array.isArray(v) ? v.map(json) : json(v))) };
};

// Every case: [dtype, input index, op, args, options].
function generate() {
  const cases = [];
  for (const dtype of ALL) {
    for (let i = 0; i < INPUTS.length; i++) {
      const ndim = INPUTS[i][1].length === 0 ? 0 : build(dtype, i).ndim;
      const dims = ndim === 0 ? [undefined, 0, -1, []] : REDUCE_DIMS.filter((d) => !Array.isArray(d) || ndim > 1 ||
        d.length < 2);
      // torch checks a dtype only where a kernel runs (elements, more than a 0-d
      // copy); dlpack always does: those edge cases of refused dtypes are left out.
      const edge = INPUTS[i][1].includes(0) || ndim === 0;
      const refused = (op) => (COMPLEX.includes(dtype) && op !== 'sum' && op !== 'mean') ||
        (!FLOATS.includes(dtype) && (op === 'softmax' || op === 'logSoftmax'));
      const keep = (op) => !(edge && refused(op));
      for (const op of ['sum', 'mean', 'amax', 'amin'].filter(keep)) {
        for (const dim of dims) {
          for (const keepdim of [false, true]) cases.push([dtype, i, op, dim === undefined ? [] : [dim], { keepdim }]);
        }
      }
      if (dtype === 'int32' || dtype === 'bool') cases.push([dtype, i, 'mean', [], { dtype: 'float64' }]);
      const single = ndim === 0 ? [0, -1] : [0, ndim - 1, -1];
      for (const op of ['max', 'min', 'argmax', 'argmin'].filter(keep)) {
        for (const dim of single) {
          for (const keepdim of [false, true]) cases.push([dtype, i, op, [dim], { keepdim }]);
        }
      }
      if (keep('max')) {
        cases.push([dtype, i, 'argmax', [], {}], [dtype, i, 'argmin', [], { keepdim: true }], [dtype, i, 'max', [], {}]);
      }
      for (const op of ['softmax', 'logSoftmax'].filter(keep)) {
        for (const dim of single) cases.push([dtype, i, op, [dim], {}]);
        if (dtype === 'int64') cases.push([dtype, i, op, [-1], { dtype: 'float32' }]);
      }
      for (const dim of keep('topk') ? single : []) {
        const size = ndim === 0 ? 1 : build(dtype, i).shape.at(dim);
        for (const k of new Set([0, 1, Math.min(3, size), size])) {
          for (const largest of [true, false]) cases.push([dtype, i, 'topk', [k, dim], { largest }]);
        }
      }
    }
  }
  return cases;
}

function runOracle(cases) {
  if (!fs.existsSync(PYTHON)) return { skip: `${PYTHON} is absent` };
  const inputs = [];
  const index = new Map();
  for (const [dtype, i] of cases) {
    const key = `${dtype}/${i}`;
    if (!index.has(key)) {
      index.set(key, inputs.length);
      inputs.push(spec(dtype, i));
    }
  }
  const request = { inputs, cases: cases.map(([dtype, i, op, args, options]) => [index.get(`${dtype}/${i}`), op, args,
    options]) };
  const child = spawnSync(PYTHON, [path.join(__dirname, 'fixtures', 'reduce_oracle.py')],
    { input: JSON.stringify(request), encoding: 'utf8', timeout: 180000, maxBuffer: 256 << 20 });
  // A child that dies or hangs fails the suite at once.
  if (child.status !== 0) throw new Error(`reduce oracle failed (${child.signal || child.status}): ${child.stderr}`);
  const results = JSON.parse(child.stdout);
  return Array.isArray(results) ? { results } : { skip: `${PYTHON} has ${results.skip}` };
}

const CASES = generate();
const oracle = runOracle(CASES);
if (oracle.skip) console.log(`reduce.test.js: torch oracle skipped: ${oracle.skip}`);
const itOracle = oracle.skip ? it.skip : it;

const flat = (v) => (Array.isArray(v) ? v.flatMap(flat) : [v]);
const num = (v) => (typeof v === 'string' ? Number(v) : typeof v === 'bigint' ? Number(v) : v === true ? 1 :
  v === false ? 0 : v);
// Relative tolerance of a float result (sums and softmax are not bit-equal to
// torch's, whose vectorised order differs): a few units in the last place.
const TOLERANCE = { float16: 2e-3, bfloat16: 1.6e-2, float32: 2e-6, float64: 1e-14, complex64: 2e-6,
  complex128: 1e-14 };

// Each difference from torch goes into `problems` (with the case and the
// element), which a test checks once: an expect() per element compared cost
// more than the comparisons (Jest makes an error with a stack for each).
function close(problems, got, want, tol, what) {
  const g = flat(got).map(num);
  const w = flat(want).map(num);
  if (g.length !== w.length) {
    problems.push({ what, length: g.length, want: w.length });
    return;
  }
  for (let j = 0; j < g.length; j++) {
    const a = g[j];
    const b = w[j];
    const differs = Number.isNaN(b) || !Number.isFinite(b) || tol === 0 ? !Object.is(a, b) && !(a === 0 && b === 0) :
      Math.abs(a - b) > tol * Math.max(1, Math.abs(b));
    if (differs) problems.push({ what, at: j, got: a, want: b });
  }
}

// The dtype torch would give; uint16/32/64 are computed as int64 there.
function wantDtype(dtype, op, oracleDtype) {
  if (!['uint16', 'uint32', 'uint64'].includes(dtype)) return oracleDtype;
  return op === 'sum' || op.startsWith('arg') ? 'int64' : dtype;
}

function call(t, op, args, options) {
  const o = Object.keys(options).length === 0 ? undefined : options;
  if (op === 'topk') return t.topk(args[0], args[1], o);
  if (args.length === 0) return o === undefined ? t[op]() : t[op](o);
  return t[op](args[0], o);
}

function check(problems, dtype, c, want) {
  const [, i, op, args, options] = c;
  const what = `${dtype} ${INPUTS[i][0]} ${op}(${args.map((a) => JSON.stringify(a)).join(', ')}` +
    `${Object.keys(options).length ? `, ${JSON.stringify(options)}` : ''})`;
  const t = build(dtype, i);
  if (want.error !== undefined) {
    let threw = false;
    try {
      call(t, op, args, options);
    } catch {
      threw = true;
    }
    if (!threw) problems.push({ what, threw, want: `torch's refusal: ${want.error}` });
    return;
  }
  let got;
  try {
    got = call(t, op, args, options);
  } catch (error) {
    problems.push({ what, threw: `${error.code} ${error.message}`, want: 'a result' });
    return;
  }
  const tol = (d) => (op === 'amax' || op === 'amin' || op === 'max' || op === 'min' || op === 'topk' ? 0 :
    TOLERANCE[d] || 0);
  if (want.indices !== undefined) {
    if (!isDeepStrictEqual([[...got.values.shape], got.indices.dtype], [want.values.shape, 'int64'])) {
      problems.push({ what, shape: got.values.shape, dtype: got.indices.dtype, want: [want.values.shape, 'int64'] });
    }
    close(problems, got.values.toArray(), want.values.values, 0, `${what} values`);
    if (op === 'topk') {
      // Equal values may come in any index order in torch: ours must point at the values.
      const source = t.toArray();
      const idx = flat(got.indices.toArray()).map(Number);
      const vals = flat(got.values.toArray()).map(num);
      const d = args[1] < 0 ? t.ndim + args[1] : args[1];
      const outShape = got.indices.shape;
      for (let j = 0; j < idx.length; j++) {
        if (t.ndim === 0) {
          if (idx[j] !== 0) problems.push({ what, at: j, index: idx[j], want: 0 });
          continue;
        }
        const coords = [];
        let rem = j;
        for (let k = outShape.length - 1; k >= 0; k--) {
          coords[k] = rem % outShape[k];
          rem = Math.floor(rem / outShape[k]);
        }
        coords[d] = idx[j];
        close(problems, [coords.reduce((v, n) => v[n], source)], [vals[j]], 0, `${what} value at index ${idx[j]}`);
      }
    } else {
      close(problems, got.indices.toArray(), want.indices.values, 0, `${what} indices`);
    }
    return;
  }
  const dtypeWanted = wantDtype(dtype, op, want.dtype);
  if (!isDeepStrictEqual([got.dtype, [...got.shape]], [dtypeWanted, want.shape])) {
    problems.push({ what, dtype: got.dtype, shape: got.shape, want: [dtypeWanted, want.shape] });
  }
  close(problems, got.toArray(), want.values, tol(got.dtype), what);
}

describe('reductions against torch', () => {
  describe.each(ALL)('%s', (dtype) => {
    for (const family of [['sum', 'mean'], ['amax', 'amin'], ['max', 'min', 'argmax', 'argmin'],
      ['softmax', 'logSoftmax'], ['topk']]) {
      itOracle(`${family.join(', ')}: torch's values, dtype and shape (or its refusal)`, () => {
        const problems = [];
        let n = 0;
        CASES.forEach((c, j) => {
          if (c[0] !== dtype || !family.includes(c[2])) return;
          check(problems, dtype, c, oracle.results[j]);
          n++;
        });
        expect(n).toBeGreaterThan(0);
        expect({ differences: problems.length, first: problems.slice(0, 30) }).toEqual({ differences: 0, first: [] });
      });
    }
  });
});

describe('summation', () => {
  itOracle('a long float32 sum is within a few ulps of the float64 sum (blocked, pairwise)', () => {
    const n = 1 << 20;
    const values = new Float32Array(n);
    for (let i = 0; i < n; i++) values[i] = Math.fround(0.1 + (i % 97) * 1e-3);
    const t = dl.tensor(values);
    let exact = 0;
    for (let i = 0; i < n; i++) exact += values[i];
    const got = t.sum().item();
    expect(Math.abs(got - exact) / exact).toBeLessThan(1e-6);
    // A running float32 sum is far off: the test can tell pairwise from naive.
    let naive = Math.fround(0);
    for (let i = 0; i < n; i++) naive = Math.fround(naive + values[i]);
    expect(Math.abs(naive - exact) / exact).toBeGreaterThan(1e-5);
  });

  it('gives the same bits with 1 and 2 threads (DLPACK_NUM_THREADS, one child each)', () => {
    const script = `
      const dl = require(${JSON.stringify(path.join(__dirname, '..', 'lib'))});
      const n = 3 * 300007;
      const v = new Float32Array(n);
      let s = 1;
      for (let i = 0; i < n; i++) { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; v[i] = s / 2 ** 32 - 0.5; }
      const t = dl.tensor(v).reshape(3, 300007);
      const bits = (x) => {
        const d = x.contiguous().data;
        return require('crypto').createHash('sha256').update(new Uint8Array(d.buffer, d.byteOffset, d.byteLength))
          .digest('hex');
      };
      console.log(JSON.stringify([bits(t.sum()), bits(t.sum(1)), bits(t.sum(0)), bits(t.mean(1)),
        bits(t.transpose(0, 1).sum(0))]));`;
    const run = (threads) => {
      const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60000,
        env: { ...process.env, DLPACK_NUM_THREADS: String(threads) } });
      if (child.status !== 0) throw new Error(`child failed (${child.signal || child.status}): ${child.stderr}`);
      return JSON.parse(child.stdout);
    };
    expect(run(2)).toEqual(run(1));
  });
});

describe('rules', () => {
  it('max(dim) and argmax take the first index of the maximum, and of the first NaN', () => {
    const t = dl.tensor([[1, 3, 3, NaN, 2, NaN], [5, 5, 1, 1, 0, 5]], { dtype: 'float32' });
    const { values, indices } = t.max(1);
    expect(values.toArray()).toEqual([NaN, 5]);
    expect(indices.toArray()).toEqual([3n, 0n]);
    expect(t.min(1).indices.toArray()).toEqual([3n, 4n]);
    expect(t.argmax().item()).toBe(3n);
    expect(t.slice(0, 1, 2).argmin().item()).toBe(4n);
  });

  it('topk counts NaN as largest and orders equal values by index', () => {
    const t = dl.tensor([1, 3, 3, NaN, 2, NaN], { dtype: 'float64' });
    const top = t.topk(3);
    expect(top.values.toArray()).toEqual([NaN, NaN, 3]);
    expect(top.indices.toArray()).toEqual([3n, 5n, 1n]);
    const low = t.topk(3, { largest: false });
    expect(low.indices.toArray()).toEqual([0n, 4n, 1n]);
    const unsorted = t.topk(4, 0, { sorted: false });
    expect(unsorted.indices.toArray().map(Number).sort()).toEqual([1, 2, 3, 5]);
  });

  it('topk of dense float32 lanes (blocks of 16 skipped at once) picks what the element-by-element rule picks', () => {
    // The same values as a dense float32 lane (the vectorised skip), a strided
    // float32 lane and a float64 lane (the element-by-element rule): the same
    // indices, for lengths around the 16-element block, -0, infinities, NaN and ties.
    const specials = [0, -0, Infinity, -Infinity, NaN, 1, -1, 1e30, -1e30];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (const len of [1, 15, 16, 17, 31, 32, 33, 100, 1000]) {
      const values = Array.from({ length: len }, () => {
        const r = next();
        if (r < 0.05) return specials[Math.floor(next() * specials.length)];
        return Math.round((next() - 0.5) * 64) / 4; // ties
      });
      const dense = dl.tensor([values], { dtype: 'float32' });
      const strided = dl.tensor(values.map((v) => [v, 0]), { dtype: 'float32' }).transpose(0, 1).narrow(0, 0, 1);
      const wide = dl.tensor([values], { dtype: 'float64' });
      for (const largest of [true, false]) {
        for (const k of [1, 2, 5, 16, 32]) {
          if (k > len) continue;
          const want = wide.topk(k, 1, { largest }).indices.toArray();
          expect([len, largest, k, dense.topk(k, 1, { largest }).indices.toArray()])
            .toEqual([len, largest, k, want]);
          expect(strided.topk(k, 1, { largest }).indices.toArray()).toEqual(want);
        }
      }
    }
  });

  it('topk on both sides of its small-k path (k <= 32 scans once) matches a full sort, NaN and ties included', () => {
    const len = 1000;
    const values = Array.from({ length: len }, (_, i) => (i % 97 === 0 ? NaN : Math.round(Math.sin(i * 7.3) * 40)));
    const t = dl.tensor([values, values.slice().reverse()], { dtype: 'float32' });
    const rows = t.toArray();
    for (const largest of [true, false]) {
      // torch's order: NaN beyond everything on the `largest` side, ties by index.
      const before = (row) => (a, b) => {
        const x = rows[row][a];
        const y = rows[row][b];
        if (Number.isNaN(x) || Number.isNaN(y)) {
          if (Number.isNaN(x) && Number.isNaN(y)) return a - b;
          return (Number.isNaN(x) === largest) ? -1 : 1;
        }
        if (x !== y) return largest ? y - x : x - y;
        return a - b;
      };
      for (const k of [1, 5, 31, 32, 33, 100, len]) {
        const got = t.topk(k, -1, { largest });
        const unsorted = t.topk(k, 1, { largest, sorted: false });
        for (let row = 0; row < 2; row++) {
          const want = [...Array(len).keys()].sort(before(row)).slice(0, k);
          expect({ k, largest, row, indices: got.indices.toArray()[row].map(Number) })
            .toEqual({ k, largest, row, indices: want });
          expect(got.values.toArray()[row]).toEqual(want.map((i) => rows[row][i]));
          expect(unsorted.indices.toArray()[row].map(Number).sort((a, b) => a - b))
            .toEqual(want.slice().sort((a, b) => a - b));
        }
      }
    }
  });

  it('softmax is stable for large inputs and logSoftmax agrees with log(softmax)', () => {
    const t = dl.tensor([[1000, 1001, 1002], [-1000, 0, 1000]], { dtype: 'float32' });
    const p = t.softmax(-1).toArray();
    const lp = t.logSoftmax(1).toArray();
    for (let r = 0; r < 2; r++) {
      for (let c = 0; c < 3; c++) {
        expect(Number.isFinite(lp[r][c]) || p[r][c] === 0).toBe(true);
        expect(Math.exp(lp[r][c])).toBeCloseTo(p[r][c], 6);
      }
    }
    expect(p[0][2]).toBeCloseTo(1 / (1 + Math.exp(-1) + Math.exp(-2)), 6);
  });

  it('a function form writes into `out` (converted to its dtype) and returns it', () => {
    const t = dl.tensor([[1, 2], [3, 4]], { dtype: 'int32' });
    const out = dl.zeros([2], { dtype: 'float64' });
    expect(dl.sum(t, 1, { out })).toBe(out);
    expect(out.toArray()).toEqual([3, 7]);
    const probs = dl.empty([2, 2], { dtype: 'float32' });
    expect(dl.softmax(t, 0, { dtype: 'float32', out: probs })).toBe(probs);
    expect(probs.sum(0).toArray().map((v) => Math.round(v * 1e6) / 1e6)).toEqual([1, 1]);
  });

  // A synchronous softmax writes straight into an `out` it can (lib/reduce.js
  // directOut()); every other `out` gets a result computed apart. Either way
  // the values are those of a new result, and nothing outside `out` changes.
  it('softmax into `out`: strided, offset, in place, overlapping, over one buffer twice, another dtype', () => {
    const rows = 5;
    const cols = 37;
    const values = Array.from({ length: rows * cols }, (_, i) => Math.sin(i) * 6);
    const fresh = () => dl.tensor(values, { dtype: 'float32' }).reshape([rows, cols]);
    for (const op of ['softmax', 'logSoftmax']) {
      for (const dim of [1, 0]) {
        const want = fresh()[op](dim).toArray();
        const close = (got) => {
          for (let r = 0; r < rows; r++) {
            for (let c = 0; c < cols; c++) expect(got[r][c]).toBeCloseTo(want[r][c], 5);
          }
        };
        // A transposed view inside a larger buffer, at an offset: the rest untouched.
        const big = dl.empty([cols + 2, rows + 1], { dtype: 'float32' });
        big.data.fill(7);
        const target = big.narrow(0, 1, cols).narrow(1, 1, rows).transpose(0, 1);
        expect(dl[op](fresh(), dim, { out: target })).toBe(target);
        close(target.toArray());
        const b = big.toArray();
        expect(b[0].every((v) => v === 7) && b[cols + 1].every((v) => v === 7)).toBe(true);
        expect(b.every((row) => row[0] === 7)).toBe(true);
        // In place.
        const x = fresh();
        expect(dl[op](x, dim, { out: x })).toBe(x);
        close(x.toArray());
        // out one row further on in the same storage: each lane must be read
        // before another lane's results land on it.
        const shared = dl.tensor([...values, ...new Array(cols).fill(0)], { dtype: 'float32' });
        const input = shared.narrow(0, 0, rows * cols).reshape([rows, cols]);
        const shifted = shared.narrow(0, cols, rows * cols).reshape([rows, cols]);
        dl[op](input, dim, { out: shifted });
        close(shifted.toArray());
        // Two tensors made apart over one ArrayBuffer, overlapping by half a row.
        const buffer = new ArrayBuffer((rows * cols + 20) * 4);
        const first = dl.fromBuffer(buffer, { dtype: 'float32', count: rows * cols, shape: [rows, cols] });
        first.copyFrom(fresh());
        const second = dl.fromBuffer(buffer, { dtype: 'float32', offset: 80, count: rows * cols, shape: [rows, cols] });
        dl[op](first, dim, { out: second });
        close(second.toArray());
        // Another dtype: converted.
        const wide = dl.empty([rows, cols], { dtype: 'float64' });
        dl[op](fresh(), dim, { out: wide });
        close(wide.toArray());
      }
    }
    // Two elements at one address: refused as copyFrom refuses it, nothing written.
    const one = dl.zeros([1, 3], { dtype: 'float32' });
    expect(() => dl.softmax(dl.zeros([2, 3], { dtype: 'float32' }), 1, { out: one.expand([2, 3]) }))
      .toThrow(expect.objectContaining({ code: 'ERR_DLPACK_UNSUPPORTED' }));
    expect(one.toArray()).toEqual([[0, 0, 0]]);
  });

  it('a reduction leaves its input unchanged, views and storage alike', () => {
    const base = dl.tensor([[3, 1, 2], [9, 8, 7]], { dtype: 'float32' });
    const view = base.slice(1, null, null, -1);
    view.sum(0);
    view.softmax(1);
    view.topk(2);
    expect(base.toArray()).toEqual([[3, 1, 2], [9, 8, 7]]);
  });

  // lib/reduce.js staged() takes both facts from this table, written once in
  // src/core/compute/reduce_call.cc (StagedType, ReducesDims).
  it('the addon names the dtype a device reduction is staged in, and which ops reduce dims', () => {
    const { reduceTable } = require('../lib/binding');
    const { dtypeInfo, byIndex } = require('../lib/dtypes');
    const staged = (op, dtype) => {
      const i = reduceTable.staging[reduceTable.ops[op]][dtypeInfo(dtype).index];
      return i < 0 ? null : byIndex[i].name;
    };
    expect(staged('sum', 'uint8')).toBe('int64');
    expect(staged('mean', 'float16')).toBe('float32');
    expect(staged('mean', 'int32')).toBeNull(); // refused: torch takes no mean of integers
    expect(staged('amax', 'uint8')).toBe('uint64');
    expect(staged('topk', 'bool')).toBe('uint64');
    expect(staged('max', 'int16')).toBe('int64');
    expect(staged('softmax', 'float16')).toBe('float32');
    expect(staged('amin', 'bfloat16')).toBe('float32');
    expect(staged('sum', 'float64')).toBe('float64');
    expect(staged('sum', 'complex64')).toBeNull();
    expect(staged('softmax', 'int32')).toBeNull(); // refused: no result dtype
    // Every real dtype an op takes has a staging dtype.
    for (const [op, n] of Object.entries(reduceTable.ops)) {
      reduceTable.results[n].forEach((result, i) => {
        if (result >= 0 && byIndex[i].kind !== 'complex') expect([op, staged(op, byIndex[i].name)]).not.toEqual([op, null]);
      });
    }
    const dims = Object.keys(reduceTable.ops).filter((op) => reduceTable.dims[reduceTable.ops[op]]);
    expect(dims.sort()).toEqual(['amax', 'amin', 'mean', 'sum']);
  });
});

// `stream` (docs/API.md "Reductions"): a device reduction's stream, read and
// checked on a host tensor too, exactly as the elementwise ops read it (the
// same errors), where it changes nothing.
describe('the stream option', () => {
  const { leakFree } = require('./bad-input/rows');
  const x = () => dl.tensor([[3, 1, 2], [0, 5, 4]], { dtype: 'float32' });
  const CALLS = {
    sum: (t, o) => t.sum(1, o), mean: (t, o) => t.mean(0, o), amax: (t, o) => t.amax(1, o),
    amin: (t, o) => t.amin(undefined, o), max: (t, o) => t.max(1, o), min: (t, o) => t.min(0, o),
    argmax: (t, o) => t.argmax(o), argmin: (t, o) => t.argmin(1, o), softmax: (t, o) => t.softmax(1, o),
    logSoftmax: (t, o) => dl.logSoftmax(t, 0, o), topk: (t, o) => t.topk(2, 1, o),
  };
  const plain = (r) => (r instanceof dl.Tensor ? r.toArray() : { values: r.values.toArray(), indices: r.indices.toArray() });

  test.each(Object.keys(CALLS))('%s: accepted on a host tensor, the result unchanged', async (op) => {
    const t = x();
    const want = plain(CALLS[op](t, undefined));
    for (const stream of [1, 2, -1, 1n, 2n, undefined]) {
      expect(plain(CALLS[op](t, { stream }))).toEqual(want);
      expect(plain(await CALLS[op](t, { stream, async: true }))).toEqual(want);
    }
  });

  test.each(Object.keys(CALLS))('%s: a bad stream is refused with the ops\' error, before anything runs', (op) => {
    const t = x();
    for (const stream of [0, 0n, 1.5, 'x', null, {}, -2, 2n ** 64n]) {
      let expected;
      try {
        dl.add(t, t, { stream });
      } catch (error) {
        expected = error;
      }
      expect(expected).toBeDefined();
      expect(() => CALLS[op](t, { stream })).toThrow(expect.objectContaining({ code: expected.code,
        message: expected.message }));
      expect(['ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE']).toContain(expected.code);
    }
  });

  test('an unknown key beside it is still refused', () => {
    expect(() => x().sum(0, { stream: 1, out2: 1 })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE' }));
  });

  test('leaks nothing: results made and dropped, refusals included', () => leakFree(async () => {
    const t = dl.ones([64, 33]);
    for (const op of Object.keys(CALLS)) {
      for (let i = 0; i < 5; i++) CALLS[op](t, { stream: 2 });
      await CALLS[op](t, { stream: 1, async: true });
      expect(() => CALLS[op](t, { stream: 0 })).toThrow();
    }
  }));
});
