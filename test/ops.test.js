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

function runOracle(python = PYTHON, request = { cases, promote: PROMOTE_DTYPES, resultTypes: resultTypePairs }) {
  if (!fs.existsSync(python)) return { skip: `${python} is absent` };
  const probe = spawnSync(python, ['-c', 'import torch'], { encoding: 'utf8', timeout: 60000 });
  if (probe.status !== 0) return { skip: `${python} has no torch (${(probe.stderr || '').trim().split('\n').pop()})` };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dlpack-ops-')), 'request.json');
  fs.writeFileSync(file, JSON.stringify(request));
  const child = spawnSync(python, [path.join(__dirname, 'fixtures', 'ops_oracle.py'), file],
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

// --- one set of scalar and dtype rules (issue 37, findings 10-12) ---------------
//
// Against torch 1.13 (DLPACK_TEST_PYTHON, Debian's) and torch 2.x (the peers
// venv: DLPACK_PEERS_VENV, default ~/.cache/dlpack-ci/peers-venv): every case
// is run by both where both are there, and each must agree with us but for
// the differences docs/API.md "Scalars" names (DIFFERS below), where the two
// torch versions disagree with each other or JS cannot say what Python can.
const TORCH2_PYTHON = process.env.DLPACK_TEST_TORCH2_PYTHON || path.join(process.env.DLPACK_PEERS_VENV ||
  path.join(os.homedir(), '.cache', 'dlpack-ci', 'peers-venv'), 'bin', 'python');

// A JS number as the oracle reads it: a Python int when it is an integer (as
// the library reads it), exactly (JSON loses the digits of 2^63).
const pyNumber = (v) => {
  if (typeof v === 'boolean' || (typeof v === 'number' && !Number.isFinite(v))) {
    return typeof v === 'boolean' ? v : (Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf');
  }
  return Number.isInteger(v) && Math.abs(v) >= 2 ** 53 ? { int: BigInt(v).toString() } : v;
};

const SCALAR_TENSORS = {
  bool: [1, 0, 1], uint8: [1, 2, 250], int8: [1, -2, 120], int16: [1, -2, 30000], int32: [1, -2, 2 ** 31 - 1],
  int64: [1, -2, 2 ** 52], float16: [60000, 2048, 256, 1, 3], bfloat16: [59904, 2048, 256, 1, 3],
  float32: [16777216, 1.5, -3], float64: [2 ** 60, 0.1, -3],
};
const WRAP_OPS = ['add', 'sub', 'mul', 'div', 'eq', 'lt', 'gt'];
const WRAP_VALUES = [300, -1, -300, 2 ** 31, 2 ** 40, 2 ** 63, 2 ** 64 - 2 ** 11, 2 ** 64, 257, 2049, 100000, 0.1,
  2.5, 1e-5, true];
const CHECKED_VALUES = [300, -1, -255, -256, 255, 255.5, 2.5, -0.5, NaN, Infinity, -Infinity, 65504, 65504.5,
  100000.5, 2 ** 31, 2 ** 63, -(2 ** 63), 2 ** 64, true];
const FLOAT16ISH = new Set(['float16', 'bfloat16']);

const scalarCases = [];
for (const [dtype, values] of Object.entries(SCALAR_TENSORS)) {
  const tensor = { dtype, shape: [values.length], view: 'none', values };
  for (const op of WRAP_OPS) for (const v of WRAP_VALUES) scalarCases.push({ op, args: [tensor, v], kind: 'wrap' });
  for (const v of CHECKED_VALUES) {
    scalarCases.push({ op: 'clamp', args: [tensor], options: { min: v }, kind: 'checked', value: v });
    scalarCases.push({ op: 'clamp', args: [tensor], options: { max: v }, kind: 'checked', value: v });
    scalarCases.push({ op: 'where', args: [{ dtype: 'bool', shape: [values.length], view: 'none',
      values: values.map((_, i) => i % 2) }, tensor, v], kind: 'checked', value: v });
    scalarCases.push({ op: 'full', args: [], options: { dtype, value: v }, kind: 'checked', value: v });
    scalarCases.push({ op: 'fill_', args: [], options: { dtype, value: v }, kind: 'checked', value: v });
  }
}
// Integer tensors with a float16/bfloat16 one: the integers go to that dtype first (finding 12).
const mixed = (dtype, values) => ({ dtype, shape: [values.length], view: 'none', values });
scalarCases.push(
  { op: 'eq', args: [mixed('bfloat16', [256]), mixed('int32', [257])], kind: 'tensors' },
  { op: 'eq', args: [mixed('bfloat16', [256]), 257], kind: 'tensors' },
  { op: 'add', args: [mixed('int32', [-(2 ** 31)]), mixed('float16', [Infinity])], kind: 'tensors' },
  { op: 'mul', args: [mixed('int64', [2 ** 52]), mixed('float16', [0])], kind: 'tensors' },
  { op: 'add', args: [mixed('int64', [2 ** 52 + 1, 70000]), mixed('bfloat16', [0, 1])], kind: 'tensors' },
  { op: 'sub', args: [mixed('uint8', [255, 3]), mixed('float16', [0.5, 2048])], kind: 'tensors' },
  { op: 'lt', args: [mixed('int16', [2049, 30000]), mixed('float16', [2048, 30000])], kind: 'tensors' },
  { op: 'maximum', args: [mixed('int32', [70000, -70000]), mixed('float16', [1, 1])], kind: 'tensors' },
);

// Where torch differs (from itself across versions, or JS cannot say what
// Python says): the reason, or null where the case must agree.
const { infos } = require('../lib/dtypes');

function differs(c, major) {
  if (c.kind === 'tensors') return null;
  const v = c.kind === 'wrap' ? c.args[1] : c.value;
  const dtype = c.op === 'full' || c.op === 'fill_' ? c.options.dtype : c.args[c.op === 'where' ? 1 : 0].dtype;
  const floating = infos[dtype].kind === 'float';
  const int = typeof v === 'number' && Number.isInteger(v);
  const beyond = typeof v === 'number' && Number.isFinite(v) && floating && Math.abs(v) > infos[dtype].finiteMax;
  if (int && (v >= 2 ** 64 || (major < 2 && v >= 2 ** 63))) {
    return 'torch refuses an int from 2^64 (1.13: from 2^63) whatever the dtype; we wrap below 2^64, refuse from ' +
      'there for an integer dtype (test below), and take it as its value elsewhere';
  }
  if (major >= 2 && int && v >= 2 ** 63 && dtype === 'bool') {
    return 'torch 2.x reads an int from 2^63 as a uint64, which it does not promote with bool';
  }
  if (c.op === 'clamp' && Number.isNaN(v)) {
    return 'torch\'s clamp with a number bound ignores a NaN bound (std::max/min); with a tensor bound it, and we, ' +
      'give NaN';
  }
  if (int && Math.abs(v) >= 2 ** 53 && floating) {
    return 'an integer-valued number past 2^53 is its float value to a floating dtype (torch: a Python int)';
  }
  if (major >= 2 && c.kind === 'wrap' && FLOAT16ISH.has(dtype) && (c.op === 'mul' || c.op === 'div')) {
    return 'torch 2.x multiplies float16/bfloat16 by a scalar in float32 (1.13 and we round it first)';
  }
  if (major < 2 && c.op === 'clamp' && dtype === 'float16') return 'torch 1.13 has no float16 clamp on the CPU';
  if (major >= 2 && c.kind === 'checked' && FLOAT16ISH.has(dtype) && beyond && !int) {
    return 'torch 2.x takes a float16/bfloat16 fill that rounds to its largest value (65504.5; 1.13 and we refuse)';
  }
  if (major >= 2 && c.op === 'where' && FLOAT16ISH.has(dtype) && beyond) {
    return 'torch 2.x writes inf for where() with a float16 scalar beyond its range (1.13 and we refuse)';
  }
  return null;
}

function callScalarCase(c) {
  if (c.op === 'full') return dl.full([2], c.options.value, { dtype: c.options.dtype });
  if (c.op === 'fill_') return dl.zeros([2], { dtype: c.options.dtype }).fill_(c.options.value);
  return call(c);
}

const encodeCase = (c) => ({ ...c, args: c.args.map((a) => (typeof a === 'object' ? { ...a,
  values: a.values.map(pyNumber) } : pyNumber(a))),
  options: c.options && Object.fromEntries(Object.entries(c.options).map(([k, x]) => [k, k === 'dtype' ? x :
    pyNumber(x)])) });
const scalarRequest = { cases: scalarCases.map(encodeCase) };
const torches = [['torch 1.13 (Debian)', PYTHON], ['torch 2.x (peers venv)', TORCH2_PYTHON]].map(([name, python]) => {
  const result = runOracle(python, scalarRequest);
  if (result.skip) console.log(`ops.test.js: scalar rules against ${name} skipped: ${result.skip}`);
  return { name, result };
});

describe('scalar and dtype rules against torch 1.13 and 2.x', () => {
  describe.each(torches.map((t) => [t.name, t.result]))('%s', (name, result) => {
    const itWith = result.skip ? it.skip : it;
    itWith('agrees on every scalar case but the differences docs/API.md names', () => {
      const major = Number(result.version.split('.')[0]);
      const wrong = [];
      let compared = 0;
      scalarCases.forEach((c, i) => {
        const want = result.cases[i];
        const what = `${c.op}(${c.args.map(label).join(', ')}${c.options ? `, ${JSON.stringify(c.options,
          (k, x) => (typeof x === 'number' && !Number.isFinite(x) ? String(x) : x))}` : ''})`;
        let got;
        let error = null;
        try {
          got = callScalarCase(c);
        } catch (e) {
          error = e;
        }
        // Every refusal is coded, whatever torch does.
        if (error !== null && !/^ERR_/.test(error.code)) wrong.push(`${what}: uncoded ${error}`);
        if (differs(c, major) !== null) return;
        compared++;
        if (want.error !== undefined || error !== null) {
          if ((want.error !== undefined) !== (error !== null)) {
            wrong.push(`${what}: torch ${want.error || 'computes'}, we ${error ? error.code : 'compute'}`);
          }
          return;
        }
        const values = flatValues(got);
        if (got.dtype !== want.dtype || values.some((x, j) => !closeTo(x, decode(want.values[j]), want.dtype, false))) {
          wrong.push(`${what}: torch ${want.dtype} ${JSON.stringify(want.values)}, we ${got.dtype} ` +
            `${JSON.stringify(values.map((x) => (Number.isFinite(x) ? x : String(x))))}`);
        }
      });
      expect(wrong).toEqual([]);
      expect(compared).toBeGreaterThan(scalarCases.length / 2);
    });
  });
});

describe('the rules at the compute surface (issue 37)', () => {
  it('an expand()ed target is refused by every write, with copyFrom\'s code, and nothing is written', () => {
    const base = dl.zeros([1, 4]);
    const wide = base.expand([2 ** 21, 4]);
    const shared = expect.objectContaining({ code: 'ERR_DLPACK_UNSUPPORTED',
      message: expect.stringMatching(/more than one element refers to a single memory location/) });
    expect(() => wide.add_(1)).toThrow(shared);
    expect(() => wide.mul_(2)).toThrow(shared);
    expect(() => wide.exp_()).toThrow(shared);
    expect(() => wide.clamp_(0, 1)).toThrow(shared);
    expect(() => dl.add(dl.ones([2 ** 21, 4]), 1, { out: wide })).toThrow(shared);
    expect(() => dl.neg(dl.ones([2 ** 21, 4]), { out: wide, async: true })).toThrow(shared);
    expect(() => dl.normalize(dl.ones([3, 2, 2]), 0, 1, { out: dl.zeros([1, 2, 2]).expand(3, 2, 2) })).toThrow(shared);
    expect(() => wide.copyFrom(dl.ones([2 ** 21, 4]))).toThrow(shared);
    expect(base.toArray()).toEqual([[0, 0, 0, 0]]);
    // A view whose rows overlap (asStrided), and a 0-size or size-1 stride-0 dim, which shares nothing.
    const rows = dl.zeros([6]).asStrided([2, 4], [2, 1]);
    expect(() => rows.add_(1)).toThrow(shared);
    expect(dl.zeros([1, 3]).asStrided([1, 3], [0, 1]).add_(1).toArray()).toEqual([[1, 1, 1]]);
    expect(dl.zeros([0, 3]).expand(0, 3).add_(1).shape).toEqual([0, 3]);
  });

  it('arithmetic wraps an integer scalar into an integer dtype; clamp/where/full/fill_ refuse it out of range', () => {
    const u8 = dl.tensor([1, 2, 250], { dtype: 'uint8' });
    expect(u8.add(300).toArray()).toEqual([45, 46, 38]);
    expect(u8.mul(-1).toArray()).toEqual([255, 254, 6]);
    expect(u8.eq(256).toArray()).toEqual([false, false, false]);
    expect(dl.zeros([1], { dtype: 'uint8' }).eq(256).toArray()).toEqual([true]);
    expect(u8.add(2 ** 63).toArray()).toEqual([1, 2, 250]); // 2^63 is 0 mod 256 (torch 2.x)
    const range = expect.objectContaining({ code: 'ERR_OUT_OF_RANGE' });
    expect(() => u8.add(2 ** 70)).toThrow(range); // was saturated to 255
    expect(() => u8.clamp(0, 300)).toThrow(expect.objectContaining({ code: 'ERR_OUT_OF_RANGE',
      message: expect.stringMatching(/value cannot be converted to type uint8 without overflow.*`max`/) }));
    expect(() => dl.where(dl.tensor([true, false, true]), u8, 300)).toThrow(range);
    expect(dl.where(dl.tensor([true, false, true]), u8, -1).toArray()).toEqual([1, 255, 250]);
    expect(() => dl.full([2], 255.5, { dtype: 'uint8' })).toThrow(range);
    expect(dl.full([2], -1, { dtype: 'uint8' }).toArray()).toEqual([255, 255]);
    expect(() => dl.full([2], 1e5, { dtype: 'float16' })).toThrow(range);
    expect(() => dl.zeros([2]).fill_(1e39)).toThrow(range);
    expect(dl.zeros([2], { dtype: 'float16' }).fill_(-Infinity).toArray()).toEqual([-Infinity, -Infinity]);
    expect(u8.toArray()).toEqual([1, 2, 250]);
  });

  it('pow of integers to a negative integer number is refused (torch); a tensor of exponents computes', () => {
    const negative = expect.objectContaining({ code: 'ERR_OUT_OF_RANGE',
      message: expect.stringMatching(/Integers to negative integer powers are not allowed/) });
    expect(() => dl.pow(dl.tensor([2, 3, 1], { dtype: 'uint8' }), -1)).toThrow(negative); // was [0, 171, 1]
    expect(() => dl.pow(dl.tensor([2], { dtype: 'int32' }), -2)).toThrow(negative);
    expect(() => dl.pow(dl.tensor([true]), -1)).toThrow(negative);
    expect(dl.pow(dl.tensor([2, 3, 1, -1], { dtype: 'int32' }), dl.tensor([-1, 1, -1, -1], { dtype: 'int32' }))
      .toArray()).toEqual([0, 3, 1, -1]);
    expect(dl.pow(dl.tensor([2, 4], { dtype: 'int32' }), -0.5).toArray()).toEqual([Math.fround(2 ** -0.5), 0.5]);
  });

  it('integers meeting float16/bfloat16 go to that dtype first (torch\'s common dtype)', () => {
    expect(dl.eq(dl.tensor([256], { dtype: 'bfloat16' }), 257).toArray()).toEqual([true]);
    expect(dl.add(dl.tensor([-(2 ** 31)], { dtype: 'int32' }), dl.tensor([Infinity], { dtype: 'float16' }))
      .toArray()).toEqual([NaN]);
    expect(dl.mul(dl.tensor([2n ** 52n], { dtype: 'int64' }), dl.tensor([0], { dtype: 'float16' })).toArray())
      .toEqual([NaN]);
    expect(dl.clamp(dl.tensor([3000], { dtype: 'float16' }), null, 2049).toArray()).toEqual([2048]);
  });

  it('normalize: bool reads as 0/1, a zero std is refused, an empty input needs no per-channel values', () => {
    const mask = dl.fromBuffer(new Uint8Array([0, 255, 1, 7]), { dtype: 'bool', shape: [1, 2, 2] });
    expect(dl.normalize(mask, 0, 1).toArray()).toEqual([[[0, 1], [1, 1]]]); // was 0, 255, 1, 7
    expect(dl.normalize(mask, 0.5, 0.5, { out: dl.zeros([1, 2, 2], { dtype: 'float64' }) }).toArray())
      .toEqual(dl.normalize(mask.to('float32'), 0.5, 0.5).toArray());
    const zero = expect.objectContaining({ code: 'ERR_OUT_OF_RANGE',
      message: expect.stringMatching(/std evaluated to zero after conversion to float32/) });
    expect(() => dl.normalize(dl.ones([2, 2, 2]), 0, 0)).toThrow(zero);
    expect(() => dl.normalize(dl.ones([2, 2, 2]), 0, [1, 1e-50])).toThrow(zero); // 0 in float32
    expect(dl.normalize(dl.ones([1, 1, 1]), 0, 1e-50, { out: dl.zeros([1, 1, 1], { dtype: 'float64' }) })
      .toArray()).toEqual([[[1e50]]]);
    const empty = dl.zeros([2 ** 40, 0, 1]);
    expect(dl.normalize(empty, 0, 1).shape).toEqual([2 ** 40, 0, 1]);
    expect(() => dl.normalize(empty, [1, 2], 1)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE' }));
  });

  it('reads every option once: a getter cannot hand the write another `out` than the check saw', () => {
    const counted = (values) => {
      const reads = {};
      const o = {};
      for (const [k, v] of Object.entries(values)) {
        Object.defineProperty(o, k, { enumerable: true, get() { reads[k] = (reads[k] || 0) + 1; return typeof v === 'function' ? v(reads[k]) : v; } });
      }
      return { o, reads };
    };
    // The first read of `out` gives a writable tensor, a second would give a
    // read-only one (which normalize wrote into, past its check).
    const readOnly = dl.open({ kind: 'sab', buffer: new SharedArrayBuffer(48), dtype: 'float32', shape: [3, 2, 2],
      strides: [4, 2, 1], byteOffset: 0, readOnly: true });
    const writable = dl.zeros([3, 2, 2]);
    const n = counted({ out: (k) => (k === 1 ? writable : readOnly), scale: 2, async: false });
    expect(dl.normalize(dl.ones([3, 2, 2]), 0, 1, n.o)).toBe(writable);
    expect(n.reads).toEqual({ out: 1, scale: 1, async: 1 });
    expect(readOnly.toArray().flat(2).every((v) => v === 0)).toBe(true);
    const a = counted({ out: (k) => (k === 1 ? dl.zeros([2]) : readOnly), async: false, stream: 1 });
    dl.add(dl.ones([2]), 1, a.o);
    expect(a.reads).toEqual({ out: 1, async: 1, stream: 1 });
    const r = counted({ keepdim: true, dtype: 'float64', out: dl.zeros([1], { dtype: 'float64' }) });
    dl.sum(dl.ones([2]), 0, r.o);
    expect(r.reads).toEqual({ keepdim: 1, dtype: 1, out: 1 });
    const t = counted({ dtype: 'int8', async: false, device: 'cpu' });
    dl.ones([2]).to(t.o);
    expect(t.reads).toEqual({ dtype: 1, async: 1, device: 1 });
    const c = counted({ async: false, stream: 1 });
    dl.zeros([2]).copyFrom(dl.ones([2]), c.o);
    expect(c.reads).toEqual({ async: 1, stream: 1 });
    const f = counted({ dtype: 'int8', count: 2, offset: 0 });
    dl.fromBuffer(new ArrayBuffer(4), f.o);
    expect(f.reads).toEqual({ dtype: 1, count: 1, offset: 1 });
    const s = counted({ dtype: 'int8', shape: [2], strides: [1] });
    dl.fromBuffer(new ArrayBuffer(4), s.o);
    expect(s.reads).toEqual({ dtype: 1, shape: 1, strides: 1 });
    for (const make of [(o) => dl.full([2], 1, o), (o) => dl.zerosLike(dl.ones([2]), o), (o) => dl.arange(2, o)]) {
      const m = counted({ dtype: 'int32', device: 'cpu' });
      make(m.o);
      expect(m.reads).toEqual({ dtype: 1, device: 1 });
    }
    const values = [1, 2];
    let reads = 0;
    Object.defineProperty(values, 1, { get() { reads++; return reads === 1 ? 2 : 0; } });
    expect(dl.normalize(dl.ones([2, 1, 1]), 0, values).toArray()).toEqual([[[1]], [[0.5]]]);
    expect(reads).toBe(1);
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
