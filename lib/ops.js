'use strict';
// Elementwise ops (docs/API.md "Ops", "Broadcasting", "Type promotion"): torch's
// names and rules. This module validates, broadcasts and promotes, then hands
// the engine (src/core/compute/elementwise.h) operands of one type: inputs of another
// dtype are converted first, float16/bfloat16 compute through float32, and a
// result the engine cannot write in place (another dtype, or an `out` that
// partially overlaps an input) goes through a temporary.
const { opCodes, maxThreads, native } = require('./binding');
const route = require('./route');
const { makeError, invalidType, invalidValue, outOfRange, fail, describe } = require('./errors');
const { Tensor, makeTensor, liveStorage, checkedBuffer } = require('./tensor');
const { checkOptions } = require('./options');
const { tooMany } = require('./views');
const { Layout } = require('./layout');
const { Storage } = require('./storage');
const { infos, dtypeInfo } = require('./dtypes');
const { product } = require('./shape');
const { cudaStorage, copyStream, isAvailable } = require('./cuda');
const { cudaUnavailable } = require('./device');
const { kStorage, kLayout, kFlags, kDevice, READ_ONLY } = require('./symbols');
const scalars = require('./scalars');

// --- type promotion (torch.result_type) ---------------------------------------

const BOOL = 0;
const INT = 1;
const FLOAT = 2;
const COMPLEX = 3;
// Each dtype's category, by name, from its kind (lib/dtypes.js).
const CATEGORY_OF_KIND = { bool: BOOL, int: INT, uint: INT, float: FLOAT, complex: COMPLEX };
const CATEGORY = Object.fromEntries(Object.values(infos).map((i) => [i.name, CATEGORY_OF_KIND[i.kind]]));
const SIGNED_BY_BITS = Object.fromEntries(Object.values(infos).filter((i) => i.kind === 'int').map((i) => [i.bits, i.name]));

// Two integer dtypes: the narrower widens; signed with unsigned takes the
// smallest signed type holding both (uint8 + int8 = int16, torch). torch 1.13
// has no uint16/32/64: with a signed type they take NumPy's rule, whose
// uint64 + a signed type is float64.
function promoteIntegers(a, b) {
  const x = infos[a];
  const y = infos[b];
  const signedA = x.kind === 'int';
  const signedB = y.kind === 'int';
  if (signedA === signedB) return x.bits >= y.bits ? a : b;
  const [u, s] = signedA ? [y, x] : [x, y];
  if (s.bits > u.bits) return s.name;
  return u.bits === 64 ? 'float64' : SIGNED_BY_BITS[u.bits * 2];
}

// torch.promote_types for two dtype names.
function promoteTypes(a, b) {
  if (a === b) return a;
  const ca = CATEGORY[a];
  const cb = CATEGORY[b];
  if (ca !== cb) {
    const [hi, lo] = ca > cb ? [a, b] : [b, a];
    // complex64 with float64 keeps float64's precision.
    if (CATEGORY[hi] === COMPLEX && CATEGORY[lo] === FLOAT && lo === 'float64') return 'complex128';
    return hi;
  }
  if (ca === INT) return promoteIntegers(a, b);
  if (ca === FLOAT && infos[a].bits === 16 && infos[b].bits === 16) return 'float32'; // float16 + bfloat16
  return infos[a].bits >= infos[b].bits ? a : b;
}

// torch's combine_categories: `higher` (a more significant group: tensors
// with dims over 0-d tensors over numbers) keeps its dtype unless `lower` is
// of a higher category.
function combine(higher, lower) {
  if (higher === null) return lower;
  if (lower === null) return higher;
  if (CATEGORY[higher] === COMPLEX) return higher;
  if (CATEGORY[lower] === COMPLEX) {
    if (CATEGORY[higher] === FLOAT) return higher === 'float64' ? 'complex128' : 'complex64';
    return lower;
  }
  if (CATEGORY[higher] === FLOAT) return higher;
  if (higher === 'bool' || CATEGORY[lower] === FLOAT) return promoteTypes(higher, lower);
  return higher;
}

// The dtype a JS number stands for, as Python's: an integer-valued number is
// an int (int64), any other a float (the default float32), a boolean a bool.
function numberType(v) {
  if (typeof v === 'boolean') return 'bool';
  return Number.isInteger(v) ? 'int64' : 'float32';
}

