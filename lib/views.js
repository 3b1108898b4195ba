'use strict';
// View arithmetic (docs/API.md "Views"): each function takes a tensor's
// Layout (lib/layout.js) and the caller's arguments, and returns the view's
// Layout. Nothing here touches memory; lib/tensor.js turns the result into a
// tensor over the same storage. Names and semantics
// are torch's (torch.Tensor.permute, narrow, ...); `slice` is Python's
// slicing on one dimension, negative steps included (DLPack allows negative
// strides, torch does not).
const { makeError, invalidType, invalidValue, outOfRange, describe } = require('./errors');
const { MAX_DIMS, normalizeShape, product } = require('./shape');
const { Layout } = require('./layout');

// An integer argument: a number that is not an integer is out of range
// (Node's validateInteger), anything else has the wrong type.
function integer(value, name) {
  if (typeof value !== 'number') throw invalidType(name, 'an integer', value);
  if (!Number.isSafeInteger(value)) throw outOfRange(name, 'an integer', String(value));
  return value;
}

// A dimension index into `ndim` dims; negative counts from the end. `extra`
// is 1 where one past the last is allowed (unsqueeze).
function dimension(value, ndim, name, extra = 0) {
  integer(value, name);
  const n = ndim + extra;
  if (value < -Math.max(n, 1) || value >= Math.max(n, 1)) {
    throw outOfRange(name, `a dimension from ${-Math.max(n, 1)} to ${Math.max(n, 1) - 1}`, String(value));
  }
  if (n === 0) return 0; // torch lets dim 0 / -1 name the only "dim" of a 0-d tensor
  return value < 0 ? value + n : value;
}

// Methods that take a list take it either as one array or as varargs
// (torch's `reshape(20, 3)` and `reshape([20, 3])`); both name the same list.
function listArgs(args, method, name) {
  if (args.length === 1 && Array.isArray(args[0])) return args[0];
  for (let i = 0; i < args.length; i++) {
    if (typeof args[i] !== 'number') {
      if (i === 0 && args.length === 1) throw invalidType(name, 'an array of integers or integers as arguments', args[0]);
      throw invalidType(`${method} argument ${i}`, 'an integer (or one array of integers)', args[i]);
    }
  }
  return args;
}

// Methods with fixed positional arguments refuse extra ones by name.
function maxArgs(args, max, method) {
  if (args.length > max) tooMany(args.slice(max), max, method);
}

// `rest`: the arguments past the `max` a method takes (callers test
// rest.length first, so the common call allocates nothing).
function tooMany(rest, max, method) {
  throw invalidValue(`${method} argument ${max}`, `at most ${max} argument${max === 1 ? '' : 's'} for ${method}`,
    rest[0]);
}

function permute(layout, dims) {
  const { shape, strides } = layout;
  const ndim = shape.length;
  if (dims.length !== ndim) {
    throw invalidValue('dims', `a permutation of ${ndim} dimensions`, dims);
  }
  const seen = new Array(ndim).fill(false);
  const outShape = new Array(ndim);
  const outStrides = new Array(ndim);
  for (let i = 0; i < ndim; i++) {
    const v = dims[i];
    // The common case without building the argument's name for a message.
    const d = Number.isInteger(v) && v >= -ndim && v < ndim ? (v < 0 ? v + ndim : v) : dimension(v, ndim, `dims[${i}]`);
    if (seen[d]) throw invalidValue('dims', `a permutation of ${ndim} dimensions (dimension ${d} repeats)`, dims);
    seen[d] = true;
    outShape[i] = shape[d];
    outStrides[i] = strides[d];
  }
  return layout.view(outShape, outStrides, 0);
}

function transpose(layout, dim0, dim1) {
  const { shape, strides } = layout;
  const ndim = shape.length;
  const a = dimension(dim0, ndim, 'dim0');
  const b = dimension(dim1, ndim, 'dim1');
  const outShape = shape.slice();
  const outStrides = strides.slice();
  if (ndim > 0) {
    outShape[a] = shape[b];
    outShape[b] = shape[a];
    outStrides[a] = strides[b];
    outStrides[b] = strides[a];
  }
  return layout.view(outShape, outStrides, 0);
}

