'use strict';
// docs/API.md "CUDA". Ownership and protocol logic that needs no device runs
// everywhere; what needs a GPU is skipped, with the reason printed, where
// there is none.
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const dl = require('../lib');
const { producer, collect, expectError } = require('./helpers');

// The error `fn` throws (the test fails if it throws none).
function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error(`${fn} did not throw`);
}

const caps = dl.capabilities().cuda;
const hasGpu = caps.available;
const itGpu = hasGpu ? test : test.skip;
const itNoGpu = hasGpu ? test.skip : test;
const itCompiled = caps.compiled ? test : test.skip;
// Under compute-sanitizer (scripts/gpu-check.sh memcheck) a loop through
// ten times the GPU's memory takes longer than a device call may run.
const memcheck = process.env.DLPACK_TEST_MEMCHECK === '1';
const itGpuUnsanitized = hasGpu && !memcheck ? test : test.skip;
if (hasGpu && memcheck) console.log('The ten-times-memory loop skipped: DLPACK_TEST_MEMCHECK=1 (too slow under memcheck)');
if (!hasGpu) console.log(`CUDA device tests skipped: ${caps.reason}`);
if (!caps.compiled) console.log('CUDA import/export tests skipped: built without the CUDA toolkit');

// Whether the loader can find libcuda.so.1 (the driver's user-space half).
function driverLibraryInstalled() {
  let listed = '';
  try {
    listed = execFileSync('/sbin/ldconfig', ['-p'], { encoding: 'utf8', timeout: 10000 });
  } catch { /* no ldconfig: the directories below still answer */ }
  const dirs = (process.env.LD_LIBRARY_PATH || '').split(':').filter(Boolean);
  return /\blibcuda\.so\.1\b/.test(listed) || dirs.some((dir) => fs.existsSync(path.join(dir, 'libcuda.so.1')));
}

// A kDLCUDA tensor from the C producer. Its "device pointer" is host memory
// the producer owns: nothing here may dereference it, which is the point.
function cudaCapsule(deviceId = 0, shape = [2, 3]) {
  const strides = [shape[1], 1];
  const ptr = producer.make({ shape, strides, code: 2, bits: 32, deviceType: 2, deviceId });
  return { ptr, capsule: dl.DLPackCapsule.fromPointer(ptr, { versioned: true }) };
}

describe('availability', () => {
  test('the module loads and says what it can do', () => {
    expect(typeof caps.compiled).toBe('boolean');
    expect(dl.cuda.isAvailable()).toBe(caps.available);
    expect(dl.cuda.deviceCount()).toBe(caps.deviceCount);
    if (!caps.available) expect(typeof caps.reason).toBe('string');
  });

  // With CUDA compiled in and no driver at all, the runtime's "driver version is
  // insufficient" would send the user to upgrade a driver that is not there.
  const noDriver = !fs.existsSync('/proc/driver/nvidia/version') && !driverLibraryInstalled();
  (caps.compiled && noDriver ? test : test.skip)(
    `with no NVIDIA driver, the reason says none was found${caps.compiled ? (noDriver ? '' :
      ' [skipped: an NVIDIA driver is installed here]') : ' [skipped: built without CUDA]'}`, () => {
      expect(caps.reason).toMatch(/no NVIDIA driver was found/);
      expect(caps.reason).not.toMatch(/insufficient/);
      expect(thrown(() => dl.cuda.synchronize()).message).toMatch(/no NVIDIA driver was found/);
    });

  // The class and code of each refusal: docs/errors.md rows D04-D06 (test/bad-input/d-devices.test.js).
  itNoGpu('without a usable device every CUDA call is refused with the CUDA reason', () => {
    for (const call of [() => dl.cuda.synchronize(), () => new dl.cuda.Stream(), () => dl.cuda.memoryStats(0),
      () => dl.cuda.emptyCache(0), () => dl.empty([2], { device: 'cuda' }), () => dl.zeros([2], { device: 'cuda:1' }),
      () => dl.tensor([1], { device: 'cuda_host' }), () => dl.empty([1], { device: 'cuda_managed' }),
      () => dl.tensor([1]).cuda(), () => dl.tensor([1]).to('cuda:0')]) {
      const e = thrown(call);
      expect(e).toBeInstanceOf(dl.DLPackError);
      expect(typeof e.cudaError).toBe('string');
      expect(e.message).toMatch(/Expected a usable CUDA device for .*, but/);
    }
  });

  test('shared: true is for CPU and CUDA device memory; pinned and managed memory are refused first', () => {
    for (const device of ['cuda_host', 'cuda_managed']) {
      expect(() => dl.empty([2], { device, shared: true })).toThrow(/CUDA IPC shares device memory only/); // C08
    }
    if (!hasGpu) expect(() => dl.empty([2], { device: 'cuda', shared: true })).toThrow(/usable CUDA device/); // S24
  });

  test('bad device indexes are refused before anything else, with or without a device (row D07)', () => {
    expect(() => dl.cuda.synchronize(-1)).toThrow(/for `index`/);
    expect(() => new dl.cuda.Stream(1.5)).toThrow(/for `index`/);
  });
});

