'use strict';
// The asynchronous form of the reductions, softmax and topk (docs/API.md "Off
// the event loop"): `{ async: true }` gives a Promise of what the synchronous
// call gives (values and dtype, `out`, keepdim, 0-size inputs), holds its
// operands and `out` until it settles, and survives worker.terminate() and
// process.exit() in flight. Bad input: docs/errors.md R01
// (test/bad-input/r-reduce.test.js).
const path = require('path');
const { spawnSync } = require('child_process');
const { EXIT_SAFE_FLAGS } = require('./helpers');
const dl = require('../lib');

// Deterministic values with ties, negatives and a fraction.
function filled(shape, dtype = 'float32') {
  const t = dl.empty(shape, { dtype });
  t.data.forEach((_, i) => { t.data[i] = ((i * 37) % 23) - 11 + (dtype.startsWith('float') ? (i % 4) / 4 : 0); });
  return t;
}

const same = (got, want) => {
  expect(got.dtype).toBe(want.dtype);
  expect(got.shape).toEqual(want.shape);
  expect(got.toArray()).toEqual(want.toArray());
};

const sameResult = (got, want) => {
  if (want.values !== undefined) {
    same(got.values, want.values);
    same(got.indices, want.indices);
  } else {
    same(got, want);
  }
};

// Each op's calls, (tensor, options) -> its result; `options` holds async.
const CALLS = {
  'sum()': (t, o) => t.sum(o),
  'sum(1, keepdim)': (t, o) => t.sum(1, { keepdim: true, ...o }),
  'sum([0, 2], dtype)': (t, o) => dl.sum(t, [0, 2], { dtype: 'float64', ...o }),
  'mean(-1)': (t, o) => t.mean(-1, o),
  'amax(0)': (t, o) => t.amax(0, o),
  'amin([1, 2], keepdim)': (t, o) => dl.amin(t, [1, 2], { keepdim: true, ...o }),
  'max()': (t, o) => t.max(o),
  'max(1)': (t, o) => t.max(1, o),
  'min(2, keepdim)': (t, o) => dl.min(t, 2, { keepdim: true, ...o }),
  'argmax()': (t, o) => t.argmax(o),
  'argmax(2)': (t, o) => t.argmax(2, o),
  'argmin(0, keepdim)': (t, o) => dl.argmin(t, 0, { keepdim: true, ...o }),
  'softmax(-1)': (t, o) => t.softmax(-1, o),
  'logSoftmax(1)': (t, o) => dl.logSoftmax(t, 1, o),
  'topk(2)': (t, o) => t.topk(2, o),
  'topk(3, 1, smallest)': (t, o) => dl.topk(t, 3, 1, { largest: false, ...o }),
};

