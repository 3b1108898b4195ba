'use strict';
// Tensor state JavaScript can reach (issue 20, MEDIUM 7): the Layout and the
// Storage hang off symbols that Object.getOwnPropertySymbols() lists, so code
// that holds a tensor can swap in a Layout lib/ never checked. Native entry
// points trust none of it: ndim beyond their arrays, a negative byteOffset and
// a forged buffer address are refused with a code or cannot be set, and no
// byte outside the tensor's buffer is read or written.
const dl = require('../lib');
const { native } = require('../lib/binding');

// What any code can reach: the tensor's symbols and the classes behind them.
const internals = (t) => {
  const symbols = Object.getOwnPropertySymbols(t);
  const layoutKey = symbols.find((s) => t[s] !== null && typeof t[s] === 'object' && 'byteOffset' in t[s]);
  const storageKey = symbols.find((s) => t[s] !== null && typeof t[s] === 'object' && 'memory' in t[s]);
  return { layoutKey, storageKey, Layout: t[layoutKey].constructor, HeapMemory: t[storageKey].memory.constructor };
};

// A Layout from Layout.of(), as lib/ makes them, or with `extent` ([low, high]) an
// object that lies about the bytes it spans so as to pass lib/'s own inside()
// check: made with the constructor where it can be (before issue 20's fix), else
// a plain object with the same getters.
const forge = (t, shape, strides, byteOffset, extent) => {
  const { layoutKey, Layout } = internals(t);
  const info = t[layoutKey].info;
  if (extent === undefined) {
    t[layoutKey] = Layout.of(info, shape, strides, byteOffset);
    return t;
  }
  const size = shape.reduce((a, b) => a * b, 1);
  try {
    t[layoutKey] = new Layout(info, shape, strides, byteOffset, size, extent[0], extent[1]);
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError); // not constructible outside lib/layout.js
    const [low, high] = extent;
    t[layoutKey] = {
      info, shape, strides, byteOffset, size, low, high, ndim: shape.length, itemSize: info.itemSize,
      extent: low + high, base: byteOffset - low, isContiguous: true,
      inside: (length) => byteOffset - low >= 0 && byteOffset + high <= length,
    };
  }
  return t;
};
const outOfRange = expect.objectContaining({ code: 'ERR_OUT_OF_RANGE' });

describe('a Layout forged through the tensor\'s symbols', () => {
  const ones = (n) => new Array(n).fill(1);

  test('100 dims: the export and the copy refuse it (ERR_OUT_OF_RANGE), no stack array overrun', () => {
    const t = forge(dl.tensor([1, 2, 3, 4], { dtype: 'float64' }), ones(100), ones(100), 0);
    // A legacy struct is always made natively (src/addon/export.cc).
    expect(() => t.__dlpack__({ maxVersion: [0, 8] }).toPointer()).toThrow(outOfRange);
    // A dtype conversion is always a native copy (src/addon/copy.cc).
    const dst = forge(dl.zeros([4], { dtype: 'float32' }), ones(100), ones(100), 0);
    expect(() => dst.copyFrom(t)).toThrow(outOfRange);
  });

  test('a negative byteOffset: refused (ERR_OUT_OF_RANGE), nothing written before the buffer', () => {
    const buffer = new ArrayBuffer(32);
    const guard = new Float64Array(buffer);
    guard.fill(5);
    // The tensor is the second half; its forged offset points at the first.
    // The tensor is the whole buffer; its forged offset points 8 bytes before it, with an
    // extent that passes lib/'s check (byteOffset - low = 0).
    const t = forge(dl.fromBuffer(buffer, { dtype: 'float64' }), [1], [1], -8, [-8, 8]);
    expect(() => t.copyFrom(dl.tensor([9], { dtype: 'float32' }))).toThrow(outOfRange);
    expect(() => t.__dlpack__({ maxVersion: [0, 8] }).toPointer()).toThrow(outOfRange);
    // A struct from the slab (lib/struct_slab.js) is not filled from such a layout either.
    expect(() => t.__dlpack__().toPointer()).toThrow(outOfRange);
    expect(Array.from(guard)).toEqual([5, 5, 5, 5]);
  });
});

test('a forged buffer address cannot be set: a toPointer() struct points at the tensor\'s own bytes', () => {
  const a = dl.tensor([1, 2, 3], { dtype: 'float64' });
  const b = dl.tensor([7, 8, 9], { dtype: 'float64' });
  const memory = a[internals(a).storageKey].memory;
  const forged = native.bytesAddress(b.data.subarray(0).constructor === Float64Array ? new Uint8Array(b.data.buffer) : b.data);
  try {
    memory.address = forged;
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError); // a getter only
  }
  let other;
  jest.isolateModules(() => { other = require('../lib'); });
  // Another load of lib/ takes the struct natively, through its data pointer.
  const p = a.__dlpack__().toPointer();
  const there = other.fromDLPack(other.DLPackCapsule.fromPointer(p, { versioned: true }));
  expect(there.toArray()).toEqual([1, 2, 3]);
  there.dispose();
});
