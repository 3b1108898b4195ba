'use strict';
// Tensors as Apache Arrow (docs/arrow.md): dl.fromArrow, dl.fromArrowIPC,
// t.toArrow, dl.toArrowTable and dl.toArrowIPCChunks. Neither direction
// copies a tensor's bytes: an Arrow column's values become a tensor's
// memory, and a tensor's memory becomes a column's values buffer (and the
// body chunk of its IPC message). What would need a copy (bit-packed bools,
// a dtype Arrow lacks, nulls, several record batches, big-endian or
// misaligned bytes, strides that are no permutation of a row-major cell) is
// refused with a coded error unless `copy: true`; never copied silently.
//
// apache-arrow is an optional peer dependency, loaded by the first of these
// calls. Arrow objects are read by their structure (type ids, `data`,
// `children`, `values`), so tables from another copy of apache-arrow (one a
// library bundles) read too.
const { makeError, invalidType, invalidValue, fail } = require('./errors');
const { infos } = require('./dtypes');
const { Layout } = require('./layout');
const { Storage, holderOf } = require('./storage');
const { Tensor, makeTensor, hostStorage, liveStorage, checkedBuffer } = require('./tensor');
const { checkOptions } = require('./options');
const { normalizeShape, product } = require('./shape');
const { isAnyArrayBuffer, isTypedArray, isDataView, viewParts } = require('./typed');
const { empty } = require('./create');
const { cat } = require('./batch');
const {
  FIXED_SHAPE, VARIABLE_SHAPE, EXTENSION_NAME, EXTENSION_METADATA, arrowTypeOf, dtypeOfArrow, realPartOf, cellOrder,
  identity, fixedShapeMetadata, checkPermutation, logicalCell,
} = require('./arrow_layout');
const { isBigEndian, swapBytes } = require('./arrow_ipc');

const FROM_KEYS = ['column', 'copy', 'shape'];
const TO_KEYS = ['name', 'extension', 'dimNames', 'copy'];
const TABLE_KEYS = ['copy'];
const IPC_KEYS = ['format', 'copy'];
const FORMATS = ['stream', 'file'];

let arrowModule = null;

// apache-arrow, or a coded error that says what to install.
function arrow() {
  if (arrowModule === null) {
    try {
      arrowModule = require('apache-arrow');
    } catch (error) {
      if (error.code !== 'MODULE_NOT_FOUND' || !error.message.includes('\'apache-arrow\'')) throw error;
      const missing = makeError('ERR_DLPACK_MISSING_PEER', 'The Arrow functions (dl.fromArrow, dl.fromArrowIPC, ' +
        't.toArrow, dl.toArrowTable, dl.toArrowIPCChunks) need the optional peer dependency apache-arrow, which ' +
        'could not be found: npm install apache-arrow');
      missing.cause = error;
      throw missing;
    }
  }
  return arrowModule;
}

// The field each vector toArrow() made was written with (name, type and the
// extension metadata), by its Data: a Vector carries no field of its own, and
// re-wrapping one (new Table({ x: vector }), toArrowTable) keeps its Data.
const fields = new WeakMap();

function booleanOption(value, name) {
  if (value !== undefined && typeof value !== 'boolean') throw invalidType(name, 'a boolean', value);
  return value === true;
}

// ---------------------------------------------------------------- reading

// dl.fromArrow(table | recordBatch | vector | data, { column, copy, shape }).
function fromArrow(source, options) {
  const A = arrow();
  const opts = readOptions(options);
  const { chunks, field } = columnOf(A, source, opts.column);
  return tensorOfColumn(A, chunks, field, opts);
}

function readOptions(options) {
  const { column, copy, shape } = checkOptions(options, FROM_KEYS);
  if (column !== undefined && typeof column !== 'string' && !Number.isSafeInteger(column)) {
    throw invalidType('options.column', 'a column name or index', column);
  }
  return {
    column,
    copy: booleanOption(copy, 'options.copy'),
    shape: shape === undefined ? undefined : normalizeShape(shape, 'options.shape'),
  };
}

