'use strict';
const util = require('util');
const dl = require('../lib');
const { producer, expectError, heldSegments } = require('./helpers');

const hasGpu = dl.capabilities().cuda.available;
if (!hasGpu) console.log(`tensor.test.js CUDA test skipped: ${dl.capabilities().cuda.reason}`);

// A strided float32 view from a native producer: shape [rows, cols] over a
// row-major [cols, rows] block, i.e. a transpose.
function transposed(rows, cols) {
  const ptr = producer.make({ shape: [rows, cols], strides: [1, rows], code: 2, bits: 32 });
  const t = dl.fromDLPack(dl.DLPackCapsule.fromPointer(ptr, { versioned: true }));
  const block = new Float32Array(t.buffer);
  for (let i = 0; i < block.length; i++) block[i] = i; // block[c * rows + r]
  return t;
}

describe('creation', () => {
  test('empty and zeros: dtype default float32, zeroed, CPU', () => {
    const t = dl.empty([2, 3]);
    expect(t.dtype).toBe('float32');
    expect(t.shape).toEqual([2, 3]);
    expect(t.device.toString()).toBe('cpu');
    expect(t.device).toEqual({ type: 'cpu', index: 0 });
    expect(Object.isFrozen(t.device)).toBe(true);
    expect(Array.from(dl.zeros(4, { dtype: 'int8' }).data)).toEqual([0, 0, 0, 0]);
  });

  // The limit is the addon's (src/core/layout.h kMaxDims, lib/shape.js MAX_DIMS): found by
  // Stryker, `>=` for `>` in normalizeShape survived every creation test.
  test('a shape of exactly MAX_DIMS dimensions is made and copied; one more is refused', () => {
    const { MAX_DIMS } = require('../lib/binding');
    const shape = new Array(MAX_DIMS).fill(1);
    shape[MAX_DIMS - 1] = 2;
    const t = dl.zeros(shape, { dtype: 'int32' });
    expect(t.ndim).toBe(MAX_DIMS);
    expect(t.clone().ndim).toBe(MAX_DIMS);
    expect(() => dl.zeros(new Array(MAX_DIMS + 1).fill(1)))
      .toThrow(expect.objectContaining({ code: 'ERR_OUT_OF_RANGE', message: expect.stringContaining(`at most ${MAX_DIMS}`) }));
    t.dispose();
  });

  test('tensor() from nested arrays, typed arrays and iterables', () => {
    expect(dl.tensor([[1, 2, 3], [4, 5, 6]]).shape).toEqual([2, 3]);
    const f64 = dl.tensor(new Float64Array([1, 2]));
    expect(f64.dtype).toBe('float64');
    expect(dl.tensor(new BigInt64Array([5n])).dtype).toBe('int64');
    expect(dl.tensor(new Set([1, 2, 3]), { dtype: 'int32' }).toArray()).toEqual([1, 2, 3]);
    expect(dl.tensor(function* gen() { yield 1; yield 2; }()).toArray()).toEqual([1, 2]);
    expect(dl.tensor(7).shape).toEqual([]);
    expect(dl.tensor([1, 2, 3, 4], { shape: [2, 2] }).toArray()).toEqual([[1, 2], [3, 4]]);
    expect(dl.tensor(new Int16Array([1, 2, 3, 4]), { dtype: 'float32' }).toArray()).toEqual([1, 2, 3, 4]);
  });

  test('tensor() copies: later writes to the source are not seen', () => {
    const src = new Float32Array([1, 2]);
    const t = dl.tensor(src);
    src[0] = 9;
    expect(t.data[0]).toBe(1);
  });

  // The error of each refusal: docs/errors.md rows C09-C13 (test/bad-input/c-create.test.js).
  test('tensor() makes no tensor of ragged arrays, bad leaves, raw buffers or a shape of another size', () => {
    for (const [values, options] of [[[[1, 2], [3]]], [[1, 'a']], [new ArrayBuffer(4)], [[NaN], { dtype: 'int64' }],
      [[1, {}]], [[1, 2, 3], { shape: [2, 2] }]]) {
      expect(() => dl.tensor(values, options)).toThrow();
    }
    expect(dl.tensor([[1, 2], [3, 4]]).shape).toEqual([2, 2]);
    expect(dl.tensor([1, 2, 3, 4], { shape: [2, 2] }).toArray()).toEqual([[1, 2], [3, 4]]);
  });

  // Both branches run somewhere: CI has no GPU, scripts/gpu-check.sh runs on one.
  // The errors: docs/errors.md rows D01, D04 and D05 (test/bad-input/d-devices.test.js).
  (hasGpu ? test.skip : test)('without a usable CUDA device, no CUDA tensor is made and the CPU one is untouched',
    () => {
      expect(dl.cuda.isAvailable()).toBe(false);
      expect(dl.cuda.deviceCount()).toBe(0);
      expect(() => dl.empty([2], { device: 'cuda:1' })).toThrow(dl.DLPackError); // a CudaError is a DLPackError
      const t = dl.tensor([1, 2]);
      expect(() => t.cuda()).toThrow();
      expect(() => t.to('cuda')).toThrow();
      expect([t.device.toString(), t.toArray()]).toEqual(['cpu', [1, 2]]);
      expect(() => dl.zeros([2], { device: 'gpu' })).toThrow();
    });

  (hasGpu ? test : test.skip)('with a CUDA device, CUDA tensors are made and copied; a missing index is out of range',
    () => {
      expect(dl.cuda.deviceCount()).toBeGreaterThan(0);
      const n = dl.cuda.deviceCount();
      expectError(() => dl.empty([2], { device: `cuda:${n}` }), RangeError, 'ERR_OUT_OF_RANGE'); // not a row of docs/errors.md: only a GPU reaches it
      const onGpu = dl.tensor([1, 2]).cuda();
      expect(onGpu.device.toString()).toBe('cuda:0');
      const back = onGpu.to('cpu');
      expect(back.toArray()).toEqual([1, 2]);
      onGpu.dispose();
      expect(() => dl.zeros([2], { device: 'gpu' })).toThrow();
    });
});

