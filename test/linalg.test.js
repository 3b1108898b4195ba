'use strict';
// matmul, mm, bmm, linear (lib/linalg.js) and the statistics and norms
// (lib/stats.js) against torch as the oracle (test/fixtures/linalg_oracle.py):
// torch 2.13 from the peers venv (DLPACK_PEERS_VENV, default
// ~/.cache/dlpack-ci/peers-venv) and Debian's torch 1.13 (/usr/bin/python3 or
// DLPACK_TEST_PYTHON), each skipped with the reason when absent; values and
// result dtypes. Then the { out } and { async: true } forms, the recipe, and nothing
// leaked (bad input: test/bad-input/g-linalg.test.js).
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const dl = require('../lib');
const { PYTHON, caseSubset, collect, nativeStats } = require('./helpers');
const { releaseRecycled } = require('../lib/memory');

const FLOATS = ['float16', 'bfloat16', 'float32', 'float64'];
const VENV_PYTHON = path.join(process.env.DLPACK_PEERS_VENV ||
  path.join(os.homedir(), '.cache', 'dlpack-ci', 'peers-venv'), 'bin', 'python');

// Deterministic quarter steps in [-5, 5) (exact in every float dtype).
function valuesFor(n, seed) {
  let s = seed >>> 0;
  const out = [];
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out.push(Math.floor((s / 2 ** 32) * 40) / 4 - 5);
  }
  return out;
}

// A tensor spec: { dtype, shape, values, permute } (the oracle builds the same).
let seed = 1;
function spec(dtype, shape, permute = null) {
  const n = shape.reduce((a, b) => a * b, 1);
  return { dtype, shape, values: valuesFor(n, seed++), permute };
}
function build(s) {
  if (s === null) return null;
  const t = dl.tensor(s.values, { dtype: s.dtype, shape: s.shape });
  if (s.permute === null) return t;
  const p = t.permute(s.permute);
  return p;
}

