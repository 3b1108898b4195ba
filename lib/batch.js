'use strict';
// dl.cat and dl.stack (docs/API.md "Batching"): torch's names and rules, with
// an optional `out` tensor (any writable tensor: shared memory goes straight
// to a worker or Python). Inputs of another dtype than the result are
// converted by the rules of lib/convert.js.
const { invalidType, invalidValue, fail } = require('./errors');
const { Tensor, liveStorage } = require('./tensor');
const { checkOptions } = require('./options');
const { empty } = require('./create');
const { dimension, maxArgs } = require('./views');
const { kLayout, kDevice } = require('./symbols');

const OPTION_KEYS = ['out'];

function inputs(tensors) {
  if (!Array.isArray(tensors)) throw invalidType('tensors', 'an array of tensors', tensors);
  if (tensors.length === 0) throw invalidValue('tensors', 'at least one tensor', tensors);
  for (let i = 0; i < tensors.length; i++) {
    if (!(tensors[i] instanceof Tensor)) throw invalidType(`tensors[${i}]`, 'a Tensor', tensors[i]);
    liveStorage(tensors[i]);
  }
  return tensors;
}

function outOption(options) {
  if (options === undefined) return undefined;
  const { out } = checkOptions(options, OPTION_KEYS);
  if (out === undefined) return undefined;
  if (!(out instanceof Tensor)) throw invalidType('options.out', 'a Tensor', out);
  liveStorage(out);
  return out;
}

// The result: `out` after checking its shape, or a new tensor of the first
// input's dtype (all inputs must share it then) and device.
function result(tensors, shape, out) {
  if (out !== undefined) {
    const s = out[kLayout].shape;
    if (s.length !== shape.length || s.some((d, i) => d !== shape[i])) {
      throw fail('ERR_INVALID_ARG_VALUE', 'options.out', `a tensor of shape [${shape.join(', ')}]`,
        `one of shape [${s.join(', ')}]`);
    }
    return out;
  }
  const first = tensors[0];
  for (let i = 1; i < tensors.length; i++) {
    if (tensors[i][kLayout].info !== first[kLayout].info || tensors[i][kDevice] !== first[kDevice]) {
      throw fail('ERR_INVALID_ARG_VALUE', `tensors[${i}]`,
        `a ${first.dtype} tensor on ${first.device} like tensors[0] (or pass \`options.out\`)`,
        `a ${tensors[i].dtype} tensor on ${tensors[i].device}`);
    }
  }
  return empty(shape, { dtype: first.dtype, device: first.device });
}

function cat(tensors, dim = 0, options = undefined, ...rest) {
  maxArgs([tensors, dim, options, ...rest], 3, 'cat()');
  inputs(tensors);
  const out = outOption(options);
  const ref = tensors[0][kLayout].shape;
  const d = dimension(dim, ref.length, 'dim');
  if (ref.length === 0) throw invalidValue('tensors[0]', 'tensors with at least one dimension for cat()', tensors[0]);
  let total = 0;
  for (let i = 0; i < tensors.length; i++) {
    const s = tensors[i][kLayout].shape;
    if (s.length !== ref.length || s.some((n, j) => j !== d && n !== ref[j])) {
      const want = ref.map((n, j) => (j === d ? '*' : n)).join(', ');
      throw fail('ERR_INVALID_ARG_VALUE', `tensors[${i}]`, `a tensor of shape [${want}] (like tensors[0] but for ` +
        `dim ${d})`, `one of shape [${s.join(', ')}]`);
    }
    total += s[d];
  }
  const shape = ref.slice();
  shape[d] = total;
  const target = result(tensors, shape, out);
  let at = 0;
  for (const t of tensors) {
    const n = t[kLayout].shape[d];
    if (n !== 0) target.narrow(d, at, n).copyFrom(t);
    at += n;
  }
  return target;
}

function stack(tensors, dim = 0, options = undefined, ...rest) {
  maxArgs([tensors, dim, options, ...rest], 3, 'stack()');
  inputs(tensors);
  const out = outOption(options);
  const ref = tensors[0][kLayout].shape;
  const d = dimension(dim, ref.length, 'dim', 1);
  for (let i = 1; i < tensors.length; i++) {
    const s = tensors[i][kLayout].shape;
    if (s.length !== ref.length || s.some((n, j) => n !== ref[j])) {
      throw fail('ERR_INVALID_ARG_VALUE', `tensors[${i}]`, `a tensor of shape [${ref.join(', ')}] like tensors[0]`,
        `one of shape [${s.join(', ')}]`);
    }
  }
  const shape = ref.slice();
  shape.splice(d, 0, tensors.length);
  const target = result(tensors, shape, out);
  for (let i = 0; i < tensors.length; i++) target.select(d, i).copyFrom(tensors[i]);
  return target;
}

module.exports = { cat, stack };