const isObject = (value) => value !== null && typeof value === 'object';
const isData = (value) => isObject(value) && isObject(value.type) && typeof value.length === 'number' &&
  Array.isArray(value.children);

// { chunks: the column's Data, one per record batch; field: its Field or null }.
function columnOf(A, source, column) {
  if (isObject(source) && Array.isArray(source.batches) && isObject(source.schema)) {
    const i = columnIndex(source.schema.fields, column);
    return { chunks: source.batches.map((batch) => batch.data.children[i]), field: source.schema.fields[i] };
  }
  if (isObject(source) && isObject(source.schema) && isData(source.data)) {
    const i = columnIndex(source.schema.fields, column);
    return { chunks: [source.data.children[i]], field: source.schema.fields[i] };
  }
  const chunks = isObject(source) && Array.isArray(source.data) && source.data.every(isData) ? source.data
    : isData(source) ? [source] : null;
  if (chunks === null) {
    throw invalidType('source', 'an Arrow Table, RecordBatch, Vector or Data (apache-arrow)', source);
  }
  if (column !== undefined) {
    throw invalidValue('options.column', 'undefined for a Vector or Data (one column already)', column);
  }
  return { chunks, field: chunks.length === 0 ? null : fields.get(chunks[0]) || null };
}

function columnIndex(schemaFields, column) {
  const names = schemaFields.map((f) => f.name);
  if (names.length === 0) throw fail('ERR_INVALID_ARG_VALUE', 'source', 'a table with a column', 'a table with no columns');
  if (column === undefined) {
    if (names.length === 1) return 0;
    throw invalidValue('options.column', `one of the columns (${names.join(', ')}); the table has ${names.length}`,
      column);
  }
  const i = typeof column === 'string' ? names.indexOf(column) : column;
  if (i < 0 || i >= names.length) {
    throw invalidValue('options.column', `one of the columns (${names.join(', ')}) or an index below ${names.length}`,
      column);
  }
  return i;
}

function tensorOfColumn(A, chunks, field, opts) {
  const parts = chunks.filter((data) => data.length > 0);
  if (parts.length === 0) {
    if (chunks.length !== 0) return viewOfData(A, chunks[0], field, opts);
    throw fail('ERR_INVALID_ARG_VALUE', 'source', 'a column with at least one record batch', 'a table with none');
  }
  if (parts.length === 1) return viewOfData(A, parts[0], field, opts);
  if (!opts.copy) {
    throw makeError('ERR_DLPACK_COPY_REQUIRED', `Expected a column in one record batch for fromArrow(), received one ` +
      `in ${parts.length} batches; copy: true concatenates them into new memory`);
  }
  const tensors = [];
  try {
    for (const data of parts) tensors.push(viewOfData(A, data, field, opts));
    return cat(tensors, 0);
  } finally {
    for (const t of tensors) t.dispose();
  }
}

