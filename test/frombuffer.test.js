'use strict';
const dl = require('../lib');
const { expectError } = require('./helpers');

describe('fromBuffer: sources', () => {
  test('ArrayBuffer: zero-copy both ways and keeps the buffer', () => {
    const ab = new ArrayBuffer(16);
    const t = dl.fromBuffer(ab, { dtype: 'float32' });
    expect(t.shape).toEqual([4]);
    expect(t.buffer).toBe(ab);
    new Float32Array(ab)[1] = 7;
    expect(t.data[1]).toBe(7);
    t.data[2] = 9;
    expect(new Float32Array(ab)[2]).toBe(9);
  });

  test('SharedArrayBuffer', () => {
    const sab = new SharedArrayBuffer(8);
    const t = dl.fromBuffer(sab, { dtype: 'int32' });
    t.data[0] = -5;
    expect(new Int32Array(sab)[0]).toBe(-5);
    expect(t.buffer).toBe(sab);
  });

  test('typed array: offset counts from the view and its length bounds the bytes', () => {
    const ab = new ArrayBuffer(32);
    const view = new Uint8Array(ab, 8, 16);
    const t = dl.fromBuffer(view, { dtype: 'float32', offset: 4 });
    expect(t.shape).toEqual([3]);
    expect(t.byteOffset).toBe(12);
    t.data[0] = 1.5;
    expect(new Float32Array(ab, 12, 1)[0]).toBe(1.5);
  });

  test('DataView and Buffer', () => {
    const ab = new ArrayBuffer(24);
    const dv = new DataView(ab, 8, 16);
    expect(dl.fromBuffer(dv, { dtype: 'float64' }).shape).toEqual([2]);
    const buf = Buffer.alloc(8);
    const t = dl.fromBuffer(buf, { dtype: 'uint16' });
    t.data[0] = 0x1234;
    expect(buf.readUInt16LE(0)).toBe(0x1234);
  });

  test('resizable ArrayBuffer: uses the current length, and a shrink is caught on use', () => {
    const ab = new ArrayBuffer(8, { maxByteLength: 64 });
    ab.resize(32);
    const t = dl.fromBuffer(ab, { dtype: 'float32' });
    expect(t.shape).toEqual([8]);
    ab.resize(8);
    expectError(() => t.data, dl.DLPackError, 'ERR_DLPACK_DETACHED');
    expectError(() => t.toArray(), dl.DLPackError, 'ERR_DLPACK_DETACHED');
    expectError(() => t.__dlpack__(), dl.DLPackError, 'ERR_DLPACK_DETACHED');
    ab.resize(32);
    expect(t.toArray()).toHaveLength(8);
  });

  test('a detached source is ERR_DLPACK_DETACHED, and so is a tensor whose buffer is detached later', () => {
    const ab = new ArrayBuffer(8);
    const t = dl.fromBuffer(ab, { dtype: 'uint8' });
    structuredClone(ab, { transfer: [ab] });
    expectError(() => t.data, dl.DLPackError, 'ERR_DLPACK_DETACHED');
    expectError(() => t.clone(), dl.DLPackError, 'ERR_DLPACK_DETACHED');
    expect(String(t)).toBe('tensor(<detached>, dtype=uint8)');
    expectError(() => dl.fromBuffer(ab, { dtype: 'uint8' }), dl.DLPackError, 'ERR_DLPACK_DETACHED');
  });

  test('keeps the source alive after the caller drops it', async () => {
    let t = dl.fromBuffer(new Float64Array([1, 2, 3]).buffer, { dtype: 'float64' });
    global.gc();
    await new Promise((r) => setImmediate(r));
    global.gc();
    expect(t.toArray()).toEqual([1, 2, 3]);
    t = null;
  });

  test.each([
    ['a number', 5], ['a string', 'abc'], ['null', null], ['a plain array', [1, 2]], ['an object', {}],
  ])('rejects %s as source with ERR_INVALID_ARG_TYPE', (_, source) => {
    expectError(() => dl.fromBuffer(source, { dtype: 'uint8' }), TypeError, 'ERR_INVALID_ARG_TYPE',
      /Expected an ArrayBuffer.*for `source`, received/);
  });
});

