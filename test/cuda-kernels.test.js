'use strict';
// Device-side copies and conversions (src/core/cuda_kernels.h): contiguous(),
// clone() and copyFrom() between strided CUDA tensors run as kernels, and
// route.convertOnDevice converts dtypes there. The arithmetic the kernels run is
// tested on the host by test/cpp/device_copy_test.cc; this file needs a GPU
// and is skipped, with the reason printed, where there is none.
const dl = require('../lib');
const { makeTensor } = require('../lib/tensor');
const route = require('../lib/route');
const { kStorage, kLayout } = require('../lib/symbols');
const { Layout } = require('../lib/layout');
require('./helpers'); // --expose-gc check

const caps = dl.capabilities().cuda;
const itGpu = caps.available ? test : test.skip;
if (!caps.available) console.log(`CUDA kernel tests skipped: ${caps.reason}`);

// lib/route.js's conversion kernel between two tensors' (Storage, Layout) pairs.
const convertOnDevice = (dst, src) => route.convertOnDevice(dst[kStorage], dst[kLayout], src[kStorage], src[kLayout]);

// A view of t's memory (strides in elements, offset in elements), made the
// way the library makes views.
function view(t, shape, strides, offset = 0) {
  return makeTensor(t[kStorage], Layout.of(t[kLayout].info, shape, strides, t.byteOffset + offset * t.itemSize), 0,
    t.device);
}

const dtypes = Object.keys(dl.dtypes);
const sample = (dtype, n) => Array.from({ length: n }, (_, i) => (dtype === 'bool' ? i % 3 === 0
  : dtype.startsWith('complex') ? [i, -i] : dtype.endsWith('64') && dtype.includes('int') ? BigInt(i) : i));

describe('strided copies on the device', () => {
  describe.each(dtypes)('%s', (dtype) => {
    itGpu('contiguous() and clone() of a transposed view, copyFrom() into one', () => {
      const host = dl.tensor(sample(dtype, 12), { dtype, shape: [3, 4] });
      const device = host.cuda();
      const hostT = view(host, [4, 3], [1, 4]);
      const deviceT = view(device, [4, 3], [1, 4]);
      expect(deviceT.isContiguous).toBe(false);
      const c = deviceT.contiguous();
      expect(c.isContiguous).toBe(true);
      expect(String(c.device)).toBe('cuda:0');
      expect(c.cpu().toArray()).toEqual(hostT.toArray());
      expect(deviceT.clone().cpu().toArray()).toEqual(hostT.toArray());
      // Into a strided destination: zeros, written through its transposed view.
      const target = dl.zeros([3, 4], { dtype, device: 'cuda' });
      view(target, [4, 3], [1, 4]).copyFrom(c);
      expect(target.cpu().toArray()).toEqual(host.toArray());
      for (const t of [device, c, target]) t.dispose();
    });
  });

  itGpu('negative strides, offsets and broadcast (zero) strides', () => {
    const device = dl.tensor([0, 1, 2, 3, 4, 5, 6, 7], { dtype: 'int32' }).cuda();
    expect(view(device, [3], [-2], 5).contiguous().cpu().toArray()).toEqual([5, 3, 1]);
    expect(view(device, [2, 3], [0, 1], 2).clone().cpu().toArray()).toEqual([[2, 3, 4], [2, 3, 4]]);
    device.dispose();
  });

  itGpu('copyFrom() between overlapping views of one allocation reads the source as it was', () => {
    const device = dl.tensor([0, 1, 2, 3, 4, 5], { dtype: 'float64' }).cuda();
    view(device, [5], [1], 1).copyFrom(view(device, [5], [1], 0));
    expect(device.cpu().toArray()).toEqual([0, 0, 1, 2, 3, 4]);
    device.dispose();
  });

  itGpu('copyFrom() between disjoint views of one allocation (no temporary: lib/route.js copyPath)', () => {
    const device = dl.tensor([0, 1, 2, 3, 4, 5, 6, 7], { dtype: 'float32' }).cuda();
    view(device, [4], [-1], 7).copyFrom(view(device, [4], [1], 0)); // reversed into the upper half
    expect(device.cpu().toArray()).toEqual([0, 1, 2, 3, 3, 2, 1, 0]);
    device.dispose();
  });

  itGpu('a 64 MiB permuted tensor gathers correctly and frees its temporaries', () => {
    // 1 MiB under compute-sanitizer (scripts/gpu-check.sh memcheck), which
    // checks every access and would not finish 64 MiB within a device call.
    const [a, b, c] = process.env.DLPACK_TEST_MEMCHECK === '1' ? [64, 64, 64] : [64, 512, 512];
    const host = dl.empty([a, b, c], { dtype: 'float32' });
    host.data.forEach((_, i, d) => { d[i] = i; });
    const before = dl.cuda.memoryStats(0).allocatedBytes;
    const device = host.cuda();
    const permuted = view(device, [c, a, b], [1, b * c, c]); // (2, 0, 1)
    const gathered = permuted.contiguous();
    const out = gathered.cpu().data;
    for (const [k, i, j] of [[0, 0, 0], [c - 1, a - 1, b - 1], [7, 5, 30], [10, 1, 2]]) {
      expect(out[(k * a + i) * b + j]).toBe((i * b + j) * c + k);
    }
    // The view holds the storage too: every holder lets go.
    for (const t of [gathered, permuted, device]) t.dispose();
    dl.cuda.synchronize(0);
    expect(dl.cuda.memoryStats(0).allocatedBytes).toBe(before);
  });
});

