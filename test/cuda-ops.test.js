'use strict';
// The elementwise ops and dl.normalize on CUDA tensors (src/core/cuda_ops.h):
// each op on the device against the same op on the CPU, over dtype families x
// broadcast patterns x layouts (contiguous, transposed, negative-step,
// stepped, 0-size, 0-d, JS numbers); in place, `out`, `stream`, `async`; and
// that nothing stays allocated. The element functions the kernel runs are
// tested on the host by test/cpp/elementwise_math_test.cc, and the routing
// (mixed devices, errors before any CUDA call) by test/route.test.js. This
// file needs a GPU and is skipped, with the reason printed, where there is none.
const dl = require('../lib');
const { makeTensor } = require('../lib/tensor');
const { parseDevice } = require('../lib/device');
const { kStorage, kLayout } = require('../lib/symbols');
require('./helpers'); // --expose-gc check

const caps = dl.capabilities().cuda;
const itGpu = caps.available ? test : test.skip;
const itNoGpu = caps.available ? test.skip : test;
if (!caps.available) console.log(`CUDA op tests skipped: ${caps.reason}`);
else console.log('The no-GPU routing test skipped: a GPU is available (the device tests cover the path)');

// A small deterministic generator (mulberry32): a failing case is the same on every run.
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
const random = rng(5);

// One dtype of each family the kernels compute in (bool, signed and unsigned
// integers of both widths, float32, float64, float16 through float32).
const DTYPES = ['bool', 'int8', 'uint8', 'int32', 'int64', 'uint32', 'float32', 'float64', 'float16'];

// Values every dtype holds exactly; negatives (and fractions) where the dtype
// has them, zeros now and then.
function valuesFor(dtype, n, positive) {
  const out = [];
  for (let i = 0; i < n; i++) {
    if (dtype === 'bool') out.push(random() < 0.5);
    else if (dtype[0] === 'u' || (positive && dtype[0] === 'i')) out.push(Math.floor(random() * 10));
    else if (dtype[0] === 'i') out.push(Math.floor(random() * 11) - 5);
    else if (positive) out.push(Math.floor(random() * 16) / 4);
    else out.push((Math.floor(random() * 33) - 16) / 4);
  }
  return dtype === 'int64' || dtype === 'uint64' ? out.map(BigInt) : out;
}

const VIEWS = ['none', 'transpose', 'flip', 'step'];

// The device twin of each tensor hostTensor() made: the same view of a
// device copy of the same base (to() would make it contiguous).
const twins = new WeakMap();

function viewOf(t, v) {
  if (v === 'transpose') return t.transpose(0, -1);
  if (v === 'flip') return t.slice(-1, null, null, -1);
  if (v === 'step') return t.slice(-1, null, null, 2);
  return t;
}

// A CPU tensor of `shape` seen through `view` (made from a larger or permuted base).
function hostTensor(dtype, shape, view, positive = false) {
  const v = shape.length === 0 || (view === 'transpose' && shape.length < 2) ? 'none' : view;
  let base = shape.slice();
  if (v === 'transpose') [base[0], base[base.length - 1]] = [base[base.length - 1], base[0]];
  if (v === 'step') base = [...shape.slice(0, -1), shape[shape.length - 1] * 2];
  const hostBase = dl.tensor(valuesFor(dtype, base.reduce((a, b) => a * b, 1), positive), { dtype, shape: base });
  const t = viewOf(hostBase, v);
  if (caps.available) twins.set(t, viewOf(hostBase.cuda(), v));
  return t;
}

// t's twin on cuda:0 (hostTensor), else a contiguous copy there.
const onDevice = (t) => twins.get(t) || t.cuda();

// A number operand of `dtype`'s kind.
function numberOf(dtype) {
  if (dtype === 'bool') return true;
  return dtype.startsWith('float') ? 2.25 : -2;
}

const flat = (a) => (Array.isArray(a) ? a.flatMap(flat) : [a]);

// Exact: the same values (NaN equal to NaN). Close: within `tol` relative
// to the larger magnitude, or to 1 below it (an absolute floor: a logSoftmax
// near 0 is a difference of two close values).
function expectSame(device, host, tol = 0) {
  expect(device.dtype).toBe(host.dtype);
  expect(device.shape).toEqual(host.shape);
  expect(device.device.type).toBe('cuda');
  const d = flat(device.cpu().toArray());
  const h = flat(host.toArray());
  expect(d.length).toBe(h.length);
  for (let i = 0; i < h.length; i++) {
    const a = d[i];
    const b = h[i];
    if (Object.is(a, b) || a === b || (Number.isNaN(a) && Number.isNaN(b))) continue;
    if (tol > 0 && typeof a === 'number' && Number.isFinite(a) && Number.isFinite(b) &&
        Math.abs(a - b) <= tol * Math.max(Math.abs(a), Math.abs(b), 1)) continue;
    throw new Error(`element ${i}: device ${a}, host ${b} (${host.dtype}, tolerance ${tol})`);
  }
}

// float16 results are float32 results rounded to half: one float32 ulp can
// move them one half ulp.
const closeTol = (dtype) => (dtype === 'float64' ? 1e-12 : dtype === 'float16' || dtype === 'bfloat16' ? 1e-3 : 1e-6);
const CLOSE = new Set(['pow', 'exp', 'log', 'sqrt', 'sigmoid', 'tanh', 'silu', 'gelu', 'geluTanh', 'erf', 'log1p',
  'expm1', 'sin', 'cos', 'rsqrt']);
const tolFor = (op, result) => (CLOSE.has(op) || (op === 'div' && result === 'float16') ? closeTol(result) : 0);

// Broadcast patterns (null: a JS number).
const PATTERNS = [
  [[3, 4], [3, 4]],
  [[3, 4], [4]],
  [[3, 1], [1, 4]],
  [[2, 3, 4], [3, 1]],
  [[3, 4], []],
  [[], [2, 3]],
  [[3, 4], null],
  [[0, 4], [4]],
  [[], []],
];