// What a field's extension metadata says: { name, metadata } or null.
function extensionOf(field) {
  const metadata = field && field.metadata;
  if (!isObject(metadata) || typeof metadata.get !== 'function') return null;
  const name = metadata.get(EXTENSION_NAME);
  if (name !== FIXED_SHAPE && name !== VARIABLE_SHAPE) return null;
  const text = metadata.get(EXTENSION_METADATA);
  let parsed;
  try {
    parsed = text === undefined || text === '' ? {} : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (!isObject(parsed) || Array.isArray(parsed)) {
    throw invalidValue('source', `${name} metadata that is a JSON object`, text);
  }
  return { name, metadata: parsed };
}

// The tensor one Data holds: a view over its values, or with `copy` a tensor
// in new memory.
function viewOfData(A, data, field, opts) {
  const extension = extensionOf(field);
  if (extension !== null && extension.name === VARIABLE_SHAPE) return variableShape(A, data, extension, opts);
  const levels = [];
  let leaf = data;
  const dims = [];
  while (leaf.type.typeId === A.Type.FixedSizeList) {
    levels.push(leaf);
    dims.push(leaf.type.listSize);
    leaf = leaf.children[0];
  }
  levels.push(leaf);
  const info = dtypeOfLeaf(A, leaf);
  const cell = cellOf(extension, dims, opts.shape);
  return tensorOver(info, leaf, levels, data.length, cell, opts.copy);
}

function dtypeOfLeaf(A, leaf) {
  const info = dtypeOfArrow(leaf.type, A.Type);
  if (info === undefined) {
    throw makeError('ERR_DLPACK_UNSUPPORTED', `Expected an Arrow column of integers, floats or booleans (or fixed-size ` +
      `lists of them) for fromArrow(), received one of ${String(leaf.type)}, which no dtype holds`);
  }
  return info;
}

// The cell's logical shape and strides and its physical (row-major) dims.
function cellOf(extension, dims, shapeOption) {
  const cellSize = product(dims);
  let physical = dims;
  let permutation;
  if (extension !== null) {
    const { shape, permutation: perm } = extension.metadata;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0) || product(shape) !== cellSize) {
      throw invalidValue('source', `${FIXED_SHAPE} metadata whose shape holds the ${cellSize} values of a row`,
        JSON.stringify(shape));
    }
    if (perm !== undefined) {
      const problem = checkPermutation(perm, shape.length);
      if (problem !== null) {
        throw invalidValue('source', `${FIXED_SHAPE} metadata whose permutation is a permutation of its dims ` +
          `(${problem})`, JSON.stringify(perm));
      }
    }
    physical = shape;
    permutation = perm;
  }
  if (shapeOption !== undefined) {
    const logical = logicalCell(physical, permutation).shape;
    if (extension !== null ? !sameDims(shapeOption, logical) : product(shapeOption) !== cellSize) {
      throw fail('ERR_INVALID_ARG_VALUE', 'options.shape', extension !== null
        ? `the cell shape the column's ${FIXED_SHAPE} metadata gives, [${logical.join(', ')}]`
        : `a cell shape of ${cellSize} elements (the list size)`, `[${shapeOption.join(', ')}]`);
    }
    if (extension === null) physical = shapeOption;
  }
  return { ...logicalCell(physical, permutation), physical, size: cellSize };
}

const sameDims = (a, b) => a.length === b.length && a.every((d, i) => d === b[i]);

// A tensor of `rows` cells over `leaf`'s values (levels: every Data from the
// column's to the leaf, for their validity).
function tensorOver(info, leaf, levels, rows, cell, copy) {
  const count = rows * cell.size;
  const nulls = levels.some((level) => level.nullCount > 0);
  const bits = info.kind === 'bool'; // Arrow's booleans are a bitmap
  if ((nulls || bits) && !copy) {
    throw makeError('ERR_DLPACK_COPY_REQUIRED', `Expected a column fromArrow() can view for a tensor, received ` +
      `${bits ? 'bit-packed booleans (Arrow\'s bool)' : `one with null ${nullWhere(levels)}`}; copy: true copies ` +
      `it into new memory${nulls ? ' (nulls read as NaN, or 0 for integer and bool dtypes)' : ''}`);
  }
  const shape = [rows, ...cell.shape];
  const strides = [cell.size, ...cell.strides];
  if (bits) return fillNulls(unpackBits(info, leaf, count, shape, strides), levels, cell);
  const values = leaf.values;
  if (!isTypedArray(values) || values.length < count * info.viewLanes) {
    throw invalidValue('source', `Arrow data whose values hold its ${count} elements`, values);
  }
  const { buffer, byteOffset } = viewParts(values);
  // A caller's buffer, or memory this library owns (a toArrow() column read back).
  const storage = holderOf(buffer) || Storage.heap(buffer, false);
  const view = makeTensor(storage, Layout.of(info, shape, strides, byteOffset));
  if (!nulls) return view;
  try {
    return fillNulls(physicalCopy(view, info, shape, strides), levels, cell);
  } finally {
    view.dispose();
  }
}

