'use strict';
// Copies on streams (docs/API.md "CUDA"): to/clone/copyFrom with { stream }
// enqueue there and return at once between CUDA memory this library
// allocated; dispose() with the copy in flight frees after it; stream.done()
// resolves through a host callback without blocking the event loop. The
// ordering itself is tested without a device by test/cpp/stream_order_test.cc;
// this file needs a GPU and is skipped, with the reason printed, where there is none.
const dl = require('../lib');
const { makeTensor } = require('../lib/tensor');
const { kStorage, kLayout } = require('../lib/symbols');
const { Layout } = require('../lib/layout');
const { collect, expectError, EXIT_SAFE_FLAGS } = require('./helpers');

const caps = dl.capabilities().cuda;
const itGpu = caps.available ? test : test.skip;
if (!caps.available) console.log(`CUDA stream tests skipped: ${caps.reason}`);
const itTwoGpus = caps.deviceCount >= 2 ? test : test.skip;
if (caps.available && caps.deviceCount < 2) console.log('CUDA two-device stream tests skipped: one GPU');

const range = (n) => Float32Array.from({ length: n }, (_, i) => i);

// Runs on every machine: a host callback CUDA refuses (no device here, a
// device index out of range on a GPU machine) settles the promise at once,
// rejected with the coded error, instead of leaving it (and its deferred)
// pending forever (src/addon/cuda.cc CudaStreamDone).
test('done() rejects with the CUDA error when the host callback cannot be enqueued', async () => {
  const { native } = require('../lib/binding');
  // A promise of the addon's realm (not Jest's `Promise`), already settled.
  const error = await native.cudaStreamDone(1 << 20, 1n).then(() => null, (e) => e);
  expect(error).toBeInstanceOf(dl.CudaError);
  expect(error.code).toMatch(/^ERR_DLPACK_CUDA(_UNAVAILABLE)?$/);
  expect(error.message).toMatch(/cudaLaunchHostFunc failed/);
});

// Runs on every machine: without a GPU no stream can be made, and the count
// of live streams (native.stats(), src/core/stats.h) stays 0.
test('the live stream count is reported', () => {
  const { native } = require('../lib/binding');
  expect(typeof native.stats().cudaStreamsLive).toBe('number');
  if (!caps.available) expect(native.stats().cudaStreamsLive).toBe(0);
});

// FinalizationRegistry callbacks do not run when a worker ends: the
// environment's cleanup destroys the streams it made (src/addon/env_state.h).
itGpu('streams a worker made and never disposed are destroyed when it ends', async () => {
  const { Worker } = require('worker_threads');
  const { native } = require('../lib/binding');
  const before = native.stats().cudaStreamsLive;
  const worker = new Worker(`
    const { parentPort } = require('worker_threads');
    const dl = require(${JSON.stringify(require.resolve('../lib'))});
    const kept = [0, 1, 2].map(() => new dl.cuda.Stream(0));
    parentPort.postMessage(kept.length);`, { eval: true });
  // Listening for 'exit' from the start: Node may emit it in the same task as the last message.
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  const made = await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
  expect(made).toBe(3);
  await exited;
  expect(native.stats().cudaStreamsLive).toBe(before);
});

// Runs on every machine (issue 20, HIGH 4): done()'s thread-safe function, with a
// sleeping thread in place of the stream's host callback, reached after the worker
// that asked ended. Each mode runs in a child process: the failure is an abort
// (a freed mutex, a released closed function) or a jump into unmapped code.
describe('done() pending when its thread ends (a stand-in stream, a child process each)', () => {
  const { spawnSync } = require('child_process');
  const FIXTURE = require('path').join(__dirname, 'fixtures', 'stream-done.js');
  test.each([
    ['resolve', 20],
    ['terminate', 12],
    ['exit', 12],
    ['worker-only', 12],
  ])('%s, %i rounds: the process lives on', (mode, rounds) => {
    const result = spawnSync(process.execPath, [...EXIT_SAFE_FLAGS, FIXTURE, mode, String(rounds)],
      { encoding: 'utf8', timeout: 60000 });
    expect(result.stderr).not.toMatch(/FATAL ERROR|Aborted|Segmentation/);
    expect({ signal: result.signal, status: result.status, stdout: result.stdout })
      .toEqual({ signal: null, status: 0, stdout: `ok ${mode} ${rounds}\n` });
  });
});

