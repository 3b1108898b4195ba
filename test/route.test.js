'use strict';
// lib/route.js: the path a copy between two (Storage, Layout) pairs takes,
// and the overlap rule every path shares (issue 22 item 6: the device path
// compared Storage identity only, so two disjoint views of one allocation
// were staged, while the host copy compares byte ranges). The plans are
// checked here on every machine, over storages that carry a CUDA device
// without touching one (the plan reads devices and byte ranges only); the
// device copies themselves run in test/cuda-kernels.test.js where a GPU is.
const dl = require('../lib');
const route = require('../lib/route');
const { Storage, HeapMemory } = require('../lib/storage');
const { Layout } = require('../lib/layout');
const { parseDevice, CPU } = require('../lib/device');
const { makeTensor } = require('../lib/tensor');
const { producer, collect } = require('./helpers'); // and the --expose-gc check

const { infos } = require('../lib/dtypes');
const { NATIVE_MIN } = require('../lib/memory');
const { kLayout, kStorage } = require('../lib/symbols');

const f32 = infos.float32;
const cuda0 = parseDevice('cuda:0');
const cuda1 = parseDevice('cuda:1');
// A storage of `bytes` labelled with `device`: host memory standing in for
// an allocation there (nothing here reads or writes it through CUDA).
const on = (device, bytes = 64) => new Storage(new HeapMemory(new ArrayBuffer(bytes), false), device);
// n float32 elements from element `at`, at `stride` (in elements).
const run = (n, at = 0, stride = 1) => Layout.of(f32, [n], [stride], at * 4);

describe('overlapping(): one storage and intersecting byte ranges', () => {
  const s = on(cuda0);
  test.each([
    ['far apart', run(2, 0), run(2, 6), false],
    ['touching ends ([0, 16) and [16, 32))', run(4, 0), run(4, 4), false],
    ['one element in common', run(4, 0), run(4, 3), true],
    ['the same elements', run(4, 2), run(4, 2), true],
    ['interleaved (even and odd elements)', run(4, 0, 2), run(4, 1, 2), true],
    ['a reversed view over the same bytes', run(4, 3, -1), run(4, 0), true],
    ['a reversed view beside the other (elements 7 down to 4)', run(4, 7, -1), run(4, 0), false],
    ['an empty side', run(0, 0), run(4, 0), false],
  ])('%s', (_, a, b, expected) => {
    expect(route.overlapping(s, a, s, b)).toBe(expected);
    expect(route.overlapping(s, b, s, a)).toBe(expected);
  });

  test('two storages of other memory never overlap (whatever their byte ranges)', () => {
    expect(route.overlapping(on(cuda0), run(4), on(cuda0), run(4))).toBe(false);
  });

  test('two storages over one buffer are one memory (two fromBuffer() of one ArrayBuffer)', () => {
    const buffer = new ArrayBuffer(64);
    const a = new Storage(new HeapMemory(buffer, false), cuda0);
    const b = new Storage(new HeapMemory(buffer, false), cuda0);
    expect(route.overlapping(a, run(4, 0), b, run(4, 3))).toBe(true);
    expect(route.overlapping(a, run(4, 0), b, run(4, 4))).toBe(false);
  });
});

