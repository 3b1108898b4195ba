'use strict';
// Elementwise ops (docs/API.md "Ops", "Broadcasting", "Type promotion") against
// PyTorch 1.13 as the oracle (test/fixtures/ops_oracle.py): cases generated over
// dtype families x broadcast patterns x layouts (contiguous, transposed,
// negative-step, stepped, 0-size, 0-d, JS numbers), and the promotion table
// against torch.promote_types / torch.result_type for every dtype pair.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { EXIT_SAFE_FLAGS } = require('./helpers');
const dl = require('../lib');

const PYTHON = process.env.DLPACK_TEST_PYTHON || '/usr/bin/python3';
// torch 1.13 has no uint16/32/64: those are left to the cases checked by hand below.
const TORCH_DTYPES = ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'bfloat16', 'float32',
  'float64'];
const PROMOTE_DTYPES = [...TORCH_DTYPES, 'complex64', 'complex128'];

// A small deterministic generator (mulberry32), so a failing case is the same on every run.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(23);
const pick = (list) => list[Math.floor(random() * list.length)];

// Values every dtype holds exactly, small enough that no op overflows an
// integer type (wrapping is checked by hand below); a zero now and then (div).
function valuesFor(dtype, n, { positive = false, small = false } = {}) {
  const out = [];
  for (let i = 0; i < n; i++) {
    if (dtype === 'bool') out.push(random() < 0.5 ? 1 : 0);
    else if (dtype[0] === 'u' || positive) out.push(Math.floor(random() * (small ? 4 : 10)));
    else if (dtype[0] === 'i') out.push(Math.floor(random() * (small ? 4 : 11)) - (small ? 0 : 5));
    else out.push((Math.floor(random() * 33) - 16) / 4);
  }
  return out;
}

// The base shape a view is taken from, so that the view has `shape`.
function baseShape(shape, view) {
  if (view === 'transpose' && shape.length > 1) {
    const s = shape.slice();
    [s[0], s[s.length - 1]] = [s[s.length - 1], s[0]];
    return s;
  }
  if (view === 'step' && shape.length > 0) return [...shape.slice(0, -1), shape[shape.length - 1] * 2];
  if (view === 'hwc') return [shape[1], shape[2], shape[0]];
  return shape;
}

function tensorSpec(dtype, shape, view, opts) {
  const v = shape.length === 0 ? 'none' : view;
  const bs = baseShape(shape, v);
  return { dtype, shape: bs, view: v, values: valuesFor(dtype, bs.reduce((a, b) => a * b, 1), opts) };
}

function build(spec) {
  if (typeof spec !== 'object' || Array.isArray(spec)) return spec;
  const value = spec.dtype === 'bool' ? (x) => x !== 0 : spec.dtype.startsWith('complex') ? (x) => [x, 0] : (x) => x;
  let t = dl.tensor(spec.values.map(value), { dtype: spec.dtype, shape: spec.shape });
  if (spec.view === 'transpose') t = t.transpose(0, -1);
  else if (spec.view === 'flip') t = t.slice(-1, null, null, -1);
  else if (spec.view === 'step') t = t.slice(-1, null, null, 2);
  else if (spec.view === 'hwc') t = t.permute(2, 0, 1);
  return t;
}

// Broadcast patterns: the shapes of the two operands (null: a JS number).
const PATTERNS = [
  [[3, 4], [3, 4]],
  [[3, 4], [4]],
  [[3, 1], [1, 4]],
  [[2, 3, 4], [3, 1]],
  [[3, 4], []],
  [[], [2, 3]],
  [[3, 4], null],
  [[0, 4], [4]],
  [[5], [5]],
  [[], []],
];
const VIEWS = ['none', 'transpose', 'flip', 'step'];

