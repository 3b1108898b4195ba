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
require('./helpers'); // --expose-gc check

const { infos } = require('../lib/dtypes');
const { kLayout } = require('../lib/symbols');

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

  test('two storages never overlap (whatever their byte ranges)', () => {
    expect(route.overlapping(on(cuda0), run(4), on(cuda0), run(4))).toBe(false);
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
  test.each([['cpu'], ['cuda:0']])('an expand()ed view on %s', (name) => {
    const device = parseDevice(name);
    // On cuda:0 a stand-in storage: the refusal comes before any CUDA call.
    const t = makeTensor(on(device, 12), Layout.contiguous(f32, [1, 3]), 0, device);
    const wide = t.expand(2, 3);
    const src = dl.zeros([2, 3], { dtype: 'float32' });
    expect(() => wide.copyFrom(src)).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_UNSUPPORTED' }));
    expect(() => route.refuseSharedElements(wide[kLayout])).toThrow(/stride-0/);
    for (const x of [wide, t, src]) x.dispose();
  });
});