function nullWhere(levels) {
  const at = levels.findIndex((level) => level.nullCount > 0);
  return at === 0 ? 'rows' : at === levels.length - 1 ? 'values' : 'sub-cells';
}

// A copy of `view` in new memory whose bytes are in the column's physical
// order, viewed with the same logical strides.
function physicalCopy(view, info, shape, strides) {
  const flat = makeTensor(liveStorage(view), Layout.contiguous(info, [shape[0] * strides[0]], view.byteOffset));
  try {
    const copy = flat.clone();
    return withLayout(copy, Layout.of(info, shape, strides, 0));
  } finally {
    flat.dispose();
  }
}

// A new tensor over `t`'s memory with `layout`; `t` is disposed.
function withLayout(t, layout) {
  const out = makeTensor(liveStorage(t), layout);
  t.dispose();
  return out;
}

// Arrow's bit-packed booleans (from bit `leaf.offset`) as a bool tensor in new memory.
function unpackBits(info, leaf, count, shape, strides) {
  const packed = leaf.values;
  if (!isTypedArray(packed) || packed.length * 8 < leaf.offset + count) {
    throw invalidValue('source', `Arrow bool data whose bitmap holds its ${count} values`, packed);
  }
  const t = empty([count], { dtype: info.name });
  const out = t.data;
  for (let i = 0, bit = leaf.offset; i < count; i++, bit++) out[i] = (packed[bit >> 3] >> (bit & 7)) & 1;
  return withLayout(t, Layout.of(info, shape, strides, 0));
}

// Writes NaN (0 for integer and bool dtypes) where a level of the column is
// null, in a tensor in new memory whose bytes are in physical order.
function fillNulls(t, levels, cell) {
  if (!levels.some((level) => level.nullCount > 0)) return t;
  const info = infos[t.dtype];
  const flat = new info.View(checkedBuffer(t), t.byteOffset, t.size * info.viewLanes);
  const blank = info.kind === 'float' ? NaN : 0;
  // An entry of each level spans the elements of the levels below it: a row
  // all of the cell, a leaf value one element.
  let span = cell.size;
  for (let k = 0; k < levels.length; k++) {
    const level = levels[k];
    if (k > 0) span /= levels[k - 1].type.listSize;
    if (level.nullCount <= 0) continue;
    const entries = t.size / span;
    for (let e = 0; e < entries; e++) {
      if (level.getValid(e)) continue;
      for (let i = e * span; i < (e + 1) * span; i++) info.write(flat, i, blank);
    }
  }
  return t;
}

