'use strict';
// docs/errors.md, the K rows: DLPackCapsule. One test per row;
// test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { producer, consumer } = require('../helpers');
const { area, leakFree, foreign, adopt } = require('./rows');
const { slabState } = require('../../lib/struct_slab');

// Without a struct slab (a runtime that refuses external ArrayBuffers) every
// struct is a native allocation, and a stale pointer to one is freed memory.
const noSlab = slabState() === null ? 'this runtime has no struct slab (lib/struct_slab.js)' : null;

const { row } = area(__filename);

describe('DLPackCapsule', () => {
  row('K01', TypeError, 'ERR_ILLEGAL_CONSTRUCTOR', (throws) => {
    throws(() => new dl.DLPackCapsule(), /not by `new DLPackCapsule\(\)`/);
    throws(() => new dl.DLPackCapsule(Symbol('dlpack.internal'), true, dl.dlpackVersion));
  });

  row('K02', dl.DLPackError, 'ERR_DLPACK_CONSUMED', async (throws) => {
    await leakFree(() => {
      const ptr = foreign();
      const c = adopt(ptr);
      const t = dl.fromDLPack(c);
      throws(() => dl.fromDLPack(c), /unconsumed DLPackCapsule/);
      const ours = dl.tensor([1]).__dlpack__();
      producer.release(ours.toPointer(), true);
      throws(() => dl.fromDLPack(ours));
      const disposed = dl.tensor([1]).__dlpack__({ maxVersion: [0, 1] });
      disposed.dispose();
      disposed.dispose(); // idempotent
      throws(() => dl.fromDLPack(disposed));
      const foreignDisposed = adopt(foreign());
      foreignDisposed.dispose();
      throws(() => dl.fromDLPack(foreignDisposed));
      expect(producer.calls(ptr)).toBe(0);
      t.dispose();
      expect(producer.calls(ptr)).toBe(1);
    });
  });

  row('K03', dl.DLPackError, 'ERR_DLPACK_CONSUMED', async (throws) => {
    await leakFree(() => {
      const ptr = foreign();
      const c = adopt(ptr);
      expect(c.toPointer()).toBe(ptr); // handed back: the caller owns it again
      throws(() => c.toPointer());
      throws(() => dl.fromDLPack(c));
      const ours = dl.tensor([1]).__dlpack__();
      dl.fromDLPack(ours);
      throws(() => ours.toPointer());
      const disposed = adopt(foreign());
      disposed.dispose();
      throws(() => disposed.toPointer());
      producer.release(ptr, true);
    });
  });

  row('K04', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const c = dl.tensor([1]).__dlpack__();
    const { toPointer, dispose } = c;
    throws(() => toPointer.call({}), /for `capsule`/);
    throws(() => dispose.call(undefined), /for `capsule`/);
    throws(() => toPointer.call(dl.tensor([1])), /for `capsule`/);
    throws(() => c.toString.call({}), /for `capsule`/);
    throws(() => c[Symbol.dispose].call(undefined), /for `capsule`/);
    throws(() => dl.DLPackCapsule.prototype[Symbol.for('nodejs.util.inspect.custom')].call(null), /for `capsule`/);
    expect(c.consumed).toBe(false);
    c.dispose();
  });

  row('K05', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const p of [5, '0x1000', null, undefined, { valueOf: () => 8n }]) {
      throws(() => dl.DLPackCapsule.fromPointer(p, { versioned: true }), /for `pointer`/);
    }
  });

  row('K06', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    for (const p of [0n, -1n, -(2n ** 63n), 2n ** 64n, 2n ** 100n]) {
      throws(() => dl.DLPackCapsule.fromPointer(p, { versioned: true }), /for `pointer`/);
    }
  });

  row('K08', dl.DLPackError, 'ERR_DLPACK_CONSUMED', async (throws) => {
    await leakFree(() => {
      const ptr = foreign();
      const first = adopt(ptr);
      throws(() => adopt(ptr), /already adopted/);
      throws(() => adopt(ptr, false), /already adopted/); // the address is what is owned
      const t = dl.fromDLPack(first);
      throws(() => adopt(ptr), /already adopted/); // the tensor holds it now
      expect(t.toArray()).toHaveLength(4);
      t.dispose();
      expect(producer.calls(ptr)).toBe(1);
      // Our own struct: adopted, handed back, adopted again, imported once.
      const own = dl.tensor([1, 2]).__dlpack__().toPointer();
      const a = adopt(own);
      throws(() => adopt(own), /already adopted/);
      expect(a.toPointer()).toBe(own);
      const b = adopt(own);
      expect(dl.fromDLPack(b).toArray()).toEqual([1, 2]);
      expect(a.consumed && b.consumed).toBe(true);
      if (noSlab) return;
      // Taken back and gone, or deleted by its consumer: a stale pointer, caught.
      throws(() => adopt(own), /already adopted/);
      const deleted = dl.tensor([5]).__dlpack__().toPointer();
      consumer.delete(deleted, true);
      throws(() => adopt(deleted), /deleted/);
    });
  });

  row('K09', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const own = dl.tensor([3, 4]).__dlpack__().toPointer(); // filled in the struct slab
      throws(() => adopt(own, false), /versioned true/);
      expect(dl.fromDLPack(adopt(own)).toArray()).toEqual([3, 4]); // refused: still the caller's
    });
  }, noSlab);

  // Issue 20, LOW 10: before, such a pointer was read as a foreign struct (a misaligned
  // read of another entry's words, or a segfault in its garbage deleter).
  row('K10', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const own = dl.tensor([3, 4]).__dlpack__().toPointer();
      for (const delta of [8n, 80n, 255n, -64n]) {
        throws(() => adopt(own + delta), /start of a struct/);
        throws(() => adopt(own + delta, false), /start of a struct/);
      }
      expect(dl.fromDLPack(adopt(own)).toArray()).toEqual([3, 4]); // untouched
    });
  }, noSlab);

  row('K07', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await leakFree(() => {
      const ptr = foreign();
      throws(() => dl.DLPackCapsule.fromPointer(ptr), /Expected \{ versioned: true \}.* or \{ versioned: false \}.* for `options`/);
      throws(() => dl.DLPackCapsule.fromPointer(ptr, null), /for `options`/);
      throws(() => dl.DLPackCapsule.fromPointer(ptr, {}), /`options.versioned`/);
      throws(() => dl.DLPackCapsule.fromPointer(ptr, { versioned: 1 }), /`options.versioned`/);
      expect(producer.calls(ptr)).toBe(0); // refused: still the caller's
      adopt(ptr).dispose();
    });
  });
});