// Every case: { op, args: [spec | null], kw (the oracle's), call(tensors) }.
function generate() {
  const cases = [];
  const add = (op, args, kw, call) => cases.push({ op, args, kw, call });
  for (const dtype of FLOATS) {
    const mat = [
      [[3, 4], [4, 5]], [[4], [4]], [[4], [4, 5]], [[3, 4], [4]], [[2, 3, 4], [4, 5]], [[4], [2, 4, 5]],
      [[2, 1, 3, 4], [5, 4, 2]], [[3, 4], [2, 4, 5]], [[2, 0], [0, 3]], [[1, 7], [7, 1]], [[0, 3], [3, 2]],
    ];
    for (const [as, bs] of mat) add('matmul', [spec(dtype, as), spec(dtype, bs)], {}, (a, b) => dl.matmul(a, b));
    // Transposed and permuted operands (strided, no copy on the host).
    add('matmul', [spec(dtype, [4, 3], [1, 0]), spec(dtype, [5, 4], [1, 0])], {}, (a, b) => a.matmul(b));
    add('matmul', [spec(dtype, [3, 2, 4], [1, 0, 2]), spec(dtype, [4, 2, 5], [1, 0, 2])], {}, (a, b) => dl.matmul(a, b));
    add('mm', [spec(dtype, [6, 5]), spec(dtype, [5, 7])], {}, (a, b) => a.mm(b));
    add('bmm', [spec(dtype, [3, 2, 5]), spec(dtype, [3, 5, 4])], {}, (a, b) => dl.bmm(a, b));
    add('linear', [spec(dtype, [2, 3, 5]), spec(dtype, [4, 5]), spec(dtype, [4])], {}, (x, w, b) => dl.linear(x, w, b));
    add('linear', [spec(dtype, [3, 5]), spec(dtype, [4, 5]), null], {}, (x, w) => dl.linear(x, w));
    add('linear', [spec(dtype, [5]), spec(dtype, [4, 5]), spec(dtype, [4])], {}, (x, w, b) => dl.linear(x, w, b));
    add('linear', [spec(dtype, [3, 5]), spec(dtype, [5]), null], {}, (x, w) => dl.linear(x, w, null));

    const inputs = [spec(dtype, [3, 4, 5]), spec(dtype, [4, 5, 3], [2, 0, 1])];
    for (const input of inputs) {
      for (const dim of [undefined, 0, -1, [0, 2], [1]]) {
        for (const keepdim of [false, true]) {
          for (const correction of [1, 0, 2]) {
            const kw = { dim: dim === undefined ? null : dim, correction, keepdim };
            add('var', [input], kw, (t) => dl.var(t, dim, { correction, keepdim }));
            add('std', [input], kw, (t) => t.std(dim, { correction, keepdim }));
            add('var_mean', [input], kw, (t) => dl.varMean(t, dim, { correction, keepdim }));
            add('std_mean', [input], kw, (t) => dl.stdMean(t, dim, { correction, keepdim }));
          }
        }
      }
      for (const ord of [2, 1, 0, 3, 0.5, -1, Infinity, -Infinity]) {
        for (const dim of [undefined, -1, [0, 1]]) {
          const keepdim = dim === -1;
          add('vector_norm', [input], { ord: String(ord), dim: dim === undefined ? null : dim, keepdim },
            (t) => dl.vectorNorm(t, ord, dim, { keepdim }));
        }
      }
    }
    add('var', [spec(dtype, [1, 4])], { dim: 0, correction: 1, keepdim: false }, (t) => t.var(0));
    // torch's default correction (1), with options and without.
    add('std', [inputs[0]], { dim: -1, correction: 1, keepdim: true }, (t) => dl.std(t, -1, { keepdim: true }));
    add('var', [inputs[1]], { dim: null, correction: 1, keepdim: false }, (t) => t.var());
    const x = spec(dtype, [2, 3, 4]);
    add('layer_norm', [x, null, null], { shape: [4] }, (t) => dl.layerNorm(t, [4]));
    add('layer_norm', [x, spec(dtype, [3, 4]), spec(dtype, [3, 4])], { shape: [3, 4], eps: 1e-3 },
      (t, w, b) => dl.layerNorm(t, [3, 4], w, b, 1e-3));
    add('layer_norm', [spec(dtype, [4, 3, 2], [2, 1, 0]), spec(dtype, [4]), null], { shape: [4] },
      (t, w) => dl.layerNorm(t, 4, w));
    add('cosine_similarity', [spec(dtype, [3, 4]), spec(dtype, [3, 4])], {}, (a, b) => dl.cosineSimilarity(a, b));
    add('cosine_similarity', [spec(dtype, [1, 4]), spec(dtype, [3, 4])], { dim: -1 },
      (a, b) => dl.cosineSimilarity(a, b, -1));
    add('cosine_similarity', [spec(dtype, [5, 2]), spec(dtype, [5, 2])], { dim: 0, eps: 0.5 },
      (a, b) => dl.cosineSimilarity(a, b, 0, 0.5));
    add('normalize', [spec(dtype, [3, 4])], {}, (t) => dl.lpNormalize(t));
    add('normalize', [spec(dtype, [3, 4, 2])], { p: '1', dim: 0 }, (t) => dl.lpNormalize(t, 1, 0));
    add('normalize', [spec(dtype, [3, 4])], { p: 'inf', dim: -1 }, (t) => dl.lpNormalize(t, Infinity, -1));
    add('normalize', [spec(dtype, [3, 4], [1, 0])], { p: '3', dim: 1, eps: 2 }, (t) => dl.lpNormalize(t, 3, 1, 2));
  }
  return cases;
}

