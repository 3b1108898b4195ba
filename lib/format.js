'use strict';
// toString() / util.inspect in PyTorch's style (torch/_tensor_str.py):
// tensor([0.1235, 1.0000], dtype=float32). Floats get 4 decimals, or
// scientific notation when magnitudes span more than 1000x, exceed 1e8 or
// fall below 1e-4; whole floats print as `1.`; every entry is padded to one
// width so columns line up. Large tensors show the first and last three
// entries of each dimension, and only those decide the format. Empty tensors
// show their size. Deliberate differences: `dtype=` is always shown, and
// bools print as JavaScript's true/false.

const EDGE = 3;
const SUMMARIZE_ABOVE = 1000;
const LINE_WIDTH = 80;

// Python's '{:.4e}': at least two exponent digits.
function exponential(v, digits) {
  return v.toExponential(digits).replace(/e([+-])(\d)$/, 'e$10$2');
}

function special(v) {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  return null;
}

// A formatter for float values, chosen from the values displayed.
function floatFormatter(values) {
  let intMode = true;
  let max = 0;
  let min = Infinity;
  let any = false;
  for (const v of values) {
    if (!Number.isFinite(v) || v === 0) continue;
    any = true;
    const a = Math.abs(v);
    if (a > max) max = a;
    if (a < min) min = a;
    if (!Number.isInteger(v)) intMode = false;
  }
  if (!any) return (v) => special(v) || (intMode ? `${v.toFixed(0)}.` : v.toFixed(4));
  let sci;
  if (intMode) sci = max / min > 1000 || max > 1e8;
  else sci = max / min > 1000 || max > 1e8 || min < 1e-4;
  if (sci) return (v) => special(v) || exponential(v, 4);
  if (intMode) return (v) => special(v) || `${Object.is(v, -0) ? '-0' : v.toFixed(0)}.`;
  return (v) => special(v) || v.toFixed(4);
}

// (values) -> (value) -> string, by the kind of element.
function formatterFor(values) {
  const first = values[0];
  if (typeof first === 'bigint') return (v) => v.toString();
  if (typeof first === 'boolean') return (v) => String(v);
  if (Array.isArray(first)) { // complex [re, im]
    const re = floatFormatter(values.map((v) => v[0]));
    const im = floatFormatter(values.map((v) => v[1]));
    return (v) => {
      const imag = `${im(v[1])}j`;
      return imag[0] === '-' || imag[0] === '+' ? `${re(v[0])}${imag}` : `${re(v[0])}+${imag}`;
    };
  }
  return null; // numbers: float or integer, decided by the caller
}

// `isFloat`: the dtype is floating point (integers print as integers).
function formatTensor(shape, strides, origin, read, isFloat) {
  let size = 1;
  for (const d of shape) size *= d;
  if (size === 0) {
    return shape.length === 1 ? '[]' : `[], size=(${shape.join(', ')})`;
  }
  const summarize = size > SUMMARIZE_ABOVE;
  // The displayed entries, in order, then the format they decide.
  const shown = [];
  const collect = (dim, pos) => {
    if (dim === shape.length) {
      shown.push(read(pos));
      return;
    }
    const n = shape[dim];
    const visit = (i) => collect(dim + 1, pos + i * strides[dim]);
    if (summarize && n > 2 * EDGE) {
      for (let i = 0; i < EDGE; i++) visit(i);
      for (let i = n - EDGE; i < n; i++) visit(i);
    } else {
      for (let i = 0; i < n; i++) visit(i);
    }
  };
  collect(0, origin);
  let format = formatterFor(shown);
  if (format === null) format = isFloat ? floatFormatter(shown) : (v) => String(v);
  const texts = shown.map(format);
  const width = texts.reduce((w, t) => Math.max(w, t.length), 0);
  let next = 0;
  const walk = (dim, indent) => {
    if (dim === shape.length) return texts[next++].padStart(width);
    const n = shape[dim];
    const parts = [];
    if (summarize && n > 2 * EDGE) {
      for (let i = 0; i < EDGE; i++) parts.push(walk(dim + 1, indent + 1));
      parts.push(dim === shape.length - 1 ? ' ...' : '...');
      for (let i = n - EDGE; i < n; i++) parts.push(walk(dim + 1, indent + 1));
    } else {
      for (let i = 0; i < n; i++) parts.push(walk(dim + 1, indent + 1));
    }
    if (dim === shape.length - 1) {
      // torch wraps rows at 80 columns: as many entries per line as fit
      // after the indent ('tensor(' and one per level).
      const perLine = Math.max(1, Math.floor((LINE_WIDTH - 7 - dim) / (width + 2)));
      const lines = [];
      for (let i = 0; i < parts.length; i += perLine) lines.push(parts.slice(i, i + perLine).join(', '));
      return `[${lines.join(`,\n${' '.repeat(8 + dim)}`)}]`;
    }
    // torch: one newline per dimension below this one, minus one.
    const separator = dim === shape.length - 1 ? ', '
      : `,${'\n'.repeat(shape.length - dim - 1)}${' '.repeat(8 + indent)}`;
    return `[${parts.join(separator)}]`;
  };
  return walk(0, 0);
}

module.exports = { formatTensor };