// arrow.variable_shape_tensor: a Struct { data: List<T>, shape:
// FixedSizeList<int32>[ndim] } of one tensor per row, read when every row
// has the same shape and the rows lie back to back.
function variableShape(A, data, extension, opts) {
  const names = data.type.children.map((f) => f.name);
  const list = data.children[names.indexOf('data')];
  const shapes = data.children[names.indexOf('shape')];
  if (list === undefined || shapes === undefined || list.type.typeId !== A.Type.List ||
      shapes.type.typeId !== A.Type.FixedSizeList) {
    throw invalidValue('source', `${VARIABLE_SHAPE} storage of a struct of \`data\` (a list) and \`shape\``,
      String(data.type));
  }
  if ([data, list, shapes, shapes.children[0]].some((level) => level.nullCount > 0)) {
    throw makeError('ERR_DLPACK_UNSUPPORTED', `Expected a ${VARIABLE_SHAPE} column without nulls for fromArrow(), ` +
      'received one with nulls');
  }
  const ndim = shapes.type.listSize;
  const dims = shapes.children[0].values;
  const rows = data.length;
  const first = Array.from(dims.subarray(0, ndim));
  for (let r = 1; r < rows; r++) {
    const row = Array.from(dims.subarray(r * ndim, (r + 1) * ndim));
    if (!sameDims(row, first)) {
      throw makeError('ERR_DLPACK_UNSUPPORTED', `Expected ${VARIABLE_SHAPE} rows of one shape for a tensor, ` +
        `received [${first.join(', ')}] (row 0) and [${row.join(', ')}] (row ${r})`);
    }
  }
  const size = product(first);
  const offsets = list.valueOffsets;
  for (let r = 0; r <= rows; r++) {
    if (offsets[r] !== offsets[0] + r * size) {
      throw makeError('ERR_DLPACK_UNSUPPORTED', `Expected ${VARIABLE_SHAPE} rows that lie back to back, received ` +
        `row ${r} at element ${offsets[r]} instead of ${offsets[0] + r * size}`);
    }
  }
  const leaf = list.children[0];
  const info = dtypeOfLeaf(A, leaf);
  const cell = cellOf({ metadata: { shape: first, permutation: extension.metadata.permutation } }, [size],
    opts.shape);
  // The list's child is not sliced with it: its rows start at offsets[0].
  const start = offsets[0];
  const values = info.kind === 'bool' ? leaf.values : leaf.values.subarray(start * info.viewLanes);
  const shifted = { values, offset: leaf.offset + start, nullCount: 0 };
  return tensorOver(info, shifted, [data], rows, cell, opts.copy);
}

// dl.fromArrowIPC(bytes, { column, copy, shape }): the tensor of a column of
// Arrow IPC bytes (stream or file), over those bytes.
function fromArrowIPC(bytes, options) {
  const A = arrow();
  const opts = readOptions(options);
  let u8 = bytesOf(bytes);
  const big = isBigEndian(u8);
  if (big && !opts.copy) {
    throw makeError('ERR_DLPACK_COPY_REQUIRED', 'Expected little-endian Arrow IPC bytes for fromArrowIPC(), ' +
      'received a big-endian schema; copy: true copies the values and swaps their bytes');
  }
  // Arrow pads every body buffer to 8 bytes from the stream's start.
  if (u8.byteOffset % 8 !== 0 || big) {
    if (!opts.copy) throw misaligned(u8.byteOffset);
    u8 = u8.slice();
  }
  let table;
  try {
    table = A.tableFromIPC(u8);
  } catch (error) {
    if (error instanceof RangeError && /multiple of/.test(error.message)) {
      if (!opts.copy) throw misaligned(u8.byteOffset, error);
    }
    const unread = makeError('ERR_INVALID_ARG_VALUE', `Expected Arrow IPC bytes (a stream or file) for \`bytes\`, ` +
      `which apache-arrow could not read: ${error.message}`);
    unread.cause = error;
    throw unread;
  }
  const { chunks, field } = columnOf(A, table, opts.column);
  if (big) swapColumn(A, chunks, field);
  const t = tensorOfColumn(A, chunks, field, opts);
  if (!opts.copy && !within(t, u8)) {
    t.dispose();
    throw makeError('ERR_DLPACK_COPY_REQUIRED', 'Expected Arrow IPC bytes whose values apache-arrow reads in place ' +
      'for fromArrowIPC(), received a body it decoded into new memory (compressed); copy: true accepts that copy');
  }
  return t;
}

function misaligned(offset, cause) {
  const error = makeError('ERR_DLPACK_MISALIGNED', `Expected Arrow IPC bytes starting on a multiple of 8 for ` +
    `\`bytes\` (Arrow aligns its buffers from the first byte), received ones at byte offset ${offset} of their ` +
    'buffer; copy: true copies them to an aligned buffer');
  if (cause !== undefined) error.cause = cause;
  return error;
}

