'use strict';
// dl.normalize (docs/API.md "normalize"): torchvision.transforms.functional
// .normalize with a scale first, (input * scale - mean[c]) / std[c], the
// channel at dim -3, in one pass from any real dtype and any strided view into
// float32 (or out's dtype). Every rule is written here once, before the host
// or device fork, which is at the bottom (lib/route.js runNormalize ->
// src/core/compute/normalize.h RunNormalize): the options and values read
// once, the input converted where the pass cannot read it (bool through
// uint8, float16/bfloat16 through float32), and the target (out, or a new
// tensor where out is of another dtype or overlaps the input partially). A
// device's one-pass kernel takes uint8 or float32 into float32 of at most 32
// channels; any other case is composed of the elementwise kernels in the
// pass's order and rounding, so the bits are the host's.
const route = require('./route');
const { makeError, invalidType, invalidValue, outOfRange, fail, describe } = require('./errors');
const { checkOptions } = require('./options');
const { infos } = require('./dtypes');
const { copyStream } = require('./cuda');
const { kStorage, kLayout } = require('./symbols');
const { Storage } = require('./storage');
const { liveTensor, writable, placement, fresh, partialOverlap, run } = require('./ops');

const NORMALIZE_KEYS = ['scale', 'out', 'async', 'stream'];
// The real floating dtypes, as an error message lists them.
const REAL_FLOATS = Object.values(infos).filter((i) => i.kind === 'float').map((i) => i.name);
const REAL_FLOAT_LIST = `${REAL_FLOATS.slice(0, -1).join(', ')} or ${REAL_FLOATS[REAL_FLOATS.length - 1]}`;

// mean or std, checked, each value read once, as one value per channel
// written into `into` from `at` (nothing written where `into` is null: an
// empty input). `values` is a number (one for every channel) or an array of
// one value or one per channel, its length checked before any value is read.
// `zeroIn`: for std, the dtype the division runs in, in which a value may not
// be 0 (torchvision's rule: issue 37, finding 13). Plain loops: a per-frame
// call meets this code cold, and each array builtin it would call
// (Array.from, fill, a spread) costs microseconds there.
function channelValues(values, channels, name, into, at, zeroIn = null) {
  if (typeof values === 'number') {
    if (zeroIn !== null) refuseZero(values, zeroIn, name);
    if (into !== null) for (let c = 0; c < channels; c++) into[at + c] = values;
    return;
  }
  if (!Array.isArray(values) && !ArrayBuffer.isView(values)) {
    throw invalidType(name, 'a number or an array of numbers', values);
  }
  const n = values.length;
  if (n !== 1 && n !== channels) {
    throw invalidValue(name, `one value per channel (${channels}, dim -3 of the input) or one for all`, values);
  }
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (typeof v !== 'number') throw invalidType(`${name}[${i}]`, 'a number', v);
    if (zeroIn !== null) refuseZero(v, zeroIn, `${name}[${i}]`);
    if (into === null) continue;
    if (n === 1) for (let c = 0; c < channels; c++) into[at + c] = v;
    else into[at + i] = v;
  }
}

function refuseZero(v, dtype, name) {
  if ((dtype === 'float64' ? v : Math.fround(v)) !== 0) return;
  throw outOfRange(name, `a std that is not zero in ${dtype} (torchvision: "std evaluated to zero after ` +
    `conversion to ${dtype}, leading to division by zero.")`, describe(v));
}

// { scale, out, async, stream }, each read once (one destructuring).
function normalizeOptions(options) {
  if (options === undefined) return { scale: 1, out: undefined, async: false, stream: 1n };
  if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
  const { scale, out, async, stream } = checkOptions(options, NORMALIZE_KEYS, 'options');
  if (scale !== undefined && typeof scale !== 'number') throw invalidType('options.scale', 'a number', scale);
  if (out !== undefined) {
    liveTensor(out, 'options.out');
    writable(out, 'options.out');
  }
  if (async !== undefined && typeof async !== 'boolean') throw invalidType('options.async', 'a boolean', async);
  return { scale: scale === undefined ? 1 : scale, out, async: async === true, stream: copyStream(stream) };
}

// The dtype the pass reads an input of `dtype` as, where it cannot read it
// itself: bool through the conversion, whose rule reads any non-zero byte as
// 1 (a 0/255 mask read 255: issue 37, finding 6); float16/bfloat16 through
// float32; else null.
function readAs(dtype) {
  if (dtype === 'bool') return 'uint8';
  const info = infos[dtype];
  return info.kind === 'float' && info.bits === 16 ? 'float32' : null;
}

