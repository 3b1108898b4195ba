'use strict';
// Vision post-processing (docs/API.md "Vision"): dl.ops.nms, boxIou,
// batchedNms (torchvision.ops' names and definitions) and dl.interpolate
// (torch.nn.functional.interpolate, nearest and bilinear, NCHW), on the host
// (src/core/compute/boxes.h, interpolate.h).
const { invalidType, invalidValue, outOfRange, fail } = require('./errors');
const { hostTensor, dtypeOf, operand, result, optionsOf, flag } = require('./compute');
const route = require('./route');
const { dtypeInfo } = require('./dtypes');
const { makeTensor } = require('./tensor');
const { Layout } = require('./layout');
const { CPU } = require('./device');
const { integer, tooMany } = require('./views');
const { kLayout, kStorage } = require('./symbols');

const FLOAT = ['float'];
const shapeText = (shape) => `[${shape.join(', ')}]`;

// Boxes [N, 4] (x1, y1, x2, y2) of float32 or float64.
function boxesOf(t, name, method) {
  hostTensor(t, name, method);
  const info = dtypeOf(t, name, method, FLOAT, 'a float32 or float64 tensor');
  if (info.name !== 'float32' && info.name !== 'float64') {
    throw fail('ERR_INVALID_ARG_VALUE', name, `a float32 or float64 tensor for ${method}`, `dtype ${info.name}`);
  }
  const shape = t[kLayout].shape;
  if (shape.length !== 2 || shape[1] !== 4) {
    throw fail('ERR_INVALID_ARG_VALUE', name, `a tensor of shape [N, 4] for ${method}`, `one of shape ${shapeText(shape)}`);
  }
  return info;
}

// boxIou(boxes1 [N, 4], boxes2 [M, 4]) -> [N, M] in the boxes' dtype.
function boxIou(a, b, ...rest) {
  if (rest.length !== 0) tooMany(rest, 2, 'ops.boxIou()');
  const info = boxesOf(a, 'boxes1', 'ops.boxIou()');
  if (boxesOf(b, 'boxes2', 'ops.boxIou()') !== info) {
    throw fail('ERR_INVALID_ARG_VALUE', 'boxes2', `boxes1's dtype (${info.name}) for ops.boxIou()`, `dtype ${b.dtype}`);
  }
  const value = result(info, [a[kLayout].shape[0], b[kLayout].shape[0]]);
  try {
    if (value[kLayout].size !== 0) route.runBoxIou(operand(a), operand(b), operand(value));
  } catch (error) {
    value.dispose();
    throw error;
  }
  return value;
}

// The kept indices (int64 [K]) of nms / batchedNms (idxs not null).
function suppressed(method, boxes, scores, idxs, iouThreshold) {
  const info = boxesOf(boxes, 'boxes', method);
  hostTensor(scores, 'scores', method);
  const n = boxes[kLayout].shape[0];
  const sshape = scores[kLayout].shape;
  if (scores[kLayout].info !== info || sshape.length !== 1 || sshape[0] !== n) {
    throw fail('ERR_INVALID_ARG_VALUE', 'scores', `a ${info.name} tensor of shape [${n}] for ${method}`,
      `a ${scores.dtype} one of shape ${shapeText(sshape)}`);
  }
  if (idxs !== null) {
    hostTensor(idxs, 'idxs', method);
    const ishape = idxs[kLayout].shape;
    if ((idxs.dtype !== 'int64' && idxs.dtype !== 'int32') || ishape.length !== 1 || ishape[0] !== n) {
      throw fail('ERR_INVALID_ARG_VALUE', 'idxs', `an int64 or int32 tensor of shape [${n}] for ${method}`,
        `a ${idxs.dtype} one of shape ${shapeText(ishape)}`);
    }
  }
  if (typeof iouThreshold !== 'number') throw invalidType('iouThreshold', 'a number', iouThreshold);
  if (Number.isNaN(iouThreshold)) throw outOfRange('iouThreshold', 'a number', 'NaN');
  const int64 = dtypeInfo('int64');
  const keep = result(int64, [n]);
  let kept = 0;
  try {
    if (n !== 0) {
      kept = route.runNms(operand(boxes), operand(scores), idxs === null ? null : operand(idxs), iouThreshold,
        operand(keep));
    }
  } catch (error) {
    keep.dispose();
    throw error;
  }
  if (kept === n) return keep;
  // The first `kept` elements of keep's memory, as their own tensor.
  const storage = keep[kStorage];
  const value = makeTensor(storage, Layout.contiguous(int64, [kept]), 0, CPU);
  keep.dispose();
  return value;
}