// torch.result_type over tensors and JS numbers: dtypes promote within each
// group (tensors with dims, 0-d tensors, numbers), and a less significant
// group changes the result only when it is of a higher category.
function resultType(...operands) {
  let dims = null;
  let zeros = null;
  let numbers = null;
  for (const v of operands) {
    if (v instanceof Tensor) {
      const name = v[kLayout].info.name;
      if (v[kLayout].shape.length === 0) zeros = zeros === null ? name : promoteTypes(zeros, name);
      else dims = dims === null ? name : promoteTypes(dims, name);
    } else {
      const name = numberType(v);
      numbers = numbers === null ? name : promoteTypes(numbers, name);
    }
  }
  return combine(dims, combine(zeros, numbers));
}

// torch.can_cast: no complex into a real type, no float into an integer or
// bool, nothing but bool into bool.
function canCast(from, to) {
  const cf = CATEGORY[from];
  const ct = CATEGORY[to];
  if (cf === COMPLEX && ct !== COMPLEX) return false;
  if (cf === FLOAT && ct < FLOAT) return false;
  if (cf !== BOOL && ct === BOOL) return false;
  return true;
}

// --- broadcasting -------------------------------------------------------------

// The shape tensors of `shapes` broadcast to (NumPy's rule: align on the
// right; a dim of 1 stretches), or null when they do not.
function broadcastShapes(shapes) {
  let ndim = 0;
  for (const s of shapes) if (s.length > ndim) ndim = s.length;
  const shape = new Array(ndim).fill(1);
  for (const s of shapes) {
    for (let i = 0; i < s.length; i++) {
      const at = ndim - s.length + i;
      if (s[i] === shape[at] || s[i] === 1) continue;
      if (shape[at] !== 1) return null;
      shape[at] = s[i];
    }
  }
  return shape;
}

// A layout's strides seen over `shape`: 0 for the dims it is broadcast along.
function broadcastStrides(layout, shape) {
  const off = shape.length - layout.shape.length;
  const strides = new Array(shape.length);
  for (let i = 0; i < shape.length; i++) {
    const j = i - off;
    strides[i] = j < 0 || layout.shape[j] === 1 ? 0 : layout.strides[j];
  }
  return strides;
}

// --- validation ---------------------------------------------------------------

// A live tensor on any device; host memory with its bytes still there. An
// op's tensors are on one device (placement() checks).
function liveTensor(t, name) {
  if (!(t instanceof Tensor)) throw invalidType(name, 'a Tensor', t);
  liveStorage(t);
  if (t[kDevice].hostAccessible) checkedBuffer(t);
  return t;
}

// A tensor or a JS number (a boolean counts as a bool).
function operand(v, name) {
  if (v instanceof Tensor) return liveTensor(v, name);
  if (typeof v !== 'number' && typeof v !== 'boolean') throw invalidType(name, 'a Tensor or a number', v);
  return v;
}

function writable(t, name) {
  if (t[kFlags] & READ_ONLY) {
    throw makeError('ERR_DLPACK_READ_ONLY', `Expected a writable tensor for \`${name}\`, received a readOnly one`);
  }
}

const OUT_KEYS = ['out', 'async', 'stream'];
const NO_OPTIONS = Object.freeze({ out: undefined, async: false, stream: 1n });

// An op's `options`, each read once (one destructuring): { out, async, stream },
// `out` a live, writable tensor or undefined, `stream` a CUDA op's stream as
// copies take it (lib/cuda.js copyStream; the legacy default stream, 1n,
// unless named).
function opOptions(options) {
  if (options === undefined) return NO_OPTIONS;
  if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
  const { out, async, stream } = checkOptions(options, OUT_KEYS, 'options');
  if (async !== undefined && typeof async !== 'boolean') throw invalidType('options.async', 'a boolean', async);
  if (out !== undefined) {
    liveTensor(out, 'options.out');
    writable(out, 'options.out');
  }
  return { out, async: async === true, stream: copyStream(stream) };
}

