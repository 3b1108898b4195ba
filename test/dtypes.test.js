'use strict';
const dl = require('../lib');

const table = [
  ['bool', 6, 8, 1, 'Uint8Array', 1],
  ['int8', 0, 8, 1, 'Int8Array', 1],
  ['int16', 0, 16, 2, 'Int16Array', 1],
  ['int32', 0, 32, 4, 'Int32Array', 1],
  ['int64', 0, 64, 8, 'BigInt64Array', 1],
  ['uint8', 1, 8, 1, 'Uint8Array', 1],
  ['uint16', 1, 16, 2, 'Uint16Array', 1],
  ['uint32', 1, 32, 4, 'Uint32Array', 1],
  ['uint64', 1, 64, 8, 'BigUint64Array', 1],
  ['float16', 2, 16, 2, typeof Float16Array === 'function' ? 'Float16Array' : 'Uint16Array', 1],
  ['bfloat16', 4, 16, 2, 'Uint16Array', 1],
  ['float32', 2, 32, 4, 'Float32Array', 1],
  ['float64', 2, 64, 8, 'Float64Array', 1],
  ['complex64', 5, 64, 8, 'Float32Array', 2],
  ['complex128', 5, 128, 16, 'Float64Array', 2],
];

describe('dtypes table', () => {
  test('has exactly the 15 dtypes of docs/API.md, frozen', () => {
    expect(Object.keys(dl.dtypes).sort()).toEqual(table.map((r) => r[0]).sort());
    expect(Object.isFrozen(dl.dtypes)).toBe(true);
  });

  describe.each(table)('%s', (name, code, bits, itemSize, viewName, lanes) => {
    test('code, bits, lanes and itemSize', () => {
      const d = dl.dtypes[name];
      expect(d).toEqual({ name, code, bits, lanes: 1, itemSize });
      expect(Object.isFrozen(d)).toBe(true);
    });

    test(`data is a ${viewName} in this realm over exactly the elements`, () => {
      const t = dl.zeros([2, 3], { dtype: name });
      const view = t.data;
      expect(view.constructor.name).toBe(viewName);
      expect(view).toBeInstanceOf(globalThis[viewName]);
      expect(view.length).toBe(6 * lanes);
      expect(view.byteLength).toBe(6 * itemSize);
      expect(t.nbytes).toBe(6 * itemSize);
      expect(t.itemSize).toBe(itemSize);
    });

    test('survives a DLPack round trip with its code and bits', () => {
      const t = dl.zeros([4], { dtype: name });
      const u = dl.fromDLPack(t.__dlpack__());
      expect(u.dtype).toBe(name);
      expect(u.data.buffer).toBe(t.data.buffer);
    });
  });

  test('an unknown dtype makes no tensor, and the message names the argument (row C06)', () => {
    expect(() => dl.zeros([1], { dtype: 'float8' })).toThrow(/`options.dtype`.*float8/);
  });
});

describe('element conversions', () => {
  test('float16 rounds to nearest even and keeps specials', () => {
    const values = [0, -0, 1, -2, 0.1, 65504, 1e-7, 6e-8, Infinity, -Infinity, 70000];
    const t = dl.tensor(values, { dtype: 'float16' });
    const back = t.toArray();
    expect(back.slice(0, 4)).toEqual([0, -0, 1, -2]);
    expect(back[4]).toBeCloseTo(0.0999755859375, 12);
    expect(back[5]).toBe(65504);
    expect(back[6]).toBeCloseTo(1.1920928955078125e-7, 15); // subnormal
    expect(back[7]).toBeCloseTo(5.960464477539063e-8, 18); // smallest subnormal
    expect(back[8]).toBe(Infinity);
    expect(back[9]).toBe(-Infinity);
    expect(back[10]).toBe(Infinity); // overflow
    expect(Number.isNaN(dl.tensor([NaN], { dtype: 'float16' }).toArray()[0])).toBe(true);
  });

  test('bfloat16 keeps the float32 exponent and rounds the mantissa', () => {
    const t = dl.tensor([1, 3.14159, -1e30, Infinity], { dtype: 'bfloat16' });
    const bits = Array.from(new Uint16Array(t.buffer));
    expect(bits[0]).toBe(0x3f80);
    expect(bits[1]).toBe(0x4049);
    const back = t.toArray();
    expect(back[1]).toBeCloseTo(3.140625, 6);
    expect(back[2]).toBeCloseTo(-1e30, -27);
    expect(back[3]).toBe(Infinity);
    expect(Number.isNaN(dl.tensor([NaN], { dtype: 'bfloat16' }).toArray()[0])).toBe(true);
  });

  // Issue 20, LOW 8: JS truthiness made NaN false on every path from JS values.
  test('NaN into bool is true on every path, as in the native conversion (zeros are false)', () => {
    expect(dl.tensor([NaN, 0, -0, 0n, false, 2], { dtype: 'bool' }).toArray()).toEqual([true, false, false, false, false, true]);
    expect(dl.tensor(new Float32Array([NaN, 0, -0]), { dtype: 'bool' }).toArray()).toEqual([true, false, false]);
    expect(dl.tensor(new Float64Array([NaN]), { dtype: 'bool' }).toArray()).toEqual([true]);
    const t = dl.zeros([2], { dtype: 'bool' });
    t.copyFrom([NaN, 0]);
    expect(t.toArray()).toEqual([true, false]);
    t.copyFrom(dl.tensor([NaN, 0], { dtype: 'float32' })); // the native conversion
    expect(t.toArray()).toEqual([true, false]);
  });

  test('int64 and uint64 read as BigInt, bool as boolean, complex as [re, im]', () => {
    expect(dl.tensor([1, -2], { dtype: 'int64' }).toArray()).toEqual([1n, -2n]);
    expect(dl.tensor([2n ** 64n - 1n], { dtype: 'uint64' }).toArray()).toEqual([2n ** 64n - 1n]);
    expect(dl.tensor([true, false, 1, 0], { dtype: 'bool' }).toArray()).toEqual([true, false, true, false]);
    expect(dl.tensor([[1, 2], [3, -4]], { dtype: 'complex128' }).toArray()).toEqual([[1, 2], [3, -4]]);
    expect(dl.tensor([5], { dtype: 'complex64' }).toArray()).toEqual([[5, 0]]);
  });
});