function runOracle(python, cases) {
  if (!fs.existsSync(python)) return { skip: `${python} is absent` };
  const child = spawnSync(python, [path.join(__dirname, 'fixtures', 'linalg_oracle.py')], {
    input: JSON.stringify(cases.map((c) => ({ op: c.op, args: c.args, kw: c.kw }))), encoding: 'utf8',
    timeout: 180000, maxBuffer: 256 << 20,
  });
  // A child that dies or hangs fails the suite at once.
  if (child.status !== 0) throw new Error(`linalg oracle failed (${child.signal || child.status}): ${child.stderr}`);
  const answer = JSON.parse(child.stdout);
  return answer.skip ? { skip: `${python} has ${answer.skip}` } : answer;
}

const CASES = caseSubset(generate()); // all of them natively (test/helpers.js)
const ORACLES = [['torch 2.x (peers venv)', VENV_PYTHON, false], ['torch 1.13 (Debian)', PYTHON, true]];

// Relative tolerance (against max(1, |want|)): sums in another order than torch's.
const TOLERANCE = { float16: 4e-3, bfloat16: 3.2e-2, float32: 1e-5, float64: 1e-12 };
const num = (v) => (typeof v === 'string' ? Number(v) : v);

function compare(problems, what, got, want, dtype, legacy) {
  if (got.dtype !== want.dtype) problems.push({ what, dtype: got.dtype, want: want.dtype });
  if (JSON.stringify(got.shape) !== JSON.stringify(want.shape)) {
    problems.push({ what, shape: got.shape, want: want.shape });
    return;
  }
  const g = got.reshape(-1).to('float64').toArray();
  // torch 1.13 keeps some bfloat16 intermediates in bfloat16 (vector_norm's |x|^p,
  // layer_norm's statistics), where torch 2 and this library use float: 4x the
  // tolerance against it (torch 2's values are held to the plain one).
  const tol = TOLERANCE[dtype] * (legacy && dtype === 'bfloat16' ? 4 : 1);
  want.values.forEach((wv, j) => {
    const b = num(wv);
    const a = g[j];
    const bad = Number.isNaN(b) ? !Number.isNaN(a) : !Number.isFinite(b) ? a !== b :
      !(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)));
    if (bad) problems.push({ what, at: j, got: a, want: b });
  });
}

describe.each(ORACLES)('against %s', (label, python, mayMiss) => {
  const oracle = runOracle(python, CASES);
  if (oracle.skip) console.log(`linalg.test.js: ${label} skipped: ${oracle.skip}`);
  const itOracle = oracle.skip ? it.skip : it;

  itOracle('every case gives torch\'s values, shape and dtype', () => {
    const problems = [];
    const missing = [];
    CASES.forEach((c, i) => {
      const want = oracle.results[i];
      const what = `${c.op} ${c.args.map((s) => (s === null ? 'null' : `${s.dtype}[${s.shape}]`)).join(' ')} ` +
        JSON.stringify(c.kw);
      if (want.missing !== undefined) {
        missing.push(`${what}: ${want.missing}`);
        return;
      }
      const tensors = c.args.map(build);
      const got = c.call(...tensors);
      const dtype = c.args[0].dtype;
      if (Array.isArray(want)) {
        expect(Array.isArray(got)).toBe(true);
        want.forEach((w, k) => compare(problems, `${what} [${k}]`, got[k], w, dtype, mayMiss));
      } else {
        compare(problems, what, got, want, dtype, mayMiss);
      }
    });
    if (missing.length > 0) console.log(`linalg.test.js: ${label} (torch ${oracle.torch}) lacks ${missing.length} ` +
      `cases, for example ${missing[0]}`);
    // torch 2.x has every call; 1.13 lacks some keywords (var's correction without a dim).
    if (!mayMiss) expect(missing).toEqual([]);
    expect(missing.length).toBeLessThan(CASES.length / 2);
    expect(problems.slice(0, 10)).toEqual([]);
  });
});