function bytesOf(bytes) {
  if (isAnyArrayBuffer(bytes)) return new Uint8Array(bytes);
  if (isTypedArray(bytes) || isDataView(bytes)) {
    const { buffer, byteOffset, byteLength } = viewParts(bytes);
    return new Uint8Array(buffer, byteOffset, byteLength);
  }
  throw invalidType('bytes', 'an ArrayBuffer, TypedArray, DataView or Buffer of Arrow IPC bytes', bytes);
}

// Whether t's memory lies in the bytes' buffer.
function within(t, u8) {
  if (t.size === 0) return true;
  const buffer = t.buffer;
  return buffer === viewParts(u8).buffer && t.byteOffset >= u8.byteOffset &&
    t.byteOffset + t.nbytes <= u8.byteOffset + u8.byteLength;
}

// Big-endian values of a column, swapped in place (they are a private copy).
function swapColumn(A, chunks, field) {
  const extension = extensionOf(field);
  if (extension !== null && extension.name === VARIABLE_SHAPE) {
    throw makeError('ERR_DLPACK_UNSUPPORTED', `Expected a fixed-size column in big-endian IPC bytes, received a ` +
      `${VARIABLE_SHAPE} column (its offsets are big-endian too)`);
  }
  for (let leaf of chunks) {
    while (leaf.type.typeId === A.Type.FixedSizeList) leaf = leaf.children[0];
    const info = dtypeOfLeaf(A, leaf);
    if (info.kind === 'bool') continue;
    const { buffer, byteOffset, byteLength } = viewParts(leaf.values);
    swapBytes(new Uint8Array(buffer, byteOffset, byteLength), info.itemSize);
  }
}

// ---------------------------------------------------------------- writing

// t.toArrow({ name, extension, dimNames, copy }): a Vector over t's memory.
function toArrow(t, options) {
  const A = arrow();
  if (!(t instanceof Tensor)) throw invalidType('this', 'a Tensor', t);
  const { name = 'tensor', extension, dimNames, copy } = checkOptions(options, TO_KEYS);
  if (typeof name !== 'string') throw invalidType('options.name', 'a string', name);
  const column = tensorColumn(A, t, {
    name, extension: extension === undefined ? true : booleanOption(extension, 'options.extension'),
    dimNames, copy: booleanOption(copy, 'options.copy'),
  });
  fields.set(column.data, column.field);
  return A.makeVector(column.data);
}

