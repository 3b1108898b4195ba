'use strict';
// Every ownership path runs the deleter exactly once, from any thread, and
// nothing leaks (docs/API.md "DLPack protocol", "Lifetimes").
const path = require('path');
const { Worker } = require('worker_threads');
const { execFileSync, spawnSync } = require('child_process');
const dl = require('../lib');
const { producer, collect, nativeStats } = require('./helpers');

const make = (shape = [4], bytes = undefined) => producer.make({ shape, strides: shape.map(() => 1).map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1)), code: 2, bits: 32, bytes });
const capsuleOf = (ptr) => dl.DLPackCapsule.fromPointer(ptr, { versioned: true });

describe('foreign tensors: the producer\'s deleter runs exactly once', () => {
  test('consumed, then the tensor is disposed', () => {
    const ptr = make();
    const t = dl.fromDLPack(capsuleOf(ptr));
    expect(producer.calls(ptr)).toBe(0);
    t.dispose();
    expect(producer.calls(ptr)).toBe(1);
    t.dispose();
    expect(producer.calls(ptr)).toBe(1);
  });

  test('consumed, then every view is disposed (views share the memory)', () => {
    const ptr = make([2, 2]);
    const t = dl.fromDLPack(capsuleOf(ptr));
    const r = t.reshape([4]);
    const view = r.data;
    t.dispose();
    expect(producer.calls(ptr)).toBe(0);
    expect(view.length).toBe(4);
    r.dispose();
    expect(producer.calls(ptr)).toBe(1);
    expect(view.length).toBe(0); // detached before the memory was freed
  });

  test('consumed, then garbage-collected without dispose()', async () => {
    const ptr = make();
    (() => { dl.fromDLPack(capsuleOf(ptr)).toArray(); })();
    await collect();
    expect(producer.calls(ptr)).toBe(1);
  });

  test('garbage-collected after JS took its buffer: freed once both are gone', async () => {
    const ptr = make();
    let view = (() => dl.fromDLPack(capsuleOf(ptr)).data)();
    await collect();
    expect(producer.calls(ptr)).toBe(0); // the view still reaches the memory
    view[0] = 1;
    view = null;
    await collect();
    expect(producer.calls(ptr)).toBe(1);
  });

  test('the producer forgets a deleted tensor only at the second prune() after its deletion', () => {
    const ptr = make();
    dl.fromDLPack(capsuleOf(ptr)).dispose();
    producer.prune();
    expect(producer.calls(ptr)).toBe(1); // kept a round: a late second call would still be counted
    producer.prune();
    expect(producer.calls(ptr)).toBe(-1);
  });

  test('capsule disposed, or garbage-collected unconsumed', async () => {
    const a = make();
    capsuleOf(a).dispose();
    expect(producer.calls(a)).toBe(1);
    const b = make();
    (() => { capsuleOf(b); })();
    await collect();
    expect(producer.calls(b)).toBe(1);
  });

  test('re-exported to a native consumer: freed when both the tensor and the consumer let go', async () => {
    const ptr = make();
    const t = dl.fromDLPack(capsuleOf(ptr));
    const handed = t.__dlpack__().toPointer();
    t.dispose();
    expect(producer.calls(ptr)).toBe(0);
    producer.releaseOnThread(handed, true); // our deleter, on another thread
    expect(producer.calls(ptr)).toBe(1);
  });
});

describe('our capsules: the deleter runs exactly once and releases the buffer', () => {
  test('handed to native code with toPointer() and released there, on this or another thread', async () => {
    await collect();
    const base = nativeStats();
    for (const release of [producer.release, producer.releaseOnThread]) {
      const t = dl.tensor([1, 2, 3]);
      const ptr = t.__dlpack__().toPointer();
      expect(nativeStats().managedLive).toBe(base.managedLive + 1);
      release(ptr, true);
      expect(nativeStats().managedLive).toBe(base.managedLive);
    }
    await collect();
    expect(nativeStats().jsKeepaliveLive).toBe(base.jsKeepaliveLive);
  });

  test('a release from another thread lets the JS buffer be collected', async () => {
    let collected = false;
    const registry = new FinalizationRegistry(() => { collected = true; });
    let ptr;
    (() => {
      const ab = new ArrayBuffer(1 << 20);
      registry.register(ab, 'buffer');
      ptr = dl.fromBuffer(ab, { dtype: 'uint8' }).__dlpack__().toPointer();
    })();
    await collect();
    expect(collected).toBe(false); // pinned by the capsule held in C
    producer.releaseOnThread(ptr, true);
    for (let i = 0; i < 10 && !collected; i++) await collect();
    expect(collected).toBe(true);
  });

  test('consumed, disposed or collected: no struct or pin is left behind', async () => {
    await collect();
    const base = nativeStats();
    for (let i = 0; i < 1000; i++) {
      const t = dl.tensor([i]);
      dl.fromDLPack(t.__dlpack__());                 // consumed by us
      t.__dlpack__({ maxVersion: [0, 8] }).dispose(); // disposed
      t.__dlpack__();                                // dropped
    }
    await collect();
    const now = nativeStats();
    expect(now.managedLive).toBe(base.managedLive);
    expect(now.jsKeepaliveLive).toBe(base.jsKeepaliveLive);
  });

  test('running totals count each struct and each adopted tensor once when made and once when freed', () => {
    const base = nativeStats();
    const since = () => {
      const now = nativeStats();
      return ['managedMade', 'managedFreed', 'foreignMade', 'foreignFreed'].map((k) => now[k] - base[k]);
    };
    const t = dl.tensor([1, 2, 3]);
    producer.release(t.__dlpack__().toPointer(), true); // made, freed by a native consumer
    const legacy = t.__dlpack__({ maxVersion: [0, 8] }).toPointer();
    dl.fromDLPack(dl.DLPackCapsule.fromPointer(legacy, { versioned: false })).dispose(); // made, freed on import
    dl.fromDLPack(t.__dlpack__()).dispose(); // no struct between JavaScript consumers
    expect(since()).toEqual([2, 2, 0, 0]);
    const f = dl.fromDLPack(capsuleOf(make()));
    expect(since()).toEqual([2, 2, 1, 0]);
    f.dispose();
    expect(since()).toEqual([2, 2, 1, 1]);
  });
});