function needDims(shape, method) {
  if (shape.length === 0) {
    throw makeError('ERR_INVALID_ARG_VALUE', `Expected a tensor with at least one dimension for ${method}, ` +
      'received a 0-d tensor');
  }
}

function narrow(layout, dim, start, length) {
  const { shape, strides } = layout;
  needDims(shape, 'narrow()');
  const d = dimension(dim, shape.length, 'dim');
  const n = shape[d];
  integer(start, 'start');
  integer(length, 'length');
  if (start < -n || start > n) throw outOfRange('start', `an index from ${-n} to ${n}`, String(start));
  const s = start < 0 ? start + n : start;
  if (length < 0 || s + length > n) {
    throw outOfRange('length', `a length from 0 to ${n - s} (dimension ${d} has ${n} from start ${s})`,
      String(length));
  }
  const outShape = shape.slice();
  outShape[d] = length;
  return layout.view(outShape, strides.slice(), length === 0 ? 0 : s * strides[d]);
}

function select(layout, dim, index) {
  const { shape, strides } = layout;
  needDims(shape, 'select()');
  const d = dimension(dim, shape.length, 'dim');
  const n = shape[d];
  integer(index, 'index');
  if (index < -n || index >= n) throw outOfRange('index', `an index from ${-n} to ${n - 1}`, String(index));
  const i = index < 0 ? index + n : index;
  const outShape = [];
  const outStrides = [];
  for (let k = 0; k < shape.length; k++) {
    if (k === d) continue;
    outShape.push(shape[k]);
    outStrides.push(strides[k]);
  }
  return layout.view(outShape, outStrides, i * strides[d]);
}

// Python's slice(start, end, step).indices(n) on one dimension; undefined
// and null mean the default.
function slice(layout, dim, start, end, step) {
  const { shape, strides } = layout;
  needDims(shape, 'slice()');
  const d = dimension(dim, shape.length, 'dim');
  const n = shape[d];
  const by = step === undefined || step === null ? 1 : integer(step, 'step');
  if (by === 0) throw outOfRange('step', 'a non-zero integer', '0');
  const clamp = (value, name, fallback) => {
    if (value === undefined || value === null) return fallback;
    integer(value, name);
    let v = value < 0 ? value + n : value;
    if (v < 0) v = by < 0 ? -1 : 0;
    else if (v >= n) v = by < 0 ? n - 1 : n;
    return v;
  };
  const first = clamp(start, 'start', by < 0 ? n - 1 : 0);
  const stop = clamp(end, 'end', by < 0 ? -1 : n);
  let length = 0;
  if (by > 0 && stop > first) length = Math.floor((stop - first - 1) / by) + 1;
  if (by < 0 && first > stop) length = Math.floor((first - stop - 1) / -by) + 1;
  const outShape = shape.slice();
  const outStrides = strides.slice();
  outShape[d] = length;
  outStrides[d] = strides[d] * by;
  return layout.view(outShape, outStrides, length === 0 ? 0 : first * strides[d]);
}

function squeeze(layout, dim) {
  const { shape, strides } = layout;
  const outShape = [];
  const outStrides = [];
  if (dim === undefined) {
    for (let i = 0; i < shape.length; i++) {
      if (shape[i] !== 1) {
        outShape.push(shape[i]);
        outStrides.push(strides[i]);
      }
    }
    return layout.view(outShape, outStrides, 0);
  }
  const d = dimension(dim, shape.length, 'dim');
  if (shape.length === 0 || shape[d] !== 1) return layout.view(shape.slice(), strides.slice(), 0);
  return layout.view(shape.filter((_, i) => i !== d), strides.filter((_, i) => i !== d), 0);
}