// Where an op runs: null on the host (every tensor host-accessible), else the
// one CUDA device every tensor is on. A 0-d CPU tensor with CUDA operands is
// read as a number (torch lets a CPU scalar tensor join a CUDA op); any other
// mix of devices is refused, naming two of them (torch's rule). `inputs` may
// hold numbers; `target` is the tensor the op writes (or undefined).
function placement(name, inputs, target) {
  const tensors = inputs.filter((v) => v instanceof Tensor);
  if (target !== undefined) tensors.push(target);
  const device = tensors.map((t) => t[kDevice]).find((d) => !d.hostAccessible);
  if (device === undefined) return null;
  for (const t of tensors) {
    const d = t[kDevice];
    if (d === device || (t !== target && d.type === 'cpu' && t[kLayout].shape.length === 0)) continue;
    throw makeError('ERR_DLPACK_WRONG_DEVICE', `Expected all tensors of ${name} on one device, but found at least ` +
      `two devices, ${device} and ${d}`);
  }
  if (!isAvailable()) throw cudaUnavailable(`${name} on ${device}`);
  return device;
}

// `inputs` with each 0-d CPU tensor read as its number (placement()), as
// the engine reads an element of `info`'s dtype (a tensor, so converted as
// tensors are: float16/bfloat16 rounded, integers wrapped by the engine).
function scalarsOnHost(inputs, info) {
  return inputs.map((v) => {
    if (!(v instanceof Tensor) || !v[kDevice].hostAccessible) return v;
    const x = v.item();
    return scalars.rounded(typeof x === 'bigint' ? Number(x) : +x, info);
  });
}

// The ops whose JS numbers are checked values (lib/scalars.js): torch
// refuses an out-of-range scalar there where arithmetic wraps it.
const CHECKED = new Set(['where', 'clamp', 'clampMin', 'clampMax']);
const BINARY_NAMES = ['input', 'other'];
const WHERE_NAMES = ['condition', 'input', 'other'];
const CLAMP_NAMES = ['input', 'min', 'max'];
const CLAMP_MAX_NAMES = ['input', 'max'];

function unsupported(op, dtype) {
  return makeError('ERR_DLPACK_UNSUPPORTED', `${op} is not defined for ${dtype} tensors`);
}

// --- running the engine ---------------------------------------------------------

// Whether writing `out` element by element could change an input element
// before it is read (lib/route.js writeOverlaps: one memory, by what it is,
// and not the very same elements), on any device.
function partialOverlap(out, inputs, shape) {
  const o = out[kLayout];
  if (o.size === 0) return false;
  const storage = out[kStorage];
  for (const v of inputs) {
    // out itself (an in-place op's own tensor): the very same elements.
    if (v === out || !(v instanceof Tensor) || v[kLayout].size === 0) continue;
    if (route.writeOverlaps(storage, o, v[kStorage], v[kLayout], broadcastStrides(v[kLayout], shape), shape)) {
      return true;
    }
  }
  return false;
}

// A new contiguous tensor every byte of which the caller writes: host
// memory, or device memory of `device` (a CUDA Device).
function fresh(shape, dtype, device = null) {
  const info = infos[dtype];
  const size = product(shape);
  // Its numbers checked first (a broadcast of two expand()ed views can pass 2^53 elements).
  const layout = Layout.contiguous(info, shape, 0, size);
  const storage = device === null ? Storage.allocateForCopy(size * info.itemSize) :
    cudaStorage(device, size * info.itemSize);
  return makeTensor(storage, layout);
}

// Calls the engine: out (of the kernel's output dtype) = op(inputs), every
// tensor input of `type` (where()'s condition: bool) and shaped to broadcast.
// Async: a Promise that settles when the engine has run off this thread.
// On a CUDA device the kernel is enqueued on `stream` and nothing waits.
function launch(op, type, out, inputs, shape, async = false, stream = 1n) {
  if (out[kLayout].size === 0) return async ? Promise.resolve() : undefined;
  const operands = new Array(inputs.length);
  for (let k = 0; k < inputs.length; k++) {
    const v = inputs[k];
    if (v instanceof Tensor) {
      const layout = v[kLayout];
      operands[k] = { storage: v[kStorage], layout, strides: broadcastStrides(layout, shape) };
    } else {
      operands[k] = typeof v === 'boolean' ? +v : v;
    }
  }
  return route.runElementwise(opCodes[op], infos[type].index, shape, out[kStorage], out[kLayout], operands, async,
    stream);
}

