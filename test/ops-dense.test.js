'use strict';
// The dense case of a binary op (lib/ops.js denseBinary) refuses what run()
// refuses, with the same codes, and leaves everything else to run().
const dl = require('../lib');
const { readOnly, leakFree } = require('./bad-input/rows');

const f32 = (xs) => dl.tensor(xs, { dtype: 'float32' });

describe('dl.add: the dense case keeps run()\'s rules', () => {
  it('computes into out and into a new result', () => {
    const a = f32([1, 2, 3, 4]);
    const b = f32([10, 20, 30, 40]);
    const out = dl.zeros([4]);
    expect(dl.add(a, b, { out })).toBe(out);
    expect(Array.from(out.data)).toEqual([11, 22, 33, 44]);
    expect(Array.from(dl.add(a, b).data)).toEqual([11, 22, 33, 44]);
  });
  it('the native dense form takes tensors only: a number there is a coded refusal, nothing written', () => {
    const { elementwiseDense, opCodes } = require('../lib/binding');
    const { dtypeInfo } = require('../lib/dtypes');
    const { kStorage } = require('../lib/symbols');
    const a = f32([1, 2]);
    const out = f32([0, 0]);
    const memory = (t) => t[kStorage].hostArg();
    const f32Index = dtypeInfo('float32').index;
    expect(() => elementwiseDense(opCodes.add, f32Index, 2, memory(out), 0, memory(a), 0, 5, 0))
      .toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE', message: expect.stringMatching(/storage handle/) }));
    expect(Array.from(out.data)).toEqual([0, 0]);
    elementwiseDense(opCodes.add, f32Index, 2, memory(out), 0, memory(a), 0, memory(a), 0);
    expect(Array.from(out.data)).toEqual([2, 4]);
  });
  it('refuses a disposed operand and a detached buffer', () => {
    const a = f32([1, 2]);
    a.dispose();
    expect(() => dl.add(a, f32([3, 4]))).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_DISPOSED' }));
    const buffer = new ArrayBuffer(8);
    const t = dl.fromBuffer(buffer, { dtype: 'float32', shape: [2] });
    structuredClone(buffer, { transfer: [buffer] });
    expect(() => dl.add(t, f32([3, 4]))).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_DETACHED' }));
  });
  it('refuses an out whose elements share memory', () => {
    const out = dl.zeros([1]).expand([4]);
    expect(() => dl.add(f32([1, 2, 3, 4]), f32([1, 2, 3, 4]), { out })).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_UNSUPPORTED' }));
  });
  it('stages an out overlapping an input partially (as run() does)', () => {
    const base = f32([1, 2, 3, 4, 5]);
    const a = base.slice(0, 0, 4);
    const out = base.slice(0, 1, 5);
    dl.add(a, a, { out });
    expect(Array.from(base.data)).toEqual([1, 2, 4, 6, 8]);
  });
  it('refuses a read-only out with nothing written, and an in-place op on a read-only tensor', () => {
    const out = readOnly([7, 7, 7]);
    expect(() => dl.add(f32([1, 2, 3]), f32([1, 2, 3]), { out }))
      .toThrow(expect.objectContaining({ code: 'ERR_DLPACK_READ_ONLY' }));
    expect(Array.from(out.data)).toEqual([7, 7, 7]);
    expect(() => out.add_(f32([1, 2, 3]))).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_READ_ONLY' }));
    expect(Array.from(out.data)).toEqual([7, 7, 7]);
  });
  it('leaks nothing: results of every size made and dropped, refusals included', () => leakFree(() => {
    for (const n of [8, 1024, 16384, 65536]) { // ArrayBuffers, Buffers and native blocks (lib/memory.js)
      const a = dl.ones([n]);
      const b = dl.full([n], 2);
      for (let i = 0; i < 20; i++) dl.add(a, b); // dropped undisposed, left to the collector
      const out = dl.zeros([n]);
      dl.mul(a, b, { out }).dispose();
      expect(() => dl.add(a, b, { out: dl.zeros([n + 1]) })).toThrow();
    }
  }));
  it('leaves other dtypes and shapes to run(), with its results', () => {
    const i = dl.tensor([1, 2], { dtype: 'int32' });
    const r = dl.add(f32([0.5, 0.5]), i);
    expect(r.dtype).toBe('float32');
    expect(Array.from(r.data)).toEqual([1.5, 2.5]);
    expect(Array.from(dl.add(f32([1, 2]), f32([10])).data)).toEqual([11, 12]);
    expect(() => dl.add(f32([1, 2]), f32([1, 2]), { out: dl.zeros([3]) })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE' }));
  });
});