function unsqueeze(layout, dim) {
  const { shape, strides } = layout;
  if (shape.length >= MAX_DIMS) throw outOfRange('dim', `a tensor of at most ${MAX_DIMS} dimensions`, 'one more');
  const d = dimension(dim, shape.length, 'dim', 1);
  // torch's stride for the new size-1 dim: the extent of what follows it.
  const stride = d >= shape.length ? 1 : shape[d] * strides[d];
  // Built by push (packed arrays; splice into a copy cost a third of the call).
  const outShape = [];
  const outStrides = [];
  for (let i = 0; i < shape.length; i++) {
    if (i === d) {
      outShape.push(1);
      outStrides.push(stride);
    }
    outShape.push(shape[i]);
    outStrides.push(strides[i]);
  }
  if (d === shape.length) {
    outShape.push(1);
    outStrides.push(stride);
  }
  return layout.view(outShape, outStrides, 0);
}

// Strides for `target` over the same elements as (shape, strides), or null
// when no strides can describe it without a copy (torch's computeStride).
function viewStrides(shape, strides, target) {
  const size = product(shape);
  const out = new Array(target.length);
  if (size === 0) {
    // Any strides do; row-major ones.
    let step = 1;
    for (let i = target.length - 1; i >= 0; i--) {
      out[i] = step;
      step *= target[i] || 1;
    }
    return out;
  }
  let viewD = target.length - 1;
  let chunkBase = strides.length === 0 ? 1 : strides[strides.length - 1];
  let tensorNumel = 1;
  let viewNumel = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    tensorNumel *= shape[d];
    if (d === 0 || (shape[d - 1] !== 1 && strides[d - 1] !== tensorNumel * chunkBase)) {
      while (viewD >= 0 && (viewNumel < tensorNumel || target[viewD] === 1)) {
        out[viewD] = viewNumel * chunkBase;
        viewNumel *= target[viewD];
        viewD--;
      }
      if (viewNumel !== tensorNumel) return null;
      if (d > 0) {
        chunkBase = strides[d - 1];
        tensorNumel = 1;
        viewNumel = 1;
      }
    }
  }
  if (viewD !== -1) return null;
  return out;
}

// reshape()/view() argument: one dimension may be -1 (inferred).
function inferShape(raw, size, name = 'shape') {
  if (!Array.isArray(raw)) throw invalidType(name, 'an array of integers', raw);
  const inferred = raw.indexOf(-1);
  if (inferred !== -1 && raw.indexOf(-1, inferred + 1) !== -1) {
    throw invalidValue(name, 'at most one -1 dimension', raw);
  }
  const shape = normalizeShape(inferred === -1 ? raw : raw.map((d) => (d === -1 ? 0 : d)), name);
  if (inferred !== -1) {
    const rest = product(shape.filter((_, i) => i !== inferred));
    if (rest === 0 || size % rest !== 0) {
      throw outOfRange(name, `a shape whose product is ${size}`, `[${raw.join(', ')}]`);
    }
    shape[inferred] = size / rest;
  }
  if (product(shape) !== size) {
    throw outOfRange(name, `a shape whose product is ${size}`, `[${raw.join(', ')}]`);
  }
  return shape;
}

// flatten(start, end) -> the target shape (lib/tensor.js views or copies).
function flattenShape(shape, start, end) {
  if (shape.length === 0) return [1];
  const s = dimension(start, shape.length, 'startDim');
  const e = dimension(end, shape.length, 'endDim');
  if (s > e) throw invalidValue('endDim', `a dimension not before startDim (${s})`, end);
  const out = new Array(shape.length - (e - s));
  let merged = 1;
  for (let i = 0; i < shape.length; i++) {
    if (i < s) out[i] = shape[i];
    else if (i <= e) merged *= shape[i];
    else out[i - (e - s)] = shape[i];
  }
  out[s] = merged;
  return out;
}