describe('properties', () => {
  test('are read-only and consistent', () => {
    const t = dl.fromBuffer(new ArrayBuffer(48), { dtype: 'int32', offset: 8, shape: [2, 5] });
    expect({
      dtype: t.dtype, shape: t.shape, strides: t.strides, ndim: t.ndim, size: t.size, itemSize: t.itemSize,
      nbytes: t.nbytes, byteOffset: t.byteOffset, readOnly: t.readOnly, isCopy: t.isCopy,
      isContiguous: t.isContiguous, disposed: t.disposed,
    }).toEqual({
      dtype: 'int32', shape: [2, 5], strides: [5, 1], ndim: 2, size: 10, itemSize: 4, nbytes: 40, byteOffset: 8,
      readOnly: false, isCopy: false, isContiguous: true, disposed: false,
    });
    expect(Object.isFrozen(t.shape)).toBe(true);
    expect(Object.isFrozen(t.strides)).toBe(true);
    expect(() => { t.shape = [1]; }).toThrow(TypeError); // the file is strict
    expect(t.__dlpack_device__()).toEqual([1, 0]);
  });

  test('Tensor cannot be constructed directly', () => {
    expect(() => new dl.Tensor()).toThrow(TypeError);
  });
});

describe('views and copies', () => {
  test('reshape shares memory, infers -1, and copies strided tensors it cannot view', () => {
    const t = dl.tensor([1, 2, 3, 4, 5, 6]);
    const r = t.reshape([3, -1]);
    expect(r.shape).toEqual([3, 2]);
    r.data[0] = 10;
    expect(t.data[0]).toBe(10);
    // Refusals (rows T06-T08) leave t as it was.
    expect(() => t.reshape([4, 2])).toThrow();
    expect(() => t.reshape([-1, -1])).toThrow();
    expect([t.shape, t.data[0]]).toEqual([[6], 10]);
    expect(transposed(2, 3).reshape([6]).toArray()).toEqual([0, 2, 4, 1, 3, 5]);
    expect(() => transposed(2, 3).view([6])).toThrow();
  });

  test('a strided tensor has no data view (row T04); contiguous() copies in row-major order', () => {
    const t = transposed(2, 3);
    expect(t.isContiguous).toBe(false);
    expect(t.strides).toEqual([1, 2]);
    expect(() => t.data).toThrow();
    expect(t.toArray()).toEqual([[0, 2, 4], [1, 3, 5]]);
    const c = t.contiguous();
    expect(c.isContiguous).toBe(true);
    expect(Array.from(c.data)).toEqual([0, 2, 4, 1, 3, 5]);
    const same = dl.tensor([1, 2]);
    expect(same.contiguous().buffer).toBe(same.buffer); // no copy, a new tensor (docs/API.md "Decisions")
  });

  test('clone copies into new memory', () => {
    const t = dl.tensor([[1, 2], [3, 4]], { dtype: 'int16' });
    const c = t.clone();
    c.data[0] = 100;
    expect(t.data[0]).toBe(1);
    expect(c.toArray()).toEqual([[100, 2], [3, 4]]);
    expect(c.buffer).not.toBe(t.buffer);
  });

  test('copyFrom: same dtype, strided source, other dtypes, arrays; shape must match', () => {
    const dst = dl.zeros([2, 3]);
    dst.copyFrom(transposed(2, 3));
    expect(dst.toArray()).toEqual([[0, 2, 4], [1, 3, 5]]);
    dst.copyFrom(dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'int64' }));
    expect(dst.toArray()).toEqual([[1, 2, 3], [4, 5, 6]]);
    dst.copyFrom([[6, 5, 4], [3, 2, 1]]);
    expect(dst.toArray()).toEqual([[6, 5, 4], [3, 2, 1]]);
    expect(() => dst.copyFrom(dl.zeros([3, 2]))).toThrow(); // row T13: no broadcasting, nothing written
    expect(dst.toArray()).toEqual([[6, 5, 4], [3, 2, 1]]);
  });

  test('copyFrom into a strided destination and from an overlapping view', () => {
    const t = transposed(2, 3);
    t.copyFrom(dl.tensor([[1, 2, 3], [4, 5, 6]]));
    expect(Array.from(new Float32Array(t.buffer))).toEqual([1, 4, 2, 5, 3, 6]);
    const a = dl.tensor([1, 2, 3, 4]);
    a.copyFrom(a.reshape([4]));
    expect(a.toArray()).toEqual([1, 2, 3, 4]);
  });

  // docs/API.md "Decisions": with nothing to do, these give a new tensor over the
  // same memory (one more holder), not `this` as torch does, so disposing the
  // result never disposes the tensor they were called on.
  const noOps = {
    'cpu()': (t) => t.cpu(),
    'to("cpu")': (t) => t.to('cpu'),
    'to(dl.Device cpu)': (t) => t.to(t.device),
    'to(own dtype)': (t) => t.to(t.dtype),
    'to({ dtype, device })': (t) => t.to({ dtype: t.dtype, device: 'cpu' }),
    'to({})': (t) => t.to({}),
    'contiguous()': (t) => t.contiguous(),
  };
  test.each(Object.keys(noOps))('%s with nothing to do: a new tensor over the same memory, disposable alone', (name) => {
    const t = dl.tensor([1, 2, 3], { dtype: 'int32' });
    const r = noOps[name](t);
    expect(r).not.toBe(t);
    expect(r.buffer).toBe(t.buffer);
    expect([r.dtype, r.shape, r.strides, r.byteOffset, r.device]).toEqual([t.dtype, t.shape, t.strides, t.byteOffset, t.device]);
    r.data[0] = 7; // the same memory
    expect(t.toArray()).toEqual([7, 2, 3]);
    r.dispose();
    expect(t.disposed).toBe(false);
    expect(t.toArray()).toEqual([7, 2, 3]);
    // And the other way round: the result holds the memory after the original goes.
    const u = noOps[name](t);
    t.dispose();
    expect(u.toArray()).toEqual([7, 2, 3]);
    u.dispose();
  });

  test('the same for library-owned shared memory: freed when the last of the two is disposed', () => {
    const t = dl.empty([2], { dtype: 'float32', shared: true });
    t.copyFrom([1, 2]);
    const segment = t.share().name;
    const r = t.cpu();
    t.dispose();
    expect(heldSegments()).toContain(segment);
    expect(r.toArray()).toEqual([1, 2]);
    r.dispose();
    expect(heldSegments()).not.toContain(segment);
  });

  test('readOnly and isCopy carry over to the new tensor', () => {
    const copy = dl.fromDLPack(dl.tensor([1, 2]).__dlpack__({ copy: true }));
    expect(copy.isCopy).toBe(true);
    expect(copy.cpu().isCopy).toBe(true);
    const shared = dl.empty([2], { shared: true });
    const readOnly = dl.open({ ...shared.share(), readOnly: true });
    expect(readOnly.readOnly).toBe(true);
    expect(readOnly.contiguous().readOnly).toBe(true);
    expect(readOnly.to('cpu').readOnly).toBe(true);
  });
});

