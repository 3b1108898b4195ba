'use strict';
// docs/errors.md, the M rows: memory that changes under a tensor. One test per row;
// test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { producer } = require('../helpers');
const { area, leakFree } = require('./rows');

const { row } = area(__filename);

// The uses of M01-M03: each reads or hands out the bytes.
const byteUses = (t) => [() => t.data, () => t.toArray(), () => t.clone(),
  () => t.copyFrom(dl.zeros(t.shape, { dtype: t.dtype })), () => dl.zeros(t.shape, { dtype: t.dtype }).copyFrom(t),
  () => t.__dlpack__(), () => dl.fromDLPack(t)];

describe('memory that changes under a tensor', () => {
  row('M01', dl.DLPackError, 'ERR_DLPACK_DETACHED', async (throws) => {
    await leakFree(() => {
      const ab = new ArrayBuffer(16);
      const t = dl.fromBuffer(ab, { dtype: 'float32' });
      const view = t.data;
      structuredClone(ab, { transfer: [ab] });
      expect(view.length).toBe(0);
      for (const use of byteUses(t)) throws(use, /detached/);
      expect(String(t)).toBe('tensor(<detached>, dtype=float32)');
      t.dispose(); // never detaches or throws on a caller's buffer
    });
  });

  row('M02', dl.DLPackError, 'ERR_DLPACK_DETACHED', async (throws) => {
    await leakFree(() => {
      const rab = new ArrayBuffer(16, { maxByteLength: 64 });
      const t = dl.fromBuffer(rab, { dtype: 'float32', offset: 4, count: 2 });
      t.data.set([5, 6]);
      const tracking = dl.fromBuffer(new Uint8Array(rab), { dtype: 'uint8' }); // a length-tracking view
      rab.resize(8);
      for (const use of byteUses(t)) throws(use, /detached or shrunk/);
      throws(() => tracking.toArray(), /detached or shrunk/);
      rab.resize(64);
      expect(t.toArray()).toEqual([5, 0]); // usable again; the bytes cut off came back zeroed
      expect(tracking.size).toBe(16);
    });
  });

  row('M03', dl.DLPackError, 'ERR_DLPACK_DETACHED', (throws) => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 4 });
    const t = dl.fromBuffer(memory.buffer, { dtype: 'int32', offset: 64, count: 4 });
    const viewed = dl.wasm.view(memory, { ptr: 64, dtype: 'int32', shape: [4] });
    viewed.data.set([1, 2, 3, 4]);
    memory.grow(1);
    for (const use of byteUses(t)) throws(use, /detached.*memory\.grow\(\).*dl\.wasm\.view\(memory/);
    expect(Array.from(viewed.data)).toEqual([1, 2, 3, 4]); // wasm.view follows the memory
  });

  row('M04', dl.DLPackError, 'ERR_DLPACK_DETACHED', (throws) => {
    const gone = new ArrayBuffer(8);
    const src = dl.fromBuffer(gone, { dtype: 'float32' });
    structuredClone(gone, { transfer: [gone] });
    const dst = dl.tensor([1, 2]);
    throws(() => dst.copyFrom(src), /detached/);
    throws(() => dst.copyFrom(src.reshape([2, 1]).reshape([2])), /detached/);
    expect(dst.toArray()).toEqual([1, 2]);
    const rab = new ArrayBuffer(8, { maxByteLength: 8 });
    const shrunk = dl.fromBuffer(rab, { dtype: 'float32' });
    rab.resize(4);
    throws(() => shrunk.copyFrom(dst), /detached or shrunk/);
    throws(() => shrunk.copyFrom([7, 8]), /detached or shrunk/);
    rab.resize(8);
    expect(shrunk.toArray()).toEqual([0, 0]);
  });

  row('M05', dl.DLPackError, 'ERR_DLPACK_DETACHED', async (throws) => {
    await leakFree(() => {
      const ab = new ArrayBuffer(8);
      const a = dl.fromBuffer(ab, { dtype: 'float32' }).__dlpack__();
      structuredClone(ab, { transfer: [ab] });
      throws(() => a.toPointer(), /detached/);
      expect(a.consumed).toBe(false);
      a.dispose();
      const rab = new ArrayBuffer(16, { maxByteLength: 16 });
      const b = dl.fromBuffer(rab, { dtype: 'float32' }).__dlpack__({ maxVersion: [0, 8] });
      rab.resize(8);
      throws(() => b.toPointer(), /detached or shrunk/);
      expect(b.consumed).toBe(false);
      rab.resize(16);
      const ptr = b.toPointer(); // regrown: the same capsule hands out the struct
      producer.release(ptr, false);
    });
  });

  row('M06', dl.DLPackError, 'ERR_DLPACK_DETACHED', async (throws) => {
    await leakFree(() => {
      const ab = new ArrayBuffer(8);
      const a = dl.fromBuffer(ab, { dtype: 'float32' }).__dlpack__();
      structuredClone(ab, { transfer: [ab] });
      throws(() => dl.fromDLPack(a), /detached/);
      throws(() => dl.fromDLPack(a, { copy: true }), /detached/);
      expect(a.consumed).toBe(false);
      a.dispose();
      const rab = new ArrayBuffer(16, { maxByteLength: 16 });
      const t = dl.fromBuffer(rab, { dtype: 'float32', offset: 8 });
      t.data.set([1, 2]);
      const b = t.__dlpack__();
      rab.resize(12);
      throws(() => dl.fromDLPack(b), /detached or shrunk/);
      expect(b.consumed).toBe(false);
      rab.resize(16);
      expect(dl.fromDLPack(b).toArray()).toEqual([1, 0]); // regrown: the same capsule imports
    });
  });
});