// nms(boxes, scores, iouThreshold) -> int64 indices of the kept boxes, by
// decreasing score.
function nms(boxes, scores, iouThreshold, ...rest) {
  if (rest.length !== 0) tooMany(rest, 3, 'ops.nms()');
  return suppressed('ops.nms()', boxes, scores, null, iouThreshold);
}

// batchedNms(boxes, scores, idxs, iouThreshold): nms within each category.
function batchedNms(boxes, scores, idxs, iouThreshold, ...rest) {
  if (rest.length !== 0) tooMany(rest, 4, 'ops.batchedNms()');
  return suppressed('ops.batchedNms()', boxes, scores, idxs, iouThreshold);
}

const INTERPOLATE_KEYS = ['size', 'scaleFactor', 'mode', 'alignCorners'];

// A pair for the two spatial dims from a number or an array of two.
function pair(v, name, check) {
  const list = Array.isArray(v) ? v : [v, v];
  if (list.length !== 2) throw invalidValue(name, 'a number or an array of two (H, W)', v);
  list.forEach((x, i) => check(x, Array.isArray(v) ? `${name}[${i}]` : name));
  return list;
}

// interpolate(input [N, C, H, W], { size | scaleFactor, mode = 'nearest',
// alignCorners }) -> [N, C, OH, OW] in input's dtype.
function interpolate(t, options, ...rest) {
  if (rest.length !== 0) tooMany(rest, 2, 'interpolate()');
  hostTensor(t, 'input', 'interpolate()');
  dtypeOf(t, 'input', 'interpolate()', FLOAT, 'a floating-point tensor');
  const shape = t[kLayout].shape;
  if (shape.length !== 4) {
    throw fail('ERR_INVALID_ARG_VALUE', 'input', 'an NCHW (4-d) tensor for interpolate()', `one of shape ${shapeText(shape)}`);
  }
  const { size, scaleFactor, mode = 'nearest', alignCorners } = optionsOf(options, INTERPOLATE_KEYS);
  if (mode !== 'nearest' && mode !== 'bilinear') {
    throw invalidValue('options.mode', "'nearest' or 'bilinear'", mode);
  }
  const bilinear = mode === 'bilinear';
  if (alignCorners !== undefined && !bilinear) {
    throw invalidValue('options.alignCorners', "undefined for mode 'nearest' (torch refuses it)", alignCorners);
  }
  const corners = flag(alignCorners, 'alignCorners', false);
  if ((size === undefined) === (scaleFactor === undefined)) {
    throw invalidValue('options', 'exactly one of `size` and `scaleFactor`', options);
  }
  let out;
  let scales = [0, 0];
  if (size !== undefined) {
    out = pair(size, 'options.size', (x, name) => {
      integer(x, name);
      if (x < 1) throw outOfRange(name, 'an integer from 1', String(x));
    });
  } else {
    scales = pair(scaleFactor, 'options.scaleFactor', (x, name) => {
      if (typeof x !== 'number') throw invalidType(name, 'a number', x);
      if (!(x > 0) || !Number.isFinite(x)) throw outOfRange(name, 'a positive finite number', String(x));
    });
    out = [Math.floor(shape[2] * scales[0]), Math.floor(shape[3] * scales[1])];
    if (out[0] < 1 || out[1] < 1) {
      throw outOfRange('options.scaleFactor', 'a factor that leaves each spatial dim at least 1', String(scaleFactor));
    }
  }
  const value = result(t[kLayout].info, [shape[0], shape[1], out[0], out[1]]);
  try {
    if (value[kLayout].size !== 0 && t[kLayout].size !== 0) {
      route.runInterpolate(operand(t), bilinear, corners, scales[0], scales[1], operand(value));
    }
  } catch (error) {
    value.dispose();
    throw error;
  }
  return value;
}

const ops = { nms, boxIou, batchedNms };

module.exports = { ops, interpolate };