describe('dl.tensor infers the dtype', () => {
  test('booleans are bool, bigints int64 (torch.tensor([True]) is bool), anything else float32', () => {
    expect(dl.tensor([true, false]).dtype).toBe('bool');
    expect(dl.tensor([[true], [false]]).toArray()).toEqual([[true], [false]]);
    expect(dl.tensor(true).dtype).toBe('bool');
    expect(dl.tensor([1n, -2n]).dtype).toBe('int64');
    expect(dl.tensor([true, 3n]).toArray()).toEqual([1n, 3n]);
    expect(dl.tensor([1, true]).dtype).toBe('float32');
    expect(dl.tensor([1n, 1.5]).dtype).toBe('float32');
    expect(dl.tensor([]).dtype).toBe('float32');
    expect(dl.tensor([1, 2]).dtype).toBe('float32');
    // Inferred, so range-checked as int64 like an explicit dtype.
    expect(() => dl.tensor([2n ** 63n])).toThrow(expect.objectContaining({ code: 'ERR_OUT_OF_RANGE' }));
    // An explicit dtype still wins.
    expect(dl.tensor([true], { dtype: 'float64' }).dtype).toBe('float64');
  });
});

describe('toArray and inspect', () => {
  test('toArray gives nested arrays; int64 BigInt, bool boolean, complex pairs, 0-d scalar', () => {
    expect(dl.tensor([[1, 2], [3, 4]], { dtype: 'uint64' }).toArray()).toEqual([[1n, 2n], [3n, 4n]]);
    expect(dl.tensor([true, false], { dtype: 'bool' }).toArray()).toEqual([true, false]);
    expect(dl.tensor(3, { dtype: 'int32' }).toArray()).toBe(3);
    expect(dl.zeros([2, 0]).toArray()).toEqual([[], []]);
  });

  test('toString and util.inspect in PyTorch style', () => {
    const t = dl.tensor([1, 2, 3]);
    expect(t.toString()).toBe('tensor([1., 2., 3.], dtype=float32)');
    expect(util.inspect(t)).toBe('tensor([1., 2., 3.], dtype=float32)');
    expect(String(dl.tensor([0.12345679104328156, 2.5]))).toBe('tensor([0.1235, 2.5000], dtype=float32)');
    expect(String(dl.zeros([0, 3]))).toBe('tensor([], size=(0, 3), dtype=float32)');
    expect(String(dl.tensor([[1, 2], [3, 4]], { dtype: 'int64' }))).toBe(
      'tensor([[1, 2],\n        [3, 4]], dtype=int64)');
    expect(String(dl.tensor([[1, -2]], { dtype: 'complex64' }))).toBe('tensor([1.-2.j], dtype=complex64)');
    expect(String(dl.tensor(5, { dtype: 'uint8' }))).toBe('tensor(5, dtype=uint8)');
    const big = String(dl.zeros([2000]));
    expect(big).toBe('tensor([0., 0., 0.,  ..., 0., 0., 0.], dtype=float32)');
  });
});