const BINARY = ['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'pow'];
const COMPARE = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'];
const UNARY = ['neg', 'abs', 'exp', 'log', 'sqrt', 'sigmoid', 'tanh', 'round', 'relu', 'gelu', 'geluTanh', 'silu', 'erf',
  'log1p', 'expm1', 'floor', 'ceil', 'trunc', 'sin', 'cos', 'rsqrt', 'reciprocal', 'sign'];
// The function of a UNARY name (geluTanh: gelu's tanh approximation).
const unaryFn = (op) => (op === 'geluTanh' ? (t) => dl.gelu(t, { approximate: 'tanh' }) : dl[op]);

// Runs `fn` on host operands and on their device copies; both refuse alike,
// or the device result equals the host one.
function compareOp(op, fn, hostArgs, tol) {
  let host;
  try {
    host = fn(...hostArgs);
  } catch (error) {
    const deviceArgs = hostArgs.map((v) => (v instanceof dl.Tensor ? onDevice(v) : v));
    expect(() => fn(...deviceArgs)).toThrow(expect.objectContaining({ code: error.code }));
    return;
  }
  const deviceArgs = hostArgs.map((v) => (v instanceof dl.Tensor ? onDevice(v) : v));
  const device = fn(...deviceArgs);
  expectSame(device, host, tol === undefined ? tolFor(op, host.dtype) : tol);
  device.dispose();
}

describe('binary ops and comparisons on the device equal the CPU ones', () => {
  describe.each([...BINARY, ...COMPARE])('%s', (op) => {
    itGpu('every dtype family x broadcast pattern x layout', () => {
      let i = 0;
      for (const a of DTYPES) {
        for (const b of DTYPES) {
          const [sa, sb] = PATTERNS[i % PATTERNS.length];
          const view = VIEWS[Math.floor(i / PATTERNS.length) % VIEWS.length];
          i++;
          const positive = op === 'pow';
          const left = hostTensor(a, sa, view, positive);
          const right = sb === null ? (op === 'pow' ? 2 : numberOf(b)) : hostTensor(b, sb, VIEWS[i % 4], positive);
          compareOp(op, dl[op], [left, right]);
        }
      }
    });
  });
});

describe('unary ops on the device equal the CPU ones', () => {
  describe.each(UNARY)('%s', (op) => {
    itGpu('every dtype family x shape x layout', () => {
      for (const dtype of DTYPES) {
        for (const [shape, view] of [[[3, 4], 'none'], [[3, 4], 'transpose'], [[2, 5], 'flip'], [[2, 3], 'step'],
          [[], 'none'], [[0, 2], 'none'], [[2, 3, 2], 'transpose']]) {
          compareOp(op, unaryFn(op), [hostTensor(dtype, shape, view)]);
        }
      }
    });
  });
});

describe('where and clamp on the device', () => {
  itGpu('where: every dtype, broadcast condition and numbers', () => {
    for (const dtype of DTYPES) {
      const cond = hostTensor('bool', [3, 1], 'none');
      compareOp('where', dl.where, [cond, hostTensor(dtype, [3, 4], 'transpose'), hostTensor(dtype, [4], 'flip')]);
      compareOp('where', dl.where, [hostTensor('bool', [2, 3], 'step'), hostTensor(dtype, [2, 3], 'none'), 0]);
    }
  });

  itGpu('clamp with tensor and number bounds, min only, max only', () => {
    for (const dtype of DTYPES.filter((d) => d !== 'bool')) {
      const x = hostTensor(dtype, [3, 4], 'flip');
      compareOp('clamp', dl.clamp, [x, -1, 3]);
      compareOp('clamp', dl.clamp, [x, hostTensor(dtype, [4], 'none'), 4]);
      compareOp('clamp', (t, lo) => dl.clamp(t, lo), [x, 1]);
      compareOp('clamp', (t, hi) => dl.clamp(t, undefined, hi), [x, 2]);
      compareOp('clamp', (t, lo, hi) => dl.clamp(t, lo, hi), [x, 3, 1]); // lo > hi gives hi
    }
  });

  itGpu('NaN: maximum/minimum propagate it, clamp keeps it, comparisons are false', () => {
    const a = dl.tensor([NaN, 1, -Infinity, 2], { dtype: 'float32' });
    const b = dl.tensor([0, NaN, 5, Infinity], { dtype: 'float32' });
    for (const op of ['maximum', 'minimum', 'eq', 'lt', 'ge']) compareOp(op, dl[op], [a, b]);
    compareOp('clamp', dl.clamp, [a, 0, 1]);
  });

  itGpu('integer arithmetic wraps and integer pow follows torch', () => {
    const a = dl.tensor([127, -128, 100, -1, 1, 2], { dtype: 'int8' });
    const b = dl.tensor([1, -1, 3, -3, -2, 7], { dtype: 'int8' });
    for (const op of ['add', 'sub', 'mul', 'pow']) compareOp(op, dl[op], [a, b]);
    compareOp('neg', dl.neg, [a]);
    compareOp('abs', dl.abs, [a]);
    const big = dl.tensor([2n ** 62n, -(2n ** 63n), 3n], { dtype: 'int64' });
    compareOp('mul', dl.mul, [big, 4]);
    compareOp('add', dl.add, [dl.tensor([250, 3], { dtype: 'uint8' }), 10]);
  });

  itGpu('round is half to even', () => {
    compareOp('round', dl.round, [dl.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999], { dtype: 'float32' })]);
    compareOp('round', dl.round, [dl.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999], { dtype: 'float64' })]);
  });
});

