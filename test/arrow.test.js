'use strict';
// Tensors as Apache Arrow (lib/arrow.js, docs/arrow.md): what each call makes, that no
// tensor byte is copied, and the lifetimes. The refusals are test/bad-input/a-arrow.test.js;
// pyarrow, DuckDB, Polars and Ray are test/arrow-peers.test.js and test/ray.test.js.
const A = require('apache-arrow');
const dl = require('../lib');
const { collect } = require('./helpers');
const { bigEndian, variableShape } = require('./fixtures/arrow-columns');

const range = (shape, dtype = 'float32') => {
  const flat = dl.arange(0, shape.reduce((a, b) => a * b, 1), { dtype });
  const t = flat.reshape(shape);
  flat.dispose();
  return t;
};
const same = (a, b) => expect(JSON.stringify(a.toArray(), replacer)).toBe(JSON.stringify(b.toArray(), replacer));
const replacer = (_, v) => (typeof v === 'bigint' ? `${v}n` : Number.isNaN(v) ? 'NaN' : v);
const valuesOf = (vector) => {
  let data = vector.data[0];
  while (data.children.length !== 0) data = data.children[0];
  return data.values;
};

// The Arrow type each dtype is written as: from the dtype's kind, code and bits.
const ARROW_TYPE = {
  int8: 'Int8', int16: 'Int16', int32: 'Int32', int64: 'Int64', uint8: 'Uint8', uint16: 'Uint16',
  uint32: 'Uint32', uint64: 'Uint64', float16: 'Float16', float32: 'Float32', float64: 'Float64',
};

describe('dtypes', () => {
  describe.each(Object.keys(dl.dtypes))('%s', (dtype) => {
    const viewable = ARROW_TYPE[dtype] !== undefined;

    test(viewable ? 'is written as its Arrow type over the same bytes, and read back' :
      'needs copy: true either way, and reads back', () => {
      const t = dtype === 'bool' ? dl.tensor([[true, false, true], [false, false, true]])
        : dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype });
      const v = t.toArrow({ copy: !viewable });
      expect(v.length).toBe(2);
      const leaf = v.type.children[0].type;
      if (viewable) {
        expect(String(leaf)).toBe(ARROW_TYPE[dtype]);
        expect(valuesOf(v).buffer).toBe(t.buffer);
        const back = dl.fromArrow(v);
        expect(back.dtype).toBe(dtype);
        expect(back.buffer).toBe(t.buffer);
        same(back, t);
        back.dispose();
      } else {
        const back = dl.fromArrow(v, { copy: true });
        if (dtype === 'bool') {
          expect(String(leaf)).toBe('Bool');
          same(back, t);
        } else if (dtype === 'bfloat16') {
          expect(String(leaf)).toBe('Float32');
          same(back, t.to('float32'));
        } else {
          // complex: pairs of floats in a last dim of 2 (torch.view_as_real).
          expect(String(leaf)).toBe(dtype === 'complex64' ? 'Float32' : 'Float64');
          expect(back.shape).toEqual([2, 3, 2]);
          expect(back.toArray()[1][2]).toEqual([6, 0]);
        }
        back.dispose();
      }
      t.dispose();
    });
  });
});