// { data, field } of a tensor: the column toArrow() and toArrowTable() write.
// A tensor of one dim is a plain column, of more a FixedSizeList of its
// cells, tagged arrow.fixed_shape_tensor unless `extension` is false.
function tensorColumn(A, t, { name, extension, dimNames, copy }) {
  const storage = hostStorage(t, 'toArrow()');
  const info = infos[t.dtype];
  const shape = t.shape;
  if (shape.length === 0) {
    throw fail('ERR_INVALID_ARG_VALUE', 'tensor', 'a tensor of at least one dim (its first dim is the rows)',
      'a 0-d tensor');
  }
  if (dimNames !== undefined && (!Array.isArray(dimNames) || dimNames.length !== shape.length - 1 ||
      !dimNames.every((n) => typeof n === 'string'))) {
    throw invalidType('options.dimNames', `an array of ${shape.length - 1} strings (one per cell dim)`, dimNames);
  }
  const type = arrowTypeOf(info, A.Type);
  const again = (c) => {
    try {
      return tensorColumn(A, c, { name, extension, dimNames, copy });
    } finally {
      c.dispose();
    }
  };
  if (type === null || !type.view) {
    if (!copy) {
      throw makeError('ERR_DLPACK_COPY_REQUIRED', `Expected a dtype Arrow holds as it is for toArrow(), received ` +
        `${info.name} (${type === null ? 'Arrow has no such type' : 'Arrow packs booleans into bits'}); copy: true ` +
        `converts it (${info.kind === 'complex' ? 'to pairs of floats in a last dim of 2' : type === null
          ? 'to float32' : 'to a bitmap'})`);
    }
    if (info.kind === 'complex') {
      const c = t.contiguous();
      const real = realPartOf(info);
      return again(withLayout(c, Layout.contiguous(real, [...shape, 2], c.byteOffset)));
    }
    if (type === null) return again(t.to('float32')); // bfloat16: float32 holds every value
    return packedColumn(A, t, { name, extension, dimNames });
  }
  const order = shape.length === 1 ? [] : cellOrder(shape, t.strides);
  // Without the extension a column can only say "row-major".
  if (order === null || (!extension && !order.every((d, i) => d === i))) {
    if (!copy) {
      throw makeError('ERR_DLPACK_COPY_REQUIRED', `Expected rows that are a permutation of row-major cells for ` +
        `toArrow()${extension ? '' : ' with extension: false (row-major cells only)'}, received strides ` +
        `[${t.strides.join(', ')}] for shape [${shape.join(', ')}]; copy: true writes a contiguous copy`);
    }
    return again(t.clone());
  }
  const leafType = arrowLeaf(A, type);
  const count = t.size;
  const buffer = checkedBuffer(t);
  const values = new leafType.ArrayType(buffer, t.byteOffset, count);
  const leaf = A.makeData({ type: leafType, length: count, nullCount: 0, data: values });
  const column = cellColumn(A, leaf, shape, order, { name, extension, dimNames });
  // The column holds the memory from now on: dispose() of every tensor over
  // it leaves it attached, and it cannot move (shareMemory()). V8 frees it
  // with the last object that reaches it, as memory a toPointer() struct
  // pinned (docs/arrow.md "Lifetimes").
  storage.retain();
  storage.pin();
  return column;
}

function arrowLeaf(A, type) {
  if (type.typeId === A.Type.Int) return new A.Int(type.signed, type.bits);
  if (type.typeId === A.Type.Float) return new A.Float(type.precision);
  return new A.Bool();
}

// The FixedSizeList column of `leaf`'s cells (or `leaf` for a tensor of one dim).
function cellColumn(A, leaf, shape, order, { name, extension, dimNames }) {
  if (shape.length === 1) return { data: leaf, field: new A.Field(name, leaf.type, false) };
  const rows = shape[0];
  const cell = shape.slice(1);
  const size = product(cell);
  const type = new A.FixedSizeList(size, new A.Field('item', leaf.type, false));
  const data = A.makeData({ type, length: rows, nullCount: 0, child: leaf });
  const metadata = extension
    ? new Map([[EXTENSION_NAME, FIXED_SHAPE], [EXTENSION_METADATA, fixedShapeMetadata(cell, order, dimNames)]])
    : undefined;
  return { data, field: new A.Field(name, type, false, metadata) };
}

// A bool tensor as Arrow's bitmap, in new memory (row-major cells).
function packedColumn(A, t, options) {
  const c = t.contiguous();
  try {
    const bytes = c.data;
    const count = c.size;
    const packed = new Uint8Array(((count + 63) >> 6) << 3);
    for (let i = 0; i < count; i++) if (bytes[i] !== 0) packed[i >> 3] |= 1 << (i & 7);
    const leaf = A.makeData({ type: new A.Bool(), length: count, nullCount: 0, data: packed });
    return cellColumn(A, leaf, c.shape, identity(c.ndim - 1), options);
  } finally {
    c.dispose();
  }
}