describe('large allocations', () => {
  const { native } = require('../lib/binding');
  const thp = require('fs').existsSync('/sys/kernel/mm/transparent_hugepage/enabled');
  if (!thp) console.log('huge-page advice test skipped: this kernel has no transparent huge pages');

  (thp ? test : test.skip)('buffers from 4 MiB on are advised as huge pages; contents and zeroing unchanged', () => {
    expect(native.adviseHugePages(new ArrayBuffer(1 << 20))).toBe(0);
    expect(native.adviseHugePages(new ArrayBuffer(16 << 20))).toBeGreaterThanOrEqual(14 << 20);
    const t = dl.zeros([4 << 20], { dtype: 'float32' }); // allocate() may advise it before any write
    const d = t.data;
    expect(d[0] + d[d.length - 1] + d[d.length >> 1]).toBe(0);
    d.fill(2.5);
    expect(t.to('float64').data[d.length - 1]).toBe(2.5);
  });
});

describe('DLPACK_HUGE_PAGES', () => {
  const { spawnSync } = require('child_process');
  // In a child: what lib/ decided, and how many times a 16 MiB tensor's
  // allocation asked for the advice (its native block's, counted natively;
  // the ArrayBuffer path where external buffers are refused: native.adviseHugePages).
  const decide = (setting) => {
    const script = `
      const { native, hugePageAdvice } = require(${JSON.stringify(require.resolve('../lib/binding'))});
      let calls = 0;
      const advise = native.adviseHugePages;
      native.adviseHugePages = (b) => { calls++; return advise(b); };
      const dl = require(${JSON.stringify(require.resolve('..'))});
      const before = native.stats().hugePageRequests;
      dl.zeros([4 << 20]); dl.empty([4 << 20]); dl.zeros([1 << 10]);
      calls += native.stats().hugePageRequests - before;
      process.stdout.write(JSON.stringify({ hugePageAdvice, calls }));`;
    const env = { ...process.env };
    if (setting === undefined) delete env.DLPACK_HUGE_PAGES;
    else env.DLPACK_HUGE_PAGES = setting;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30000, env });
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout);
  };

  test('1 advises every buffer from 4 MiB on, 0 none, whatever the machine', () => {
    expect(decide('1')).toEqual({ hugePageAdvice: true, calls: 2 });
    expect(decide('0')).toEqual({ hugePageAdvice: false, calls: 0 });
  });

  test('the first load decides for the process: a worker started after the variable changed agrees', () => {
    const binding = JSON.stringify(require.resolve('../lib/binding'));
    const script = `
      const { Worker } = require('worker_threads');
      const first = require(${binding}).hugePageAdvice;
      process.env.DLPACK_HUGE_PAGES = first ? '0' : '1';
      const w = new Worker('require("worker_threads").parentPort.postMessage(require(${binding}).hugePageAdvice)',
        { eval: true });
      w.on('message', (inWorker) => process.stdout.write(JSON.stringify({ first, inWorker })));
      w.on('error', (e) => { console.error(e); process.exit(1); });`;
    for (const setting of ['1', '0']) {
      const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30000,
        env: { ...process.env, DLPACK_HUGE_PAGES: setting } });
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ first: setting === '1', inWorker: setting === '1' });
    }
  });

  test('unset or auto: advice unless this VM\'s balloon reports free pages to its host', () => {
    // The machine's own answer, read the way src/core/pages.cc reads it.
    const fs = require('fs');
    const dir = '/sys/bus/virtio/devices';
    const reporting = fs.existsSync(dir) && fs.readdirSync(dir).some((d) => {
      try {
        return fs.readFileSync(`${dir}/${d}/device`, 'utf8').trim() === '0x0005'
          && fs.readFileSync(`${dir}/${d}/features`, 'utf8')[5] === '1';
      } catch {
        return false;
      }
    });
    console.log(`huge-page advice by default on this machine: ${!reporting}` +
      (reporting ? ' (its virtio balloon reports free pages to the host)' : ''));
    for (const setting of [undefined, 'auto', '']) {
      expect(decide(setting)).toEqual({ hugePageAdvice: !reporting, calls: reporting ? 0 : 2 });
    }
  });
});