describe('CUDA memory through DLPack, zero-copy (no device needed)', () => {
  itCompiled('a kDLCUDA tensor imports zero-copy on its device; host access is refused', () => {
    const { ptr, capsule } = cudaCapsule(1);
    const t = dl.fromDLPack(capsule);
    expect(String(t.device)).toBe('cuda:1');
    expect(t.device).toEqual({ type: 'cuda', index: 1 });
    expect(t.__dlpack_device__()).toEqual([2, 1]);
    expect(t.shape).toEqual([2, 3]);
    for (const hostUse of [() => t.data, () => t.buffer, () => t.toArray()]) {
      expect(hostUse).toThrow(/on cuda:1/); // D08
    }
    if (!hasGpu) expect(() => t.clone()).toThrow(); // D09
    expect(String(t)).toBe('tensor(<2x3 on cuda:1>, dtype=float32)');
    expect(producer.calls(ptr)).toBe(0);
    t.dispose();
    expect(producer.calls(ptr)).toBe(1);
  });

  itCompiled('share() of CUDA memory not allocated for sharing is \'local\': the same memory for this process', () => {
    const { ptr, capsule } = cudaCapsule(1);
    const t = dl.fromDLPack(capsule);
    const d = t.share();
    expect(d).toMatchObject({ kind: 'local', pid: process.pid, device: 'cuda:1', dtype: 'float32', shape: [2, 3] });
    expect(() => dl.open({ ...d, device: 'cpu' })).toThrow(/'cuda:1'/); // row S21
    const opened = dl.open(d);
    expect(String(opened.device)).toBe('cuda:1');
    const out = opened.__dlpack__({ stream: -1 }).toPointer();
    expect(producer.inspect(out, true).data).toBe(producer.inspect(ptr, true).data);
    producer.releaseOnThread(out, true);
    t.dispose();
    expect(producer.calls(ptr)).toBe(0); // the opened tensor still holds it
    opened.dispose();
    expect(producer.calls(ptr)).toBe(1);
  });

  itCompiled('the producer\'s deleter runs once when the tensor is garbage-collected', async () => {
    const { ptr, capsule } = cudaCapsule();
    (() => { dl.fromDLPack(capsule); })();
    await collect();
    expect(producer.calls(ptr)).toBe(1);
  });

  itCompiled('re-export keeps the device index; the struct points at the same device memory', () => {
    const { ptr, capsule } = cudaCapsule(1);
    const t = dl.fromDLPack(capsule);
    const out = t.__dlpack__({ stream: -1 }).toPointer();
    const seen = producer.inspect(out, true);
    expect(seen).toMatchObject({ deviceType: 2, deviceId: 1, shape: [2, 3], strides: [3, 1] });
    expect(seen.data).toBe(producer.inspect(ptr, true).data);
    t.dispose();
    expect(producer.calls(ptr)).toBe(0); // the exported struct still holds it
    producer.releaseOnThread(out, true);
    expect(producer.calls(ptr)).toBe(1);
  });

  itCompiled('stream rules: 0 is an error, -1 and 1 need no device, others order the consumer', () => {
    const { capsule } = cudaCapsule();
    const t = dl.fromDLPack(capsule);
    // Rows E10-E12 hold the error of each refused stream.
    expect(() => t.__dlpack__({ stream: 0 })).toThrow(/ambiguous/);
    expect(() => t.__dlpack__({ stream: -2 })).toThrow();
    expect(() => t.__dlpack__({ stream: 'x' })).toThrow();
    t.__dlpack__({ stream: -1 }).dispose();
    t.__dlpack__({ stream: 1 }).dispose();
    t.__dlpack__().dispose(); // undefined: the legacy default stream, ours
    if (!hasGpu) {
      expect(() => t.__dlpack__({ stream: 2 })).toThrow();
      expect(() => t.__dlpack__({ stream: 0x7f00n })).toThrow();
    }
    t.dispose();
  });

  itCompiled('dlDevice CPU from CUDA needs a copy: copy: false is ERR_DLPACK_COPY_REQUIRED', () => {
    const { capsule } = cudaCapsule();
    const t = dl.fromDLPack(capsule);
    expectError(() => t.__dlpack__({ dlDevice: [1, 0], copy: false }), dl.DLPackError, 'ERR_DLPACK_COPY_REQUIRED');
    if (!hasGpu) {
      expect(() => t.__dlpack__({ dlDevice: [1, 0] })).toThrow(/cuda:0 to cpu/); // D09
    }
    t.dispose();
  });

  itCompiled('a producer object on CUDA is asked for the legacy default stream', () => {
    const { capsule } = cudaCapsule();
    const requests = [];
    const producerObject = {
      __dlpack_device__: () => [2, 0],
      __dlpack__: (options) => { requests.push(options); return capsule; },
    };
    dl.fromDLPack(producerObject).dispose();
    expect(requests[0]).toEqual({ maxVersion: [1, 3], stream: 1 });
  });
});