// Which memory a storage is, whatever JS object reaches it (issue 37,
// finding 5): the ops decided overlap by JS buffer, so an `out` and an input
// reaching one shared-memory segment through two mappings ran as if disjoint.
describe('one memory through two mappings', () => {
  const n = 64;

  test("two mappings of one segment (dl.open(t.share()) in the same thread): ops and copies stage", () => {
    const a = dl.zeros([n], { dtype: 'float32', shared: true });
    const b = dl.open(a.share());
    expect(b.buffer).not.toBe(a.buffer); // another mapping
    // out one element on from the input, over zeros: all ones when staged
    // (1, 2, 3, ... when each write is read back as the next input).
    dl.add(b.narrow(0, 0, n - 1), 1, { out: a.narrow(0, 1, n - 1) });
    expect(Array.from(a.data.subarray(1))).toEqual(new Array(n - 1).fill(1));
    expect(route.overlapping(a[kStorage], a[kLayout], b[kStorage], b[kLayout])).toBe(true);
    // The same for a copy and for a reduction's direct `out`.
    a.zero_();
    a.narrow(0, 0, 4).copyFrom(dl.tensor([1, 2, 3, 4]));
    a.narrow(0, 1, 4).copyFrom(b.narrow(0, 0, 4));
    expect(Array.from(a.data.subarray(0, 5))).toEqual([1, 1, 2, 3, 4]);
    const rows = dl.zeros([4, 16], { dtype: 'float32', shared: true });
    rows.copyFrom(dl.arange(64, { dtype: 'float32' }).reshape(4, 16));
    const other = dl.open(rows.share());
    const want = rows.narrow(0, 0, 3).softmax(1);
    dl.softmax(other.narrow(0, 0, 3), 1, { out: rows.narrow(0, 1, 3) });
    expect(rows.narrow(0, 1, 3).toArray()).toEqual(want.toArray());
    for (const t of [a, b, rows, other, want]) t.dispose();
  });

  test("a 'local' share opened in the thread that made it is the same native memory (by address)", () => {
    const ptr = producer.make({ shape: [n], strides: [1], code: 2, bits: 32 });
    const a = dl.fromDLPack(dl.DLPackCapsule.fromPointer(ptr, { versioned: true }));
    a.data.fill(0);
    const b = dl.open(a.share());
    expect(b[kStorage]).not.toBe(a[kStorage]);
    dl.add(b.narrow(0, 0, n - 1), 1, { out: a.narrow(0, 1, n - 1) });
    expect(Array.from(a.data.subarray(1))).toEqual(new Array(n - 1).fill(1));
    expect(route.overlapping(a[kStorage], a[kLayout], b[kStorage], b[kLayout])).toBe(true);
    // Another import is other memory.
    const ptr2 = producer.make({ shape: [n], strides: [1], code: 2, bits: 32 });
    const c = dl.fromDLPack(dl.DLPackCapsule.fromPointer(ptr2, { versioned: true }));
    expect(route.overlapping(a[kStorage], a[kLayout], c[kStorage], c[kLayout])).toBe(false);
    for (const t of [a, b, c]) t.dispose();
  });

  test('a library block (NATIVE_MIN bytes and more) exported by pointer and imported again is the same memory',
    async () => {
      await collect(); // nothing piled: the tensor is a block (src/addon/memory.h kPiledMax)
      const big = NATIVE_MIN / 4 + 16; // float32 elements
      const a = dl.zeros([big], { dtype: 'float32' });
      expect(a[kStorage].memory.constructor.name).toBe('BlockMemory');
      const b = dl.fromDLPack(dl.DLPackCapsule.fromPointer(a.__dlpack__().toPointer(), { versioned: true }));
      expect(b[kStorage]).not.toBe(a[kStorage]); // the import's own storage, over the block's address
      expect(route.overlapping(a[kStorage], a[kLayout], b[kStorage], b[kLayout])).toBe(true);
      dl.add(b.narrow(0, 0, big - 1), 1, { out: a.narrow(0, 1, big - 1) });
      expect(a.data.subarray(1).every((v) => v === 1)).toBe(true);
      a.zero_();
      await dl.add(b.narrow(0, 0, big - 1), 1, { out: a.narrow(0, 1, big - 1), async: true });
      expect(a.data.subarray(1).every((v) => v === 1)).toBe(true);
      b.dispose();
      a.dispose();
    });
});

describe('writeOverlaps(): whether an op must stage its input', () => {
  const s = on(CPU);
  test.each([
    ['the very same elements (in place)', run(4, 0), run(4, 0), [1], [4], false],
    ['disjoint', run(4, 0), run(4, 4), [1], [4], false],
    ['one element on', run(4, 1), run(4, 0), [1], [4], true],
    ['the same bytes read backwards', run(4, 0), run(4, 3, -1), [-1], [4], true],
    ['broadcast along a dim of size 1 (never stepped)', Layout.of(f32, [1, 4], [0, 1], 0), Layout.of(f32, [1, 4],
      [4, 1], 0), [0, 1], [1, 4], false],
  ])('%s', (_, out, input, inStrides, shape, expected) => {
    expect(route.writeOverlaps(s, out, s, input, inStrides, shape)).toBe(expected);
  });
});

