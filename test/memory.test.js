'use strict';
// Host memory the library allocates (lib/memory.js): a large buffer whose
// last holder lets go is detached and its memory kept a moment for the next
// copy of its byte length; nothing else changes hands, and nothing that
// still holds memory loses it.
const dl = require('../lib');
const { recycledBytes, releaseRecycled, RECYCLE_MS } = require('../lib/memory');

const BYTES = 8 * 1024 * 1024; // above the 256 KiB from which buffers are kept
const N = BYTES / 4;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A float32 tensor of N elements 0, 1, 2, ...
function iota() {
  const t = dl.empty([N]);
  const d = t.data;
  for (let i = 0; i < N; i++) d[i] = i;
  return t;
}

// A disposed copy of `src` whose memory now holds -1 everywhere.
function disposedCopy(src) {
  const c = src.clone();
  const view = c.data;
  view.fill(-1);
  c.dispose();
  expect(view.length).toBe(0); // detached, as dispose() always did
  return view;
}

beforeEach(() => releaseRecycled());
afterAll(() => releaseRecycled());

test('a disposed large copy is detached and its memory serves the next copy of that size', () => {
  const src = iota();
  disposedCopy(src);
  expect(recycledBytes()).toBe(BYTES);
  const out = src.to('int32'); // 4 bytes an element: the same byte length
  expect(recycledBytes()).toBe(0);
  const d = out.data;
  expect(d.length).toBe(N);
  expect(d[0]).toBe(0);
  expect(d[N - 1]).toBe(N - 1);
  expect(d.indexOf(-1)).toBe(-1); // every byte was written: nothing of the old tensor shows
  out.dispose();
  src.dispose();
});

test('clone(), contiguous() and a copying reshape() take kept memory; a strided copy writes every byte', () => {
  const src = iota();
  const strided = src.reshape([N / 2, 2]).transpose(0, 1); // not contiguous
  for (const make of [() => src.clone(), () => strided.contiguous(), () => strided.reshape([N])]) {
    disposedCopy(src);
    expect(recycledBytes()).toBe(BYTES);
    const out = make();
    expect(recycledBytes()).toBe(0);
    expect(out.toArray().indexOf(-1)).toBe(-1);
    out.dispose();
  }
  const c = strided.contiguous();
  expect(Array.from(c.data.subarray(0, 3))).toEqual([0, 2, 4]);
  c.dispose();
  src.dispose();
});

test('copies of another byte length leave kept memory alone', () => {
  const src = iota();
  disposedCopy(src);
  const out = src.to('float64');
  expect(recycledBytes()).toBe(BYTES);
  out.dispose();
  src.dispose();
});

test('empty() and zeros() never take kept memory: they stay zeroed', () => {
  const src = iota();
  disposedCopy(src);
  for (const make of [dl.zeros, dl.empty]) {
    const t = make([N]);
    expect(t.data.every((x) => x === 0)).toBe(true);
    t.dispose(); // made by allocate(): kept in turn
  }
  expect(recycledBytes()).toBe(3 * BYTES);
  src.dispose();
});

test('memory that a view, fromBuffer(t.buffer) or an export still holds is not kept', () => {
  const src = iota();
  const c = src.clone();
  const view = c.narrow(0, 1, 4);
  const again = dl.fromBuffer(c.buffer, { dtype: 'float32' });
  c.dispose();
  expect(recycledBytes()).toBe(0);
  expect(view.toArray()).toEqual([1, 2, 3, 4]);
  view.dispose();
  expect(recycledBytes()).toBe(0);
  expect(again.data[N - 1]).toBe(N - 1);
  again.dispose(); // the last holder
  expect(recycledBytes()).toBe(BYTES);

  // A struct out holds the memory; once it is back (or its deleter ran), nothing points at it.
  releaseRecycled();
  const e = src.clone();
  const data = e.data;
  const pointer = e.__dlpack__().toPointer();
  e.dispose();
  expect(recycledBytes()).toBe(0);
  expect(data[N - 1]).toBe(N - 1);
  const back = dl.fromDLPack(dl.DLPackCapsule.fromPointer(pointer, { versioned: true }));
  expect(back.data[N - 1]).toBe(N - 1);
  back.dispose();
  expect(recycledBytes()).toBe(BYTES);
  expect(data.length).toBe(0); // detached, as dispose() does

  // A legacy struct is made natively and pins the memory for good: another
  // struct over it may still be out.
  releaseRecycled();
  const l = src.clone();
  const kept = l.data;
  const legacy = l.__dlpack__({ maxVersion: [0, 8] }).toPointer();
  l.dispose();
  dl.fromDLPack(dl.DLPackCapsule.fromPointer(legacy, { versioned: false })).dispose();
  expect(recycledBytes()).toBe(0);
  expect(kept.length).toBe(N);
  expect(kept[N - 1]).toBe(N - 1);
  src.dispose();
});