describe('dtype conversion on the device', () => {
  const onDevice = (values, dtype) => dl.tensor(values, { dtype }).cuda();
  const converted = (values, from, to) => {
    const src = onDevice(values, from);
    const dst = dl.empty(src.shape, { dtype: to, device: 'cuda' });
    convertOnDevice(dst, src);
    const result = dst.cpu().toArray();
    src.dispose();
    dst.dispose();
    return result;
  };

  // Values every dtype holds exactly: the kernel must agree with the host.
  describe.each(dtypes)('from %s', (from) => {
    itGpu('to every dtype, as copyFrom() on the host converts small values', () => {
      for (const to of dtypes) {
        if (from.startsWith('complex') && !to.startsWith('complex')) continue; // real part: below
        const host = dl.tensor(sample(from, 6), { dtype: from });
        const expected = dl.empty([6], { dtype: to }).copyFrom(host).toArray();
        expect([from, to, converted(sample(from, 6), from, to)]).toEqual([from, to, expected]);
      }
    });
  });

  // The device check of test/cpp/device_copy_test.cc's differential test:
  // random bit patterns of every dtype, converted to every dtype by the
  // kernel and by the CPU loop, give the same values (-0 included); only NaN
  // payloads may differ. Then the two ties the review found.
  itGpu('every dtype pair gives the CPU loop\'s bits (NaN payloads aside)', () => {
    const n = 4096;
    const same = (x, y) => Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y));
    const flat = (t) => t.toArray().flat();
    for (const from of dtypes) {
      const src = dl.empty([n], { dtype: from });
      const bytes = new Uint8Array(src.buffer, src.byteOffset, n * src.itemSize);
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
      const device = src.cuda();
      for (const to of dtypes) {
        const expected = flat(dl.empty([n], { dtype: to }).copyFrom(src));
        const out = dl.empty([n], { dtype: to, device: 'cuda' });
        convertOnDevice(out, device);
        const actual = flat(out.cpu());
        out.dispose();
        const bad = actual.findIndex((x, i) => !same(x, expected[i]));
        expect([from, to, bad, bad < 0 ? null : [actual[bad], expected[bad]]]).toEqual([from, to, -1, null]);
      }
      device.dispose();
    }
    expect(converted([16842753], 'int32', 'bfloat16')).toEqual([16777216]); // 0x4b80, not 0x4b81
    expect(converted([1 + 2 ** -11 + 2 ** -40], 'float64', 'float16')).toEqual([1]); // 0x3c00
  });

  itGpu('float -> integer: NaN is 0, infinities and out-of-range values saturate', () => {
    const values = [NaN, Infinity, -Infinity, 1e10, -1e10, 2.7, -2.7];
    expect(converted(values, 'float32', 'int8')).toEqual([0, 127, -128, 127, -128, 2, -2]);
    expect(converted(values, 'float64', 'uint8')).toEqual([0, 255, 0, 255, 0, 2, 0]);
    expect(converted([1e19, -1e19], 'float64', 'int64')).toEqual([2n ** 63n - 1n, -(2n ** 63n)]);
  });

  itGpu('float16 and bfloat16 round to nearest, ties to even; complex keeps the real part; bool', () => {
    expect(converted([1 + 2 ** -11, 1 + 3 * 2 ** -11, 65520], 'float64', 'float16')).toEqual([1, 1 + 2 ** -9, Infinity]);
    expect(converted([1 + 2 ** -8, 1 + 3 * 2 ** -8], 'float64', 'bfloat16')).toEqual([1, 1 + 2 ** -6]);
    expect(converted([[2.5, -7]], 'complex64', 'float32')).toEqual([2.5]);
    expect(converted([3], 'int32', 'complex128')).toEqual([[3, 0]]);
    expect(converted([0, -0, NaN, 0.25], 'float32', 'bool')).toEqual([false, false, true, true]);
  });

  itGpu('copyFrom() between CUDA tensors of different dtypes converts on the device, strided', () => {
    const src = dl.tensor([[1.5, 2.5], [3.5, -4.5]], { dtype: 'float32' }).cuda();
    const dst = dl.zeros([2, 2], { dtype: 'int16', device: 'cuda' });
    view(dst, [2, 2], [1, 2]).copyFrom(src); // transposed destination
    expect(dst.cpu().toArray()).toEqual([[1, 3], [2, -4]]);
    src.dispose();
    dst.dispose();
  });

  // An imported kDLCUDA view may start at any byte (DLPack asks producers
  // for alignment; nothing enforces it). A typed load there would be a sticky
  // cudaErrorMisalignedAddress: the kernel takes the byte path instead.
  itGpu('misaligned views convert byte by byte and leave CUDA usable', () => {
    const bytes = dl.zeros([64], { dtype: 'uint8', device: 'cuda' });
    const values = [1.5, -2.5, 3.25, 1e10];
    const host = dl.tensor(values, { dtype: 'float32' });
    const misaligned = (dtype, byteOffset) => makeTensor(bytes[kStorage],
      Layout.of(dl.empty([0], { dtype })[kLayout].info, [4], [1], byteOffset), 0, bytes.device);
    const src = misaligned('float32', 1);
    src.copyFrom(host);
    const wide = dl.empty([4], { dtype: 'float64', device: 'cuda' });
    convertOnDevice(wide, src);
    expect(wide.cpu().toArray()).toEqual(values);
    const dst = misaligned('float64', 20); // 4-byte aligned only
    convertOnDevice(dst, src);
    expect(dst.cpu().toArray()).toEqual(values);
    dl.cuda.synchronize(0);
    expect(dl.zeros([3], { device: 'cuda' }).cpu().toArray()).toEqual([0, 0, 0]);
    for (const t of [bytes, wide]) t.dispose();
  });

  itGpu('a view that leaves its memory is refused before the kernel runs', () => {
    const src = dl.zeros([4], { dtype: 'float32', device: 'cuda' });
    const dst = dl.zeros([4], { dtype: 'int32', device: 'cuda' });
    expect(() => convertOnDevice(view(dst, [4], [2]), src)).toThrow(expect.objectContaining({
      code: 'ERR_DLPACK_DETACHED' }));
    src.dispose();
    dst.dispose();
  });
});