const BINARY = ['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'pow'];
const COMPARE = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'];
const UNARY = ['neg', 'abs', 'exp', 'log', 'sqrt', 'sigmoid', 'tanh', 'round'];
const TRANSCENDENTAL = new Set(['pow', 'exp', 'log', 'sqrt', 'sigmoid', 'tanh', 'normalize']);

function numberFor(dtype, op) {
  if (op === 'pow') return dtype === 'bool' ? 2 : pick([2, 0.5, 3]);
  return pick([3, -2, 0.5, 2.25, true, 0]);
}

const cases = [];
for (const op of [...BINARY, ...COMPARE]) {
  let i = 0;
  for (const a of TORCH_DTYPES) {
    for (const b of TORCH_DTYPES) {
      const [sa, sb] = PATTERNS[i % PATTERNS.length];
      const view = VIEWS[Math.floor(i / PATTERNS.length) % VIEWS.length];
      i++;
      const powOpts = op === 'pow' ? { positive: true, small: true } : {};
      const left = tensorSpec(a, sa, view, op === 'pow' ? { positive: true } : {});
      // torch.maximum/minimum take no number: a 0-d tensor there.
      const number = sb === null && (op === 'maximum' || op === 'minimum') ? [] : sb;
      const right = number === null ? numberFor(b, op) : tensorSpec(b, number, pick(VIEWS), powOpts);
      cases.push({ op, args: [left, right] });
    }
  }
}
for (const op of UNARY) {
  let i = 0;
  for (const a of TORCH_DTYPES) {
    for (const shape of [[3, 4], [], [0, 2], [2, 3, 2]]) {
      cases.push({ op, args: [tensorSpec(a, shape, VIEWS[i++ % VIEWS.length],
        op === 'log' || op === 'sqrt' ? {} : {})] });
    }
  }
}
for (const a of TORCH_DTYPES) {
  for (const b of TORCH_DTYPES) {
    cases.push({ op: 'where', args: [tensorSpec('bool', [3, 4], pick(VIEWS)), tensorSpec(a, [3, 1], 'none'),
      tensorSpec(b, [4], pick(VIEWS))] });
  }
  for (const [min, max] of [[-1, 2], [0.5, undefined], [undefined, 1], [2, -1]]) {
    cases.push({ op: 'clamp', args: [tensorSpec(a, [3, 4], pick(VIEWS))], options: { min, max } });
  }
}

// normalize: any real dtype and layout, a permuted HWC frame included.
for (const a of TORCH_DTYPES.filter((d) => d !== 'bool')) {
  for (const view of ['hwc', 'none', 'flip']) {
    cases.push({ op: 'normalize', args: [tensorSpec(a, [3, 4, 5], view), [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]],
      options: { scale: 1 / 255 } });
  }
}
cases.push({ op: 'normalize', args: [tensorSpec('uint8', [2, 3, 4, 5], 'none'), [0.5, 0.25, 0.125], [0.5, 2, 4]],
  options: {} });

// Promotion: every pair of dtypes, as tensors with dims, as 0-d tensors and as numbers.
const resultTypePairs = [];
for (const a of PROMOTE_DTYPES) {
  for (const b of PROMOTE_DTYPES) {
    resultTypePairs.push([tensorSpec(a, [2], 'none'), tensorSpec(b, [], 'none')]);
  }
  for (const n of [1, 1.5, true]) resultTypePairs.push([tensorSpec(a, [2], 'none'), n]);
  for (const n of [1, 1.5, true]) resultTypePairs.push([tensorSpec(a, [], 'none'), n]);
}

function runOracle() {
  if (!fs.existsSync(PYTHON)) return { skip: `${PYTHON} is absent` };
  const probe = spawnSync(PYTHON, ['-c', 'import torch'], { encoding: 'utf8', timeout: 60000 });
  if (probe.status !== 0) return { skip: `${PYTHON} has no torch (${(probe.stderr || '').trim().split('\n').pop()})` };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dlpack-ops-')), 'request.json');
  fs.writeFileSync(file, JSON.stringify({ cases, promote: PROMOTE_DTYPES, resultTypes: resultTypePairs }));
  const child = spawnSync(PYTHON, [path.join(__dirname, 'fixtures', 'ops_oracle.py'), file],
    { encoding: 'utf8', timeout: 120000, maxBuffer: 256 << 20 });
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  // A child that dies or hangs fails the suite at once.
  if (child.status !== 0) throw new Error(`ops oracle failed (${child.signal || child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout);
}

const oracle = runOracle();
if (oracle.skip) console.log(`ops.test.js: torch oracle skipped: ${oracle.skip}`);
const itOracle = oracle.skip ? it.skip : it;

const NON_FINITE = { nan: NaN, inf: Infinity, '-inf': -Infinity };
const decode = (v) => (typeof v === 'string' ? NON_FINITE[v] : typeof v === 'boolean' ? +v : v);
const plain = (v) => (typeof v === 'bigint' ? Number(v) : typeof v === 'boolean' ? +v : v);
const flatValues = (t) => {
  const out = [];
  const walk = (v) => (Array.isArray(v) ? v.forEach(walk) : out.push(plain(v)));
  walk(t.toArray());
  return out;
};

function call(c) {
  const args = c.args.map(build);
  if (c.op === 'clamp') return dl.clamp(args[0], c.options.min, c.options.max);
  if (c.op === 'normalize') return dl.normalize(args[0], args[1], args[2], c.options);
  return dl[c.op](...args);
}

const label = (spec) => (typeof spec === 'object' ? `${spec.dtype}[${spec.shape}]${spec.view === 'none' ? '' :
  `.${spec.view}`}` : JSON.stringify(spec));

function closeTo(got, want, dtype, loose) {
  if (Number.isNaN(want)) return Number.isNaN(got);
  if (!Number.isFinite(want)) return got === want;
  if (!loose) return got === want || (dtype.startsWith('float') || dtype === 'bfloat16' ? Object.is(got + 0, want + 0) : false);
  const eps = dtype === 'float64' ? 1e-12 : dtype === 'float32' ? 2e-6 : 1e-2;
  return Math.abs(got - want) <= eps * Math.max(1, Math.abs(want));
}

describe('ops against torch 1.13', () => {
  describe.each([...BINARY, ...COMPARE, ...UNARY, 'where', 'clamp', 'normalize'])('%s', (op) => {
    itOracle('matches torch for every dtype pair, broadcast pattern and layout', () => {
      let checked = 0;
      cases.forEach((c, i) => {
        if (c.op !== op) return;
        const want = oracle.cases[i];
        const what = `${op}(${c.args.map(label).join(', ')}${c.options ? `, ${JSON.stringify(c.options)}` : ''})`;
        if (want.error !== undefined) {
          // torch refuses (bool sub/neg, ...): so do we, with a code.
          let error = null;
          try {
            call(c);
          } catch (e) {
            error = e;
          }
          expect({ what, refused: error !== null && /^ERR_/.test(error.code) }).toEqual({ what, refused: true });
          return;
        }
        const got = call(c);
        expect({ what, dtype: got.dtype, shape: got.shape }).toEqual({ what, dtype: want.dtype, shape: want.shape });
        const values = flatValues(got);
        const loose = TRANSCENDENTAL.has(op);
        const bad = values.findIndex((v, j) => !closeTo(v, decode(want.values[j]), want.dtype, loose));
        expect({ what, at: bad, got: values[bad], want: want.values[bad] }).toEqual({ what, at: -1, got: undefined,
          want: undefined });
        checked++;
      });
      expect(checked).toBeGreaterThan(0);
    });
  });

  itOracle('promoteTypes agrees with torch.promote_types for every dtype pair', () => {
    for (const a of PROMOTE_DTYPES) {
      for (const b of PROMOTE_DTYPES) {
        expect(`${a},${b} -> ${dl.promoteTypes(a, b)}`).toBe(`${a},${b} -> ${oracle.promote[`${a},${b}`]}`);
      }
    }
  });

  itOracle('resultType agrees with torch.result_type: tensors, 0-d tensors and numbers', () => {
    resultTypePairs.forEach((pair, i) => {
      const want = oracle.resultTypes[i];
      if (want.startsWith('error')) return;
      const what = pair.map(label).join(', ');
      expect(`${what} -> ${dl.resultType(...pair.map(build))}`).toBe(`${what} -> ${want}`);
    });
  });
});

describe('results, out and in place', () => {
  const f32 = (values, shape) => dl.tensor(values, { dtype: 'float32', shape });
  const range = (n) => Array.from({ length: n }, (_, i) => i);

  it('writes into `out`: a strided view, another dtype, and returns it', () => {
    const out = dl.zeros([4, 2], { dtype: 'float64' }).transpose(0, 1);
    const r = dl.add(f32([1, 2, 3, 4, 5, 6, 7, 8], [2, 4]), 0.5, { out });
    expect(r).toBe(out);
    expect(out.toArray()).toEqual([[1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]);
    const ints = dl.zeros([3], { dtype: 'int16' });
    dl.mul(dl.tensor([1, 2, 3], { dtype: 'int32' }), 3, { out: ints });
    expect(ints.toArray()).toEqual([3, 6, 9]);
    const flags = dl.zeros([3], { dtype: 'bool' });
    dl.gt(f32([1, 5, 3]), 2, { out: flags });
    expect(flags.toArray()).toEqual([false, true, true]);
  });

  it('stages an `out` that partially overlaps an input (results as if read first)', () => {
    const t = f32(range(10));
    dl.add(t.narrow(0, 0, 9), 1, { out: t.narrow(0, 1, 9) });
    expect(t.toArray()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const u = f32(range(6), [2, 3]);
    dl.mul(u, u.slice(1, null, null, -1), { out: u });
    expect(u.toArray()).toEqual([[0, 1, 0], [15, 16, 15]]);
    // The same first element and item size, other strides: still staged.
    const x = f32([1, 2, 3, 4], [2, 2]);
    x.add_(x.transpose(0, 1));
    expect(x.toArray()).toEqual([[2, 5], [5, 8]]);
  });

  it('in place: the tensor itself, broadcasting the other operand', () => {
    const x = f32(range(12), [2, 2, 3]);
    const mean = f32([1, 2, 3], [3]);
    const std = f32([2, 4, 8]);
    const want = dl.div(dl.sub(x, mean), std).toArray();
    expect(x.sub_(mean).div_(std)).toBe(x);
    expect(x.toArray()).toEqual(want);
    const y = f32([-1, 0.5, 4]);
    expect(y.clamp_(0, 1).toArray()).toEqual([0, 0.5, 1]);
    expect(y.exp_()).toBe(y);
    expect(y.toArray()).toEqual(dl.exp(f32([0, 0.5, 1])).toArray());
  });

  it('in place over dims of extent 1 ([1, 3, h, w], [3, 1]): writes the tensor directly, no temporary', () => {
    const copies = jest.spyOn(dl.Tensor.prototype, 'copyFrom');
    try {
      for (const shape of [[1, 3, 2, 2], [3, 1], [1, 1, 4]]) {
        const size = shape.reduce((a, b) => a * b, 1);
        const x = f32(range(size), shape);
        const other = f32(range(size).map((v) => v + 1), shape);
        const want = dl.mul(x, other).toArray();
        const cut = x.narrow(shape.length - 1, 0, 1); // a view whose extent-1 dims carry odd strides
        copies.mockClear();
        expect(x.mul_(other)).toBe(x);
        expect(x.toArray()).toEqual(want);
        const wantCut = dl.add(cut, 1).toArray();
        expect(cut.add_(1)).toBe(cut);
        expect(cut.toArray()).toEqual(wantCut);
        expect(copies).not.toHaveBeenCalled();
      }
      // A real partial overlap through an extent-1 dim is still staged.
      const t = f32(range(4), [1, 4]);
      dl.add(t.narrow(1, 0, 3), 1, { out: t.narrow(1, 1, 3) });
      expect(t.toArray()).toEqual([[0, 1, 2, 3]]);
    } finally {
      copies.mockRestore();
    }
  });

  it('a refused in-place op leaves its tensor unchanged', () => {
    const x = dl.tensor([1, 2, 3], { dtype: 'uint8' });
    expect(() => x.mul_(1.5)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE' }));
    expect(() => x.add_(dl.zeros([2, 3], { dtype: 'uint8' }))).toThrow(expect.objectContaining({
      code: 'ERR_INVALID_ARG_VALUE' }));
    expect(x.toArray()).toEqual([1, 2, 3]);
  });

  it('integer arithmetic wraps; unsigned types torch lacks compute and promote', () => {
    expect(dl.add(dl.tensor([250], { dtype: 'uint8' }), 10).toArray()).toEqual([4]);
    expect(dl.mul(dl.tensor([2 ** 30], { dtype: 'int32' }), 4).toArray()).toEqual([0]);
    expect(dl.add(dl.tensor([65535], { dtype: 'uint16' }), dl.tensor([1], { dtype: 'int8' })).dtype).toBe('int32');
    expect(dl.add(dl.tensor([65535], { dtype: 'uint16' }), dl.tensor([1], { dtype: 'int8' })).toArray())
      .toEqual([65536]);
    expect(dl.promoteTypes('uint32', 'int32')).toBe('int64');
    expect(dl.promoteTypes('uint64', 'int8')).toBe('float64');
    expect(dl.sub(dl.tensor([1n], { dtype: 'uint64' }), 2).toArray()).toEqual([2n ** 64n - 1n]);
  });

  it('broadcastShapes follows the rule and refuses what does not broadcast', () => {
    expect(dl.broadcastShapes([3, 1], [1, 4], [4])).toEqual([3, 4]);
    expect(dl.broadcastShapes([], [0, 2])).toEqual([0, 2]);
    expect(() => dl.broadcastShapes([3], [4])).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE' }));
  });
});

describe('threads', () => {
  afterAll(() => dl.setNumThreads(require('os').availableParallelism?.() ?? require('os').cpus().length));

  it('getNumThreads reports what setNumThreads took', () => {
    dl.setNumThreads(3);
    expect(dl.getNumThreads()).toBe(3);
    dl.setNumThreads(1);
    expect(dl.getNumThreads()).toBe(1);
  });

  it('gives the same bits for any thread count, over the grain and strided', () => {
    const n = 300007;
    const a = dl.tensor(Array.from({ length: n }, (_, i) => Math.sin(i) * 10), { dtype: 'float32' });
    const b = dl.tensor(Array.from({ length: 7 }, (_, i) => i - 3.5), { dtype: 'float32' });
    const runs = [1, 2, 3, 5].map((threads) => {
      dl.setNumThreads(threads);
      const wide = a.narrow(0, 0, 300006).reshape(42858, 7);
      const frame = dl.tensor(Array.from({ length: 224 * 224 * 3 }, (_, i) => i % 256), { dtype: 'uint8',
        shape: [224, 224, 3] });
      return [
        dl.add(wide, b), dl.exp(a), dl.sigmoid(a.slice(0, null, null, -1)), dl.mul(wide.transpose(0, 1), 3),
        dl.normalize(frame.permute(2, 0, 1), [0.485, 0.456, 0.406], [0.229, 0.224, 0.225], { scale: 1 / 255 }),
        // Copies and conversions run on the same engine and pool.
        a.to('float16'), wide.transpose(0, 1).contiguous(), frame.permute(2, 0, 1).to('float32'),
        dl.empty([n], { dtype: 'float64' }).copyFrom(a.slice(0, null, null, -1)),
      ].map((t) => { const c = t.contiguous(); return Buffer.from(c.buffer, c.byteOffset, c.nbytes); });
    });
    for (let i = 1; i < runs.length; i++) {
      runs[i].forEach((bytes, k) => expect({ k, same: bytes.equals(runs[0][k]) }).toEqual({ k, same: true }));
    }
  });
});

describe('the asynchronous form ({ async: true })', () => {
  const f32 = (values) => dl.tensor(values, { dtype: 'float32' });

  it('resolves to what the synchronous call gives, into a new tensor or `out`', async () => {
    const a = f32([1, 2, 3, 4]).reshape(2, 2);
    const b = f32([10, 20]);
    const p = dl.add(a, b, { async: true });
    expect(typeof p.then).toBe('function'); // a native Promise: another realm's class under Jest
    expect((await p).toArray()).toEqual(dl.add(a, b).toArray());
    const out = dl.zeros([2, 2], { dtype: 'float64' }).transpose(0, 1);
    expect(await dl.mul(a, 2, { out, async: true })).toBe(out);
    expect(out.toArray()).toEqual([[2, 4], [6, 8]]);
    expect((await dl.gt(a, 2, { async: true })).toArray()).toEqual([[false, false], [true, true]]);
    expect((await dl.clamp(a, 2, 3, { async: true })).toArray()).toEqual([[2, 2], [3, 3]]);
    const half = dl.tensor([1, 2], { dtype: 'float16' });
    const r = await dl.exp(half, { async: true });
    expect(r.dtype).toBe('float16');
    expect(r.toArray()).toEqual(dl.exp(half).toArray());
  });

  it('holds its operands: dispose() while in flight lets go of the tensor, not the memory', async () => {
    const n = 1 << 20;
    const a = dl.empty([n]);
    a.data.fill(2);
    const p = dl.mul(a, 3, { async: true });
    a.dispose();
    expect(a.disposed).toBe(true);
    const r = await p;
    expect(r.data.every((v) => v === 6)).toBe(true);
  });

  it('refuses shareMemory() of an operand in flight, and allows it once settled', async () => {
    const a = dl.empty([1 << 20]);
    a.data.fill(1);
    const p = dl.exp(a, { async: true });
    // No row of its own: T21's (memory that cannot move in place).
    expect(() => a.shareMemory()).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_COPY_REQUIRED',
      message: expect.stringMatching(/async/) }));
    await p;
    expect(a.shareMemory()).toBe(a);
    a.dispose();
  });

  it('normalize: the same values as the synchronous form, into a new tensor and into `out`', async () => {
    const frame = dl.empty([6, 5, 3], { dtype: 'uint8' });
    frame.data.forEach((_, i) => { frame.data[i] = (i * 37) & 255; });
    const chw = frame.permute(2, 0, 1);
    const mean = [0.485, 0.456, 0.406];
    const std = [0.229, 0.224, 0.225];
    const want = dl.normalize(chw, mean, std, { scale: 1 / 255 });
    const p = dl.normalize(chw, mean, std, { scale: 1 / 255, async: true });
    expect(typeof p.then).toBe('function'); // the addon's Promise, another realm's class than Jest's
    expect((await p).toArray()).toEqual(want.toArray());
    const batch = dl.zeros([2, 3, 6, 5], { dtype: 'float64' });
    const slot = batch.select(0, 1);
    expect(await dl.normalize(chw, mean, std, { scale: 1 / 255, out: slot, async: true })).toBe(slot);
    expect(slot.toArray()).toEqual(dl.normalize(chw, mean, std,
      { scale: 1 / 255, out: dl.zeros([3, 6, 5], { dtype: 'float64' }) }).toArray());
    expect(batch.select(0, 0).toArray().flat(2).every((v) => v === 0)).toBe(true);
  });

  it('normalize: holds its input in flight and refuses its shareMemory(), as the other ops', async () => {
    const input = dl.empty([3, 512, 512], { dtype: 'uint8' });
    input.data.fill(51);
    const p = dl.normalize(input, 0.5, 0.25, { scale: 1 / 255, async: true });
    expect(() => input.shareMemory()).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_COPY_REQUIRED',
      message: expect.stringMatching(/async/) }));
    input.dispose();
    const r = await p;
    expect(r.data.every((v) => Math.abs(v - (0.2 - 0.5) / 0.25) < 1e-6)).toBe(true);
    expect(() => dl.normalize(dl.empty([3, 2, 2]), 0, 1, { async: 'yes' })).toThrow(expect.objectContaining({
      code: 'ERR_INVALID_ARG_TYPE' }));
  });

  it('to({ dtype, async: true }): the synchronous result, holding its source, from any strided view', async () => {
    const n = 1 << 20;
    const a = dl.empty([n]);
    a.data.forEach((_, i) => { a.data[i] = Math.sin(i) * 70000; }); // beyond float16's range too
    const view = a.reshape(1024, 1024).transpose(0, 1).slice(1, null, null, -2);
    const want = view.to('float16');
    const p = view.to({ dtype: 'float16', async: true });
    expect(typeof p.then).toBe('function');
    expect(() => a.shareMemory()).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_COPY_REQUIRED' }));
    a.dispose();
    view.dispose();
    const got = await p;
    expect(got.shape).toEqual([1024, 512]);
    expect(Buffer.from(got.buffer, got.byteOffset, got.nbytes).equals(
      Buffer.from(want.buffer, want.byteOffset, want.nbytes))).toBe(true);
    // Nothing to do: a new tensor over the same memory, as the synchronous form.
    const same = await want.to({ dtype: 'float16', async: true });
    expect(same.buffer).toBe(want.buffer);
    // An empty tensor.
    expect((await dl.empty([0, 3]).to({ dtype: 'int8', async: true })).shape).toEqual([0, 3]);
  });

  it('to({ async: true }) refuses what is not a host conversion, and a non-boolean async', () => {
    const t = dl.tensor([1, 2]);
    expect(() => t.to({ dtype: 'float64', async: 1 })).toThrow(expect.objectContaining({
      code: 'ERR_INVALID_ARG_TYPE' }));
    expect(() => t.to({ device: 'cuda_host', async: true })).toThrow(expect.objectContaining({
      code: 'ERR_DLPACK_UNSUPPORTED', message: expect.stringMatching(/async: true.*cuda_host/) }));
    expect(t.to({ dtype: 'float64', async: false }).dtype).toBe('float64');
  });

  it('refuses bad arguments at the call, before a Promise exists', () => {
    expect(() => dl.add(f32([1]), 'x', { async: true })).toThrow(expect.objectContaining({
      code: 'ERR_INVALID_ARG_TYPE' }));
    expect(() => dl.add(f32([1]), 1, { async: 'yes' })).toThrow(expect.objectContaining({
      code: 'ERR_INVALID_ARG_TYPE' }));
  });

  it('survives worker.terminate() and process.exit() with ops in flight', () => {
    const child = spawnSync(process.execPath, [...EXIT_SAFE_FLAGS, path.join(__dirname, 'fixtures', 'async-terminate.js')],
      { encoding: 'utf8', timeout: 60000 });
    expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toEqual({ status: 0, signal: null,
      stderr: '' });
    expect(child.stdout).toContain('terminated');
  });
});

describe('DLPACK_NUM_THREADS', () => {
  it('sets the default thread count of a new process', () => {
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(require(".").getNumThreads()))'],
      { cwd: path.join(__dirname, '..'), encoding: 'utf8', timeout: 30000,
        env: { ...process.env, DLPACK_NUM_THREADS: '3' } });
    expect({ status: child.status, stderr: child.stderr, threads: child.stdout }).toEqual({ status: 0, stderr: '',
      threads: '3' });
  });
});