describe('reductions with { async: true }', () => {
  const inputs = {
    'a [4, 5, 6] float32': () => filled([4, 5, 6]),
    'a permuted [6, 5, 4] float64 view': () => filled([4, 5, 6], 'float64').permute(2, 1, 0),
    'a large [32, 100, 40] float32 (split across threads)': () => filled([32, 100, 40]),
  };
  for (const [what, make] of Object.entries(inputs)) {
    it(`give the synchronous results, each op, ${what}`, async () => {
      const t = make();
      for (const [name, call] of Object.entries(CALLS)) {
        const want = call(t, {});
        const p = call(t, { async: true });
        expect({ name, promise: typeof p.then }).toEqual({ name, promise: 'function' });
        sameResult(await p, want);
      }
    });
  }

  it('give the synchronous results for integer inputs (sum to int64, max, topk)', async () => {
    const t = filled([3, 7, 5], 'int32');
    for (const name of ['sum()', 'sum(1, keepdim)', 'amax(0)', 'max(1)', 'argmax()', 'topk(3, 1, smallest)']) {
      sameResult(await CALLS[name](t, { async: true }), CALLS[name](t, {}));
    }
    expect((await t.sum({ async: true })).dtype).toBe('int64');
  });

  it('resolve a 0-size input as the synchronous form does', async () => {
    const t = dl.empty([0, 4]);
    same(await t.sum(0, { async: true }), t.sum(0));
    same(await t.sum(1, { async: true }), t.sum(1));
    same(await t.softmax(1, { async: true }), t.softmax(1));
    same(await t.argmax(1, { async: true }), t.argmax(1));
    sameResult(await t.max(1, { async: true }), t.max(1));
    sameResult(await t.topk(2, 1, { async: true }), t.topk(2, 1));
  });

  it('write into `out` (converted to its dtype) and resolve to it', async () => {
    const t = filled([8, 9]);
    const out = dl.zeros([8], { dtype: 'float64' });
    expect(await dl.sum(t, 1, { out, async: true })).toBe(out);
    expect(out.toArray()).toEqual(t.sum(1).to('float64').toArray());
    const soft = dl.empty([8, 9]);
    expect(await dl.softmax(t, -1, { out: soft, async: true })).toBe(soft);
    expect(soft.toArray()).toEqual(t.softmax(-1).toArray());
    const where = dl.zeros([9], { dtype: 'int64' });
    expect(await dl.argmin(t, 0, { out: where, async: true })).toBe(where);
    expect(where.toArray()).toEqual(t.argmin(0).toArray());
  });

  it('run off the event loop: the Promise settles after the call returns', async () => {
    const t = filled([64, 1024]);
    let settled = false;
    const p = t.softmax(-1, { async: true }).then((r) => {
      settled = true;
      return r;
    });
    expect(settled).toBe(false);
    same(await p, t.softmax(-1));
  });

  it('hold the input: dispose() in flight lets go of the tensor, not the memory', async () => {
    const t = filled([512, 1024]);
    const want = t.sum(1);
    const wantTop = t.topk(3);
    const p = t.sum(1, { async: true });
    const q = t.topk(3, { async: true });
    t.dispose();
    expect(t.disposed).toBe(true);
    same(await p, want);
    sameResult(await q, wantTop);
  });

  it('refuse shareMemory() of the input and of `out` in flight, and allow it once settled', async () => {
    const t = filled([512, 1024]);
    const out = dl.empty([512]);
    const p = dl.amax(t, 1, { out, async: true });
    for (const x of [t, out]) {
      expect(() => x.shareMemory()).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_COPY_REQUIRED',
        message: expect.stringMatching(/async/) }));
    }
    expect(await p).toBe(out);
    expect(t.shareMemory()).toBe(t);
    expect(out.shareMemory()).toBe(out);
  });

  it('reject with ERR_DLPACK_DISPOSED when `out` is disposed in flight (no crash, input untouched)', async () => {
    const t = filled([512, 1024]);
    const before = t.sum(1);
    const out = dl.empty([512]);
    const p = dl.sum(t, 1, { out, async: true });
    out.dispose();
    await expect(p).rejects.toMatchObject({ code: 'ERR_DLPACK_DISPOSED' });
    same(t.sum(1), before);
  });

  // The synchronous softmax writes straight into an `out` it may (lib/reduce.js
  // directOut()); the async one computes apart, so an `out` disposed in flight
  // has nothing written: another view of its memory still reads the old values.
  it('softmax: an `out` disposed in flight rejects and nothing is written into its memory', async () => {
    const t = filled([512, 1024]);
    const base = dl.zeros([2, 512, 1024]);
    const out = base.select(0, 1);
    const p = dl.softmax(t, -1, { out, async: true });
    out.dispose();
    await expect(p).rejects.toMatchObject({ code: 'ERR_DLPACK_DISPOSED' });
    expect(base.data.every((v) => v === 0)).toBe(true);
  });

  it('throw bad arguments at the call, before a Promise exists', () => {
    const t = filled([2, 3]);
    expect(() => t.sum(0, { async: 'yes' })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE',
      message: expect.stringMatching(/options.async/) }));
    expect(() => t.topk(5, { async: true })).toThrow(expect.objectContaining({ code: 'ERR_OUT_OF_RANGE' }));
    expect(() => t.max(4, { async: true })).toThrow(expect.objectContaining({ code: 'ERR_OUT_OF_RANGE' }));
  });

  it('survive worker.terminate() and process.exit() with reductions in flight', () => {
    const child = spawnSync(process.execPath,
      [...EXIT_SAFE_FLAGS, path.join(__dirname, 'fixtures', 'async-reduce-terminate.js')],
      { encoding: 'utf8', timeout: 60000 });
    expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toEqual({ status: 0, signal: null,
      stderr: '' });
    expect(child.stdout).toContain('terminated');
  });
});