describe.each(ORACLES)('the sentence-embedding recipe (examples/sentence-embedding.js) against %s', (label, python) => {
  const { postprocess, example } = require('../examples/sentence-embedding');
  const { hidden, mask } = example();
  const recipe = [{ op: 'sentence_embedding', kw: { k: 2 }, args: [
    { dtype: 'float32', shape: hidden.shape, values: Array.from(hidden.data), permute: null },
    { dtype: 'int64', shape: mask.shape, values: Array.from(mask.data, Number), permute: null }] }];
  const oracle = runOracle(python, recipe);
  if (oracle.skip) console.log(`linalg.test.js: the recipe against ${label} skipped: ${oracle.skip}`);
  (oracle.skip ? it.skip : it)('gives torch\'s embeddings, similarities and top-k', () => {
    const { embeddings, similarity, top } = postprocess(hidden, mask, 2);
    const [e, sim, values, indices] = oracle.results[0];
    const problems = [];
    compare(problems, 'embeddings', embeddings, e, 'float32', false);
    compare(problems, 'similarity', similarity, sim, 'float32', false);
    compare(problems, 'top values', top.values, values, 'float32', false);
    expect(problems).toEqual([]);
    expect(top.indices.dtype).toBe('int64');
    expect(top.indices.toArray().flat().map(Number)).toEqual(indices.values);
    // The mask is applied: without it the padded sentence's embedding differs.
    const unmasked = postprocess(hidden, dl.onesLike(mask), 2).embeddings.toArray();
    expect(unmasked[1]).not.toEqual(embeddings.toArray()[1]);
    expect(unmasked[0]).toEqual(embeddings.toArray()[0]);
  });
});

describe('shapes, out and async', () => {
  const t = (values, shape, dtype = 'float32') => dl.tensor(values, { shape, dtype });

  it('matmul of 1-d operands drops their dims as torch does', () => {
    expect(dl.matmul(t([1, 2, 3], [3]), t([4, 5, 6], [3])).shape).toEqual([]);
    expect(dl.matmul(t([1, 2, 3], [3]), t([4, 5, 6], [3])).item()).toBe(32);
    expect(dl.matmul(t([1, 2], [2]), t([1, 2, 3, 4, 5, 6], [2, 3])).toArray()).toEqual([9, 12, 15]);
  });

  it('{ out } is written in place, including a strided out and one that is an input', () => {
    const a = t([1, 2, 3, 4], [2, 2]);
    const b = t([1, 0, 0, 1], [2, 2]);
    const out = dl.zeros([2, 2]).transpose(0, 1);
    expect(dl.matmul(a, b, { out })).toBe(out);
    expect(out.toArray()).toEqual([[1, 2], [3, 4]]);
    const c = t([1, 2, 3, 4], [2, 2]);
    dl.matmul(c, t([0, 1, 1, 0], [2, 2]), { out: c });
    expect(c.toArray()).toEqual([[2, 1], [4, 3]]);
  });

  it('{ async: true } gives a Promise of the same values, for each family', async () => {
    const a = t(valuesFor(64 * 48, 3), [64, 48]);
    const b = t(valuesFor(48 * 32, 4), [48, 32]);
    const sync = dl.matmul(a, b).toArray();
    const p = dl.matmul(a, b, { async: true });
    expect(typeof p.then).toBe('function');
    expect((await p).toArray()).toEqual(sync);
    const [v, m] = await dl.varMean(a, 1, { async: true });
    expect(v.toArray()).toEqual(dl.var(a, 1).toArray());
    expect(m.toArray()).toEqual(dl.mean(a, 1).toArray());
    expect((await dl.layerNorm(a, [48], null, null, 1e-5, { async: true })).toArray())
      .toEqual(dl.layerNorm(a, [48]).toArray());
    expect((await dl.vectorNorm(a, 2, -1, { async: true })).toArray()).toEqual(dl.vectorNorm(a, 2, -1).toArray());
    const out = dl.empty([64, 32]);
    expect(await dl.matmul(a, b, { out, async: true })).toBe(out);
    expect(out.toArray()).toEqual(sync);
  });

  it('results do not depend on the thread count', () => {
    const a = t(valuesFor(200 * 300, 5), [200, 300]);
    const b = t(valuesFor(300 * 100, 6), [300, 100]);
    const before = dl.getNumThreads();
    try {
      dl.setNumThreads(1);
      const one = [dl.matmul(a, b).toArray(), dl.std(a, 0).toArray(), dl.layerNorm(a, [300]).toArray()];
      dl.setNumThreads(2);
      const two = [dl.matmul(a, b).toArray(), dl.std(a, 0).toArray(), dl.layerNorm(a, [300]).toArray()];
      expect(two).toEqual(one);
    } finally {
      dl.setNumThreads(before);
    }
  });
});