describe('in place, out, stream, async on the device', () => {
  itGpu('the _ methods write the tensor and return it', () => {
    for (const [op, other] of [['add', 2], ['mul', 'tensor'], ['sub', 'tensor'], ['div', 4]]) {
      const host = hostTensor('float32', [3, 4], 'transpose');
      const device = onDevice(host); // a transposed view there too
      const hostOther = other === 'tensor' ? hostTensor('float32', [4], 'none') : other;
      const deviceOther = other === 'tensor' ? onDevice(hostOther) : other;
      expect(device[`${op}_`](deviceOther)).toBe(device);
      host[`${op}_`](hostOther);
      expectSame(device, host);
    }
    for (const op of ['neg', 'exp', 'round']) {
      const host = hostTensor('float64', [2, 3], 'flip');
      const device = onDevice(host);
      expect(device[`${op}_`]()).toBe(device);
      host[`${op}_`]();
      expectSame(device, host, tolFor(op, 'float64'));
    }
    const host = hostTensor('int32', [5], 'none');
    const device = host.cuda();
    device.clamp_(-1, 2);
    host.clamp_(-1, 2);
    expectSame(device, host);
  });

  itGpu('{ out } of the result dtype, of another dtype, and overlapping an input', () => {
    const a = hostTensor('float32', [3, 4], 'none');
    const b = hostTensor('float32', [3, 4], 'flip');
    const da = onDevice(a);
    const db = onDevice(b);
    const out = dl.zeros([3, 4], { dtype: 'float32', device: 'cuda' });
    expect(dl.add(da, db, { out })).toBe(out);
    expectSame(out, dl.add(a, b));
    const out64 = dl.zeros([3, 4], { dtype: 'float64', device: 'cuda' });
    expect(dl.mul(da, db, { out: out64 })).toBe(out64);
    expectSame(out64, dl.mul(a, b).to('float64'));
    const flags = dl.zeros([3, 4], { dtype: 'bool', device: 'cuda' });
    dl.lt(da, db, { out: flags });
    expectSame(flags, dl.lt(a, b));
    // out is a flipped view of an input: written through a temporary.
    const hostAlias = a.clone();
    const deviceAlias = da.clone();
    dl.sub(hostAlias, 1, { out: hostAlias.slice(-1, null, null, -1) });
    dl.sub(deviceAlias, 1, { out: deviceAlias.slice(-1, null, null, -1) });
    expectSame(deviceAlias, hostAlias);
  });

  itGpu('{ stream }: enqueued on a cuda.Stream, ordered with its later work', async () => {
    const stream = new dl.cuda.Stream(0);
    const a = hostTensor('float32', [64, 64], 'none');
    const b = hostTensor('int32', [64], 'none');
    const r = dl.add(a.cuda(), b.cuda(), { stream });
    const s = dl.sigmoid(r, { stream });
    await stream.done();
    expectSame(r, dl.add(a, b));
    expectSame(s, dl.sigmoid(dl.add(a, b)), 1e-6);
    stream.dispose();
  });

  itGpu('{ async: true } resolves with the result', async () => {
    const a = hostTensor('float64', [4, 4], 'transpose');
    const r = await dl.exp(onDevice(a), { async: true });
    expectSame(r, dl.exp(a), 1e-12);
  });

  itGpu('{ async: true } on every device reduction resolves with the sync result', async () => {
    const a = hostTensor('float32', [5, 7], 'transpose');
    const d = onDevice(a);
    const cases = [
      ['sum', [1]], ['mean', [0]], ['amax', [1]], ['amin', []], ['max', []], ['argmax', [1]], ['argmin', []],
      ['softmax', [1]], ['logSoftmax', [0]],
    ];
    for (const [op, args] of cases) {
      const p = d[op](...args, { async: true });
      expect(Object.prototype.toString.call(p)).toBe('[object Promise]');
      expectSame(await p, a[op](...args), 1e-6);
    }
    const m = await d.max(1, { async: true });
    expectSame(m.values, a.max(1).values, 0);
    expectSame(m.indices, a.max(1).indices, 0);
    const k = await d.topk(3, 1, { async: true });
    expectSame(k.values, a.topk(3, 1).values, 0);
    expectSame(k.indices, a.topk(3, 1).indices, 0);
  });

  itGpu('a 0-d CPU tensor joins a CUDA op as a number; any other CPU tensor is refused', () => {
    const a = hostTensor('float32', [3, 4], 'none');
    const scalar = dl.tensor(2.5, { dtype: 'float32' });
    expectSame(dl.mul(a.cuda(), scalar), dl.mul(a, scalar));
    const cpu = hostTensor('float32', [4], 'none');
    expect(() => dl.add(a.cuda(), cpu)).toThrow(expect.objectContaining({
      code: 'ERR_DLPACK_WRONG_DEVICE', message: expect.stringMatching(/cuda:0.*cpu/),
    }));
    expect(() => dl.add(a.cuda(), 1, { out: dl.zeros([3, 4]) })).toThrow(
      expect.objectContaining({ code: 'ERR_DLPACK_WRONG_DEVICE' }));
  });
});