// The addon's table (src/core/dtype.h) is the canonical one; lib/binding.js
// compares it with lib/dtypes.js at load and refuses a binary that differs.
describe('the native dtype table against lib/dtypes.js', () => {
  const { checkDtypes, dtypeMismatch } = require('../lib/binding');
  const { byIndex } = require('../lib/dtypes');
  const rows = table.map(([name, code, bits]) => [name, code, bits]);

  test('the table this binary carries loaded, and it is the one above', () => {
    expect(dtypeMismatch(rows)).toBeNull();
    expect(byIndex.map((d) => d.name)).toEqual(table.map((r) => r[0]));
  });

  test('a row that differs, a missing row and an extra row are each named', () => {
    const swapped = rows.map((r) => (r[0] === 'int32' ? ['int32', 0, 16] : r));
    expect(dtypeMismatch(swapped)).toBe(
      'dtype 3 is int32 (code 0, 16 bits) in the native addon and int32 (code 0, 32 bits) in lib/dtypes.js');
    expect(dtypeMismatch(rows.slice(0, -1))).toBe(
      'dtype 14 is nothing in the native addon and complex128 (code 5, 128 bits) in lib/dtypes.js');
    expect(dtypeMismatch([...rows, ['float8', 2, 8]])).toBe(
      'dtype 15 is float8 (code 2, 8 bits) in the native addon and nothing in lib/dtypes.js');
  });

  test('a mismatch at load is a DLPackError ERR_DLPACK_NO_BINARY that says to rebuild', () => {
    expect(() => checkDtypes(rows)).not.toThrow();
    let error;
    try {
      checkDtypes(rows.slice(1));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(dl.DLPackError);
    expect(error.code).toBe('ERR_DLPACK_NO_BINARY');
    expect(error.message).toMatch(/^dlpack: the native addon does not match .*dtype 0 is int8 .*npm rebuild dlpack/);
  });
});

// The facts lib/ reads from a dtype's info rather than listing names again
// (test/architecture.test.js): the kind, and an integer dtype's range, whose
// oracle is the typed array that stores it (a value outside wraps there).
describe('dtype kinds and integer ranges come from the table', () => {
  const { byIndex } = require('../lib/dtypes');
  const Views = {
    int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array,
    uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array,
  };
  const store = (View, v) => {
    const a = new View(1);
    a[0] = View === BigInt64Array || View === BigUint64Array ? v : Number(v);
    return BigInt(a[0]);
  };

  test.each(Object.keys(Views))('%s: min and max are stored exactly, one past each wraps', (name) => {
    const info = byIndex.find((i) => i.name === name);
    const View = Views[name];
    expect(info.kind).toBe(name[0] === 'u' ? 'uint' : 'int');
    expect(store(View, info.min)).toBe(info.min);
    expect(store(View, info.max)).toBe(info.max);
    expect(store(View, info.min - 1n)).not.toBe(info.min - 1n);
    expect(store(View, info.max + 1n)).not.toBe(info.max + 1n);
  });

  test('the kinds: one bool, real floats with bfloat16, complex, and no range outside the integers', () => {
    const byKind = {};
    for (const i of byIndex) (byKind[i.kind] = byKind[i.kind] || []).push(i.name);
    expect(byKind.bool).toEqual(['bool']);
    expect(byKind.float.sort()).toEqual(['bfloat16', 'float16', 'float32', 'float64']);
    expect(byKind.complex.sort()).toEqual(['complex128', 'complex64']);
    for (const i of byIndex) if (i.kind !== 'int' && i.kind !== 'uint') expect([i.min, i.max]).toEqual([null, null]);
  });
});