// What an op computes: `common` the promoted dtype of its inputs, `result` the
// dtype of a new result, `compare` whether the engine writes bool.
//   op: the engine's name; name: the public name, for messages;
//   inputs: checked operands (where()'s condition first); self: the tensor an
//   in-place form writes (or undefined); out: options.out (or undefined);
//   async: return a Promise of the result, the engine running off this thread.
//   stream: a CUDA op's stream (a BigInt); names: the inputs' argument names.
// Every rule below runs before the host or device split, so both paths
// apply them alike: the target's shape, cast, writability and elements
// (refuseSharedElements), and each JS number converted by lib/scalars.js.
function run(op, name, inputs, common, result,
  { self, out, compare = false, async = false, stream = 1n, names = BINARY_NAMES }) {
  const tensors = inputs.filter((v) => v instanceof Tensor);
  const shape = broadcastShapes(tensors.map((t) => t[kLayout].shape));
  if (shape === null) {
    throw fail('ERR_INVALID_ARG_VALUE', name === op ? 'other' : name,
      'tensors whose shapes broadcast together', `shapes ${tensors.map((t) => `[${t.shape.join(', ')}]`).join(', ')}`);
  }
  if (CATEGORY[common] === COMPLEX) throw unsupported(name, common);
  const type = infos[common].bits === 16 && CATEGORY[common] === FLOAT ? 'float32' : common;
  const target = self !== undefined ? self : out;
  const targetName = self !== undefined ? 'this' : 'options.out';
  if (target !== undefined) {
    const s = target[kLayout].shape;
    if (s.length !== shape.length || s.some((d, i) => d !== shape[i])) {
      throw fail('ERR_INVALID_ARG_VALUE', targetName,
        `a tensor of the broadcast shape [${shape.join(', ')}]${self !== undefined ? ' (an in-place op cannot grow its tensor)' : ''}`,
        `one of shape [${s.join(', ')}]`);
    }
    if (!canCast(result, target[kLayout].info.name)) {
      throw fail('ERR_INVALID_ARG_VALUE', targetName, `a tensor the ${result} result can be cast to (torch.can_cast)`,
        `a ${target[kLayout].info.name} tensor`);
    }
    writable(target, targetName);
    route.refuseSharedElements(target[kLayout], self !== undefined ? name : `\`options.out\` of ${name}()`);
  }
  const info = infos[common];
  if (!inputs.every((v) => v instanceof Tensor)) {
    inputs = inputs.map((v, i) => {
      if (v instanceof Tensor) return v;
      const value = CHECKED.has(op) ? scalars.checkedValue(v, info, names[i]) : v;
      return scalars.operandValue(value, info, names[i]);
    });
  }
  const device = placement(name, inputs, target);
  if (device !== null) inputs = scalarsOnHost(inputs, info);
  const kernelOut = compare ? 'bool' : type;
  // Inputs of another dtype than the kernel's are converted first: to the
  // common dtype, then (float16, bfloat16) to float32 to compute in. torch
  // converts to the common dtype too, so an int32 -2^31 added to a float16 is
  // -inf there (issue 37, finding 12).
  const temporaries = [];
  let deferred = false;
  const convert = (v, dtype) => {
    const c = device === null ? v.to(dtype) : v.to(dtype, { stream });
    temporaries.push(c);
    return c;
  };
  try {
    const converted = inputs.map((v, i) => {
      if (!(v instanceof Tensor)) return v;
      const want = op === 'where' && i === 0 ? 'bool' : type;
      const from = v[kLayout].info.name;
      if (from === want) return v;
      return convert(want !== common && from !== common ? convert(v, common) : v, want);
    });
    // dest: what the engine writes; finish(): the result from it.
    let dest;
    let finish;
    if (target === undefined) {
      dest = fresh(shape, kernelOut, device);
      finish = () => {
        if (result === kernelOut) return dest;
        const cast = device === null ? dest.to(result) : dest.to(result, { stream });
        dest.dispose();
        return cast;
      };
    } else if (target[kLayout].info.name === kernelOut && !partialOverlap(target, converted, shape)) {
      dest = target;
      finish = () => target;
    } else {
      dest = fresh(shape, kernelOut, device);
      temporaries.push(dest);
      finish = () => (device === null ? target.copyFrom(dest) : target.copyFrom(dest, { stream }));
    }
    if (device !== null) {
      // Enqueued on the stream: the result (a promise of it when async) is
      // ordered after the kernels there, as a device copy's is.
      launch(op, type, dest, converted, shape, false, stream);
      return async ? Promise.resolve(finish()) : finish();
    }
    if (!async) {
      launch(op, type, dest, converted, shape);
      return finish();
    }
    const settled = launch(op, type, dest, converted, shape, true);
    // Held until it settles: a dispose() meanwhile lets go of the tensor, not the memory.
    const held = [dest, ...converted.filter((v) => v instanceof Tensor)].map((t) => t[kStorage]);
    deferred = true;
    return Storage.holdUntilSettled(held, settled.then(finish)).finally(() => {
      for (const t of temporaries) t.dispose();
    });
  } finally {
    if (!deferred) for (const t of temporaries) t.dispose();
  }
}

