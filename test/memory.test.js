'use strict';
// Host memory the library allocates (lib/memory.js): a large buffer whose
// last holder lets go is detached and its memory kept a moment for the next
// copy of its byte length; nothing else changes hands, and nothing that
// still holds memory loses it.
const dl = require('../lib');
const { recycledBytes, releaseRecycled, RECYCLE_MS } = require('../lib/memory');

const BYTES = 8 * 1024 * 1024; // above the 4 MiB from which buffers are kept
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

test('below 4 MiB nothing is kept, and a caller\'s buffer never is', () => {
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
