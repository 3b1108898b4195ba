'use strict';
// How a tensor and an Arrow column describe the same bytes (docs/arrow.md):
// the dtype <-> Arrow type rule, the canonical tensor extensions' metadata,
// and the permutation between a tensor's strides and a row-major cell. Plain
// functions of numbers and strings: lib/arrow.js owns the Arrow objects.
//
// A tensor of shape [B, ...cell] is a FixedSizeList<T>[prod(cell)] column of
// B rows. arrow.fixed_shape_tensor (Arrow's canonical extensions, "Fixed
// shape tensor") names the cell: `shape` is the physical (row-major) cell
// shape, and `permutation[i]` is the physical dimension that logical
// dimension i is; `dim_names` follow the physical order.
const { byIndex } = require('./dtypes');

const FIXED_SHAPE = 'arrow.fixed_shape_tensor';
const VARIABLE_SHAPE = 'arrow.variable_shape_tensor';
const EXTENSION_NAME = 'ARROW:extension:name';
const EXTENSION_METADATA = 'ARROW:extension:metadata';

// dlpack.h's kDLFloat, the code of the IEEE floats, read from the dtype
// table's own rows (bfloat16 shares their kind and bits, not their code).
const IEEE_FLOAT = byIndex.find((info) => info.kind === 'float' && info.bits === 32).code;

// Arrow's Float precisions by width (Schema.fbs: HALF, SINGLE, DOUBLE).
const PRECISION_BITS = [16, 32, 64];

// The Arrow type a dtype is written as, from its kind, DLPack code and bits:
// { typeId, bits, signed | precision, view } where `view` says whether
// Arrow's bytes are the tensor's (bool is bit-packed in Arrow). null for the
// dtypes Arrow has no type for (bfloat16, complex).
function arrowTypeOf(info, Type) {
  switch (info.kind) {
    case 'int':
    case 'uint':
      return { typeId: Type.Int, bits: info.bits, signed: info.kind === 'int', view: true };
    case 'float':
      if (info.code !== IEEE_FLOAT) return null;
      return { typeId: Type.Float, precision: PRECISION_BITS.indexOf(info.bits), view: true };
    case 'bool':
      return { typeId: Type.Bool, view: false };
    default:
      return null;
  }
}

// The dtype an Arrow primitive type holds, or undefined: the row whose
// Arrow type (arrowTypeOf) is this one.
function dtypeOfArrow(type, Type) {
  return byIndex.find((info) => {
    const mine = arrowTypeOf(info, Type);
    if (mine === null || mine.typeId !== type.typeId) return false;
    if (mine.typeId === Type.Int) return mine.bits === type.bitWidth && mine.signed === type.isSigned;
    if (mine.typeId === Type.Float) return mine.precision === type.precision;
    return true;
  });
}

// The floating dtype of one half of a complex one (complex64 -> float32).
const realPartOf = (info) => byIndex.find((r) => r.code === IEEE_FLOAT && r.bits === info.bits / 2);

// A cell layout read from a tensor's strides: the physical order of the cell
// dims (order[j] is the logical dim at physical position j) when the batch
// rows are consecutive and each row is a permutation of a row-major cell,
// else null. Dims of size 1 have no stride to read: each keeps its logical
// place after the dim before it, so a contiguous tensor's order is the
// identity. `shape` and `strides` are the whole tensor's, in elements.
function cellOrder(shape, strides) {
  const cell = shape.length - 1;
  let cellSize = 1;
  for (let i = 1; i <= cell; i++) cellSize *= shape[i];
  if (shape[0] > 1 && strides[0] !== cellSize && cellSize !== 0) return null;
  if (cellSize === 0) return identity(cell);
  const wide = [];
  for (let i = 0; i < cell; i++) if (shape[i + 1] !== 1) wide.push(i);
  wide.sort((a, b) => strides[b + 1] - strides[a + 1] || a - b);
  let expected = 1;
  for (let j = wide.length - 1; j >= 0; j--) {
    if (strides[wide[j] + 1] !== expected) return null;
    expected *= shape[wide[j] + 1];
  }
  const order = wide.slice();
  for (let i = 0; i < cell; i++) {
    if (shape[i + 1] !== 1) continue;
    order.splice(i === 0 ? 0 : order.indexOf(i - 1) + 1, 0, i);
  }
  return order;
}

const identity = (n) => Array.from({ length: n }, (_, i) => i);
const isIdentity = (order) => order.every((d, i) => d === i);

// The inverse of a permutation: inverse[order[j]] = j.
function inverse(order) {
  const out = new Array(order.length);
  for (let j = 0; j < order.length; j++) out[order[j]] = j;
  return out;
}

// The extension metadata of a cell: `logical` shape, physical `order`,
// `dimNames` (logical order) or undefined.
function fixedShapeMetadata(logical, order, dimNames) {
  const metadata = { shape: order.map((d) => logical[d]) };
  if (dimNames !== undefined) metadata.dim_names = order.map((d) => dimNames[d]);
  if (!isIdentity(order)) metadata.permutation = inverse(order);
  return JSON.stringify(metadata);
}

// A permutation from JSON metadata, checked: n distinct integers 0..n-1, or
// a reason it is not one.
function checkPermutation(value, n) {
  if (!Array.isArray(value) || value.length !== n) return `not an array of ${n} dims`;
  const seen = new Set();
  for (const d of value) {
    if (!Number.isInteger(d) || d < 0 || d >= n || seen.has(d)) return `not a permutation of 0..${n - 1}`;
    seen.add(d);
  }
  return null;
}

// The logical cell of a physical row-major cell: its shape and strides (in
// elements) under `permutation` (logical dim i is physical dim permutation[i]).
function logicalCell(physical, permutation) {
  const strides = new Array(physical.length);
  let step = 1;
  for (let j = physical.length - 1; j >= 0; j--) {
    strides[j] = step;
    step *= physical[j];
  }
  if (permutation === undefined) return { shape: physical.slice(), strides };
  return { shape: permutation.map((j) => physical[j]), strides: permutation.map((j) => strides[j]) };
}

module.exports = {
  FIXED_SHAPE, VARIABLE_SHAPE, EXTENSION_NAME, EXTENSION_METADATA, arrowTypeOf, dtypeOfArrow, realPartOf, cellOrder,
  identity, fixedShapeMetadata, checkPermutation, logicalCell,
};
