'use strict';
// The asynchronous form of the host copies (docs/API.md "Off the event loop"):
// copyFrom(src, { async: true }), clone({ async: true }) and
// contiguous({ async: true }) give a Promise of what the synchronous call
// gives, run off the event loop, and hold both sides until they settle. Bad
// input: docs/errors.md T10, T23 (test/bad-input/t-tensor.test.js).
const dl = require('../lib');

// A contiguous tensor's bytes, to compare large tensors fast.
const bytesOf = (t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);

function filled(shape, dtype = 'float32') {
  const t = dl.empty(shape, { dtype });
  t.data.forEach((_, i) => { t.data[i] = (i * 7) % 19; });
  return t;
}

describe('copyFrom(src, { async: true })', () => {
  it('resolves to the destination with what the synchronous copy writes: strided, converting, from values', async () => {
    const src = filled([4, 6]).transpose(0, 1); // [6, 4], strided
    const want = dl.zeros([6, 4], { dtype: 'float64' }).copyFrom(src);
    const dst = dl.zeros([4, 6], { dtype: 'float64' }).transpose(0, 1);
    const p = dst.copyFrom(src, { async: true });
    expect(typeof p.then).toBe('function');
    expect(await p).toBe(dst);
    expect(dst.toArray()).toEqual(want.toArray());
    const small = dl.zeros([2, 2], { dtype: 'int16' });
    expect(await small.copyFrom([[1, 2], [3, 4]], { async: true })).toBe(small);
    expect(small.toArray()).toEqual([[1, 2], [3, 4]]);
    const empty = dl.empty([0, 3]);
    expect(await empty.copyFrom(dl.empty([0, 3]), { async: true })).toBe(empty);
  });

  it('copies between overlapping views of one tensor as the synchronous form does', async () => {
    const a = filled([64]);
    const b = filled([64]);
    a.narrow(0, 8, 48).copyFrom(a.narrow(0, 0, 48));
    await b.narrow(0, 8, 48).copyFrom(b.narrow(0, 0, 48), { async: true });
    expect(b.toArray()).toEqual(a.toArray());
  });

  it('runs off the event loop and holds both sides: dispose() in flight lets go of the tensors, not the memory',
    async () => {
      const src = filled([1 << 21]);
      const dst = dl.empty([1 << 21], { dtype: 'float64' });
      let settled = false;
      const p = dst.copyFrom(src, { async: true }).then((r) => {
        settled = true;
        return r;
      });
      expect(settled).toBe(false);
      src.dispose();
      expect(() => dst.shareMemory()).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_COPY_REQUIRED',
        message: expect.stringMatching(/async/) }));
      const r = await p;
      expect(r).toBe(dst);
      expect(bytesOf(dst).equals(bytesOf(filled([1 << 21]).to('float64')))).toBe(true);
      // Once settled the destination may move.
      expect(dst.shareMemory()).toBe(dst);
      const other = dl.empty([1 << 20]);
      const q = other.copyFrom(filled([1 << 20]), { async: true });
      other.dispose();
      await q; // the destination disposed in flight: no crash, its memory freed after
      expect(other.disposed).toBe(true);
    });
});

describe('clone({ async: true }) and contiguous({ async: true })', () => {
  it('resolve to what the synchronous forms give, a new contiguous tensor', async () => {
    const view = filled([5, 7], 'int32').permute(1, 0).narrow(0, 1, 4);
    const copy = await view.clone({ async: true });
    expect(copy.isContiguous).toBe(true);
    expect(copy.dtype).toBe('int32');
    expect(copy.toArray()).toEqual(view.clone().toArray());
    const dense = await view.contiguous({ async: true });
    expect(dense.isContiguous).toBe(true);
    expect(dense.toArray()).toEqual(view.contiguous().toArray());
  });

  it('contiguous() of a contiguous tensor resolves to a new tensor over the same memory, as the sync form', async () => {
    const t = filled([3, 4]);
    const same = await t.contiguous({ async: true });
    expect(same).not.toBe(t);
    same.data[0] = 42;
    expect(t.data[0]).toBe(42);
  });

  it('hold the source: dispose() in flight, the clone is still whole', async () => {
    const t = filled([1 << 21]).narrow(0, 1, (1 << 21) - 1);
    const want = t.clone();
    const p = t.clone({ async: true });
    t.dispose();
    expect(bytesOf(await p).equals(bytesOf(want))).toBe(true);
  });
});
