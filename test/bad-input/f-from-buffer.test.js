'use strict';
// docs/errors.md, the F rows: fromBuffer. One test per row;
// test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { area } = require('./rows');

const { row } = area(__filename);

describe('fromBuffer', () => {
  row('F01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const src of ['abc', [1, 2], null, undefined, 5, {}]) {
      throws(() => dl.fromBuffer(src, { dtype: 'uint8' }), /^Expected an ArrayBuffer.*for `source`, received/);
      throws(() => dl.frombuffer(src, { dtype: 'uint8' }), /for `source`/);
    }
  });

  row('F02', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const ab = new ArrayBuffer(4);
    throws(() => dl.fromBuffer(ab), /`options.dtype`/);
    throws(() => dl.fromBuffer(ab, null), /`options.dtype`/);
    throws(() => dl.fromBuffer(ab, {}), /Expected a dtype name string for `options.dtype`, received undefined/);
    throws(() => dl.fromBuffer(ab, 'float32'), /`options.dtype`/);
  });

  row('F03', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.fromBuffer(new ArrayBuffer(4), { dtype: 'float8' }), /`options.dtype`, received.*float8/);
    throws(() => dl.fromBuffer(new ArrayBuffer(4), { dtype: 'Float32' }), /`options.dtype`/);
  });

  row('F04', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const lookalike = { ...dl.dtypes.float32 };
    for (const dtype of [3, lookalike, Float32Array, null]) {
      throws(() => dl.fromBuffer(new ArrayBuffer(4), { dtype }), /`options.dtype`/);
    }
  });

  row('F05', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const offset of ['4', 4n, null]) {
      throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', offset }), /`options.offset`/);
    }
  });

  row('F06', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', offset: -1 }), /`options.offset`/);
    throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', offset: 9 }), /`options.offset`, received 9/);
    throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', offset: 1.5 }), /`options.offset`, received 1.5/);
    throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', offset: NaN }), /`options.offset`/);
    throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'float32', offset: 12 }), /`options.offset`, received 12/);
    throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'float32', offset: -4 }), /`options.offset`/);
    // The numbers at the edges (checked natively, src/core/buffer_view.cc): the message
    // quotes the number as given.
    for (const offset of [2 ** 53, 2 ** 53 + 2, 2 ** 64, 1e300, Number.MAX_VALUE, -(2 ** 53), -1e300]) {
      throws(() => dl.fromBuffer(new ArrayBuffer(16), { dtype: 'uint8', offset }),
        new RegExp(`\`options.offset\`, received ${String(offset).replace('+', '\\+')}$`));
    }
    // Node's validateInteger: a number that is not an integer is out of range.
    for (const offset of [Infinity, -Infinity, 0.5, 2 ** 51 + 0.5]) {
      throws(() => dl.fromBuffer(new ArrayBuffer(16), { dtype: 'uint8', offset }), /`options.offset`/);
    }
    // A view bounds the bytes, not its buffer.
    throws(() => dl.fromBuffer(new Uint8Array(new ArrayBuffer(16), 0, 4), { dtype: 'uint8', offset: 8 }),
      /from 0 to 4/);
  });

  row('F07', RangeError, 'ERR_DLPACK_MISALIGNED', (throws) => {
    throws(() => dl.fromBuffer(new ArrayBuffer(16), { dtype: 'float32', offset: 2 }), /multiple of 4.*received 2/);
    throws(() => dl.fromBuffer(new ArrayBuffer(16), { dtype: 'complex128', offset: 8 }), /multiple of 16/);
  });

  row('F08', RangeError, 'ERR_DLPACK_MISALIGNED', (throws) => {
    const ab = new ArrayBuffer(64);
    throws(() => dl.fromBuffer(Buffer.from(ab, 3, 32), { dtype: 'float64' }), /at byte 3 of the buffer/);
    throws(() => dl.fromBuffer(new DataView(ab, 2, 8), { dtype: 'int32' }), /at byte 2/);
    throws(() => dl.fromBuffer(new Uint8Array(ab, 1, 13), { dtype: 'int16' }), /at byte 1 of the buffer/);
    expect(dl.fromBuffer(new DataView(ab, 2, 8), { dtype: 'int32', offset: 2, count: 1 }).byteOffset).toBe(4);
  });

  row('F09', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const count of ['2', 2n, null]) {
      throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', count }), /`options.count`/);
    }
    // Types are checked before ranges: an offset out of range with a count of the wrong type.
    throws(() => dl.fromBuffer(new ArrayBuffer(16), { dtype: 'float32', offset: 99, count: 'x' }), /`options.count`/);
  });

  row('F10', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const ab = new ArrayBuffer(16);
    throws(() => dl.fromBuffer(ab, { dtype: 'float32', count: -2 }), /`options.count`/);
    throws(() => dl.fromBuffer(ab, { dtype: 'float32', count: 1.5 }), /`options.count`, received 1.5/);
    throws(() => dl.fromBuffer(ab, { dtype: 'float32', count: 5 }), /`options.count`, received 5/);
    throws(() => dl.fromBuffer(ab, { dtype: 'float32', offset: 4, count: 4 }), /`options.count`, received 4/);
    throws(() => dl.fromBuffer(ab, { dtype: 'int16', offset: 6, count: 6 }), /`options.count`/); // one past the end
    for (const count of [Number.MAX_SAFE_INTEGER, 2 ** 53, 2 ** 62, 1e300, Number.MAX_VALUE, -2, -(2 ** 53), -1e300]) {
      throws(() => dl.fromBuffer(ab, { dtype: 'float64', count }),
        /-1 or a count whose 8-byte elements fit in the 16 bytes after the offset/);
    }
    for (const count of [NaN, Infinity, -Infinity, 0.5, 2 ** 51 + 0.5]) {
      throws(() => dl.fromBuffer(ab, { dtype: 'uint8', count }), /`options.count`/);
    }
  });

  row('F11', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.fromBuffer(new ArrayBuffer(10), { dtype: 'int32' }),
      /whole number of int32 elements .* for `source`, received 10 bytes$/);
    throws(() => dl.fromBuffer(new Uint8Array(18), { dtype: 'float32' }), /for `source`/); // count was not passed
    throws(() => dl.fromBuffer(new Uint8Array(18), { dtype: 'float32', count: -1 }), /for `options.count`/);
    throws(() => dl.fromBuffer(new Uint8Array(new ArrayBuffer(16), 0, 10), { dtype: 'float64', offset: 8 }),
      /whose 2 bytes after the offset/);
  });

  row('F12', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const ab = new ArrayBuffer(8);
    throws(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: 'x' }), /`options.shape`/);
    throws(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: { length: 1, 0: 8 } }), /`options.shape`/);
    throws(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: [2, '4'] }), /`options.shape\[1\]`/);
    throws(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: [2, 'a'] }), /`options.shape\[1\]`/);
    throws(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: [8n] }), /`options.shape\[0\]`/);
  });

  row('F13', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const ab = new ArrayBuffer(8);
    throws(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: [2, -4] }), /`options.shape\[1\]`/);
    throws(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: [2.5, 3.2] }), /`options.shape\[0\]`/);
    throws(() => dl.fromBuffer(new ArrayBuffer(1), { dtype: 'uint8', shape: new Array(65).fill(1) }),
      /at most 64 dimensions for `options.shape`/);
  });

  row('F14', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.fromBuffer(new ArrayBuffer(24), { dtype: 'float32', shape: [4, 2] }),
      /product is 6.*`options.shape`, received \[4, 2\]/);
    throws(() => dl.fromBuffer(new ArrayBuffer(24), { dtype: 'float32', count: 2, shape: [] }), /`options.shape`/);
  });

  row('F15', dl.DLPackError, 'ERR_DLPACK_DETACHED', (throws) => {
    const a = new ArrayBuffer(8);
    structuredClone(a, { transfer: [a] });
    throws(() => dl.fromBuffer(a, { dtype: 'uint8' }), /detached/);
    if (typeof ArrayBuffer.prototype.transfer === 'function') { // Node >= 22
      const b = new ArrayBuffer(8);
      b.transfer();
      throws(() => dl.fromBuffer(b, { dtype: 'uint8' }), /detached/);
    }
  });

  row('F16', dl.DLPackError, 'ERR_DLPACK_DETACHED', (throws) => {
    const ab = new ArrayBuffer(16);
    const typed = new Float32Array(ab);
    const bytes = new Uint8Array(ab, 4, 8);
    const dv = new DataView(ab, 4);
    structuredClone(ab, { transfer: [ab] });
    throws(() => dl.fromBuffer(typed, { dtype: 'float32' }), /detached/);
    throws(() => dl.fromBuffer(bytes, { dtype: 'uint8' }), /detached/);
    throws(() => dl.fromBuffer(dv, { dtype: 'uint8' }), /detached/);
  });

  row('F17', dl.DLPackError, 'ERR_DLPACK_DETACHED', (throws) => {
    const rab = new ArrayBuffer(16, { maxByteLength: 32 });
    const views = [new Uint8Array(rab, 8, 4), new Float64Array(rab, 8), new Uint8Array(rab, 8, 0),
      new DataView(rab, 8, 4), Buffer.from(rab, 12)];
    const inBounds = [new Uint8Array(rab, 4, 0), new Uint8Array(rab), new Uint8Array(rab, 0, 4)];
    rab.resize(4);
    for (const view of views) throws(() => dl.fromBuffer(view, { dtype: 'uint8' }), /shrunk below it/);
    expect(inBounds.map((v) => dl.fromBuffer(v, { dtype: 'uint8' }).size)).toEqual([0, 4, 4]);
    rab.resize(32);
    // Back in bounds, each covers its view's bytes again (a length-tracking view's grown
    // length included; whether Buffer.from(rab, 12) tracks differs between Node 20 and 22).
    const sizes = views.map((v) => dl.fromBuffer(v, { dtype: 'uint8' }).size);
    expect(sizes).toEqual(views.map((v) => v.byteLength));
    expect(sizes.slice(0, 4)).toEqual([4, 24, 0, 4]);
  });

  row('F18', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const gsab = new SharedArrayBuffer(8, { maxByteLength: 64 });
    throws(() => dl.fromBuffer(gsab, { dtype: 'uint8', count: 16 }), /`options.count`, received 16/);
    throws(() => dl.fromBuffer(gsab, { dtype: 'uint8', offset: 16 }), /`options.offset`/);
    gsab.grow(16);
    expect(dl.fromBuffer(gsab, { dtype: 'uint8', count: 16 }).size).toBe(16); // the grown length counts
  });

  row('F22', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const proto of [ArrayBuffer.prototype, SharedArrayBuffer.prototype, Uint8Array.prototype, DataView.prototype]) {
      throws(() => dl.fromBuffer(Object.create(proto), { dtype: 'uint8' }), /inherits from .* but is not one/);
    }
    // instanceof only picks the getter tried first (lib/typed.js anyBufferLength):
    // a Proxy passes it and is still refused; another realm's buffers fail it and
    // are still taken.
    throws(() => dl.fromBuffer(new Proxy(new ArrayBuffer(8), {}), { dtype: 'uint8' }), /inherits from/);
    const other = require('vm').runInNewContext('[new ArrayBuffer(8), new SharedArrayBuffer(4)]');
    expect(other.map((b) => dl.fromBuffer(b, { dtype: 'uint8' }).size)).toEqual([8, 4]);
    // A real view's own properties do not move the bytes read.
    const u = new Uint8Array(8).fill(7);
    Object.defineProperty(u, 'byteOffset', { value: 4 });
    Object.defineProperty(u, 'length', { value: 100 });
    Object.defineProperty(u, 'buffer', { value: new ArrayBuffer(100) });
    const t = dl.fromBuffer(u, { dtype: 'uint8' });
    expect([t.size, t.byteOffset, t.buffer === u.buffer]).toEqual([8, 0, false]);
  });

  row('F19', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const b = new Uint8Array(16);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [4], strides: 1 }), /`options.strides`/);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [4], strides: ['1'] }), /`options.strides\[0\]`/);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', strides: [1] }), /`options.shape`/);
  });

  row('F20', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const b = new Uint8Array(16);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [4, 4], strides: [4] }), /2 strides .* `options.strides`/);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [4], strides: [1], count: 4 }), /`options.count`/);
  });

  row('F21', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const b = new Uint8Array(15);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [3, 5], strides: [1, 3.5] }), /`options.strides\[1\]`/);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [3, 5], strides: [1, 4] }), /spanning bytes 0 to 19/);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [3], strides: [-1] }), /spanning bytes -2 to 1/);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [3], strides: [1], offset: 13 }), /`options.strides`/);
    // The same numbers inside the buffer are a view.
    expect(dl.fromBuffer(b, { dtype: 'uint8', shape: [3], strides: [-1], offset: 2 }).strides).toEqual([-1]);
  });
});