// expand(sizes): new leading dims and size-1 dims broadcast with stride 0;
// -1 keeps a size.
function expand(layout, sizes) {
  const { shape, strides } = layout;
  if (sizes.length < shape.length) {
    throw invalidValue('sizes', `at least ${shape.length} sizes (the tensor has ${shape.length} dims)`, sizes);
  }
  if (sizes.length > MAX_DIMS) throw outOfRange('sizes', `at most ${MAX_DIMS} sizes`, String(sizes.length));
  const lead = sizes.length - shape.length;
  const outShape = new Array(sizes.length);
  const outStrides = new Array(sizes.length);
  for (let i = sizes.length - 1; i >= 0; i--) {
    const want = integer(sizes[i], `sizes[${i}]`);
    const j = i - lead;
    if (j < 0) {
      if (want < 0) throw outOfRange(`sizes[${i}]`, 'a non-negative size for a new leading dimension', String(want));
      outShape[i] = want;
      outStrides[i] = 0;
    } else if (want === -1 || want === shape[j]) {
      outShape[i] = shape[j];
      outStrides[i] = strides[j];
    } else if (shape[j] === 1 && want >= 0) {
      outShape[i] = want;
      outStrides[i] = 0;
    } else {
      throw invalidValue(`sizes[${i}]`, `${shape[j]}, -1${shape[j] === 1 ? ' or any size' : ''} ` +
        `(dimension ${j} has size ${shape[j]})`, want);
    }
  }
  return layout.view(outShape, outStrides, 0, 'sizes');
}

// asStrided(shape, strides): checked here for form; the caller checks the
// resulting extent against the storage.
function stridedLayout(shapeValue, stridesValue) {
  const shape = normalizeShape(shapeValue, 'shape');
  if (!Array.isArray(stridesValue)) throw invalidType('strides', 'an array of integers', stridesValue);
  if (stridesValue.length !== shape.length) {
    throw invalidValue('strides', `${shape.length} strides (one per dimension of shape)`, stridesValue);
  }
  const strides = stridesValue.map((s, i) => integer(s, `strides[${i}]`));
  return { shape, strides };
}

// view(dtype): the same bytes as another dtype (torch's Tensor.view(dtype)).
// Sizes that differ change the last dimension, which must be dense.
function reinterpret(layout, to) {
  const { shape, strides, byteOffset, info: from } = layout;
  if (from.itemSize === to.itemSize) return Layout.of(to, shape.slice(), strides.slice(), byteOffset);
  const last = shape.length - 1;
  if (last < 0) {
    throw invalidValue('dtype', `a dtype of ${from.itemSize} bytes for a 0-d ${from.name} tensor`, to.name);
  }
  if (strides[last] !== 1 && shape[last] !== 1) {
    throw invalidValue('dtype', `a dtype of ${from.itemSize} bytes for a tensor whose last dimension is ` +
      `strided (stride ${strides[last]})`, to.name);
  }
  const outShape = shape.slice();
  const outStrides = strides.slice();
  if (to.itemSize < from.itemSize) {
    const ratio = from.itemSize / to.itemSize;
    for (let i = 0; i < last; i++) outStrides[i] = strides[i] * ratio;
    outShape[last] = shape[last] * ratio;
    outStrides[last] = 1;
    return Layout.of(to, outShape, outStrides, byteOffset);
  }
  const ratio = to.itemSize / from.itemSize;
  if (shape[last] % ratio !== 0) {
    throw invalidValue('dtype', `a dtype whose size divides the last dimension's ${shape[last] * from.itemSize} ` +
      'bytes', to.name);
  }
  for (let i = 0; i < last; i++) {
    if (strides[i] % ratio !== 0) {
      throw invalidValue('dtype', `a dtype whose size divides every stride (strides[${i}] is ` +
        `${strides[i] * from.itemSize} bytes)`, to.name);
    }
    outStrides[i] = strides[i] / ratio;
  }
  if (byteOffset % to.itemSize !== 0) {
    throw makeError('ERR_DLPACK_MISALIGNED', `Expected a byteOffset that is a multiple of ${to.itemSize} ` +
      `(the ${to.name} size) for \`dtype\`, received ${byteOffset}`);
  }
  outShape[last] = shape[last] / ratio;
  outStrides[last] = 1;
  return Layout.of(to, outShape, outStrides, byteOffset);
}

module.exports = {
  integer, dimension, listArgs, maxArgs, tooMany, describe,
  permute, transpose, narrow, select, slice, squeeze, unsqueeze, expand, viewStrides, inferShape, flattenShape,
  stridedLayout, reinterpret,
};