// dl.toArrowTable({ name: tensor | vector, ... }, { copy }): one record batch
// whose columns are the tensors' memory.
function toArrowTable(columns, options) {
  const A = arrow();
  const { copy } = checkOptions(options, TABLE_KEYS);
  const converting = booleanOption(copy, 'options.copy');
  if (!isObject(columns) || Array.isArray(columns) || columns instanceof Tensor) {
    throw invalidType('columns', 'an object of column name -> Tensor or Arrow Vector', columns);
  }
  const names = Object.keys(columns);
  if (names.length === 0) throw invalidValue('columns', 'at least one column', columns);
  const built = names.map((name) => namedColumn(A, name, columns[name], converting));
  const rows = built[0].data.length;
  built.forEach(({ data }, i) => {
    if (data.length !== rows) {
      throw fail('ERR_INVALID_ARG_VALUE', `columns.${names[i]}`, `${rows} rows (the first column's)`,
        `${data.length} rows`);
    }
  });
  return tableOf(A, built, rows);
}

function namedColumn(A, name, value, copy) {
  if (value instanceof Tensor) {
    liveStorage(value);
    return tensorColumn(A, value, { name, extension: true, dimNames: undefined, copy });
  }
  if (isObject(value) && Array.isArray(value.data) && value.data.every(isData)) {
    if (value.data.length !== 1) {
      throw fail('ERR_INVALID_ARG_VALUE', `columns.${name}`, 'a Vector of one chunk', `one of ${value.data.length} chunks`);
    }
    const data = value.data[0];
    const known = fields.get(data);
    const field = known !== undefined ? known.clone({ name })
      : new A.Field(name, data.type, data.nullCount !== 0);
    return { data, field };
  }
  throw invalidType(`columns.${name}`, 'a Tensor or an Arrow Vector', value);
}

function tableOf(A, columns, rows) {
  const schema = new A.Schema(columns.map((c) => c.field));
  const struct = A.makeData({
    type: new A.Struct(schema.fields), length: rows, nullCount: 0, children: columns.map((c) => c.data),
  });
  return new A.Table(schema, [new A.RecordBatch(schema, struct)]);
}

// dl.toArrowIPCChunks(table | tensor | vector, { format, copy }): the Arrow
// IPC stream (or file) as chunks: header and padding chunks, and body
// chunks that are the columns' memory (a tensor's own bytes), for
// fs.writev() or a socket. Nothing is joined.
function toArrowIPCChunks(source, options) {
  const A = arrow();
  const { format = 'stream', copy } = checkOptions(options, IPC_KEYS);
  if (!FORMATS.includes(format)) throw invalidValue('options.format', `one of ${FORMATS.join(', ')}`, format);
  const converting = booleanOption(copy, 'options.copy');
  let table;
  if (source instanceof Tensor) {
    table = tableOf(A, [namedColumn(A, 'tensor', source, converting)], source.shape[0]);
  } else if (isObject(source) && Array.isArray(source.batches) && isObject(source.schema)) {
    table = source;
  } else if (isObject(source) && Array.isArray(source.data) && source.data.every(isData)) {
    const field = source.data.length === 0 ? undefined : fields.get(source.data[0]);
    const column = namedColumn(A, field === undefined ? 'tensor' : field.name, source, converting);
    table = tableOf(A, [column], column.data.length);
  } else {
    throw invalidType('source', 'an Arrow Table, a Tensor or an Arrow Vector', source);
  }
  const chunks = [];
  const sink = new (chunkSink(A))(chunks);
  const writer = format === 'file' ? new A.RecordBatchFileWriter() : new A.RecordBatchStreamWriter();
  writer.reset(sink);
  writer.write(table);
  writer.finish();
  return chunks;
}

// The writer's sink: it keeps each chunk as the writer hands it over (a
// Uint8Array, over the column's own memory for a body buffer).
let ChunkSink = null;
function chunkSink(A) {
  if (ChunkSink === null) {
    ChunkSink = class extends A.AsyncByteQueue {
      constructor(chunks) {
        super();
        this.chunks = chunks;
      }

      write(chunk) {
        if (chunk.byteLength > 0) this.chunks.push(chunk);
      }
    };
  }
  return ChunkSink;
}

module.exports = { fromArrow, fromArrowIPC, toArrow, toArrowTable, toArrowIPCChunks };