describe('JSON and structured clone', () => {
  const { Worker, MessageChannel } = require('worker_threads');

  test.each(Object.keys(dl.dtypes))('JSON.stringify(%s tensor) gives { dtype, shape, data } that dl.tensor takes back',
    (dtype) => {
      const values = dtype === 'bool' ? [true, false, true, true, false, true]
        : dtype.startsWith('complex') ? [[1, -2], [0.5, 0], [3, 4], [0, 0], [-1, 1], [2, 2]]
          : [0, 1, 2, 3, 4, 5].map((v) => (dtype.startsWith('int') || dtype.startsWith('uint') ? v : v / 2));
      const t = dl.tensor(values, { dtype, shape: [2, 3] }).transpose(0, 1); // strided: row-major order out
      const json = JSON.parse(JSON.stringify({ t }));
      expect(json.t.dtype).toBe(dtype);
      expect(json.t.shape).toEqual([3, 2]);
      expect(json.t.data).toHaveLength(6);
      const back = dl.tensor(json.t.data, { dtype: json.t.dtype, shape: json.t.shape });
      expect(back.toArray()).toEqual(t.toArray());
    });

  test('JSON of values JSON cannot hold exactly is refused (row T20), never a silent null or rounding', () => {
    expect(() => JSON.stringify(dl.tensor([1, NaN]))).toThrow();
    expect(() => JSON.stringify(dl.tensor([Infinity], { dtype: 'float64' }))).toThrow();
    expect(() => JSON.stringify(dl.tensor([2n ** 53n + 1n], { dtype: 'int64' }))).toThrow();
    expect(JSON.stringify(dl.tensor([2n ** 53n - 1n], { dtype: 'uint64' }))).toContain('9007199254740991');
    expect(JSON.stringify(dl.zeros([0, 3]))).toBe('{"dtype":"float32","shape":[0,3],"data":[]}');
  });

  test('postMessage and structuredClone of a tensor throw DataCloneError with the advice, not an empty object', () => {
    const t = dl.tensor([1, 2, 3]);
    const { port1, port2 } = new MessageChannel();
    let received = 0;
    port2.on('message', () => { received++; });
    for (const send of [() => port1.postMessage(t), () => port1.postMessage({ batch: [t] }), () => structuredClone(t)]) {
      let error;
      try { send(); } catch (e) { error = e; }
      expect(error).toBeDefined();
      expect(error.name).toBe('DataCloneError');
      expect(error.message).toMatch(/cannot be cloned: send tensor\.share\(\) and dl\.open\(\) it/);
    }
    port1.close();
    expect(received).toBe(0);
    expect(t.toArray()).toEqual([1, 2, 3]); // nothing consumed
  });

  test('a worker thread gets share() descriptors instead; postMessage(tensor) fails in the sender', async () => {
    const worker = new Worker(`
      const { parentPort } = require('worker_threads');
      const dl = require(${JSON.stringify(require.resolve('../lib'))});
      parentPort.on('message', (d) => { parentPort.postMessage(dl.open(d).toArray()); });`, { eval: true });
    const t = dl.empty([3], { dtype: 'int32', shared: true });
    t.copyFrom([4, 5, 6]);
    expect(() => worker.postMessage(t)).toThrow(/cannot be cloned/);
    worker.postMessage(t.share());
    const [reply] = await require('events').once(worker, 'message');
    expect(reply).toEqual([4, 5, 6]);
    await worker.terminate();
  });
});