// Which class and code each misuse gets: the G rows, test/bad-input/g-linalg.test.js.

describe('CUDA (cuBLAS)', () => {
  const cuda = dl.cuda.isAvailable();
  if (!cuda) console.log('linalg.test.js: CUDA matmul skipped: no usable CUDA device');
  const itCuda = cuda ? it : it.skip;
  itCuda('matmul, linear and bmm on the device give the host\'s values (float32, float64, float16)', async () => {
    for (const dtype of ['float32', 'float64', 'float16']) {
      const a = dl.tensor(valuesFor(6 * 5, 11), { shape: [2, 3, 5], dtype });
      const b = dl.tensor(valuesFor(5 * 4, 12), { shape: [5, 4], dtype });
      const bias = dl.tensor(valuesFor(3, 13), { shape: [3], dtype });
      const w = dl.tensor(valuesFor(3 * 5, 14), { shape: [3, 5], dtype });
      const tol = dtype === 'float16' ? 4e-3 : 1e-5;
      const near = (x, y) => x.reshape(-1).to('float64').toArray().forEach((v, i) => {
        const want = y.reshape(-1).to('float64').toArray()[i];
        expect(Math.abs(v - want)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(want)));
      });
      near(dl.matmul(a.cuda(), b.cuda()).cpu(), dl.matmul(a, b));
      near(dl.linear(a.cuda(), w.cuda(), bias.cuda()).cpu(), dl.linear(a, w, bias));
      near((await dl.matmul(a.cuda().transpose(1, 2).contiguous().transpose(1, 2), b.cuda(), { async: true })).cpu(),
        dl.matmul(a, b));
      const out = dl.empty([2, 3, 4], { dtype, device: 'cuda' });
      expect(dl.matmul(a.cuda(), b.cuda(), { out })).toBe(out);
      near(out.cpu(), dl.matmul(a, b));
    }
  });
});

describe('lifetimes', () => {
  it('nothing is leaked by sync, async, out and failing calls', async () => {
    const run = async () => {
      const a = dl.tensor(valuesFor(300 * 200, 21), { shape: [300, 200] });
      const b = dl.tensor(valuesFor(200 * 100, 22), { shape: [200, 100] });
      dl.matmul(a, b).dispose();
      (await dl.matmul(a, b, { async: true })).dispose();
      for (const r of await dl.stdMean(a, 0, { async: true })) r.dispose();
      dl.layerNorm(a, [200]).dispose();
      (await dl.lpNormalize(a, 2, 1, 1e-12, { async: true })).dispose();
      dl.cosineSimilarity(a, a).dispose();
      try {
        dl.matmul(a, a);
      } catch {
        // refused before anything is made
      }
      a.dispose();
      b.dispose();
    };
    await run();
    await collect();
    releaseRecycled();
    const before = nativeStats();
    for (let i = 0; i < 3; i++) await run();
    await collect();
    releaseRecycled();
    expect(nativeStats().hostBlocksLive).toBe(before.hostBlocksLive);
  });
});