describe('copies on a stream', () => {
  let stream;
  beforeEach(() => { if (caps.available) stream = new dl.cuda.Stream(0); });
  afterEach(() => { if (stream) stream.dispose(); });

  itGpu('done() is a promise that resolves once the stream has run its work', async () => {
    const done = stream.done();
    // A native promise: made in the main context, not Jest's, so instanceof
    // the test's Promise is false (found on an H200); its tag says what it is.
    expect(Object.prototype.toString.call(done)).toBe('[object Promise]');
    await expect(done).resolves.toBeUndefined();
    const other = new dl.cuda.Stream(0);
    other.dispose();
    expectError(() => other.done(), dl.DLPackError, 'ERR_DLPACK_DISPOSED');
  });

  itGpu('pinned -> device -> pinned on a stream: returns at once, right after done()', async () => {
    const n = 1 << 20;
    const pinned = dl.empty([n], { device: 'cuda_host' });
    pinned.data.set(range(n));
    const device = pinned.to('cuda', { stream });
    const back = dl.empty([n], { device: 'cuda_host' });
    back.copyFrom(device, { stream });
    await stream.done();
    expect(back.data[n - 1]).toBe(n - 1);
    expect(back.data[12345]).toBe(12345);
    for (const t of [pinned, device, back]) t.dispose();
  });

  // Host access to pinned memory a stream copy touches waits for the copy
  // (src/core/stream_order.h HostFence), without done() or synchronize().
  itGpu('pinned memory: cpu() after a stream copy into it, and a host write during one out of it', () => {
    const n = 16 << 20;
    const device = dl.tensor(range(n)).cuda();
    const pin = dl.zeros([n], { device: 'cuda_host' });
    pin.copyFrom(device, { stream });
    const host = pin.cpu().data;
    expect([host[0], host[n >> 1], host[n - 1]]).toEqual([0, n >> 1, n - 1]);
    const source = dl.empty([n], { device: 'cuda_host' });
    source.data.fill(7);
    const target = dl.empty([n], { device: 'cuda' }).copyFrom(source, { stream });
    source.copyFrom(dl.zeros([n])); // waits for the DMA that reads it
    const read = target.cpu().data;
    expect([read[0], read[n - 1]]).toEqual([7, 7]);
    for (const t of [device, pin, source, target]) t.dispose();
  });

  // Ordered with both devices (src/core/stream_order.h EnqueueOrderedAcross):
  // the copy reads the source after the kernel that wrote it on cuda:1, and
  // the source's free on cuda:1 waits for the copy.
  itTwoGpus('a copy between two GPUs on a stream waits for both and is waited for by both', async () => {
    const n = 32 << 20;
    for (let round = 0; round < 5; round++) {
      const ones = dl.tensor(new Float32Array(n).fill(round + 1)).to('cuda:1');
      const src = ones.clone({ stream: 1 }); // a kernel/copy on cuda:1's legacy stream
      const dst = dl.empty([n], { device: 'cuda' }).copyFrom(src, { stream });
      src.dispose(); // freed on cuda:1 after the copy, never under it
      dl.empty([n], { device: 'cuda:1' }).copyFrom(dl.zeros([n])).dispose(); // reuses src's block
      await stream.done();
      const back = dst.cpu().data;
      expect([back[0], back[n >> 1], back[n - 1]]).toEqual([round + 1, round + 1, round + 1]);
      ones.dispose();
      dst.dispose();
    }
    const sync = dl.tensor([1, 2, 3]).to('cuda:1').to('cuda:0'); // the synchronous copy, guarded
    expect(sync.cpu().toArray()).toEqual([1, 2, 3]);
    sync.dispose();
  });

  itGpu('every done() resolves, each after the copies enqueued before it', async () => {
    const src = dl.tensor(range(1 << 16)).cuda();
    const dst = dl.zeros([1 << 16], { device: 'cuda_host' });
    const seen = [];
    const waits = [];
    for (let i = 0; i < 50; i++) {
      dst.copyFrom(src, { stream });
      waits.push(stream.done().then(() => seen.push(dst.data[(1 << 16) - 1])));
    }
    await Promise.all(waits);
    expect(seen).toEqual(new Array(50).fill((1 << 16) - 1));
    src.dispose();
    dst.dispose();
  });

  itGpu('dispose() of both tensors right after the enqueue frees after the copy, never under it', async () => {
    await collect();
    const base = dl.cuda.memoryStats(0).allocatedBytes;
    const n = 8 << 20;
    const pinned = dl.empty([n], { device: 'cuda_host' });
    pinned.data.fill(3);
    const device = pinned.to('cuda', { stream });
    const copy = device.clone({ stream });
    pinned.dispose(); // waits for the copy (cudaFreeHost is not stream-ordered)
    device.dispose(); // cudaFreeAsync after the clone
    await stream.done();
    const host = copy.cpu().data;
    expect(host[0]).toBe(3);
    expect(host[n - 1]).toBe(3);
    copy.dispose();
    dl.cuda.synchronize(0);
    expect(dl.cuda.memoryStats(0).allocatedBytes).toBe(base);
  });

  itGpu('strided clone and dtype conversion on a stream', async () => {
    const t = dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'float32' }).cuda();
    const transposed = makeTensor(t[kStorage], Layout.of(t[kLayout].info, [3, 2], [1, 3], 0), 0, t.device);
    const c = transposed.clone({ stream });
    const ints = dl.empty([3, 2], { dtype: 'int64', device: 'cuda' }).copyFrom(c, { stream });
    await stream.done();
    expect(ints.cpu().toArray()).toEqual([[1n, 4n], [2n, 5n], [3n, 6n]]);
    for (const x of [t, c, ints]) x.dispose();
  });

  itGpu('pageable host memory copies synchronously; later legacy-stream reads see stream copies', () => {
    const host = dl.tensor(range(1000));
    const device = host.to('cuda', { stream });
    expect(device.cpu().data[999]).toBe(999); // cpu() is ordered after the copy
    const again = device.clone({ stream });
    expect(again.cpu().data[500]).toBe(500);
    device.dispose();
    again.dispose();
  });

  itGpu('export to a consumer stream after a copy on another stream', async () => {
    const t = dl.tensor(range(16)).to('cuda', { stream });
    const consumer = new dl.cuda.Stream(0);
    const back = dl.fromDLPack(t.__dlpack__({ stream: consumer }));
    await consumer.done();
    expect(back.cpu().data[15]).toBe(15);
    back.dispose();
    consumer.dispose();
  });

  itGpu('stream -1 (no ordering in DLPack) and 2 (per-thread default) copy too', () => {
    const t = dl.tensor(range(4)).cuda();
    expect(t.clone({ stream: -1 }).cpu().toArray()).toEqual([0, 1, 2, 3]);
    expect(t.clone({ stream: 2 }).cpu().toArray()).toEqual([0, 1, 2, 3]);
    t.dispose();
  });
});
