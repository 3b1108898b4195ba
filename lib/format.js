'use strict';
// toString() / util.inspect in PyTorch's style: tensor([1, 2, 3], dtype=float32).
// Large tensors show the first and last three entries of each dimension.

const EDGE = 3;
const SUMMARIZE_ABOVE = 1000;

function formatValue(v) {
  if (Array.isArray(v)) { // complex [re, im]
    const im = v[1];
    return `${formatValue(v[0])}${im < 0 || Object.is(im, -0) ? '-' : '+'}${formatValue(Math.abs(im))}j`;
  }
  if (typeof v === 'bigint') return v.toString();
  return String(v);
}

function formatTensor(shape, strides, origin, read) {
  let size = 1;
  for (const d of shape) size *= d;
  const summarize = size > SUMMARIZE_ABOVE;
  const walk = (dim, pos, indent) => {
    if (dim === shape.length) return formatValue(read(pos));
    const n = shape[dim];
    const parts = [];
    const push = (i) => parts.push(walk(dim + 1, pos + i * strides[dim], indent + 1));
    if (summarize && n > 2 * EDGE) {
      for (let i = 0; i < EDGE; i++) push(i);
      parts.push('...');
      for (let i = n - EDGE; i < n; i++) push(i);
    } else {
      for (let i = 0; i < n; i++) push(i);
    }
    const separator = dim === shape.length - 1 ? ', ' : `,\n${' '.repeat(8 + indent)}`;
    return `[${parts.join(separator)}]`;
  };
  return walk(0, origin, 0);
}

module.exports = { formatTensor };