describe('on a GPU', () => {
  const { native } = require('../lib/binding');
  const dtypes = Object.keys(dl.dtypes);
  const sample = (dtype, n) => Array.from({ length: n }, (_, i) => (dtype === 'bool' ? i % 3 === 0
    : dtype.startsWith('complex') ? [i, -i] : dtype.endsWith('64') && dtype.includes('int') ? BigInt(i) : i));

  itGpu('streams are created, synchronised and disposed', () => {
    const s = new dl.cuda.Stream(0);
    expect(typeof s.handle).toBe('bigint');
    s.synchronize();
    s.dispose();
    s.dispose();
    expectError(() => s.synchronize(), dl.DLPackError, 'ERR_DLPACK_DISPOSED');
    dl.cuda.synchronize(0);
  });

  describe.each(dtypes)('%s', (dtype) => {
    itGpu('host -> device -> host, device -> device, pinned and managed', () => {
      const host = dl.tensor(sample(dtype, 12), { dtype, shape: [3, 4] });
      const device = host.cuda(0);
      expect(String(device.device)).toBe('cuda:0');
      expect(device.cpu().toArray()).toEqual(host.toArray());
      expect(device.clone().cpu().toArray()).toEqual(host.toArray());
      for (const kind of ['cuda_host', 'cuda_managed']) {
        const t = host.to(kind);
        expect(t.data.length).toBe(host.data.length); // CPU-accessible
        expect(t.toArray()).toEqual(host.toArray());
      }
      const back = dl.zeros([3, 4], { dtype, device: 'cuda' });
      back.copyFrom(device);
      expect(back.cpu().toArray()).toEqual(host.toArray());
    });
  });

  itGpu('non-contiguous sources copy correctly both ways', () => {
    const ptr = producer.make({ shape: [3, 4], strides: [1, 3], code: 2, bits: 32, fill: true });
    const strided = dl.fromDLPack(dl.DLPackCapsule.fromPointer(ptr, { versioned: true }));
    const expected = strided.toArray();
    const device = strided.to('cuda');
    expect(device.cpu().toArray()).toEqual(expected);
    // A strided view of device memory to the CPU: gathered on the host, and
    // that host copy is the result (cudaMemcpy between two host buffers used
    // to run with device -1: cudaErrorInvalidDevice, found on an H200).
    expect(device.permute(1, 0).cpu().toArray()).toEqual(strided.permute(1, 0).toArray());
    expect(device.narrow(1, 1, 2).cpu().toArray()).toEqual(strided.narrow(1, 1, 2).toArray());
    expect(device.slice(0, 2, null, -1).to({ dtype: 'float64', device: 'cpu' }).toArray())
      .toEqual(strided.slice(0, 2, null, -1).to('float64').toArray());
    strided.dispose();
  });

  itGpu('memoryStats follows allocations and returns to its start after dispose and GC', async () => {
    await collect();
    const start = dl.cuda.memoryStats(0);
    const t = dl.empty([1024, 1024], { device: 'cuda' });
    const during = dl.cuda.memoryStats(0);
    expect(during.allocatedBytes - start.allocatedBytes).toBe(4 * 1024 * 1024);
    t.dispose();
    (() => { dl.zeros([1024], { device: 'cuda' }); })();
    await collect();
    expect(dl.cuda.memoryStats(0)).toMatchObject({ allocatedBytes: start.allocatedBytes, allocations: start.allocations });
  });

  itGpu('small device blocks come back from the block cache, zeros() zeroes them, and emptyCache() gives them back', async () => {
    await collect();
    dl.cuda.emptyCache(0);
    const start = dl.cuda.memoryStats(0);
    expect(start).toMatchObject({ cachedBytes: 0, cachedBlocks: 0 });
    const t = dl.empty([256], { device: 'cuda' }); // 1 KiB: a cached size class
    t.copyFrom(dl.tensor(Array.from({ length: 256 }, (_, i) => i + 1)));
    t.dispose();
    const cached = dl.cuda.memoryStats(0);
    expect(cached).toMatchObject({ allocatedBytes: start.allocatedBytes, cachedBytes: 1024, cachedBlocks: 1 });
    const again = dl.zeros([200], { device: 'cuda' }); // same class: the same block, zeroed again
    expect(dl.cuda.memoryStats(0)).toMatchObject({ cachedBytes: 0, cachedBlocks: 0 });
    expect(Array.from(again.cpu().data)).toEqual(new Array(200).fill(0));
    again.dispose();
    expect(dl.cuda.memoryStats(0)).toMatchObject({ cachedBytes: 1024, cachedBlocks: 1 });
    dl.cuda.emptyCache(0);
    expect(dl.cuda.memoryStats(0)).toMatchObject({ allocatedBytes: start.allocatedBytes, cachedBytes: 0 });
    expect(dl.cuda.emptyCache(0)).toBe(0); // the pool has nothing more to hand back
  });

  // A tensor above 1 MiB never enters the block cache: its free goes to the
  // pool, which keeps the bytes until emptyCache() trims it.
  itGpu('emptyCache() hands a disposed large tensor back to the driver', async () => {
    await collect();
    dl.cuda.emptyCache(0);
    const bytes = 64 * 2 ** 20;
    dl.empty([bytes], { dtype: 'uint8', device: 'cuda' }).dispose();
    expect(dl.cuda.memoryStats(0).cachedBytes).toBe(0);
    expect(dl.cuda.emptyCache(0)).toBeGreaterThanOrEqual(bytes);
    expect(dl.cuda.emptyCache(0)).toBe(0);
  });

  itGpuUnsanitized('dropping 1 GiB tensors until ten times the GPU memory is allocated does not run out', async () => {
    const total = native.cudaInfo().totalMemory0;
    const GiB = 1 << 30;
    const rounds = Math.ceil((10 * total) / GiB);
    const start = dl.cuda.memoryStats(0).allocatedBytes;
    for (let i = 0; i < rounds; i++) dl.empty([GiB], { dtype: 'uint8', device: 'cuda' }); // no dispose()
    await collect();
    expect(dl.cuda.memoryStats(0).allocatedBytes).toBe(start);
  });

  itGpu('out of memory is a catchable CudaError', () => {
    const e = expectError(() => dl.empty([2 ** 50], { dtype: 'uint8', device: 'cuda' }), dl.CudaError, 'ERR_DLPACK_CUDA');
    expect(e.cudaError).toBe('cudaErrorMemoryAllocation');
    dl.empty([4], { device: 'cuda' }).dispose(); // the sticky error was cleared
  });

  itGpu('export to the CPU copies with IS_COPIED; a consumer stream is ordered', () => {
    const t = dl.tensor([1, 2, 3], { device: 'cuda' });
    const host = dl.fromDLPack(t.__dlpack__({ dlDevice: [1, 0] }));
    expect(host.isCopy).toBe(true);
    expect(host.toArray()).toEqual([1, 2, 3]);
    const s = new dl.cuda.Stream(0);
    dl.fromDLPack(t.__dlpack__({ stream: s })).dispose();
    dl.fromDLPack(t.__dlpack__({ stream: 2 })).dispose();
    s.synchronize();
    s.dispose();
  });
});