describe('layouts', () => {
  test('an NHWC batch viewed as NCHW is written with the specification\'s permutation and read back as the view', () => {
    const nhwc = range([2, 4, 5, 3]);
    const nchw = nhwc.permute(0, 3, 1, 2);
    const table = dl.toArrowTable({ x: nchw });
    const field = table.schema.fields[0];
    expect(field.metadata.get('ARROW:extension:name')).toBe('arrow.fixed_shape_tensor');
    // shape is the physical cell (H, W, C); logical dim i is physical dim permutation[i].
    expect(JSON.parse(field.metadata.get('ARROW:extension:metadata'))).toEqual({ shape: [4, 5, 3],
      permutation: [2, 0, 1] });
    expect(valuesOf(table.getChild('x')).buffer).toBe(nhwc.buffer);
    const back = dl.fromArrow(table);
    expect(back.shape).toEqual([2, 3, 4, 5]);
    expect(back.strides).toEqual(nchw.strides);
    expect(back.buffer).toBe(nhwc.buffer);
    same(back, nchw);
    for (const t of [back, nchw, nhwc]) t.dispose();
  });

  test('the specification\'s example: physical [2, 3, 4] with permutation [2, 0, 1] is logical [4, 2, 3]', () => {
    const physical = range([1, 2, 3, 4]);
    const v = physical.toArrow({ extension: false });
    const field = new A.Field('x', v.type, false, new Map([['ARROW:extension:name', 'arrow.fixed_shape_tensor'],
      ['ARROW:extension:metadata', JSON.stringify({ shape: [2, 3, 4], permutation: [2, 0, 1] })]]));
    const schema = new A.Schema([field]);
    const table = new A.Table(schema, [new A.RecordBatch(schema, A.makeData({
      type: new A.Struct(schema.fields), length: 1, nullCount: 0, children: [v.data[0]],
    }))]);
    const t = dl.fromArrow(table);
    expect(t.shape).toEqual([1, 4, 2, 3]);
    const expected = physical.permute(0, 3, 1, 2);
    same(t, expected);
    for (const x of [t, expected, physical]) x.dispose();
  });

  test('size-1 dims keep their place; a single row may have any batch stride', () => {
    const t = range([1, 3, 1, 4]);
    const table = dl.toArrowTable({ x: t });
    expect(JSON.parse(table.schema.fields[0].metadata.get('ARROW:extension:metadata'))).toEqual({ shape: [3, 1, 4] });
    const row = range([3, 4]).unsqueeze(0);
    same(dl.fromArrow(row.toArrow()), row);
    t.dispose();
  });

  test('dimNames are written in the physical order', () => {
    const nhwc = range([1, 2, 2, 3]);
    const v = nhwc.permute(0, 3, 1, 2).toArrow({ name: 'pixels', dimNames: ['C', 'H', 'W'] });
    const table = dl.toArrowTable({ images: v });
    expect(table.schema.fields[0].name).toBe('images');
    expect(JSON.parse(table.schema.fields[0].metadata.get('ARROW:extension:metadata')).dim_names)
      .toEqual(['H', 'W', 'C']);
    // The vector remembers its field: its IPC has the name and the permutation.
    const back = dl.fromArrowIPC(Buffer.concat(dl.toArrowIPCChunks(v)));
    expect(back.shape).toEqual([1, 3, 2, 2]);
    same(back, nhwc.permute(0, 3, 1, 2));
  });

  test('extension: false writes a plain FixedSizeList, read back with { shape }', () => {
    const t = range([2, 3, 4]);
    const table = dl.toArrowTable({ x: t.toArrow({ extension: false }) });
    expect(table.schema.fields[0].metadata.size).toBe(0);
    expect(dl.fromArrow(table).shape).toEqual([2, 12]);
    const back = dl.fromArrow(table, { shape: [3, 4] });
    same(back, t);
    expect(back.buffer).toBe(t.buffer);
  });

  test('nested fixed-size lists are the cell\'s dims; a one-dim tensor is a plain column', () => {
    const values = A.makeData({ type: new A.Float64(), length: 12, data: new Float64Array(12).map((_, i) => i) });
    const inner = A.makeData({ type: new A.FixedSizeList(3, new A.Field('i', new A.Float64())), length: 4,
      nullCount: 0, child: values });
    const outer = A.makeData({ type: new A.FixedSizeList(2, new A.Field('o', inner.type)), length: 2, nullCount: 0,
      child: inner });
    const t = dl.fromArrow(outer);
    expect(t.shape).toEqual([2, 2, 3]);
    expect(t.buffer).toBe(values.values.buffer);
    const labels = dl.tensor([7, 8, 9], { dtype: 'int64' });
    const v = labels.toArrow();
    expect(String(v.type)).toBe('Int64');
    expect(v.toArray()).toEqual(BigInt64Array.from([7n, 8n, 9n]));
    same(dl.fromArrow(v), labels);
  });

  test('a slice of a vector reads as its rows, over the same bytes', () => {
    const t = range([4, 3], 'int16');
    const v = t.toArrow().slice(1, 3);
    const rows = dl.fromArrow(v);
    expect(rows.shape).toEqual([2, 3]);
    expect(rows.byteOffset).toBe(6);
    expect(rows.buffer).toBe(t.buffer);
    same(rows, t.narrow(0, 1, 2));
  });

  test('arrow.variable_shape_tensor rows of one shape read as one tensor over the values', () => {
    const table = variableShape([[2, 3], [2, 3]], [6, 12, 18]);
    const t = dl.fromArrow(table);
    expect(t.shape).toEqual([2, 2, 3]);
    expect(t.toArray()[0][0]).toEqual([6, 7, 8]);
    expect(t.buffer).toBe(table.batches[0].data.children[0].children[0].children[0].values.buffer);
  });
});