describe('normalize on the device', () => {
  itGpu('uint8 HWC frames, float32 CHW and float64 out, as the CPU pass', () => {
    const base = hostTensor('uint8', [3, 4, 5], 'none'); // an HWC frame of 5 channels
    const mean = [0.1, 0.2, 0.3, 0.4, 0.5];
    const std = [0.5, 0.25, 2, 1, 4];
    const host = dl.normalize(base.permute(2, 0, 1), mean, std, { scale: 1 / 255 });
    const device = dl.normalize(onDevice(base).permute(2, 0, 1), mean, std, { scale: 1 / 255 });
    expectSame(device, host, 1e-6);
    const x = hostTensor('float32', [2, 3, 2, 2], 'flip');
    const out = dl.zeros([2, 3, 2, 2], { dtype: 'float64', device: 'cuda' });
    expect(dl.normalize(onDevice(x), [1, 2, 3], 2, { out })).toBe(out);
    expectSame(out, dl.normalize(x, [1, 2, 3], 2, { out: dl.zeros([2, 3, 2, 2], { dtype: 'float64' }) }), 1e-12);
  });

  // The one-pass kernel (src/core/device_normalize.h) and the cases it leaves
  // to the elementwise kernels, each with the host pass's bits (tolerance 0).
  itGpu('one kernel or the elementwise path, every case with the host bits', async () => {
    for (let i = 0; i < 2; i++) {
      global.gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const before = dl.cuda.memoryStats(0).allocatedBytes;
    // Each host tensor's device twin lives as long as the host tensor (a
    // WeakMap value): the test disposes the ones it made before it counts.
    const made = [];
    const hostOf = (...args) => {
      const t = hostTensor(...args);
      made.push(twins.get(t));
      return t;
    };
    const mean = (c) => Array.from({ length: c }, (_, i) => 0.1 + i / 7);
    const std = (c) => Array.from({ length: c }, (_, i) => 0.2 + i / 3);
    const check = (input, channels, options = {}) => {
      const host = dl.normalize(input, mean(channels), std(channels), { scale: 1 / 255, ...options.host });
      const device = dl.normalize(options.deviceInput || onDevice(input), mean(channels), std(channels),
        { scale: 1 / 255, ...options.device });
      expectSame(device, host);
      return device;
    };
    // A uint8 HWC frame read as CHW, a batch of them, a bool frame, a float32
    // view read backwards: the one kernel.
    const frame = hostOf('uint8', [5, 7, 3], 'none');
    check(frame.permute(2, 0, 1), 3, { deviceInput: onDevice(frame).permute(2, 0, 1) }).dispose();
    const batch = hostOf('uint8', [2, 4, 6, 3], 'none');
    check(batch.permute(0, 3, 1, 2), 3, { deviceInput: onDevice(batch).permute(0, 3, 1, 2) }).dispose();
    check(hostOf('bool', [2, 3, 4], 'none'), 2).dispose();
    check(hostOf('float32', [3, 4, 5], 'flip'), 3).dispose();
    check(hostOf('uint8', [32, 2, 3], 'step'), 32).dispose();
    // Not the one kernel: 33 channels, int16, a float64 out.
    check(hostOf('uint8', [33, 2, 2], 'none'), 33).dispose();
    check(hostOf('int32', [3, 2, 2], 'transpose'), 3).dispose();
    const wide = dl.zeros([3, 2, 2], { dtype: 'float64', device: 'cuda' });
    expect(check(hostOf('uint8', [3, 2, 2], 'none'), 3,
      { host: { out: dl.zeros([3, 2, 2], { dtype: 'float64' }) }, device: { out: wide } })).toBe(wide);
    wide.dispose();
    // Into out: a slice of a batch, the input itself, and an out that
    // partially overlaps the input (through a temporary, as on the host).
    const into = dl.zeros([2, 3, 4, 5], { device: 'cuda' });
    const src = hostOf('uint8', [4, 5, 3], 'none');
    const slot = into.select(0, 1);
    expect(check(src.permute(2, 0, 1), 3, { deviceInput: onDevice(src).permute(2, 0, 1), device: { out: slot },
      host: { out: dl.zeros([3, 4, 5]) } })).toBe(slot);
    expect(flat(into.select(0, 0).cpu().toArray()).every((v) => v === 0)).toBe(true);
    // A view holds its storage: the batch is freed once both are disposed.
    slot.dispose();
    into.dispose();
    const values = dl.tensor(valuesFor('float32', 3 * 4 * 5), { shape: [3, 4, 5] });
    const hostInPlace = dl.normalize(values, mean(3), std(3), { scale: 1 / 255 });
    const self = values.cuda();
    expect(dl.normalize(self, mean(3), std(3), { scale: 1 / 255, out: self })).toBe(self);
    expectSame(self, hostInPlace);
    self.dispose();
    const storage = dl.tensor(valuesFor('float32', 2 * 3 * 4 * 5), { shape: [2 * 3 * 4 * 5] });
    const hostShifted = dl.normalize(storage.narrow(0, 0, 60).reshape([3, 4, 5]), mean(3), std(3));
    const shared = storage.cuda();
    const shifted = shared.narrow(0, 1, 60).reshape([3, 4, 5]);
    dl.normalize(shared.narrow(0, 0, 60).reshape([3, 4, 5]), mean(3), std(3), { out: shifted });
    expectSame(shifted, hostShifted);
    shifted.dispose();
    shared.dispose();
    // On a stream of its own, ordered before the read.
    const stream = new dl.cuda.Stream(0);
    const onStream = dl.normalize(onDevice(frame).permute(2, 0, 1), mean(3), std(3), { scale: 1 / 255, stream });
    await stream.done();
    expectSame(onStream, dl.normalize(frame.permute(2, 0, 1), mean(3), std(3), { scale: 1 / 255 }));
    onStream.dispose();
    stream.dispose();
    for (const twin of made) twin.dispose();
    for (let i = 0; i < 2; i++) {
      global.gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(dl.cuda.memoryStats(0).allocatedBytes).toBe(before);
  });
});

describe('reductions on the device equal the CPU ones', () => {
  const CASES = [
    [[3, 4], 'none', 0], [[3, 4], 'transpose', 1], [[3, 4], 'flip', [0, 1]], [[3, 4], 'step', undefined],
    [[2, 3, 4], 'transpose', [0, 2]], [[2, 3, 4], 'none', -1], [[], 'none', undefined], [[0, 3], 'none', 0],
    [[3, 0], 'none', 1],
  ];
  itGpu('sum, mean, amax, amin: every dtype family x dims x layout, keepdim', () => {
    for (const dtype of DTYPES) {
      for (const [shape, view, dim] of CASES) {
        for (const keepdim of [false, true]) {
          const t = hostTensor(dtype, shape, view);
          const float = dtype.startsWith('float');
          for (const op of float ? ['sum', 'mean', 'amax', 'amin'] : ['sum', 'amax', 'amin']) {
            const tol = op === 'sum' || op === 'mean' ? closeTol(dtype) : 0;
            compareOp(op, (x) => dl[op](x, dim, { keepdim }), [t], tol);
          }
        }
      }
      compareOp('max', (x) => x.max(), [hostTensor(dtype, [5, 7], 'flip')], 0);
      compareOp('min', (x) => x.min(), [hostTensor(dtype, [5, 7], 'transpose')], 0);
    }
    // Integer sums wrap modulo 2^64, as on the host.
    compareOp('sum', (x) => x.sum(), [dl.tensor([2n ** 62n, 2n ** 62n, 2n ** 62n], { dtype: 'int64' })], 0);
    compareOp('sum', (x) => x.sum(0, { dtype: 'float64' }), [hostTensor('int32', [6, 2], 'none')], 1e-12);
  });

  itGpu('NaN propagates through amax/amin; a large sum is close to the host\'s and the same every run', () => {
    const withNaN = dl.tensor([1, NaN, 3, -Infinity, 2, 0], { dtype: 'float32', shape: [2, 3] });
    compareOp('amax', (x) => x.amax(1), [withNaN], 0);
    compareOp('amin', (x) => x.amin(0), [withNaN], 0);
    const n = 1 << 20;
    const values = new Float32Array(n);
    for (let i = 0; i < n; i++) values[i] = random();
    const host = dl.tensor(values, { dtype: 'float32', shape: [4, n / 4] });
    const device = host.cuda();
    const first = device.sum(1);
    const again = device.sum(1);
    expect(first.cpu().toArray()).toEqual(again.cpu().toArray());
    expectSame(first, host.sum(1), 1e-6);
    expectSame(dl.sum(device), dl.sum(host), 1e-6);
    expectSame(device.mean(), host.mean(), 1e-6);
  });

  itGpu('{ stream }: every reduction, dense or staged, enqueued on a cuda.Stream and ordered with its work', async () => {
    const stream = new dl.cuda.Stream(0);
    for (const [dtype, layout] of [['float32', 'none'], ['float16', 'transpose'], ['int32', 'none']]) {
      const a = hostTensor(dtype, [33, 17], layout);
      const host = dl.mul(a, 2);
      // The input is written on the stream, so each reduction must run after it there.
      const x = dl.mul(onDevice(a), 2, { stream });
      const floats = dtype !== 'int32';
      const cases = [
        ['sum', (t, o) => t.sum(1, o)], ['amax', (t, o) => t.amax(0, o)], ['amin', (t, o) => t.amin(undefined, o)],
        ['argmax', (t, o) => t.argmax(o)], ['argmin', (t, o) => t.argmin(0, o)],
        ['max', (t, o) => t.max(1, o).values], ['maxIndices', (t, o) => t.max(1, o).indices],
        ['topk', (t, o) => t.topk(3, 0, o).values], ['topkIndices', (t, o) => t.topk(3, 0, { largest: false, ...o }).indices],
        ...(floats ? [['mean', (t, o) => t.mean(0, o)], ['softmax', (t, o) => t.softmax(1, o)],
          ['logSoftmax', (t, o) => t.logSoftmax(0, o)], ['sumAs', (t, o) => t.sum(1, { dtype: 'float64', ...o })]] : []),
      ];
      const results = cases.map(([, call]) => call(x, { stream }));
      const out = dl.zeros([17], { dtype: 'float64', device: 'cuda' });
      dl.sum(x, 0, { out, stream });
      await stream.done();
      cases.forEach(([, call], i) => {
        expectSame(results[i], call(host, {}), floats ? 1e-2 : 0);
      });
      expectSame(out, dl.sum(host, 0).to('float64'), 1e-2);
    }
    stream.dispose();
  });

  itGpu('options.out on the device', () => {
    const t = hostTensor('float32', [3, 4], 'transpose');
    const out = dl.zeros([4], { dtype: 'float64', device: 'cuda' });
    expect(dl.sum(onDevice(t), 0, { out })).toBe(out);
    expectSame(out, dl.sum(t, 0).to('float64'), 1e-6);
    const indices = dl.zeros([3], { dtype: 'int64', device: 'cuda' });
    expect(dl.argmax(onDevice(t), 1, { out: indices })).toBe(indices);
    expectSame(indices, dl.argmax(t, 1), 0);
  });
});

// max(dim), min(dim), argmax, argmin and topk on the device (one pick kernel,
// src/core/cuda_ops.h DeviceRowPicks): the same values and indices as the CPU.
describe('picks on the device equal the CPU ones', () => {
  const CASES = [
    [[3, 4], 'none', 0], [[3, 4], 'transpose', 1], [[3, 4], 'flip', -1], [[3, 4], 'step', 1],
    [[2, 3, 4], 'transpose', 1], [[2, 3, 4], 'none', -1], [[], 'none', 0], [[0, 3], 'none', 1], [[3, 300], 'none', 1],
  ];
  const bothSame = (device, host) => {
    expectSame(device.values, host.values, 0);
    expectSame(device.indices, host.indices, 0);
    device.values.dispose();
    device.indices.dispose();
  };
  itGpu('max(dim), min(dim), argmax, argmin: every dtype family x dim x layout, keepdim', () => {
    for (const dtype of DTYPES) {
      for (const [shape, view, dim] of CASES) {
        const t = hostTensor(dtype, shape, view);
        for (const keepdim of [false, true]) {
          for (const op of ['max', 'min']) bothSame(onDevice(t)[op](dim, { keepdim }), t[op](dim, { keepdim }));
          for (const op of ['argmax', 'argmin']) {
            compareOp(op, (x) => dl[op](x, dim, { keepdim }), [t], 0);
            compareOp(op, (x) => dl[op](x, undefined, { keepdim }), [t], 0); // over the flattened tensor
          }
        }
      }
    }
  });

  itGpu('NaN wins with its first index, ties go to the lowest index, -0 and +0 tie', () => {
    const t = dl.tensor([[1, NaN, 3, NaN], [2, 5, 5, -1], [-0, 0, -0, -1], [-Infinity, -Infinity, -Infinity, -Infinity]],
      { dtype: 'float32' });
    for (const op of ['max', 'min']) bothSame(t.cuda()[op](1), t[op](1));
    for (const op of ['argmax', 'argmin']) {
      compareOp(op, (x) => dl[op](x, 1), [t], 0);
      compareOp(op, (x) => dl[op](x), [t], 0);
    }
    for (const largest of [true, false]) {
      for (let k = 0; k <= 4; k++) bothSame(t.cuda().topk(k, 1, { largest }), t.topk(k, 1, { largest }));
    }
  });

  itGpu('topk: every dtype family x dim x layout x k, largest and smallest, sorted', () => {
    for (const dtype of DTYPES) {
      for (const [shape, view, dim] of CASES) {
        const t = hostTensor(dtype, shape, view);
        const len = shape.length === 0 ? 1 : shape[dim < 0 ? shape.length + dim : dim];
        for (const k of [0, 1, Math.min(2, len), len]) {
          for (const largest of [true, false]) {
            bothSame(onDevice(t).topk(k, dim, { largest }), t.topk(k, dim, { largest }));
          }
        }
      }
    }
  });

  itGpu('k > n, a 0-size dim and no dim of an empty tensor are refused with the host\'s codes', () => {
    const t = hostTensor('float32', [3, 4], 'none');
    const empty = hostTensor('float32', [3, 0], 'none');
    for (const call of [(x) => x.topk(5, 1), (x) => x.topk(-1), (x) => x.max(1), (x) => x.argmin(1), (x) => x.argmax()]) {
      for (const x of [t, empty]) {
        let code = null;
        try {
          call(x);
        } catch (error) {
          code = error.code;
        }
        if (code === null) continue;
        expect(() => call(onDevice(x))).toThrow(expect.objectContaining({ code }));
      }
    }
  });
});

describe('softmax and logSoftmax on the device', () => {
  itGpu('close to the CPU ones along every dim, rows summing to 1, float16 through float32', () => {
    for (const dtype of ['float32', 'float64', 'float16']) {
      for (const [shape, view] of [[[3, 5], 'none'], [[4, 3], 'transpose'], [[2, 3, 4], 'flip'], [[], 'none'],
        [[0, 3], 'none']]) {
        const t = hostTensor(dtype, shape, view);
        for (let d = -Math.max(shape.length, 1); d < Math.max(shape.length, 1); d++) {
          compareOp('softmax', (x) => x.softmax(d), [t], closeTol(dtype) * 4);
          compareOp('logSoftmax', (x) => x.logSoftmax(d), [t], closeTol(dtype) * 4);
        }
      }
    }
    const big = dl.tensor([[1000, 1001, 1002], [-1000, -1000, -1000]], { dtype: 'float32' }); // stable
    const p = dl.softmax(big.cuda(), 1);
    expectSame(p, big.softmax(1), 1e-6);
    expectSame(p.sum(1), dl.tensor([1, 1], { dtype: 'float32' }), 1e-6); // rows sum to 1
    compareOp('softmax', (x) => x.softmax(0, { dtype: 'float64' }), [hostTensor('int32', [3, 4], 'none')], 1e-12);
    const out = dl.zeros([2, 3], { dtype: 'float32', device: 'cuda' });
    expect(dl.logSoftmax(big.cuda(), 1, { out })).toBe(out);
    expectSame(out, big.logSoftmax(1), 1e-6);
  });
});

describe('the float32 fast kernels on the device', () => {
  // src/core/compute/cuda/cuda_ops.cu: DenseFloatKernel (dense operands, 16-byte aligned,
  // four elements a thread, the last count % 4 one a thread), SmallFloatKernel
  // (tiles of 1,024 elements), the softmax rows a warp takes (at most 1,024
  // elements) and those a block takes, and the row trees' warp shuffles.
  // Values are multiples of 1/4 in [-4, 4] (valuesFor): every sum here is exact.
  itGpu('dense ops at every length mod 4 and every alignment equal the CPU ones', () => {
    const base = hostTensor('float32', [4200], 'none');
    const other = hostTensor('float32', [4200], 'none', true);
    const deviceBase = onDevice(base);
    const deviceOther = onDevice(other);
    for (const n of [1, 2, 3, 4, 5, 7, 8, 1023, 1024, 1025, 4097]) {
      for (const start of [0, 1, 2, 3]) {
        const a = base.slice(0, start, start + n);
        const da = deviceBase.slice(0, start, start + n);
        const b = other.slice(0, 3 - start, 3 - start + n); // aligned only where start is 3
        const db = deviceOther.slice(0, 3 - start, 3 - start + n);
        expectSame(da.add(da), a.add(a));
        expectSame(da.div(3), a.div(3));
        expectSame(da.sub(db), a.sub(b));
        expectSame(dl.mul(da, 0.5), dl.mul(a, 0.5));
        expectSame(da.exp(), a.exp(), closeTol('float32'));
        expectSame(da.sigmoid(), a.sigmoid(), closeTol('float32'));
        const inPlace = da.clone();
        expect(inPlace.mul_(db)).toBe(inPlace);
        expectSame(inPlace, a.mul(b));
      }
    }
  });

  itGpu('broadcast ops across tile edges equal the CPU ones', () => {
    for (const shape of [[3, 17, 31], [2, 1025], [5, 3, 1000]]) {
      const x = hostTensor('float32', shape, 'none');
      const row = hostTensor('float32', [shape[shape.length - 1]], 'none', true);
      const channel = hostTensor('float32', [shape[0], ...shape.slice(1).map(() => 1)], 'none', true);
      expectSame(onDevice(x).sub(onDevice(row)), x.sub(row));
      expectSame(onDevice(x).div(onDevice(channel)), x.div(channel));
      expectSame(onDevice(x).transpose(0, -1).add(1), x.transpose(0, -1).add(1));
    }
  });

  itGpu('rows of 1 to 3,000 elements: softmax, sums, extremes and picks equal the CPU ones', () => {
    for (const n of [1, 31, 255, 256, 257, 1000, 1024, 1025, 3000]) {
      const t = hostTensor('float32', [3, n], 'none');
      const d = onDevice(t);
      expectSame(d.softmax(1), t.softmax(1), closeTol('float32') * 4);
      expectSame(d.logSoftmax(1), t.logSoftmax(1), closeTol('float32') * 4);
      expectSame(d.sum(1), t.sum(1));
      expectSame(d.amax(1), t.amax(1));
      expectSame(d.argmin(1), t.argmin(1));
      const k = Math.min(n, 5);
      const picked = d.topk(k, 1);
      const expected = t.topk(k, 1);
      expectSame(picked.values, expected.values);
      expectSame(picked.indices, expected.indices);
    }
  });
});

// The row kernels' two group sizes (src/core/compute/cuda/cuda_ops.cu "Rows by groups"):
// a warp a row, eight rows a block, for rows of at most 1,024 float32 (512
// float64) elements, copied into shared memory first; a block a row past
// that. The order is the block tree's (test/cpp/elementwise_math_test.cc
// WarpRowReductionsAreTheBlocks, WarpSoftmaxRowsAreTheBlocks prove the bits
// on the host); here: against the CPU at row counts that leave a block's
// warps partly idle, at lengths either side of the warp's limits, and each
// row's bits the same whichever warp, block or batch it fell in.
describe('rows by a warp and by a block on the device', () => {
  const LENGTHS = [1, 2, 31, 32, 33, 255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025];
  const ROWS = [1, 9, 67];
  const rowOf = (x, i) => x.slice(0, i, i + 1);
  const reverse = (x) => x.slice(0, null, null, -1).contiguous();
  const bitsOf = (x) => {
    const v = x.cpu().contiguous().data;
    return Buffer.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  };

  itGpu('softmax, logSoftmax, sum, amax, amin equal the CPU ones at every row count and length', () => {
    for (const dtype of ['float32', 'float64', 'float16']) {
      const tol = closeTol(dtype) * 4;
      for (const n of dtype === 'float16' ? [1000, 1025] : LENGTHS) { // float16 computes in float32
        for (const rows of ROWS) {
          const t = hostTensor(dtype, [rows, n], 'none');
          const d = onDevice(t);
          expectSame(d.softmax(1), t.softmax(1), tol);
          expectSame(d.logSoftmax(1), t.logSoftmax(1), tol);
          // Multiples of 1/4 below 2^11: every float32 and float64 sum is exact.
          if (dtype !== 'float16') expectSame(d.sum(1), t.sum(1));
          expectSame(d.amax(1), t.amax(1));
          expectSame(d.amin(1), t.amin(1));
        }
      }
    }
  });

  itGpu('a row\'s bits do not depend on its warp, block or batch, and repeat run to run', () => {
    for (const dtype of ['float32', 'float64']) {
      for (const n of [33, 512, 1000, 1024, 1025]) {
        // Values from 1/16 to 16 in size, both signs: a different order of
        // the additions (or of the sums of exps) moves the bits.
        const values = [];
        for (let i = 0; i < 67 * n; i++) values.push((random() * 2 - 1) * 2 ** Math.floor(random() * 9 - 4));
        const d = dl.tensor(values, { dtype, shape: [67, n] }).cuda();
        const reversed = reverse(d); // each row in another warp and block
        for (const op of ['softmax', 'logSoftmax', 'sum', 'amax']) {
          const all = d[op](1);
          expect(bitsOf(all)).toEqual(bitsOf(d[op](1)));
          const back = reverse(reversed[op](1));
          expect(bitsOf(back)).toEqual(bitsOf(all));
          for (const i of [0, 8, 66]) expect(bitsOf(rowOf(d, i)[op](1))).toEqual(bitsOf(rowOf(all, i)));
          // The host sums in another order: its bits are its own (the exact
          // sums are compared above).
          if (op === 'sum') continue;
          const host = dl.tensor(values, { dtype, shape: [67, n] })[op](1);
          expectSame(all, host, op === 'amax' ? 0 : closeTol(dtype) * 4);
        }
      }
    }
  });

  // A row of -inf summed to NaN on an H200 (2026-11-28): Kahan's compensation
  // of an infinite sum (elementwise_math.h KahanAdd). 3,000 is a block's row.
  itGpu.each([300, 3000])('NaN, infinities and ties in rows of %i, as on the CPU', (n) => {
    const rows = [];
    for (let r = 0; r < 11; r++) {
      const row = [];
      for (let i = 0; i < n; i++) row.push(Math.floor(random() * 5) - 2);
      rows.push(row);
    }
    rows[1][17] = NaN;
    rows[2][n - 1] = NaN;
    rows[3].fill(-Infinity);
    rows[4][5] = Infinity;
    rows[5][0] = -Infinity;
    rows[6].fill(3);
    rows[7][40] = -0;
    for (const dtype of ['float32', 'float64']) {
      const t = dl.tensor(rows, { dtype });
      const d = t.cuda();
      for (const op of ['softmax', 'logSoftmax']) expectSame(d[op](1), t[op](1), closeTol(dtype) * 4);
      for (const op of ['sum', 'amax', 'amin']) expectSame(d[op](1), t[op](1));
    }
  });

  itGpu('more rows than one grid of warps: the walk over rows, and dims other than the last', () => {
    const rows = 65536 * 8 + 9; // past 2^16 blocks of eight warps
    const t = hostTensor('float32', [rows, 3], 'none');
    const d = onDevice(t);
    expectSame(d.softmax(1), t.softmax(1), closeTol('float32') * 4);
    expectSame(d.sum(1), t.sum(1));
    expectSame(d.amin(1), t.amin(1));
    const u = hostTensor('float32', [300, 5, 7], 'transpose'); // a view of a [7, 5, 300] base
    for (const dim of [0, 1, 2]) {
      expectSame(onDevice(u).softmax(dim), u.softmax(dim), closeTol('float32') * 4);
      expectSame(onDevice(u).sum(dim), u.sum(dim));
    }
  });
});

describe('memory', () => {
  itGpu('every temporary is freed: memoryStats back to base after dispose', async () => {
    const da = dl.tensor(valuesFor('int32', 64 * 32), { dtype: 'int32', shape: [64, 32], device: 'cuda' });
    const db = dl.tensor(valuesFor('float16', 32), { dtype: 'float16', device: 'cuda' });
    // Earlier tests' garbage freed first (finalizers run on a later task).
    for (let i = 0; i < 2; i++) {
      global.gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const base = dl.cuda.memoryStats(0).allocatedBytes;
    for (let i = 0; i < 5; i++) {
      dl.add(da, db).dispose(); // both converted, float32 result cast to float16
      dl.div(da, 3).dispose(); // int / int into float32
      dl.gt(da, db).dispose();
      const mask = dl.gt(da, 0);
      dl.where(mask, da, db).dispose();
      mask.dispose();
      dl.normalize(da.reshape([2, 4, 8, 32]), [1, 2, 3, 4], 2).dispose();
      dl.sum(da, 1).dispose();
      dl.amax(db).dispose();
      dl.mean(db, 0, { keepdim: true }).dispose();
      dl.softmax(db, 0).dispose();
      dl.logSoftmax(da, 1, { dtype: 'float32' }).dispose();
      dl.argmax(db).dispose();
      dl.argmin(da, 0, { keepdim: true }).dispose();
      const m = da.max(0);
      m.values.dispose();
      m.indices.dispose();
      const top = db.topk(3, 0, { largest: false });
      top.values.dispose();
      top.indices.dispose();
      const rows = da.topk(4, 0);
      rows.values.dispose();
      rows.indices.dispose();
      const out = dl.zeros([64, 32], { dtype: 'float16', device: 'cuda' });
      dl.sub(da, db, { out });
      out.dispose();
    }
    global.gc();
    expect(dl.cuda.memoryStats(0).allocatedBytes).toBe(base);
    da.dispose();
    db.dispose();
  });
});

// The routing, on every machine: a tensor whose device is cuda:0 over host
// memory (made the way the library makes tensors, with another device), so
// that what is refused before any CUDA call is checked without a GPU. No
// kernel is ever launched on it.
describe('routing of ops with CUDA operands (no kernel runs)', () => {
  const cuda0 = parseDevice('cuda:0');
  const onCuda = (t) => makeTensor(t[kStorage], t[kLayout], 0, cuda0);

  test('CPU and CUDA tensors mixed: ERR_DLPACK_WRONG_DEVICE naming both devices', () => {
    const a = onCuda(dl.tensor([1, 2, 3], { dtype: 'float32' }));
    const b = dl.tensor([1, 2, 3], { dtype: 'float32' });
    const wrong = expect.objectContaining({ code: 'ERR_DLPACK_WRONG_DEVICE',
      message: expect.stringMatching(/cuda:0 and cpu/) });
    expect(() => dl.add(a, b)).toThrow(wrong);
    expect(() => dl.add(b, a)).toThrow(wrong);
    expect(() => a.mul_(b)).toThrow(wrong);
    expect(() => dl.where(dl.tensor([true, false, true]), a, 1)).toThrow(wrong);
    expect(() => dl.clamp(a, b, 2)).toThrow(wrong);
    expect(() => dl.exp(a, { out: dl.zeros([3]) })).toThrow(wrong);
    expect(() => dl.normalize(onCuda(dl.zeros([3, 2, 2])), 0, 1, { out: dl.zeros([3, 2, 2]) })).toThrow(wrong);
  });

  // Issue 37: the out, overlap and scalar rules are the host's, applied
  // before the device split (lib/ops.js run()), so a CUDA op refuses what the
  // host refuses, with the same code, before any CUDA call.
  test('shared-element targets, out-of-range scalars, negative integer powers and a zero std: as on the host', () => {
    const u8 = onCuda(dl.tensor([1, 2, 250], { dtype: 'uint8' }));
    const wide = onCuda(dl.zeros([1, 3])).expand(2, 3);
    const shared = expect.objectContaining({ code: 'ERR_DLPACK_UNSUPPORTED' });
    expect(() => wide.add_(1)).toThrow(shared);
    expect(() => dl.add(onCuda(dl.ones([2, 3])), 1, { out: wide })).toThrow(shared);
    expect(() => dl.normalize(onCuda(dl.ones([2, 3, 1])), 0, 1, { out: wide.unsqueeze(-1) })).toThrow(shared);
    const range = expect.objectContaining({ code: 'ERR_OUT_OF_RANGE' });
    expect(() => dl.clamp(u8, 0, 300)).toThrow(range);
    expect(() => dl.where(onCuda(dl.tensor([true, false, true])), u8, 300)).toThrow(range);
    expect(() => dl.add(u8, 2 ** 70)).toThrow(range);
    expect(() => dl.pow(u8, -1)).toThrow(expect.objectContaining({ code: 'ERR_OUT_OF_RANGE',
      message: expect.stringMatching(/negative integer powers/) }));
    expect(() => dl.normalize(onCuda(dl.ones([2, 3, 1])), 0, 0)).toThrow(range);
  });

  test('dtype, promotion, shape and option errors come before any CUDA call', () => {
    const a = onCuda(dl.tensor([1, 2, 3], { dtype: 'float32' }));
    const flags = onCuda(dl.tensor([true, false, true]));
    expect(() => dl.sub(flags, flags)).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_UNSUPPORTED' }));
    expect(() => dl.add(a, onCuda(dl.zeros([2])))).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE' }));
    expect(() => dl.add(a, 1, { out: onCuda(dl.zeros([3], { dtype: 'int32' })) }))
      .toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE' }));
    expect(() => dl.add(a, 1, { stream: 0 })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE' }));
    expect(() => dl.add(a, 1, { stream: 'x' })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }));
    expect(() => dl.where(onCuda(dl.tensor([1, 0, 1])), a, a))
      .toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE' }));
  });

  test('complex reductions of a CUDA tensor are refused, saying to call .cpu() first', () => {
    const z = onCuda(dl.zeros([2], { dtype: 'complex64' }));
    const cpuFirst = expect.objectContaining({ code: 'ERR_DLPACK_WRONG_DEVICE',
      message: expect.stringMatching(/cuda:0.*call \.cpu\(\) first/) });
    expect(() => z.sum()).toThrow(cpuFirst);
    expect(() => z.softmax(0)).toThrow(cpuFirst);
  });

  test('topk, max(dim), argmax refuse bad k, dims and empty lanes before any CUDA call, as on the host', () => {
    const a = onCuda(dl.tensor([3, 1, 2], { dtype: 'float32' }));
    const empty = onCuda(dl.zeros([2, 0]));
    expect(() => a.topk(4)).toThrow(expect.objectContaining({ code: 'ERR_OUT_OF_RANGE' }));
    expect(() => a.topk(1.5)).toThrow(expect.objectContaining({ code: 'ERR_OUT_OF_RANGE' }));
    expect(() => a.max(1)).toThrow(expect.objectContaining({ code: 'ERR_OUT_OF_RANGE' }));
    expect(() => empty.argmax()).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE' }));
    expect(() => empty.min(1)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE' }));
    expect(() => a.argmax(0, { out: dl.zeros([], { dtype: 'int64' }) }))
      .toThrow(expect.objectContaining({ code: 'ERR_DLPACK_WRONG_DEVICE' }));
  });

  itNoGpu('CUDA operands on one device go to the device path (here: CUDA is unavailable)', () => {
    const a = onCuda(dl.tensor([1, 2, 3], { dtype: 'float32' }));
    const scalar = dl.tensor(2, { dtype: 'float32' }); // a 0-d CPU tensor joins as a number
    for (const call of [() => dl.add(a, a), () => dl.mul(a, scalar), () => a.exp_(), () => dl.normalize(
      onCuda(dl.zeros([3, 2, 2])), 0, 1), () => a.sum(), () => a.mean(0), () => a.max(), () => a.softmax(0), () => a.logSoftmax(-1),
      () => a.max(0), () => a.min(0, { keepdim: true }), () => a.argmax(), () => a.argmin(0), () => a.topk(2),
      () => a.topk(1, 0, { largest: false })]) {
      expect(call).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_CUDA_UNAVAILABLE' }));
    }
  });
});