// Elements that share memory (issue 37, finding 3): torch's "has internal
// overlap" (a stride 0), and strides that reach one element twice, which
// torch does not check (its "too hard"); refused as write targets.
describe('sharedElements(): a destination whose elements share memory', () => {
  test.each([
    ['contiguous', [2, 3], [3, 1], null],
    ['transposed', [3, 2], [1, 3], null],
    ['reversed and stepped', [3, 2], [-6, 2], null],
    ['a size-1 dim of stride 0', [1, 4], [0, 1], null],
    ['expand()ed (stride 0, size > 1)', [2, 4], [0, 1], 'stride0'],
    ['rows overlapping (size 4 stride 1 over size 2 stride 2)', [2, 4], [2, 1], 'overlap'],
    ['two dims of one stride', [2, 2], [1, 1], 'overlap'],
    // Distinct bytes, but no order of the dims proves it: refused all the same.
    ['distinct but interleaved ([3, 2] at [2, 3]: 0 2 4 3 5 7)', [3, 2], [2, 3], 'overlap'],
    ['empty', [0, 4], [0, 0], null],
  ])('%s', (_, shape, strides, expected) => {
    expect(route.sharedElements(Layout.of(f32, shape, strides, 64))).toBe(expected);
  });
});

describe('copyPath(): where copyFrom() runs', () => {
  test('two disjoint views of one device allocation run as a kernel, not through a temporary', () => {
    const s = on(cuda0);
    expect(route.copyPath(s, run(4, 4), s, run(4, 0))).toBe(route.PATH.kernel);
    // A reversed view of other elements.
    expect(route.copyPath(s, run(4, 11, -1), s, run(4, 0))).toBe(route.PATH.kernel);
  });

  test('partly overlapping views of one device allocation are staged, as on the host', () => {
    const s = on(cuda0);
    expect(route.copyPath(s, run(5, 1), s, run(5, 0))).toBe(route.PATH.staged);
    expect(route.copyPath(s, run(4, 0, 2), s, run(4, 1, 2))).toBe(route.PATH.staged);
  });

  test('other storages, devices and memory kinds', () => {
    expect(route.copyPath(on(cuda0), run(4), on(cuda0), run(4))).toBe(route.PATH.kernel);
    expect(route.copyPath(on(cuda0), run(4), on(cuda1), run(4))).toBe(route.PATH.bytes);
    expect(route.copyPath(on(cuda0), run(4), on(CPU), run(4))).toBe(route.PATH.bytes);
    expect(route.copyPath(on(parseDevice('cuda_host')), run(4), on(cuda0), run(4))).toBe(route.PATH.bytes);
    expect(route.copyPath(on(parseDevice('cuda_host')), run(4), on(CPU), run(4))).toBe(route.PATH.host);
    expect(route.copyPath(on(parseDevice('cuda_managed')), run(4), on(parseDevice('cuda_host')), run(4)))
      .toBe(route.PATH.host);
  });
});

describe('copyBytes(): bytes between two storages', () => {
  test('two host storages are copied on the host, never through CUDA (no device to make current)', () => {
    // transfer() of a strided device view to the CPU gathers on the host; its
    // cudaMemcpy between two host buffers ran with device -1 and failed with
    // cudaErrorInvalidDevice (found on an H200).
    const src = on(CPU, 16);
    new Uint8Array(src.buffer()).set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
    const dst = on(CPU, 8);
    route.copyBytes(dst, 2, src, 4, 6);
    expect(Array.from(new Uint8Array(dst.buffer()))).toEqual([0, 0, 5, 6, 7, 8, 9, 10]);
  });
});