describe('dispose', () => {
  test('is idempotent, every later use is refused (row T03), Symbol.dispose works', () => {
    const t = dl.tensor([1, 2]);
    t.dispose();
    t.dispose();
    expect(t.disposed).toBe(true);
    expect(String(t)).toBe('tensor(<disposed>, dtype=float32)');
    for (const use of [() => t.data, () => t.clone(), () => t.toArray(), () => t.__dlpack__(),
      () => t.reshape([2]), () => t.copyFrom([1, 2]), () => t.buffer, () => t.__dlpack_device__()]) {
      expect(use).toThrow();
    }
    const u = dl.tensor([1]);
    u[Symbol.dispose]();
    expect(u.disposed).toBe(true);
  });

  test('detaches views of library-owned memory once no tensor holds it', () => {
    const t = dl.zeros([4]);
    const r = t.reshape([2, 2]);
    const view = t.data;
    t.dispose();
    expect(view.length).toBe(4); // r still holds the memory
    expect(r.toArray()).toEqual([[0, 0], [0, 0]]);
    r.dispose();
    expect(view.length).toBe(0); // detached: no view can reach released memory
  });

  test('never detaches a buffer the caller passed to fromBuffer', () => {
    const ab = new ArrayBuffer(8);
    const t = dl.fromBuffer(ab, { dtype: 'float32' });
    t.dispose();
    expect(ab.byteLength).toBe(8);
  });

  test('does not detach memory a capsule still holds', () => {
    const t = dl.tensor([1, 2, 3]);
    const capsule = t.__dlpack__();
    t.dispose();
    const u = dl.fromDLPack(capsule);
    expect(u.toArray()).toEqual([1, 2, 3]);
  });
});

describe('installMethods (how lib/ modules add their Tensor methods)', () => {
  const { installMethods, Tensor } = require('../lib/tensor');
  afterEach(() => { delete Tensor.prototype.testOnlyMethod; });

  it('installs a method as class methods are, and refuses a name already there', () => {
    installMethods({ testOnlyMethod() { return this.shape; } });
    const t = dl.zeros([2, 3]);
    expect(t.testOnlyMethod()).toEqual([2, 3]);
    const d = Object.getOwnPropertyDescriptor(Tensor.prototype, 'testOnlyMethod');
    expect(d).toMatchObject({ writable: true, configurable: true, enumerable: false });
    expect(() => installMethods({ testOnlyMethod() {} })).toThrow(/installed twice/);
    expect(() => installMethods({ add() {} })).toThrow(/Tensor.prototype.add is installed twice/);
    t.dispose();
  });
});
