'use strict';
// The FFI hand-off (docs/API.md "FFI hand-off"): versioned structs over JS
// memory are filled in the environment's struct slab (lib/struct_slab.js,
// src/core/struct_slab.h) and taken back by fromPointer() when unchanged.
// What is proven here: the struct is what DLPack says, over the tensor's
// own memory; each one is deleted or taken back exactly once; its memory is
// held exactly as long as it is out; a struct native code changed, or one
// that is no longer out, goes through the native checklist or is refused.
const dl = require('../lib');
const { slabState } = require('../lib/struct_slab');
const { DLPackError } = require('../lib/errors');
const { producer, consumer, collect, expectError, nativeStats } = require('./helpers');

const range = (n, dtype) => dl.tensor(Array.from({ length: n }, (_, i) => i), { dtype });
const adopt = (p) => dl.DLPackCapsule.fromPointer(p, { versioned: true });
const slab = slabState();

if (slab === null) {
  // Only a runtime without external ArrayBuffers (the V8 sandbox) or a
  // big-endian machine has no slab; every struct is then made natively.
  console.log('ffi.test.js: slab tests skipped: this runtime has no struct slab');
}
const itSlab = slab === null ? test.skip : test;

describe('structs filled from JavaScript', () => {
  itSlab('a view\'s struct is what DLPack says, over the tensor\'s own bytes', () => {
    const base = range(24, 'int16').reshape([2, 3, 4]);
    const t = base.permute([2, 0, 1]).narrow(0, 1, 2); // strided, with an offset
    const before = slabState().out;
    const p = t.__dlpack__().toPointer();
    expect(slabState().out).toBe(before + 1);
    const seen = producer.inspect(p, true);
    expect(seen).toMatchObject({
      major: 1, minor: 3, flags: 0, hasDeleter: true, deviceType: 1, deviceId: 0, ndim: 3, code: 0, bits: 16,
      lanes: 1, shape: [2, 2, 3], strides: [1, 12, 4], byteOffset: 0, shapeIsNull: false, stridesIsNull: false,
    });
    expect(seen.data).toBe(producer.address(base.data) + BigInt(t.byteOffset));
    expect([...consumer.read(p, true)].slice(0, 2)).toEqual([1, 0]); // element [0, 0, 0] is 1 (int16 LE)
    consumer.delete(p, true);
    expect(slabState().out).toBe(before);
    t.dispose();
    base.dispose();
  });

  // The two dimension limits (src/core/struct_slab.h kEntryDims, layout.h kMaxDims): a
  // layout an entry cannot hold gets a heap struct from the native export, the same to a reader.
  itSlab('a tensor with more dimensions than a slab entry holds gets a heap struct', () => {
    const { slabConvention, MAX_DIMS } = require('../lib/binding');
    const dims = slabConvention.layout.entryDims;
    expect(dims).toBeLessThan(MAX_DIMS);
    for (const [ndim, inSlab] of [[dims, 1], [dims + 1, 0]]) {
      const shape = new Array(ndim).fill(1);
      const t = dl.zeros(shape, { dtype: 'uint8' });
      const before = slabState().out;
      const p = t.__dlpack__().toPointer();
      expect({ ndim, out: slabState().out }).toEqual({ ndim, out: before + inSlab });
      expect(producer.inspect(p, true)).toMatchObject({ ndim, shape, lanes: 1, bits: 8 });
      expect(dl.fromDLPack(adopt(p)).shape).toEqual(shape);
      expect(slabState().out).toBe(before);
      t.dispose();
    }
  });

  itSlab('0-d and empty tensors, and the flags', () => {
    const scalar = dl.tensor(7, { dtype: 'int32' });
    const p0 = scalar.__dlpack__().toPointer();
    expect(producer.inspect(p0, true)).toMatchObject({ ndim: 0, shapeIsNull: true, stridesIsNull: true });
    const empty = dl.empty([0, 3]);
    const p1 = empty.__dlpack__().toPointer();
    expect(producer.inspect(p1, true)).toMatchObject({ ndim: 2, shape: [0, 3], data: 0n });
    const p2 = dl.tensor([1, 2]).__dlpack__({ copy: true }).toPointer();
    expect(producer.inspect(p2, true).flags).toBe(2); // DLPACK_FLAG_BITMASK_IS_COPIED
    const back = dl.fromDLPack(adopt(p2));
    expect(back.isCopy).toBe(true);
    expect(dl.fromDLPack(adopt(p0)).toArray()).toBe(7);
    expect(dl.fromDLPack(adopt(p1)).shape).toEqual([0, 3]);
  });

  itSlab('taken back: the same memory, the struct counted once as made and once as freed', () => {
    const base = nativeStats();
    const t = range(6, 'float32');
    const p = t.__dlpack__().toPointer();
    expect(nativeStats().managedLive).toBe(base.managedLive + 1);
    const back = dl.fromDLPack(adopt(p));
    expect(back.buffer).toBe(t.buffer);
    expect(back.isCopy).toBe(false);
    back.data[0] = 42;
    expect(t.data[0]).toBe(42);
    const now = nativeStats();
    expect([now.managedMade - base.managedMade, now.managedFreed - base.managedFreed, now.managedLive])
      .toEqual([1, 1, base.managedLive]);
  });

  itSlab('the memory is held while the struct is out and let go once its deleter ran (this or another thread)', () => {
    for (const onThread of [false, true]) {
      // JS memory the library owns (below lib/memory.js's NATIVE_MIN: an
      // ArrayBuffer, which a slab struct points at; a native block's struct
      // holds the block itself, test/memory.test.js).
      const t = dl.zeros([1 << 15], { dtype: 'uint8' }).clone();
      const view = t.data;
      const p = t.__dlpack__().toPointer();
      t.dispose();
      expect(view.length).toBe(1 << 15); // not detached: the struct points at it
      consumer.write(p, true, 5, 77);
      expect(view[5]).toBe(77);
      consumer.delete(p, true, onThread);
      // The next sweep (an export, or the wake-up from another thread) lets the memory go.
      slabState();
      expect(view.length).toBe(0);
    }
  });

  itSlab('a deleter on another thread wakes this one, which lets the buffer be collected', async () => {
    let collected = false;
    const registry = new FinalizationRegistry(() => { collected = true; });
    let p;
    (() => {
      const ab = new ArrayBuffer(1 << 16);
      registry.register(ab, 'buffer');
      p = dl.fromBuffer(ab, { dtype: 'uint8' }).__dlpack__().toPointer();
    })();
    await collect();
    expect(collected).toBe(false);
    consumer.delete(p, true, true);
    for (let i = 0; i < 10 && !collected; i++) await collect();
    expect(collected).toBe(true);
  });

  itSlab('a struct that is not out is refused with a code, whatever happened to it', () => {
    const t = dl.tensor([1, 2, 3]);
    const p = t.__dlpack__().toPointer();
    const capsule = adopt(p);
    expectError(() => adopt(p), DLPackError, 'ERR_DLPACK_CONSUMED', /already adopted/);
    dl.fromDLPack(capsule).dispose();
    expectError(() => adopt(p), DLPackError, 'ERR_DLPACK_CONSUMED', /already adopted/); // taken back
    const q = t.__dlpack__().toPointer();
    consumer.delete(q, true);
    expectError(() => adopt(q), DLPackError, 'ERR_DLPACK_CONSUMED', /deleted/); // its deleter ran
  });

  itSlab('versioned: false for a slab struct is refused and consumes nothing', () => {
    const t = dl.tensor([4, 5]);
    const p = t.__dlpack__().toPointer();
    expectError(() => dl.DLPackCapsule.fromPointer(p, { versioned: false }), TypeError, 'ERR_INVALID_ARG_VALUE',
      /versioned true/);
    expect(dl.fromDLPack(adopt(p)).toArray()).toEqual([4, 5]);
  });

  // Issue 20, MEDIUM 5: taken natively, it became native memory over this thread's JS
  // heap (zero-copy, shareable with threads that outlive this one): now refused, with
  // its checklist's own refusals first.
  itSlab('a struct native code changed is refused (ERR_DLPACK_UNSUPPORTED), unconsumed, deleted once', () => {
    const base = nativeStats();
    const t = range(12, 'int32').reshape([3, 4]);
    const p = t.__dlpack__().toPointer();
    consumer.setShape(p, true, 0, 2); // narrowed by the consumer
    const narrowed = adopt(p);
    expect(() => dl.fromDLPack(narrowed)).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_UNSUPPORTED', message: expect.stringMatching(/changed since/) }));
    expect(narrowed.consumed).toBe(false);
    narrowed.dispose(); // its deleter frees the entry
    expect(nativeStats().foreignLive).toBe(base.foreignLive);

    const q = t.__dlpack__().toPointer();
    consumer.setNdim(q, true, -1);
    const capsule = adopt(q);
    expectError(() => dl.fromDLPack(capsule), DLPackError, 'ERR_DLPACK_UNSUPPORTED', /ndim/);
    expect(capsule.consumed).toBe(false);
    capsule.dispose(); // the deleter still runs exactly once
    expect(nativeStats().managedLive).toBe(base.managedLive);
  });

  itSlab('more structs out than the slab holds: the rest are made natively, all freed once', () => {
    const base = nativeStats();
    const t = range(4, 'float32');
    const pointers = [];
    for (let i = 0; i < slab.entries + 50; i++) pointers.push(t.__dlpack__().toPointer());
    expect(slabState().free).toBe(0);
    expect(nativeStats().managedLive).toBe(base.managedLive + pointers.length);
    pointers.forEach((p, i) => {
      if (i % 2) consumer.delete(p, true);
      else dl.fromDLPack(adopt(p)).dispose();
    });
    expect(nativeStats().managedLive).toBe(base.managedLive);
    expect(slabState().out).toBe(0);
  });

  // Issue 20, LOW 10: the deleter moves an entry out -> released once; a second delete
  // (a consumer's bug) before the entry is reused changes nothing.
  itSlab('a struct deleted twice is counted and freed once', () => {
    const before = nativeStats();
    const free = slabState().free;
    const t = range(4, 'int32');
    const p = t.__dlpack__().toPointer();
    consumer.delete(p, true);
    consumer.delete(p, true);
    consumer.delete(p, true, true); // and once more from another thread
    const after = nativeStats();
    expect(after.managedFreed - before.managedFreed).toBe(1);
    expect(after.managedLive).toBe(before.managedLive);
    expect(slabState()).toMatchObject({ free, out: 0 });
  });

  itSlab('a buffer detached after an export is refused by the next one, as by the native export', () => {
    const ab = new ArrayBuffer(16);
    const t = dl.fromBuffer(ab, { dtype: 'float32' });
    consumer.delete(t.__dlpack__().toPointer(), true); // its address is known from here on
    const capsule = t.__dlpack__();
    structuredClone(ab, { transfer: [ab] });
    expectError(() => capsule.toPointer(), DLPackError, 'ERR_DLPACK_DETACHED');
  });

  itSlab('shareMemory() waits until no struct is out, then moves the memory', () => {
    const t = range(8, 'float32');
    const p = t.__dlpack__().toPointer();
    expectError(() => t.shareMemory(), DLPackError, 'ERR_DLPACK_COPY_REQUIRED', /toPointer/);
    dl.fromDLPack(adopt(p)).dispose();
    t.shareMemory();
    expect(t.share().kind).toBe('shm');
    t.dispose();
  });

  itSlab('another load of the library (as Jest makes) takes the struct back, zero-copy', () => {
    let other;
    jest.isolateModules(() => { other = require('../lib'); });
    const t = range(5, 'float64');
    const view = t.data;
    const p = t.__dlpack__().toPointer();
    const foreignLive = nativeStats().foreignLive;
    const there = other.fromDLPack(other.DLPackCapsule.fromPointer(p, { versioned: true }));
    // Taken back in JS (issue 20): still JS memory, not native memory over this thread's heap.
    expect(nativeStats().foreignLive).toBe(foreignLive);
    expect(there.toArray()).toEqual([0, 1, 2, 3, 4]);
    there.data[4] = 40;
    expect(view[4]).toBe(40); // the same memory
    expect(there.isCopy).toBe(false);
    there.dispose();
    expect(slabState().out).toBeGreaterThanOrEqual(0);
  });
});