describe('fromBuffer: dtype', () => {
  test('is required', () => {
    expectError(() => dl.fromBuffer(new ArrayBuffer(4)), TypeError, 'ERR_INVALID_ARG_TYPE', /`options.dtype`/);
    expectError(() => dl.fromBuffer(new ArrayBuffer(4), {}), TypeError, 'ERR_INVALID_ARG_TYPE',
      /Expected a dtype name string for `options.dtype`, received undefined/);
    expectError(() => dl.fromBuffer(new ArrayBuffer(4), { dtype: 3 }), TypeError, 'ERR_INVALID_ARG_TYPE');
  });

  test('accepts the dl.dtypes objects too', () => {
    expect(dl.fromBuffer(new ArrayBuffer(4), { dtype: dl.dtypes.int16 }).shape).toEqual([2]);
  });
});

describe('fromBuffer: offset', () => {
  test('0 <= offset <= byteLength; offset == byteLength gives shape [0]', () => {
    const ab = new ArrayBuffer(8);
    expect(dl.fromBuffer(ab, { dtype: 'float32', offset: 8 }).shape).toEqual([0]);
    expectError(() => dl.fromBuffer(ab, { dtype: 'float32', offset: 12 }), RangeError, 'ERR_OUT_OF_RANGE',
      /`options.offset`, received 12/);
    expectError(() => dl.fromBuffer(ab, { dtype: 'float32', offset: -4 }), RangeError, 'ERR_OUT_OF_RANGE');
  });

  test('must be an integer', () => {
    expectError(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', offset: 1.5 }), RangeError,
      'ERR_OUT_OF_RANGE');
    expectError(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', offset: '1' }), TypeError,
      'ERR_INVALID_ARG_TYPE');
  });

  test('must put the first element on an element boundary of the underlying buffer', () => {
    const ab = new ArrayBuffer(16);
    expectError(() => dl.fromBuffer(ab, { dtype: 'float32', offset: 2 }), RangeError, 'ERR_DLPACK_MISALIGNED',
      /multiple of 4.*received 2/);
    const view = new Uint8Array(ab, 1, 13);
    expectError(() => dl.fromBuffer(view, { dtype: 'int16' }), RangeError, 'ERR_DLPACK_MISALIGNED',
      /at byte 1 of the buffer/);
    expect(dl.fromBuffer(view, { dtype: 'int16', offset: 1 }).byteOffset).toBe(2);
  });

  test('a misaligned Buffer from Buffer.from(arrayBuffer, 3)', () => {
    const buf = Buffer.from(new ArrayBuffer(64), 3, 32);
    expectError(() => dl.fromBuffer(buf, { dtype: 'float64' }), RangeError, 'ERR_DLPACK_MISALIGNED');
  });
});

