'use strict';
// docs/errors.md, the C rows: empty, zeros, tensor. One test per row;
// test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { area, leakFree } = require('./rows');

const { row } = area(__filename);

describe('empty, zeros, tensor', () => {
  row('C01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const make of [dl.empty, dl.zeros]) {
      for (const shape of ['abc', null, undefined, { length: 2 }, 2n]) throws(() => make(shape), /for `shape`/);
      throws(() => make([2, '3']), /`shape\[1\]`/);
    }
  });

  row('C02', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    for (const make of [dl.empty, dl.zeros]) {
      throws(() => make([2, -1]), /`shape\[1\]`/);
      throws(() => make([1.5]), /`shape\[0\]`/);
      throws(() => make(-3), /`shape\[0\]`/);
      throws(() => make([2 ** 53]), /`shape\[0\]`/);
      throws(() => make([NaN]), /`shape\[0\]`/);
      throws(() => make(new Array(65).fill(1)), /at most 64 dimensions/);
    }
  });

  row('C03', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.empty([2 ** 40, 2 ** 20]), /for `shape`/);
    throws(() => dl.zeros([2 ** 30, 2 ** 30, 2 ** 10], { dtype: 'complex128' }), /for `shape`/);
  });

  row('C04', RangeError, 'ERR_OUT_OF_RANGE', async (throws) => {
    await leakFree(() => {
      const huge = [2 ** 30, 2 ** 30, 2 ** 10];
      throws(() => dl.empty(huge, { dtype: 'uint8', shared: true }), /at most 2\^53 - 1 bytes for `shape`/);
      throws(() => dl.zeros([2 ** 27, 2 ** 27], { dtype: 'float64', shared: true }), /for `shape`/);
      for (const device of ['cuda', 'cuda_host', 'cuda_managed']) {
        throws(() => dl.zeros(huge, { device }), /for `shape`/); // before any device is asked for
      }
    });
  });

  row('C05', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const options of ['float32', null, 3]) {
      throws(() => dl.empty([1], options), /for `options`/);
      throws(() => dl.zeros([1], options), /for `options`/);
      throws(() => dl.tensor([1], options), /for `options`/);
    }
  });

  row('C06', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.empty([1], { dtype: 'float' }), /`options.dtype`/);
    throws(() => dl.zeros([1], { dtype: 'int128' }), /`options.dtype`/);
    throws(() => dl.zeros([1], { dtype: 'float8' }), /`options.dtype`.*float8/);
    throws(() => dl.tensor([1], { dtype: 'double' }), /`options.dtype`/);
  });

  row('C07', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.empty([1], { shared: 'yes' }), /`options.shared`/);
    throws(() => dl.zeros([1], { shared: 1 }), /`options.shared`/);
  });

  row('C08', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      for (const device of ['cuda_host', 'cuda_managed']) {
        throws(() => dl.empty([2], { device, shared: true }), /CUDA IPC shares device memory only\) for `options.shared`/);
      }
    });
  });

  row('C09', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.tensor(null), /for `values`/);
    throws(() => dl.tensor(undefined), /for `values`/);
    throws(() => dl.tensor({ a: 1 }), /for `values`/);
    throws(() => dl.tensor('abc'), /for `values`/);
    throws(() => dl.tensor([1, 'a']), /for `values\[1\]`/);
    throws(() => dl.tensor([1, {}]), /for `values\[1\]`/);
    throws(() => dl.tensor([[1], [Symbol('x')]]), /for `values\[1\]\[0\]`/);
  });

  row('C10', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.tensor([[1, 2], [3]]), /for `values\[1\]`/);
    throws(() => dl.tensor([[1, 2], 3]), /for `values\[1\]`/);
    throws(() => dl.tensor([1, [2]]), /for `values\[1\]`/);
  });

  row('C11', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.tensor(new ArrayBuffer(4)), /use dl.fromBuffer/);
    throws(() => dl.tensor(new SharedArrayBuffer(4)), /use dl.fromBuffer/);
    throws(() => dl.tensor(new DataView(new ArrayBuffer(4))), /use dl.fromBuffer/);
  });

  row('C12', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const ints = ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64'];
    for (const dtype of ints) {
      for (const v of [NaN, Infinity, -Infinity]) throws(() => dl.tensor([1, v], { dtype }), /`values \(element 1\)`/);
    }
    const outside = { int8: [128, -129], int16: [32768, -32769], int32: [2 ** 31, -(2 ** 31) - 1],
      int64: [2 ** 63, -(2 ** 64), 2n ** 63n], uint8: [256, -1], uint16: [65536, -1], uint32: [2 ** 32, -1],
      uint64: [2 ** 64, -1, -1n, 2n ** 64n] };
    for (const dtype of ints) {
      for (const v of outside[dtype]) throws(() => dl.tensor([v], { dtype }), new RegExp(`the ${dtype} range`));
    }
    throws(() => dl.tensor(new Float32Array([NaN]), { dtype: 'int64' }), /`values \(element 0\)`/);
    // Checked before anything is written: copyFrom leaves the destination as it was.
    const t = dl.tensor([5, 6], { dtype: 'int32' });
    throws(() => t.copyFrom([1, 2 ** 31]), /`src \(element 1\)`/);
    expect(t.toArray()).toEqual([5, 6]);
    // What is allowed: fractions truncate toward zero, and the range's ends.
    expect(dl.tensor([2.7, -2.7, -128, 127.9], { dtype: 'int8' }).toArray()).toEqual([2, -2, -128, 127]);
    expect(dl.tensor([-0.9, 2 ** 64 - 2 ** 11], { dtype: 'uint64' }).toArray()).toEqual([0n, 2n ** 64n - 2048n]);
  });

  row('C15', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.tensor(new Array(3)), /`values\[0\]`, received a hole/);
    throws(() => dl.tensor([, 1]), /`values\[0\]`/); // eslint-disable-line no-sparse-arrays
    throws(() => dl.tensor([[1, 2], [3, ,]]), /`values\[1\]\[1\]`/); // eslint-disable-line no-sparse-arrays
    const t = dl.tensor([1, 2]);
    throws(() => t.copyFrom(new Array(2)), /`src\[0\]`/);
    expect(t.toArray()).toEqual([1, 2]);
  });

  row('C16', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.tensor(Object.create(Uint8Array.prototype)), /inherits from Uint8Array but is not one/);
    // A real typed array's own properties and iterator do not change what is read.
    const u = new Int16Array([1, 2, 3]);
    Object.defineProperty(u, 'length', { value: 1 });
    Object.defineProperty(u, Symbol.toStringTag, { value: 'Float64Array' });
    u[Symbol.iterator] = function* fake() { yield 99; };
    const t = dl.tensor(u);
    expect([t.dtype, t.toArray()]).toEqual(['int16', [1, 2, 3]]);
    expect(dl.tensor(u, { dtype: 'float32' }).toArray()).toEqual([1, 2, 3]);
  });

  row('C17', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const v of ['1', null, undefined, {}, [1, 2], Symbol('v')]) {
      throws(() => dl.full([2], v), /for `fillValue`/);
      throws(() => dl.zeros([2]).fill_(v), /for `value`/);
    }
    throws(() => dl.full([2], [1, 2, 3], { dtype: 'complex64' }), /\[re, im\] pair for `fillValue`/);
    const t = dl.tensor([1, 2]);
    throws(() => t.fill_('3'), /a number, bigint or boolean for `value`/);
    expect(t.toArray()).toEqual([1, 2]);
  });

  row('C18', RangeError, 'ERR_OUT_OF_RANGE', async (throws) => {
    await leakFree(() => {
      throws(() => dl.full([4], 256, { dtype: 'uint8' }), /converted to type uint8 without overflow.*`fillValue`/);
      throws(() => dl.full([4], -256, { dtype: 'uint8' }), /`fillValue`/); // -255 wraps to 1, as torch's
      throws(() => dl.full([4], 255.5, { dtype: 'uint8' }), /`fillValue`/); // in range only once truncated
      throws(() => dl.full([4], -(2n ** 64n), { dtype: 'uint64' }), /`fillValue`/);
      throws(() => dl.full([4], NaN, { dtype: 'int32' }), /`fillValue`/);
      throws(() => dl.full([2 ** 40], 2 ** 63, { dtype: 'int64' }), /`fillValue`/); // before allocating
      throws(() => dl.full([4], 1e5, { dtype: 'float16' }), /float16 without overflow.*`fillValue`/);
      throws(() => dl.full([4], 1e39), /float32 without overflow/); // the inferred dtype
      throws(() => dl.full([4], [1e39, 0], { dtype: 'complex64' }), /`fillValue`/);
      throws(() => dl.full([4], 1, { dtype: 'int8', shared: true, device: 'cpu' }).fill_(128), /`value`/);
      const t = dl.tensor([1, 2, 3], { dtype: 'int16' });
      throws(() => t.fill_(40000), /int16 without overflow"\) for `value`/);
      throws(() => t.narrow(0, 1, 2).fill_(-Infinity), /`value`/);
      throws(() => dl.tensor([1, 2], { dtype: 'bfloat16' }).fill_(-1e39), /`value`/);
      expect(t.toArray()).toEqual([1, 2, 3]); // nothing written
    });
  });

  row('C19', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.arange('5'), /a number or bigint for `end`/);
    throws(() => dl.arange(0, null), /for `end`/);
    throws(() => dl.arange(0, 5, '1'), /for `step`/);
    throws(() => dl.arange(true, 5), /for `start`/);
    throws(() => dl.arange({ dtype: 'int32' }), /for `end`/); // options need a bound before them
  });

  row('C20', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.arange(), /0 bounds/);
    throws(() => dl.arange(0, 1, 1, 1), /4 bounds/);
  });

  row('C21', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.arange(Infinity), /a finite number for `end`/);
    throws(() => dl.arange(NaN, 3), /for `start`/);
    throws(() => dl.arange(0, 5, 0), /a nonzero number for `step`/);
    throws(() => dl.arange(0n, 5n, 0n), /for `step`/);
    throws(() => dl.arange(5, 0), /the sign of end - start.*for `step`/);
    throws(() => dl.arange(0, 5, -1), /for `step`/);
    throws(() => dl.arange(0, 5, 1.5, { dtype: 'int64' }), /an integer for a int64 tensor for `step`/);
    throws(() => dl.arange(0.5, 5, { dtype: 'int32' }), /for `start`/);
    throws(() => dl.arange(0, 4.5, { dtype: 'int32' }), /for `end`/);
    throws(() => dl.arange(250, 260, { dtype: 'uint8' }), /the uint8 range\) for `end`/);
    throws(() => dl.arange(-1n, 3n, { dtype: 'uint32' }), /the uint32 range\) for `start`/);
    throws(() => dl.arange(2 ** 60), /at most 2\^53 - 1 bytes/);
  });

  row('C22', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    throws(() => dl.arange(3, { dtype: 'bool' }), /no bool tensor/);
    throws(() => dl.arange(0, 3, { dtype: 'complex128' }), /no complex128 tensor/);
  });

  row('C23', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const x of [[1, 2], new Float32Array(2), null, undefined, { shape: [2], dtype: 'float32' }]) {
      for (const make of [dl.emptyLike, dl.zerosLike, dl.onesLike]) throws(() => make(x), /a Tensor for `input`/);
      throws(() => dl.fullLike(x, 1), /a Tensor for `input`/);
    }
  });

  row('C24', dl.DLPackError, 'ERR_DLPACK_DISPOSED', (throws) => {
    const t = dl.zeros([2, 2]);
    t.dispose();
    for (const make of [dl.emptyLike, dl.zerosLike, dl.onesLike]) throws(() => make(t), /disposed/);
    throws(() => dl.fullLike(t, 1), /disposed/);
  });

  row('C13', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.tensor([1, 2, 3], { shape: [2, 2] }), /product is 3.*for `options.shape`/);
    throws(() => dl.tensor(new Float32Array(4), { shape: [3] }), /product is 4.*for `options.shape`/);
    throws(() => dl.tensor(new Int8Array(4), { shape: [-1, 2] }), /`options.shape\[0\]`/);
    throws(() => dl.tensor([[1, 2], [3, 4]], { shape: [-1] }), /`options.shape\[0\]`/);
  });

  row('C14', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    let deep = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    throws(() => dl.tensor(deep), /at most 64 levels/);
  });
});