describe('a struct scribbled on before it comes back', () => {
  // Byte offsets of the 32-bit words a consumer might overwrite, pointers
  // excepted (a pointer that lies about memory is undefined behaviour for any
  // struct): version, flags, device, ndim, dtype, shape, strides, byte_offset.
  const WORDS = [0, 4, 24, 28, 40, 44, 48, 52, 72, 76, 80, 84, 88, 96, 144, 152, 160];
  const VALUES = [0, 1, 2, -1, 3, 8, 64, 65, 0x7fffffff, -0x80000000, 0x10001, 256];

  itSlab('never crashes and never frees twice: each struct is imported, refused or disposed, and deleted once', () => {
    const base = nativeStats();
    const t = range(24, 'float32').reshape([2, 3, 4]).permute([1, 0, 2]);
    let seed = 12345;
    const random = (n) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const outcomes = new Map();
    for (let i = 0; i < 600; i++) {
      const p = t.__dlpack__().toPointer();
      const at = WORDS[random(WORDS.length)];
      const value = VALUES[random(VALUES.length)];
      consumer.poke(p, at, value);
      const capsule = adopt(p);
      let outcome = 'imported';
      try {
        dl.fromDLPack(capsule).dispose();
      } catch (error) {
        expect(error.code).toMatch(/^ERR_/);
        outcome = error.code;
      }
      if (!capsule.consumed) capsule.dispose();
      outcomes.set(outcome, (outcomes.get(outcome) || 0) + 1);
    }
    expect(outcomes.get('imported')).toBeGreaterThan(0);
    expect(outcomes.get('ERR_DLPACK_UNSUPPORTED')).toBeGreaterThan(0);
    const now = nativeStats();
    expect(now.managedLive).toBe(base.managedLive);
    expect(now.managedFreed - base.managedFreed).toBe(now.managedMade - base.managedMade);
    expect(slabState().out).toBe(0);
  });
});