describe('copies on request', () => {
  test('nulls read as NaN (floats) or 0 (integers): rows, values, sub-cells', () => {
    const floats = A.vectorFromArray([1.5, null, 3], new A.Float32());
    expect(dl.fromArrow(floats, { copy: true }).toArray()).toEqual([1.5, NaN, 3]);
    const ints = A.vectorFromArray([[1, null], null, [3, 4]], new A.FixedSizeList(2, new A.Field('i', new A.Int32())));
    const t = dl.fromArrow(ints, { copy: true });
    expect(t.toArray()).toEqual([[1, 0], [0, 0], [3, 4]]);
    expect(t.buffer).not.toBe(valuesOf(ints).buffer);
  });

  test('a table of several record batches is concatenated', () => {
    const a = range([2, 3]);
    const b = range([1, 3]);
    const table = new A.Table([a, b].map((t) => new A.RecordBatch({ x: t.toArrow().data[0] })));
    const t = dl.fromArrow(table, { copy: true });
    expect(t.toArray()).toEqual([[0, 1, 2], [3, 4, 5], [0, 1, 2]]);
  });

  test('strides that are no permutation are written contiguous', () => {
    const t = range([4, 6]);
    const every2 = t.slice(1, 0, 6, 2);
    const v = every2.toArrow({ copy: true });
    expect(valuesOf(v).buffer).not.toBe(t.buffer);
    same(dl.fromArrow(v), every2);
  });

  test('big-endian IPC bytes are copied and swapped; misaligned bytes are copied', () => {
    const t = range([2, 3, 4]);
    const back = dl.fromArrowIPC(bigEndian(t), { copy: true });
    same(back, t);
    const bytes = Buffer.concat(dl.toArrowIPCChunks(t));
    const shifted = new Uint8Array(bytes.length + 4);
    shifted.set(bytes, 4);
    const moved = dl.fromArrowIPC(shifted.subarray(4), { copy: true });
    same(moved, t);
    expect(moved.buffer).not.toBe(shifted.buffer);
  });
});

describe('IPC without a copy', () => {
  test.each(['stream', 'file'])('%s: the body chunk is the tensor\'s memory, and the tensor read back lies in ' +
    'the received bytes', (format) => {
    const base = range([9, 3, 8, 8]);
    const t = base.narrow(0, 1, 8); // at a byte offset in its buffer
    const chunks = dl.toArrowIPCChunks(t, { format });
    const body = chunks.filter((c) => c.buffer === base.buffer);
    expect(body).toHaveLength(1);
    expect(body[0].byteOffset).toBe(t.byteOffset);
    expect(body[0].byteLength).toBe(t.nbytes);
    const bytes = Buffer.concat(chunks);
    const back = dl.fromArrowIPC(bytes);
    expect(back.buffer).toBe(bytes.buffer);
    expect(back.byteOffset).toBeGreaterThanOrEqual(bytes.byteOffset);
    expect(back.byteOffset + back.nbytes).toBeLessThanOrEqual(bytes.byteOffset + bytes.byteLength);
    same(back, t);
  });

  test('a table of several columns: each column reads by name over the same bytes', () => {
    const x = range([8, 2, 2]);
    const y = dl.arange(0, 8, { dtype: 'int64' });
    const bytes = Buffer.concat(dl.toArrowIPCChunks(dl.toArrowTable({ x, y }), { format: 'file' }));
    const bx = dl.fromArrowIPC(bytes, { column: 'x' });
    const by = dl.fromArrowIPC(bytes, { column: 1 });
    same(bx, x);
    same(by, y);
    expect(by.buffer).toBe(bytes.buffer);
  });
});

describe('lifetimes', () => {
  test('dispose() cannot detach memory a vector holds (a vector over t.data loses it)', async () => {
    const t = range([2, 3]);
    const u = range([2, 3]);
    const held = t.toArrow();
    const { makeVector } = A;
    const bare = makeVector(u.data);
    t.dispose();
    u.dispose();
    await collect();
    expect(Array.from(held.get(1))).toEqual([3, 4, 5]);
    expect(bare.data[0].values.byteLength).toBe(0); // u's buffer was detached under it
  });

  test('a column read back is held by the same storage; shareMemory() refuses to move it', () => {
    const t = range([2, 3]);
    const v = t.toArrow();
    const back = dl.fromArrow(v);
    back.dispose();
    t.dispose();
    expect(valuesOf(v).byteLength).toBe(24);
    const other = range([2, 3]);
    other.toArrow();
    expect(() => other.shareMemory()).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_COPY_REQUIRED',
      message: expect.stringMatching(/toArrow\(\)/) }));
    expect(other.toArray()).toEqual([[0, 1, 2], [3, 4, 5]]);
  });

  test('fromArrow keeps the Arrow buffer alive without the vector', async () => {
    let t;
    {
      const v = A.vectorFromArray([1, 2, 3, 4], new A.Float64());
      t = dl.fromArrow(v);
    }
    await collect();
    expect(t.toArray()).toEqual([1, 2, 3, 4]);
    t.dispose();
  });

  test('chunks outlive the tensor they came from', async () => {
    const t = range([4, 256]);
    const chunks = dl.toArrowIPCChunks(t);
    t.dispose();
    await collect();
    same(dl.fromArrowIPC(Buffer.concat(chunks)), range([4, 256]));
  });
});
