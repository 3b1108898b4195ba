'use strict';
const dl = require('../lib');

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

  test('resizable ArrayBuffer: uses the current length; shrunk below the tensor, it works again once regrown', () => {
    const ab = new ArrayBuffer(8, { maxByteLength: 64 });
    ab.resize(32);
    const t = dl.fromBuffer(ab, { dtype: 'float32' });
    expect(t.shape).toEqual([8]);
    t.data.set([1, 2, 3, 4, 5, 6, 7, 8]);
    ab.resize(8); // docs/errors.md M02
    for (const use of [() => t.data, () => t.toArray(), () => t.__dlpack__()]) expect(use).toThrow();
    expect(t.shape).toEqual([8]);
    ab.resize(32); // regrown bytes are zero: the first 8 survived
    expect(t.toArray()).toEqual([1, 2, 0, 0, 0, 0, 0, 0]);
  });

  test('a tensor whose buffer is detached later reads nothing, still prints, and the buffer stays refused', () => {
    const ab = new ArrayBuffer(8);
    const t = dl.fromBuffer(ab, { dtype: 'uint8' });
    structuredClone(ab, { transfer: [ab] }); // docs/errors.md M01, F15
    expect(() => t.data).toThrow();
    expect(() => t.clone()).toThrow();
    expect(String(t)).toBe('tensor(<detached>, dtype=uint8)');
    expect(t.shape).toEqual([8]);
    expect(() => dl.fromBuffer(ab, { dtype: 'uint8' })).toThrow();
  });

  test('keeps the source alive after the caller drops it', async () => {
    let t = dl.fromBuffer(new Float64Array([1, 2, 3]).buffer, { dtype: 'float64' });
    global.gc();
    await new Promise((r) => setImmediate(r));
    global.gc();
    expect(t.toArray()).toEqual([1, 2, 3]);
    t = null;
  });
});

// Which error each misuse gets is tested by the F rows of docs/errors.md
// (test/bad-input/f-from-buffer.test.js); here, where the limits lie.

describe('fromBuffer: dtype', () => {
  test('a name or a dl.dtypes object sets the element size; nothing else is a dtype', () => {
    const t = dl.fromBuffer(new ArrayBuffer(4), { dtype: dl.dtypes.int16 });
    expect([t.shape, t.dtype]).toEqual([[2], 'int16']);
    for (const options of [undefined, {}, { dtype: 3 }]) {
      expect(() => dl.fromBuffer(new ArrayBuffer(4), options)).toThrow();
    }
  });
});

describe('fromBuffer: offset', () => {
  test('0 <= offset <= byteLength; offset == byteLength gives shape [0]', () => {
    const ab = new ArrayBuffer(8);
    expect(dl.fromBuffer(ab, { dtype: 'float32', offset: 8 }).shape).toEqual([0]);
    expect(dl.fromBuffer(ab, { dtype: 'float32', offset: 0 }).shape).toEqual([2]);
    for (const offset of [12, -4, 1.5, '1']) expect(() => dl.fromBuffer(ab, { dtype: 'uint8', offset })).toThrow();
  });

  test('must put the first element on an element boundary of the underlying buffer', () => {
    const ab = new ArrayBuffer(16);
    expect(() => dl.fromBuffer(ab, { dtype: 'float32', offset: 2 })).toThrow();
    expect(dl.fromBuffer(ab, { dtype: 'float32', offset: 4 }).byteOffset).toBe(4);
    const view = new Uint8Array(ab, 1, 13);
    expect(() => dl.fromBuffer(view, { dtype: 'int16' })).toThrow();
    expect(dl.fromBuffer(view, { dtype: 'int16', offset: 1 }).byteOffset).toBe(2);
    expect(() => dl.fromBuffer(Buffer.from(new ArrayBuffer(64), 3, 32), { dtype: 'float64' })).toThrow();
    expect(dl.fromBuffer(Buffer.from(new ArrayBuffer(64), 8, 32), { dtype: 'float64' }).shape).toEqual([4]);
  });
});