describe('fromBuffer: count', () => {
  test('-1 takes all remaining bytes, which must be whole elements', () => {
    const ab = new ArrayBuffer(10);
    expect(dl.fromBuffer(ab, { dtype: 'int16' }).shape).toEqual([5]);
    expectError(() => dl.fromBuffer(ab, { dtype: 'int32' }), RangeError, 'ERR_OUT_OF_RANGE',
      /whole number of int32 elements/);
    expect(dl.fromBuffer(ab, { dtype: 'int16', offset: 4, count: -1 }).shape).toEqual([3]);
  });

  test('count >= 0 must fit after the offset', () => {
    const ab = new ArrayBuffer(16);
    expect(dl.fromBuffer(ab, { dtype: 'float32', offset: 4, count: 3 }).shape).toEqual([3]);
    expectError(() => dl.fromBuffer(ab, { dtype: 'float32', offset: 4, count: 4 }), RangeError,
      'ERR_OUT_OF_RANGE', /`options.count`, received 4/);
    expectError(() => dl.fromBuffer(ab, { dtype: 'float32', count: -2 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectError(() => dl.fromBuffer(ab, { dtype: 'float32', count: 1.5 }), RangeError, 'ERR_OUT_OF_RANGE');
  });

  test('count 0 and empty buffers give shape [0]', () => {
    expect(dl.fromBuffer(new ArrayBuffer(16), { dtype: 'float32', count: 0 }).shape).toEqual([0]);
    const empty = dl.fromBuffer(new ArrayBuffer(0), { dtype: 'float64' });
    expect(empty.shape).toEqual([0]);
    expect(empty.data.length).toBe(0);
    expect(empty.toArray()).toEqual([]);
  });
});

describe('fromBuffer: shape', () => {
  test('reshapes row-major; product must equal the count', () => {
    const t = dl.fromBuffer(new ArrayBuffer(24), { dtype: 'float32', shape: [2, 3] });
    expect(t.shape).toEqual([2, 3]);
    expect(t.strides).toEqual([3, 1]);
    expect(t.isContiguous).toBe(true);
    expectError(() => dl.fromBuffer(new ArrayBuffer(24), { dtype: 'float32', shape: [4, 2] }), RangeError,
      'ERR_OUT_OF_RANGE', /product is 6.*\[4, 2\]/);
  });

  test('0-d from a single element', () => {
    const t = dl.fromBuffer(new Float64Array([2.5]), { dtype: 'float64', shape: [] });
    expect(t.ndim).toBe(0);
    expect(t.toArray()).toBe(2.5);
  });

  test('bad shapes are typed errors', () => {
    const ab = new ArrayBuffer(8);
    expectError(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: 'x' }), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectError(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: [2, -4] }), RangeError, 'ERR_OUT_OF_RANGE',
      /`options.shape\[1\]`/);
    expectError(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: [2, 'a'] }), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectError(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: new Array(65).fill(1) }), RangeError,
      'ERR_OUT_OF_RANGE');
  });
});

describe('fromBuffer: numbers at the edges (checked natively, src/core/buffer_view.cc)', () => {
  const ab = new ArrayBuffer(16);

  test('-0 is 0 for offset and count', () => {
    expect(dl.fromBuffer(ab, { dtype: 'float32', offset: -0 }).shape).toEqual([4]);
    const t = dl.fromBuffer(ab, { dtype: 'float32', count: -0 });
    expect(t.shape).toEqual([0]);
    expect(Object.is(t.shape[0], 0)).toBe(true);
  });

  test.each([2 ** 53, 2 ** 53 + 2, 2 ** 64, 1e300, Number.MAX_VALUE, -(2 ** 53), -1e300])(
    'offset %d is out of range', (offset) => {
      expectError(() => dl.fromBuffer(ab, { dtype: 'uint8', offset }), RangeError, 'ERR_OUT_OF_RANGE',
        new RegExp(`\`options.offset\`, received ${String(offset).replace('+', '\\+')}$`));
    });

  test.each([Number.MAX_SAFE_INTEGER, 2 ** 53, 2 ** 62, 1e300, Number.MAX_VALUE, -2, -(2 ** 53), -1e300])(
    'count %d does not fit', (count) => {
      expectError(() => dl.fromBuffer(ab, { dtype: 'float64', count }), RangeError, 'ERR_OUT_OF_RANGE',
        /-1 or a count whose 8-byte elements fit in the 16 bytes after the offset/);
    });

  test.each([NaN, Infinity, -Infinity, 0.5, 2 ** 51 + 0.5])('offset and count %d are not integers', (v) => {
    // Node's validateInteger: a number that is not an integer is out of range.
    expectError(() => dl.fromBuffer(ab, { dtype: 'uint8', offset: v }), RangeError, 'ERR_OUT_OF_RANGE');
    expectError(() => dl.fromBuffer(ab, { dtype: 'uint8', count: v }), RangeError, 'ERR_OUT_OF_RANGE');
  });

  test('a count exactly filling the buffer after the offset', () => {
    expect(dl.fromBuffer(ab, { dtype: 'int16', offset: 6, count: 5 }).shape).toEqual([5]);
    expectError(() => dl.fromBuffer(ab, { dtype: 'int16', offset: 6, count: 6 }), RangeError, 'ERR_OUT_OF_RANGE');
  });

  test('type errors come before range errors', () => {
    expectError(() => dl.fromBuffer(ab, { dtype: 'float32', offset: 99, count: 'x' }), TypeError,
      'ERR_INVALID_ARG_TYPE', /`options.count`/);
  });
});