test('below 256 KiB nothing is kept, and a caller\'s buffer never is', () => {
  const t = dl.zeros([1024]).clone();
  const view = t.data;
  t.dispose();
  expect(view.length).toBe(0);
  expect(recycledBytes()).toBe(0);

  const mine = new ArrayBuffer(BYTES);
  const u = dl.fromBuffer(mine, { dtype: 'float32' });
  u.dispose();
  expect(mine.byteLength).toBe(BYTES);
  expect(recycledBytes()).toBe(0);
});

test('at most four buffers are kept, the oldest freed first', () => {
  const src = iota();
  const copies = Array.from({ length: 6 }, () => src.clone());
  for (const c of copies) c.dispose();
  expect(recycledBytes()).toBe(4 * BYTES);
  src.dispose();
});

test('kept memory is freed once it has waited RECYCLE_MS unused', async () => {
  const src = iota();
  disposedCopy(src);
  expect(recycledBytes()).toBe(BYTES);
  await sleep(RECYCLE_MS + 300);
  expect(recycledBytes()).toBe(0);
  const out = src.clone(); // fresh memory again
  expect(out.data[N - 1]).toBe(N - 1);
  out.dispose();
  src.dispose();
});

// An op's result takes kept memory or memory nobody zeroed (malloc, not
// calloc: Buffer.allocUnsafeSlow), so every op must write each byte of it.
// Run twice, the second time over the first result's memory refilled with
// 0xA5: the bytes must be the first run's, for every kind of result (one
// output, two, bool, int64, a reduction over an empty dim, a broadcast).
test('every op writes each byte of its result: nothing of the memory it reuses shows', () => {
  const R = 256;
  const C = 1024; // 1 MiB of float32: above RECYCLE_MIN
  const x = dl.empty([R, C]);
  for (let i = 0; i < x.data.length; i++) x.data[i] = Math.sin(i) * 3;
  const row = dl.empty([C]);
  for (let i = 0; i < C; i++) row.data[i] = i % 7;
  const none = dl.empty([0, R * C]);
  const ints = x.to('int32').reshape([R * C / 2, 2]);
  const frame = dl.empty([512, 512, 3], { dtype: 'uint8' });
  for (let i = 0; i < frame.data.length; i++) frame.data[i] = i % 251;
  const ops = {
    'add, broadcast': () => dl.add(x, row),
    'mul by a number': () => x.mul(2),
    'gt: bool': () => x.gt(row),
    'where': () => dl.where(x.gt(0), x, row),
    'exp': () => x.exp(),
    'clamp': () => x.clamp(-1, 1),
    'sum over an empty dim': () => none.sum(0),
    'mean over an empty dim': () => none.mean(0),
    'sum of int32 to int64': () => ints.sum(1),
    'softmax': () => x.softmax(-1),
    'logSoftmax': () => x.logSoftmax(0),
    'max(dim): values and indices': () => x.reshape([R * C / 4, 4]).max(1),
    'topk': () => x.reshape([R * C / 4, 4]).topk(2),
    'normalize': () => dl.normalize(frame.permute(2, 0, 1), [0.5, 0.4, 0.3], [0.2, 0.2, 0.2], { scale: 1 / 255 }),
    'to(float64)': () => x.to('float64'),
    'a strided clone': () => x.transpose(0, 1).clone(),
  };
  const parts = (result) => (result instanceof dl.Tensor ? [result] : [result.values, result.indices]);
  const bytes = (t) => Buffer.from(t.buffer, t.byteOffset, t.nbytes);
  for (const [name, run] of Object.entries(ops)) {
    releaseRecycled();
    const first = parts(run());
    const expected = first.map((t) => Buffer.from(bytes(t)));
    for (const t of first) {
      bytes(t).fill(0xa5);
      t.dispose();
    }
    const second = parts(run());
    expect([name, recycledBytes()]).toEqual([name, 0]); // it took that memory
    second.forEach((t, i) => {
      if (!bytes(t).equals(expected[i])) throw new Error(`${name}: result ${i} shows old bytes`);
    });
    for (const t of second) t.dispose();
  }
  for (const t of [x, row, none, ints, frame]) t.dispose();
});