describe('fromBuffer: count', () => {
  test('-1 takes all remaining bytes, which must be whole elements', () => {
    const ab = new ArrayBuffer(10);
    expect(dl.fromBuffer(ab, { dtype: 'int16' }).shape).toEqual([5]);
    expect(() => dl.fromBuffer(ab, { dtype: 'int32' })).toThrow();
    expect(dl.fromBuffer(ab, { dtype: 'int16', offset: 4, count: -1 }).shape).toEqual([3]);
  });

  test('count >= 0 must fit after the offset', () => {
    const ab = new ArrayBuffer(16);
    expect(dl.fromBuffer(ab, { dtype: 'float32', offset: 4, count: 3 }).shape).toEqual([3]);
    expect(dl.fromBuffer(ab, { dtype: 'int16', offset: 6, count: 5 }).shape).toEqual([5]); // exactly to the end
    for (const [offset, count] of [[4, 4], [6, 6], [0, -2], [0, 1.5]]) {
      expect(() => dl.fromBuffer(ab, { dtype: offset === 6 ? 'int16' : 'float32', offset, count })).toThrow();
    }
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
    expect(() => dl.fromBuffer(new ArrayBuffer(24), { dtype: 'float32', shape: [4, 2] })).toThrow();
    expect(dl.fromBuffer(new ArrayBuffer(24), { dtype: 'float32', shape: [6, 1, 1] }).strides).toEqual([1, 1, 1]);
  });

  test('0-d from a single element', () => {
    const t = dl.fromBuffer(new Float64Array([2.5]), { dtype: 'float64', shape: [] });
    expect(t.ndim).toBe(0);
    expect(t.toArray()).toBe(2.5);
  });

  test('up to 64 dimensions, each a non-negative integer', () => {
    const ab = new ArrayBuffer(8);
    expect(dl.fromBuffer(ab, { dtype: 'uint8', shape: [...new Array(63).fill(1), 8] }).ndim).toBe(64);
    expect(dl.fromBuffer(ab, { dtype: 'uint8', shape: [0, 2], count: 0 }).shape).toEqual([0, 2]);
    for (const shape of ['x', [2, -4], [2, 'a'], new Array(65).fill(1)]) {
      expect(() => dl.fromBuffer(ab, { dtype: 'uint8', shape })).toThrow();
    }
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

  test('past 2^53, infinite, NaN or fractional offsets and counts make no tensor', () => {
    // The messages of each are in docs/errors.md rows F06 and F10.
    for (const v of [2 ** 53, 2 ** 53 + 2, 2 ** 64, 1e300, Number.MAX_VALUE, -(2 ** 53), -1e300,
      NaN, Infinity, -Infinity, 0.5, 2 ** 51 + 0.5]) {
      expect(() => dl.fromBuffer(ab, { dtype: 'uint8', offset: v })).toThrow();
      expect(() => dl.fromBuffer(ab, { dtype: 'float64', count: v })).toThrow();
    }
    expect(() => dl.fromBuffer(ab, { dtype: 'float64', count: Number.MAX_SAFE_INTEGER })).toThrow();
    expect(dl.fromBuffer(ab, { dtype: 'uint8', offset: 2 ** 4, count: 0 }).shape).toEqual([0]);
  });
});

describe('fromBuffer: the kept count (lib/binding.js viewCount)', () => {
  // viewCount keeps the last count the native arithmetic gave, with its five
  // numbers. These prove that a kept count is handed back only for the same
  // five: each answer is compared with a fresh native one (after a call with
  // other numbers, which replaces what is kept), with one number changed at a
  // time, over the fuzz corpus's special values (test/fuzz/fuzz_buffer_view.cc
  // kSpecial) and small integers.
  const { viewCount } = require('../lib/binding');
  const SPECIAL = [NaN, Infinity, -Infinity, -0, 0.5, -1, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, 2 ** 52 - 0.5, 2 ** 64,
    Number.MAX_VALUE, Number.MIN_VALUE, -(2 ** 53 - 1), 2 ** 32, 1e300];
  const VALUES = [...SPECIAL, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 15, 16, 17, 255, 256, 4096];
  const answer = (args) => {
    try {
      return viewCount(...args);
    } catch (error) {
      return `${error.code}: ${error.message}`;
    }
  };
  const OTHER = [3, 0, 1, 0, -1]; // 3 one-byte elements: never an input below
  const fresh = (args) => {
    expect(answer(OTHER)).toBe(3);
    return answer(args);
  };

  // Deterministic cases: every value in every position of a valid base case,
  // and a seeded sample of whole tuples.
  const cases = [];
  const valid = [[16, 0, 4, 4, -1], [4096, 0, 4, 16, 256], [16, 2, 2, 6, 5], [1024, 8, 8, 0, 128]];
  for (const base of valid) {
    for (let at = 0; at < 5; at++) {
      for (const v of VALUES) cases.push(base.map((x, i) => (i === at ? v : x)));
    }
  }
  let seed = 38;
  const next = () => {
    seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0;
    return seed;
  };
  for (let k = 0; k < 3000; k++) {
    const pick = () => (next() % 4 === 0 ? VALUES[next() % VALUES.length] : next() % 64);
    const tuple = [pick(), pick(), 1 + (next() % 16), pick(), next() % 3 === 0 ? -1 : pick()];
    cases.push(tuple);
  }

  test('the same five numbers: the same answer as the native one, twice', () => {
    let kept = 0;
    for (const args of cases) {
      const first = fresh(args);
      const again = answer(args);
      expect({ args, again }).toEqual({ args, again: first });
      if (typeof first === 'number' && first >= 0) kept++;
    }
    expect(kept).toBeGreaterThan(150);
  });

  test('one number changed: never the kept count, always the native answer', () => {
    const changedAnswers = [0, 0, 0, 0, 0];
    for (const args of cases) {
      const before = fresh(args);
      if (typeof before !== 'number' || before < 0) continue;
      for (let at = 0; at < 5; at++) {
        for (const v of VALUES) {
          if (Object.is(v, args[at])) continue;
          const changed = args.map((x, i) => (i === at ? v : x));
          expect(answer(args)).toBe(before); // kept again
          const got = answer(changed);
          const want = fresh(changed);
          expect({ changed, got }).toEqual({ changed, got: want });
          if (want !== before) changedAnswers[at]++;
        }
      }
    }
    // Each position changed some answers, so a kept count handed back for
    // any of them would have failed above.
    for (const n of changedAnswers) expect(n).toBeGreaterThan(100);
  });

  test('-0 and 0 are one input, and the count is +0', () => {
    expect(fresh([16, 0, 4, 0, 0])).toBe(0);
    expect(Object.is(answer([16, 0, 4, -0, -0]), 0)).toBe(true);
    expect(Object.is(fresh([16, 0, 4, -0, -0]), 0)).toBe(true);
  });
});