describe('threads and environments', () => {
  test('deleters run after the worker that made the capsules has exited', async () => {
    await collect();
    const base = nativeStats();
    const sab = new SharedArrayBuffer(64);
    const worker = new Worker(path.join(__dirname, 'fixtures', 'worker-export.js'), { workerData: { sab } });
    // 'exit' is listened for first: a worker that ends at once can have its message and
    // its 'exit' delivered in one turn.
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    const message = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await exited;
    expect(new Int32Array(sab)[0]).toBe(1234);
    // The worker's environment is gone: releasing must neither crash nor leak.
    producer.release(message.jsPointer, true);
    producer.releaseOnThread(message.reexported, true);
    expect(producer.calls(message.foreignPtr)).toBe(1);
    expect(producer.stats().doubleDeletes).toBe(0);
    await collect();
    expect(nativeStats().managedLive).toBe(base.managedLive);
  });

  test('a process exits cleanly with capsules still out', () => {
    const out = execFileSync(process.execPath, [path.join(__dirname, 'fixtures', 'exit-with-capsules.js')], {
      encoding: 'utf8',
    });
    expect(out).toBe('exit ok 100 bigint\n');
  });

  test('many threads release capsules concurrently', async () => {
    await collect();
    const base = nativeStats();
    const pointers = [];
    for (let i = 0; i < 200; i++) pointers.push(dl.tensor([i]).__dlpack__().toPointer());
    await Promise.all(pointers.map((p) => Promise.resolve().then(() => producer.releaseOnThread(p, true))));
    await collect();
    expect(nativeStats()).toMatchObject({ managedLive: base.managedLive, jsKeepaliveLive: base.jsKeepaliveLive });
  });
});

// In a child process: the loop's collections (about one per 64 MiB imported)
// each mark the whole heap, and a Jest worker's heap made them several times
// slower (test/fixtures/foreign-imports.js). The limit is for a hang only.
describe('memory pressure (a child process)', () => {
  test('100,000 imports of 1 MiB foreign tensors in a synchronous loop stay bounded', () => {
    const MiB = 1 << 20;
    const child = spawnSync(process.execPath, [path.join(__dirname, 'fixtures', 'foreign-imports.js'), '100000'],
      { encoding: 'utf8', timeout: 180000 });
    expect({ signal: child.signal, status: child.status, stderr: child.stderr }).toEqual({ signal: null, status: 0,
      stderr: expect.any(String) });
    const { elements, peakMiB, deleted } = JSON.parse(child.stdout);
    expect(elements).toBe(100000 * (MiB / 4));
    console.log(`peak live foreign memory during the loop: ${peakMiB.toFixed(0)} MiB of ${100000} MiB allocated`);
    expect(peakMiB).toBeLessThan(4096);
    expect(deleted).toBeGreaterThan(100000 - 4096);
  }, 200000);
});

// Issue 20, HIGH 3: a native throw while addon objects wait for collection
// must never let collection-time code call into JavaScript (a V8 fatal error,
// SIGTRAP). A child process runs the storm; the limit is for a hang only.
describe('native throws interleaved with collection (a child process)', () => {
  test('2000 rounds of stale opens, refused imports, foreign imports and forced GCs: the process lives', () => {
    const storm = path.join(__dirname, 'fixtures', 'gc-storm.js');
    const result = spawnSync(process.execPath, ['--expose-gc', storm, '2000'], { encoding: 'utf8', timeout: 180000 });
    expect(result.stderr).not.toMatch(/FATAL ERROR|Check failed|Aborted/);
    expect({ signal: result.signal, status: result.status }).toEqual({ signal: null, status: 0 });
    const counts = JSON.parse(result.stdout);
    expect(counts.refused).toEqual({ ERR_DLPACK_DISPOSED: 6000, ERR_DLPACK_UNSUPPORTED: 2000 });
    expect(counts.imported).toBeGreaterThan(2000); // 1 to 4 a round
  });
});