describe('the host path follows the same rule', () => {
  test('a copy between partly overlapping views reads the source as it was', () => {
    const t = dl.tensor([0, 1, 2, 3, 4, 5], { dtype: 'float64' });
    t.narrow(0, 1, 5).copyFrom(t.narrow(0, 0, 5));
    expect(t.toArray()).toEqual([0, 0, 1, 2, 3, 4]);
  });

  test('a copy between disjoint views of one storage', () => {
    const t = dl.tensor([0, 1, 2, 3, 4, 5], { dtype: 'int32' });
    t.narrow(0, 3, 3).copyFrom(t.narrow(0, 0, 3));
    expect(t.toArray()).toEqual([0, 1, 2, 0, 1, 2]);
  });
});

describe('writes into elements that share memory are refused on every device', () => {
  test.each([['cpu'], ['cuda:0']])('an expand()ed or overlapping view on %s: copies, ops, normalize, reductions', (name) => {
    const device = parseDevice(name);
    // On cuda:0 a stand-in storage: each refusal comes before any CUDA call
    // (without a GPU, one that came later would be ERR_DLPACK_CUDA_UNAVAILABLE).
    const t = makeTensor(on(device, 48), Layout.contiguous(f32, [1, 3]), 0, device);
    const wide = t.expand(2, 3);
    const rows = t.asStrided([2, 3], [1, 1], 0); // rows one element apart
    const src = makeTensor(on(device, 48), Layout.contiguous(f32, [2, 3]), 0, device);
    const frames = makeTensor(on(device, 96), Layout.contiguous(f32, [2, 3, 1, 1]), 0, device);
    const shared = expect.objectContaining({ code: 'ERR_DLPACK_UNSUPPORTED',
      message: expect.stringMatching(/more than one element refers to a single memory location/) });
    for (const dst of [wide, rows]) {
      expect(() => dst.copyFrom(src)).toThrow(shared);
      expect(() => dst.fill_(1)).toThrow(shared);
      expect(() => dst.add_(1)).toThrow(shared);
      expect(() => dst.exp_()).toThrow(shared);
      expect(() => dst.clamp_(0, 1)).toThrow(shared);
      expect(() => dl.add(src, 1, { out: dst })).toThrow(shared);
      expect(() => dl.where(dl.zeros([2, 3], { dtype: 'bool' }), 1, 2, { out: dst })).toThrow(shared);
      expect(() => dl.normalize(frames.reshape(2, 3, 1), 0, 1, { out: dst.unsqueeze(-1) })).toThrow(shared);
    }
    expect(() => src.softmax(1, { out: wide })).toThrow(shared);
    expect(() => src.sum(0, { out: t.asStrided([3], [0], 0) })).toThrow(shared);
    expect(() => route.refuseSharedElements(wide[kLayout], 'copyFrom()')).toThrow(/stride-0/);
    for (const x of [wide, rows, t, src, frames]) x.dispose();
  });
});

describe('Storage.holdUntilSettled(): the one "hold until the promise settles" of the async ops', () => {
  // A storage the library owns (freed on its last release), its one holder taken.
  const owned = () => {
    const s = Storage.allocate(64);
    s.retain();
    return s;
  };

  test('each distinct storage is held once while in flight, and freed when it settles if dropped meanwhile', async () => {
    const a = owned();
    const b = owned();
    let resolve;
    const work = new Promise((r) => { resolve = r; });
    const done = Storage.holdUntilSettled([a, b, a], work);
    expect([a.inFlight, b.inFlight]).toEqual([1, 1]);
    a.release(); // its tensor disposed in flight: the memory lives on
    expect(a.released).toBe(false);
    resolve(7);
    await expect(done).resolves.toBe(7);
    expect([a.inFlight, b.inFlight]).toEqual([0, 0]);
    expect(a.released).toBe(true); // the hold was the last holder
    expect(b.released).toBe(false);
    b.release();
    expect(b.released).toBe(true);
  });

  test('a rejection releases the holds too and passes the error on', async () => {
    const a = owned();
    const failure = new Error('loop failed');
    await expect(Storage.holdUntilSettled([a], Promise.reject(failure))).rejects.toBe(failure);
    expect(a.inFlight).toBe(0);
    a.release();
    expect(a.released).toBe(true);
  });
});