// --- the common case ----------------------------------------------------------

// Whether two shapes are one.
function sameShape(x, y) {
  if (x === y) return true;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

// The dtypes the engine computes in as they are (float16 and bfloat16 go
// through float32, complex is refused: run()).
const AS_THEY_ARE = new Set(Object.values(infos).filter((i) => CATEGORY[i.name] !== COMPLEX &&
  !(CATEGORY[i.name] === FLOAT && i.bits === 16)).map((i) => i));

// A binary op whose every rule of run() passes at a glance, run through the
// engine's dense form (lib/route.js runElementwiseDense, the same call with
// one dim); undefined where it does not, and then run() decides, its checks
// and messages the only ones. The caller has checked both operands (live,
// bytes there), the options (out live and writable, no unknown key) and the
// op's dtype rules, and passes `type`, the dtype the op computes and returns.
// The case: two tensors of `type` (no promotion, no conversion, no float
// through float32), one shape (no broadcast), not empty, row-major, on the
// host, synchronous; `target` (out, or the in-place tensor) undefined, or of
// that dtype, shape and layout on the host (so its elements share no memory,
// the cast is the identity, and it is written in place), writable, and not
// overlapping an input but as the very same elements.
function denseBinary(op, a, b, type, target, async) {
  const la = a[kLayout];
  const lb = b[kLayout];
  const info = la.info;
  if (async || lb.info !== info || info.name !== type || !AS_THEY_ARE.has(info) || la.size === 0 ||
      !a[kDevice].hostAccessible || !b[kDevice].hostAccessible || !sameShape(la.shape, lb.shape) ||
      !la.isContiguous || !lb.isContiguous) {
    return undefined;
  }
  const sa = a[kStorage];
  const sb = b[kStorage];
  if (target === undefined) {
    const result = fresh(la.shape, type);
    try {
      route.runElementwiseDense(opCodes[op], info.index, result[kStorage], result[kLayout], sa, la, sb, lb);
    } catch (error) {
      result.dispose();
      throw error;
    }
    return result;
  }
  const lo = target[kLayout];
  const so = target[kStorage];
  if (lo.info !== info || (target[kFlags] & READ_ONLY) || !target[kDevice].hostAccessible ||
      !sameShape(lo.shape, la.shape) || !lo.isContiguous ||
      (a !== target && route.writeOverlaps(so, lo, sa, la, la.strides, la.shape)) ||
      (b !== target && route.writeOverlaps(so, lo, sb, lb, lb.strides, lb.shape))) {
    return undefined;
  }
  route.runElementwiseDense(opCodes[op], info.index, so, lo, sa, la, sb, lb);
  return target;
}

// --- the ops ------------------------------------------------------------------

const isFloating = (dtype) => CATEGORY[dtype] >= FLOAT;
const isBool = (v) => (v instanceof Tensor ? v[kLayout].info.name === 'bool' : typeof v === 'boolean');

// Binary arithmetic: add sub mul div maximum minimum pow.
function binary(op, input, other, options, self) {
  const name = self !== undefined ? `${op}_()` : op;
  operand(input, 'input');
  operand(other, 'other');
  if (!(input instanceof Tensor) && !(other instanceof Tensor)) {
    throw invalidType('input', 'a Tensor (or `other` a Tensor)', input);
  }
  const { out, async, stream } = self !== undefined ? NO_OPTIONS : opOptions(options);
  const common = resultType(input, other);
  // torch refuses `-` with any bool operand, whatever the result's dtype.
  if (op === 'sub' && (isBool(input) || isBool(other))) throw unsupported('sub', 'bool');
  if (op === 'pow' && common === 'bool') throw unsupported('pow', 'bool');
  // torch refuses a negative integer exponent given as a number for an
  // integer power ("Integers to negative integer powers are not allowed"):
  // the result, 1 / base^n, is 0 but for a base of +-1. A tensor of negative
  // exponents computes (0, or +-1: docs/API.md "Ops"), as in torch.
  if (op === 'pow' && CATEGORY[common] === INT && typeof other === 'number' && Number.isInteger(other) && other < 0) {
    throw outOfRange('other', `a non-negative integer exponent for a ${common} power (torch: "Integers to ` +
      'negative integer powers are not allowed")', describe(other));
  }
  // Integer / integer is true division into the default float (torch.div).
  const computed = op === 'div' && !isFloating(common) ? 'float32' : common;
  if (input instanceof Tensor && other instanceof Tensor) {
    const done = denseBinary(op, input, other, computed, self !== undefined ? self : out, async);
    if (done !== undefined) return done;
  }
  return run(op, name, [input, other], computed, computed, { self, out, async, stream });
}

function compare(op, input, other, options) {
  operand(input, 'input');
  operand(other, 'other');
  if (!(input instanceof Tensor) && !(other instanceof Tensor)) {
    throw invalidType('input', 'a Tensor (or `other` a Tensor)', input);
  }
  const { out, async, stream } = opOptions(options);
  const common = resultType(input, other);
  return run(op, op, [input, other], common, 'bool', { out, compare: true, async, stream });
}

function where(condition, input, other, options) {
  liveTensor(condition, 'condition');
  if (condition[kLayout].info.name !== 'bool') {
    throw invalidValue('condition', 'a bool tensor', condition);
  }
  operand(input, 'input');
  operand(other, 'other');
  const { out, async, stream } = opOptions(options);
  const common = resultType(input, other);
  return run('where', 'where', [condition, input, other], common, common,
    { out, async, stream, names: WHERE_NAMES });
}

// Functions of floats: integers and bools compute in float32 (torch).
// The unary ops' dtype rules, torch's: these compute in float32 for an
// integer or bool input (torch's default float dtype); silu and gelu refuse
// anything but a floating type, as torch does; these refuse bool; the rest
// (floor, ceil, trunc, relu, sign, neg, abs, round) keep the input's dtype.
const FLOAT_UNARY = new Set(['exp', 'log', 'sqrt', 'sigmoid', 'tanh', 'erf', 'log1p', 'expm1', 'sin', 'cos', 'rsqrt',
  'reciprocal']);
const FLOAT_ONLY = new Set(['silu', 'gelu', 'geluTanh']);
const NO_BOOL = new Set(['neg', 'abs', 'round', 'floor', 'ceil', 'trunc', 'relu']);

function unary(op, input, options, self, name = self !== undefined ? `${op}_()` : op) {
  liveTensor(input, self !== undefined ? 'this' : 'input');
  const { out, async, stream } = self !== undefined ? NO_OPTIONS : opOptions(options);
  const dtype = input[kLayout].info.name;
  if (dtype === 'bool' && NO_BOOL.has(op)) throw unsupported(name, 'bool');
  if (FLOAT_ONLY.has(op) && !isFloating(dtype)) throw unsupported(name, dtype);
  const computed = FLOAT_UNARY.has(op) && !isFloating(dtype) ? 'float32' : dtype;
  return run(op, name, [input], computed, computed, { self, out, async, stream });
}

const GELU_KEYS = ['approximate', ...OUT_KEYS];
const APPROXIMATIONS = ['none', 'tanh'];

// gelu(input, { approximate: 'none' | 'tanh', out, async, stream }): torch's
// F.gelu, exact (erf) by default or its tanh approximation.
function gelu(input, options, self) {
  let op = 'gelu';
  let rest = options;
  if (options !== undefined && options !== null && typeof options === 'object') {
    const { approximate, ...others } = checkOptions(options, GELU_KEYS, 'options');
    if (approximate !== undefined && !APPROXIMATIONS.includes(approximate)) {
      throw invalidValue('options.approximate', `one of ${APPROXIMATIONS.map((a) => `'${a}'`).join(', ')}`,
        describe(approximate));
    }
    if (approximate === 'tanh') op = 'geluTanh';
    rest = others;
  }
  return unary(op, input, self !== undefined ? undefined : rest, self, self !== undefined ? 'gelu_()' : 'gelu');
}

// clamp(min, max), clamp(min), clamp(undefined, max): each bound a tensor or a
// number; torch 1.13 promotes the input with the bounds.
function clamp(input, min, max, options, self) {
  const name = self !== undefined ? 'clamp_()' : 'clamp';
  liveTensor(input, self !== undefined ? 'this' : 'input');
  const hasMin = min !== undefined && min !== null;
  const hasMax = max !== undefined && max !== null;
  if (hasMin) operand(min, 'min');
  if (hasMax) operand(max, 'max');
  if (!hasMin && !hasMax) throw invalidValue('min', 'a bound (min, max or both) for clamp', min);
  const { out, async, stream } = self !== undefined ? NO_OPTIONS : opOptions(options);
  const bounds = [hasMin ? min : undefined, hasMax ? max : undefined].filter((v) => v !== undefined);
  const common = resultType(input, ...bounds);
  if (common === 'bool') throw unsupported(name, 'bool');
  const how = { self, out, async, stream };
  if (hasMin && hasMax) return run('clamp', name, [input, min, max], common, common, { ...how, names: CLAMP_NAMES });
  if (hasMin) return run('clampMin', name, [input, min], common, common, { ...how, names: CLAMP_NAMES });
  return run('clampMax', name, [input, max], common, common, { ...how, names: CLAMP_MAX_NAMES });
}

// --- threads ------------------------------------------------------------------

function setNumThreads(n) {
  if (typeof n !== 'number') throw invalidType('n', 'a number', n);
  if (!Number.isInteger(n) || n < 1 || n > maxThreads) {
    throw outOfRange('n', `an integer from 1 to ${maxThreads}`, describe(n));
  }
  native.setNumThreads(n);
}

function getNumThreads() {
  return native.getNumThreads();
}

// --- the public forms -----------------------------------------------------------

const functions = {
  add: (input, other, options) => binary('add', input, other, options),
  sub: (input, other, options) => binary('sub', input, other, options),
  mul: (input, other, options) => binary('mul', input, other, options),
  div: (input, other, options) => binary('div', input, other, options),
  maximum: (input, other, options) => binary('maximum', input, other, options),
  minimum: (input, other, options) => binary('minimum', input, other, options),
  pow: (input, other, options) => binary('pow', input, other, options),
  eq: (input, other, options) => compare('eq', input, other, options),
  ne: (input, other, options) => compare('ne', input, other, options),
  lt: (input, other, options) => compare('lt', input, other, options),
  le: (input, other, options) => compare('le', input, other, options),
  gt: (input, other, options) => compare('gt', input, other, options),
  ge: (input, other, options) => compare('ge', input, other, options),
  where,
  neg: (input, options) => unary('neg', input, options),
  abs: (input, options) => unary('abs', input, options),
  exp: (input, options) => unary('exp', input, options),
  log: (input, options) => unary('log', input, options),
  sqrt: (input, options) => unary('sqrt', input, options),
  sigmoid: (input, options) => unary('sigmoid', input, options),
  tanh: (input, options) => unary('tanh', input, options),
  round: (input, options) => unary('round', input, options),
  relu: (input, options) => unary('relu', input, options),
  gelu: (input, options) => gelu(input, options),
  silu: (input, options) => unary('silu', input, options),
  erf: (input, options) => unary('erf', input, options),
  log1p: (input, options) => unary('log1p', input, options),
  expm1: (input, options) => unary('expm1', input, options),
  floor: (input, options) => unary('floor', input, options),
  ceil: (input, options) => unary('ceil', input, options),
  trunc: (input, options) => unary('trunc', input, options),
  sin: (input, options) => unary('sin', input, options),
  cos: (input, options) => unary('cos', input, options),
  rsqrt: (input, options) => unary('rsqrt', input, options),
  reciprocal: (input, options) => unary('reciprocal', input, options),
  sign: (input, options) => unary('sign', input, options),
  clamp: (input, min, max, options) => clamp(input, min, max, options),
};

// The ops' Tensor methods (lib/index.js installs them through lib/tensor.js
// installMethods): t.add(other), t.add_(other), t.eq(other), t.exp(),
// t.exp_(), t.clamp(min, max), t.clamp_(min, max), ...; each checks its
// argument count, then runs as the function does, the in-place forms into
// `this`.
const BINARY_METHODS = ['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'pow'];
const BINARY_IN_PLACE = ['add', 'sub', 'mul', 'div'];
const COMPARE_METHODS = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'];
const UNARY_METHODS = ['neg', 'abs', 'exp', 'log', 'sqrt', 'sigmoid', 'tanh', 'round', 'relu', 'silu', 'erf', 'log1p',
  'expm1', 'floor', 'ceil', 'trunc', 'sin', 'cos', 'rsqrt', 'reciprocal', 'sign'];

// A method named `name` (as a class method's own name) of `body`.
const named = (name, body) => Object.defineProperty(body, 'name', { value: name });

const tensorMethods = {};
for (const op of BINARY_METHODS) {
  tensorMethods[op] = named(op, function (other, ...rest) {
    if (rest.length !== 0) tooMany(rest, 1, `${op}()`);
    return binary(op, this, other, undefined);
  });
}
for (const op of BINARY_IN_PLACE) {
  tensorMethods[`${op}_`] = named(`${op}_`, function (other, ...rest) {
    if (rest.length !== 0) tooMany(rest, 1, `${op}_()`);
    liveTensor(this, 'this');
    return binary(op, this, other, undefined, this);
  });
}
for (const op of COMPARE_METHODS) {
  tensorMethods[op] = named(op, function (other, ...rest) {
    if (rest.length !== 0) tooMany(rest, 1, `${op}()`);
    return compare(op, this, other, undefined);
  });
}
for (const op of UNARY_METHODS) {
  tensorMethods[op] = named(op, function (...rest) {
    if (rest.length !== 0) tooMany(rest, 0, `${op}()`);
    return unary(op, this, undefined);
  });
  tensorMethods[`${op}_`] = named(`${op}_`, function (...rest) {
    if (rest.length !== 0) tooMany(rest, 0, `${op}_()`);
    liveTensor(this, 'this');
    return unary(op, this, undefined, this);
  });
}
// t.gelu({ approximate }) and t.gelu_({ approximate }).
const GELU_METHOD_KEYS = ['approximate'];
tensorMethods.gelu = named('gelu', function (options = undefined, ...rest) {
  if (rest.length !== 0) tooMany(rest, 1, 'gelu()');
  if (options !== undefined) checkOptions(options, GELU_METHOD_KEYS, 'options');
  return gelu(this, options);
});
tensorMethods.gelu_ = named('gelu_', function (options = undefined, ...rest) {
  if (rest.length !== 0) tooMany(rest, 1, 'gelu_()');
  liveTensor(this, 'this');
  const approximate = options === undefined ? undefined : checkOptions(options, GELU_METHOD_KEYS, 'options').approximate;
  return gelu(this, approximate === undefined ? undefined : { approximate }, this);
});
tensorMethods.clamp = named('clamp', function (min = undefined, max = undefined, ...rest) {
  if (rest.length !== 0) tooMany(rest, 2, 'clamp()');
  return clamp(this, min, max, undefined);
});
tensorMethods.clamp_ = named('clamp_', function (min = undefined, max = undefined, ...rest) {
  if (rest.length !== 0) tooMany(rest, 2, 'clamp_()');
  liveTensor(this, 'this');
  return clamp(this, min, max, undefined, this);
});

// The public forms of the promotion and broadcasting rules (torch's
// result_type, promote_types, can_cast, broadcast_shapes).
const dtypeName = (d, name) => dtypeInfo(d, name).name;
const rules = {
  resultType(...operands) {
    if (!operands.some((v) => v instanceof Tensor)) {
      throw invalidType('operands', 'at least one Tensor', operands[0]);
    }
    operands.forEach((v, i) => (v instanceof Tensor ? liveStorage(v) : operand(v, `operands[${i}]`)));
    return resultType(...operands);
  },
  promoteTypes: (a, b) => promoteTypes(dtypeName(a, 'a'), dtypeName(b, 'b')),
  canCast: (from, to) => canCast(dtypeName(from, 'from'), dtypeName(to, 'to')),
  broadcastShapes(...shapes) {
    const list = shapes.map((s, i) => {
      if (!Array.isArray(s) || s.some((n) => !Number.isInteger(n) || n < 0)) {
        throw invalidType(`shapes[${i}]`, 'an array of sizes', s);
      }
      return s;
    });
    const shape = broadcastShapes(list);
    if (shape === null) {
      throw invalidValue('shapes', 'shapes that broadcast together', shapes.map((s) => `[${s.join(', ')}]`).join(', '));
    }
    return shape;
  },
};

module.exports = {
  functions, tensorMethods, rules, setNumThreads, getNumThreads, partialOverlap,
  // The rules the compute families apply as the elementwise ops do (lib/linalg.js, lib/stats.js,
  // lib/normalize.js), and run(), through which lib/normalize.js composes a case its kernel does not take.
  liveTensor, opOptions, placement, writable, fresh, broadcastShapes, broadcastStrides, run,
};