function normalize(input, mean, std, options = undefined) {
  liveTensor(input, 'input');
  const { scale, out, async, stream } = normalizeOptions(options);
  const shape = input[kLayout].shape;
  if (shape.length < 3) {
    throw invalidValue('input', 'a tensor of at least 3 dims ([..., C, H, W])', `a tensor of shape [${shape.join(', ')}]`);
  }
  const dtype = input[kLayout].info.name;
  if (infos[dtype].kind === 'complex') {
    throw makeError('ERR_DLPACK_UNSUPPORTED', `normalize is not defined for ${dtype} tensors`);
  }
  const channels = shape[shape.length - 3];
  const outType = out !== undefined && out[kLayout].info.name === 'float64' ? 'float64' : 'float32';
  // mean[0..C) then std[0..C), as the native pass reads them; none for an
  // empty input, which may have any number of channels.
  const empty = input[kLayout].size === 0;
  const meanStd = empty ? null : new Float64Array(2 * channels);
  channelValues(mean, channels, 'mean', meanStd, 0);
  channelValues(std, channels, 'std', meanStd, channels, outType);
  if (out !== undefined) {
    const s = out[kLayout].shape;
    if (s.length !== shape.length || s.some((d, i) => d !== shape[i])) {
      throw fail('ERR_INVALID_ARG_VALUE', 'options.out', `a tensor of shape [${shape.join(', ')}]`,
        `one of shape [${s.join(', ')}]`);
    }
    if (infos[out[kLayout].info.name].kind !== 'float') {
      throw fail('ERR_INVALID_ARG_VALUE', 'options.out', `a ${REAL_FLOAT_LIST} tensor`,
        `a ${out[kLayout].info.name} tensor`);
    }
    route.refuseSharedElements(out[kLayout], '`options.out` of normalize()');
  }
  const device = placement('normalize', [input], out);
  if (empty) {
    const result = out !== undefined ? out : fresh(shape, outType, device);
    return async ? Promise.resolve(result) : result;
  }
  // On a device every step is enqueued on `stream`, as a device copy is.
  const on = device === null ? undefined : { stream };
  const temporaries = [];
  let deferred = false;
  try {
    const as = readAs(dtype);
    const source = as === null ? input : input.to(as, on);
    if (source !== input) temporaries.push(source);
    let target = out;
    if (target === undefined || target[kLayout].info.name !== outType || partialOverlap(target, [source], shape)) {
      target = fresh(shape, outType, device);
      if (out !== undefined) temporaries.push(target);
    }
    const finish = () => {
      if (out === undefined) return target;
      if (target !== out) out.copyFrom(target, on);
      return out;
    };
    const ran = route.runNormalize(target[kStorage], target[kLayout], source[kStorage], source[kLayout], meanStd,
      scale, async && device === null, stream);
    if (device !== null) {
      if (ran === false) composed(source, meanStd, scale, target, outType, stream, temporaries);
      // Enqueued on the stream: the result (a promise of it when async) is
      // ordered after the kernels there, as a device op's is.
      return async ? Promise.resolve(finish()) : finish();
    }
    if (!async) return finish();
    // Held until it settles, as run() holds an op's operands.
    deferred = true;
    return Storage.holdUntilSettled([target[kStorage], source[kStorage]], ran.then(finish)).finally(() => {
      for (const t of temporaries) t.dispose();
    });
  } finally {
    if (!deferred) for (const t of temporaries) t.dispose();
  }
}

// The per-channel values as a [C, 1, 1] tensor of `dtype` on the device of
// `like`, enqueued on `stream`.
function channelTensor(values, dtype, like, stream) {
  const host = fresh([values.length, 1, 1], dtype);
  try {
    const typed = dtype === 'float64' ? Float64Array.from(values) : Float32Array.from(values);
    host[kStorage].getBytes().set(new Uint8Array(typed.buffer), host[kLayout].byteOffset);
    return host.to(like.device, { stream });
  } finally {
    host.dispose();
  }
}

// A case the device's one-pass kernel does not take (a float64 result, an
// input of another dtype than uint8 or float32, more than 32 channels, 2^31
// elements or more), into `target` (of `outType`, not overlapping the input
// but for the very same elements) through the elementwise kernels on
// `stream`, in the pass's order and type: (x * scale - mean[c]) / std[c],
// each step rounded in outType. Its temporaries go onto `temporaries`.
function composed(source, meanStd, scale, target, outType, stream, temporaries) {
  const channels = meanStd.length / 2;
  const x = source[kLayout].info.name === outType ? source : source.to(outType, { stream });
  if (x !== source) temporaries.push(x);
  const mean = channelTensor(meanStd.subarray(0, channels), outType, target, stream);
  temporaries.push(mean);
  const std = channelTensor(meanStd.subarray(channels), outType, target, stream);
  temporaries.push(std);
  const scaled = run('mul', 'normalize', [x, scale], outType, outType, { stream });
  temporaries.push(scaled);
  run('sub', 'normalize', [scaled, mean], outType, outType, { self: scaled, stream });
  run('div', 'normalize', [scaled, std], outType, outType, { out: target, stream });
}

module.exports = { normalize };
