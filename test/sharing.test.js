'use strict';
// docs/API.md "Sharing": descriptors for worker threads ('sab', 'local') and other
// processes ('shm'), and tensors over WebAssembly memory.
const fs = require('fs');
const path = require('path');
const { Worker } = require('worker_threads');
const { spawn } = require('child_process');
const dl = require('../lib');
const { producer, native, collect, heldSegments, segmentHolders } = require('./helpers');

const segments = () => heldSegments();

function startWorker() {
  const worker = new Worker(path.join(__dirname, 'fixtures', 'share-worker.js'));
  const ask = (message) => new Promise((resolve, reject) => {
    worker.once('message', (reply) => (reply.ok ? resolve(reply) : reject(Object.assign(new Error(reply.error), reply))));
    worker.postMessage(message);
  });
  return { worker, ask, exited: new Promise((resolve) => worker.once('exit', resolve)) };
}

function foreignTensor(values) {
  const ptr = producer.make({ shape: [values.length], strides: [1], code: 2, bits: 32 });
  const t = dl.fromDLPack(dl.DLPackCapsule.fromPointer(ptr, { versioned: true }));
  t.data.set(values);
  return { t, ptr };
}

describe("worker threads: 'sab'", () => {
  test('a SharedArrayBuffer tensor is zero-copy in a worker, writes visible both ways', async () => {
    const t = dl.fromBuffer(new SharedArrayBuffer(32), { dtype: 'int32', offset: 8, shape: [2, 3] });
    t.data.set([1, 2, 3, 4, 5, 6]);
    const d = t.share();
    expect(d).toMatchObject({ kind: 'sab', byteOffset: 8, dtype: 'int32', shape: [2, 3], strides: [3, 1] });
    const w = startWorker();
    expect((await w.ask({ op: 'open', key: 'a', descriptor: d })).values).toEqual([1, 2, 3, 4, 5, 6]);
    await w.ask({ op: 'write', key: 'a', index: 5, value: 60 });
    expect(t.data[5]).toBe(60);
    t.data[0] = 10;
    expect((await w.ask({ op: 'open', key: 'b', descriptor: d })).values[0]).toBe(10);
    await w.worker.terminate();
  });

  test('a plain ArrayBuffer tensor cannot be shared', () => {
    expect(() => dl.tensor([1]).share()).toThrow(/SharedArrayBuffer/);
  });
});

describe("worker threads: 'local' (native memory)", () => {
  test('zero-copy both ways; freed only after every thread released it', async () => {
    const { t, ptr } = foreignTensor([1, 2, 3]);
    const d = t.share();
    expect(d).toMatchObject({ kind: 'local', pid: process.pid, dtype: 'float32', shape: [3] });
    expect(JSON.parse(JSON.stringify(d))).toEqual(d); // plain and serialisable
    const w = startWorker();
    expect((await w.ask({ op: 'open', key: 'x', descriptor: d })).values).toEqual([1, 2, 3]);
    await w.ask({ op: 'write', key: 'x', index: 1, value: 20 });
    expect(t.data[1]).toBe(20);
    t.dispose();
    await collect();
    expect(producer.calls(ptr)).toBe(0); // the worker still holds it
    await w.ask({ op: 'release', key: 'x' });
    expect(producer.calls(ptr)).toBe(1);
    await w.worker.terminate();
  });

  test('a worker terminated abruptly releases what it opened', async () => {
    const { t, ptr } = foreignTensor([4, 5]);
    const d = t.share();
    const w = startWorker();
    await w.ask({ op: 'open', key: 'x', descriptor: d });
    t.dispose();
    expect(producer.calls(ptr)).toBe(0);
    await w.worker.terminate();
    await collect();
    expect(producer.calls(ptr)).toBe(1);
  });

  test('opening after the sharing thread released it is refused (rows S16, S17)', async () => {
    const { t } = foreignTensor([1]);
    const d = t.share();
    t.dispose();
    expect(() => dl.open(d)).toThrow(/released by the sharing thread/);
    expect(() => dl.open({ ...d, pid: d.pid + 1 })).toThrow(/between threads of one process/);
  });

  test('stress: many workers open and drop the same tensor', async () => {
    const { t, ptr } = foreignTensor([7, 8, 9, 10]);
    const d = t.share();
    const before = native.localShares();
    const workers = Array.from({ length: 6 }, startWorker);
    const replies = await Promise.all(workers.map((w) => w.ask({ op: 'churn', descriptor: d, times: 300 })));
    expect(replies.map((r) => r.sum)).toEqual(new Array(6).fill(7 * 300));
    await Promise.all(workers.map((w) => w.worker.terminate()));
    expect(producer.calls(ptr)).toBe(0);
    t.dispose();
    await collect();
    expect(producer.calls(ptr)).toBe(1);
    expect(native.localShares()).toBe(before - 1);
  });
});

describe("other processes: 'shm'", () => {
  afterAll(async () => {
    await collect();
  });

  test('empty({ shared: true }) is zeroed shared memory with a JSON descriptor', () => {
    const t = dl.empty([3, 4], { dtype: 'float64', shared: true });
    expect(Array.from(t.data)).toEqual(new Array(12).fill(0));
    const d = JSON.parse(JSON.stringify(t.share()));
    expect(d).toMatchObject({ kind: 'shm', version: 2, pid: process.pid, dataSize: 96, byteOffset: 0,
      dtype: 'float64', shape: [3, 4], strides: [4, 1], readOnly: false });
    expect(d.name).toMatch(/^dlpack-[0-9a-f]{32}$/);
    expect(fs.readlinkSync(`/proc/self/fd/${d.fd}`)).toBe(`/memfd:${d.name} (deleted)`);
    expect(fs.readdirSync('/dev/shm').filter((n) => n.includes(d.name.slice(7)))).toEqual([]); // no name to plant
    expect(segments()).toContain(d.name);
    const u = dl.open(d);
    expect(u.share().fd).toBe(d.fd); // one hold per process
    u.data[11] = 5;
    expect(t.data[11]).toBe(5);
    u.dispose();
    expect(segments()).toContain(d.name); // t still holds it
    t.dispose();
    expect(segments()).not.toContain(d.name);
  });

  test('another Node process reads and writes it; the segment goes with the last release', async () => {
    const t = dl.empty([4], { dtype: 'int32', shared: true });
    t.data.set([1, 2, 3, 4]);
    const d = t.share();
    const child = spawn(process.execPath, [path.join(__dirname, 'fixtures', 'shm-child.js'), JSON.stringify(d)]);
    let out = '';
    child.stdout.on('data', (b) => { out += b; });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual([1, 2, 3, 4]);
    expect(t.data[0]).toBe(99);
    t.dispose();
    expect(segmentHolders(d.name)).toEqual([]);
  });

  test('a process killed while holding it does not keep the segment', async () => {
    const t = dl.empty([2], { dtype: 'float32', shared: true });
    const d = t.share();
    const child = spawn(process.execPath, [path.join(__dirname, 'fixtures', 'shm-child.js'), JSON.stringify(d), 'hang']);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      await new Promise((resolve) => child.stdout.once('data', resolve));
      expect(segmentHolders(d.name).sort()).toEqual([process.pid, child.pid].sort());
    } finally {
      child.kill('SIGKILL'); // never left behind, even when the check fails
    }
    await exited;
    expect(segmentHolders(d.name)).toEqual([process.pid]);
    t.dispose(); // the last holder: the kernel frees it
    expect(segmentHolders(d.name)).toEqual([]);
  });

  test('strided layouts and offsets survive the trip; bad descriptors are refused', () => {
    const t = dl.empty([6], { dtype: 'int16', shared: true });
    t.data.set([0, 1, 2, 3, 4, 5]);
    const d = { ...t.share(), byteOffset: 10, shape: [3], strides: [-2] };
    const reversed = dl.open(d);
    expect(reversed.toArray()).toEqual([5, 3, 1]);
    reversed.dispose();
    expect(() => dl.open({ ...d, byteOffset: 12 })).toThrow();
    expect(() => dl.open({ ...d, byteOffset: 3 })).toThrow();
    expect(() => dl.open({ ...d, version: 1 })).toThrow();
    expect(() => dl.open({ ...d, name: '../etc/passwd' })).toThrow();
    // python/FORMAT.md "Names": no NUL in a name.
    expect(() => dl.open({ ...d, name: `${d.name}\0` })).toThrow();
    expect(() => dl.open({ ...d, dataSize: 1 << 20, shape: [1] })).toThrow(/fewer than/);
    expect(() => dl.open({ ...d, kind: 'nfs' })).toThrow();
    expect(() => dl.open(null)).toThrow();
    // Refused descriptors (rows S01-S15) opened nothing: the segment is as it was.
    const again = dl.open(d);
    expect(again.toArray()).toEqual([5, 3, 1]);
    again.dispose();
    const name = d.name;
    t.dispose();
    expect(() => dl.open(d)).toThrow();
    expect(segments()).not.toContain(name);
  });

  test('an imported shm tensor exports through DLPack and keeps the segment alive', () => {
    const t = dl.empty([2], { dtype: 'float32', shared: true });
    const name = t.share().name;
    const ptr = t.__dlpack__().toPointer();
    t.dispose();
    expect(segments()).toContain(name);
    producer.releaseOnThread(ptr, true);
    expect(segments()).not.toContain(name);
  });
});

describe('WebAssembly', () => {
  let wabt;
  beforeAll(async () => {
    wabt = await require('wabt')();
  });

  // fill(ptr, n, v) writes v into n int32s; sum(ptr, n) adds n int32s.
  const WAT = `(module
    (memory (import "env" "memory") 1)
    (func (export "fill") (param $ptr i32) (param $n i32) (param $v i32)
      (local $i i32)
      (block $done (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store (i32.add (local.get $ptr) (i32.shl (local.get $i) (i32.const 2))) (local.get $v))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next))))
    (func (export "sum") (param $ptr i32) (param $n i32) (result i32)
      (local $i i32) (local $s i32)
      (block $done (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $s (i32.add (local.get $s)
          (i32.load (i32.add (local.get $ptr) (i32.shl (local.get $i) (i32.const 2))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
      (local.get $s)))`;

  async function instantiate(memory) {
    const shared = memory.buffer instanceof SharedArrayBuffer;
    const text = shared ? WAT.replace('"memory") 1)', '"memory") 1 4 shared)') : WAT;
    const module = wabt.parseWat('kernel.wat', text, { threads: true });
    const { buffer } = module.toBinary({});
    const { instance } = await WebAssembly.instantiate(buffer, { env: { memory } });
    return instance.exports;
  }

  test('wasm.view: wasm writes what the tensor reads and reads what it wrote, across grow()', async () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 8 });
    const kernel = await instantiate(memory);
    const t = dl.wasm.view(memory, { ptr: 1024, dtype: 'int32', shape: [2, 4] });
    kernel.fill(1024, 8, 7);
    expect(t.toArray()).toEqual([[7, 7, 7, 7], [7, 7, 7, 7]]);
    const before = t.data;
    memory.grow(2); // detaches the old buffer
    expect(before.length).toBe(0);
    t.data[3] = 100;
    expect(kernel.sum(1024, 8)).toBe(7 * 7 + 100);
    expect(t.data.buffer).toBe(memory.buffer);
    const copy = dl.fromDLPack(t.__dlpack__(), { copy: true });
    expect(copy.toArray()[0][3]).toBe(100);
  });

  test('ops on a wasm view write the memory wasm reads, before and after grow()', async () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 8 });
    const kernel = await instantiate(memory);
    const t = dl.wasm.view(memory, { ptr: 1024, dtype: 'int32', shape: [8] });
    kernel.fill(1024, 8, 7);
    t.add_(1); // the op's byte view is made over the first buffer
    memory.grow(2); // detaches it: the next op must view the new one
    t.add_(1);
    expect(kernel.sum(1024, 8)).toBe(8 * 9);
    // Two views one element apart over the grown memory: b.add_(a) writes
    // b[i] (a[i + 1]) before it reads a[i + 1], so it must go through a temporary.
    t.data.set([1, 2, 4, 8, 16, 32, 64, 128]);
    const a = dl.wasm.view(memory, { ptr: 1024, dtype: 'int32', shape: [7] });
    const b = dl.wasm.view(memory, { ptr: 1028, dtype: 'int32', shape: [7] });
    b.add_(a);
    expect(Array.from(t.data)).toEqual([1, 3, 6, 12, 24, 48, 96, 192]);
  });

  test('fromBuffer(memory.buffer) after grow() reads nothing (row M03)', async () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 4 });
    const t = dl.fromBuffer(memory.buffer, { dtype: 'uint8', count: 16 });
    memory.grow(1);
    expect(() => t.data).toThrow();
    expect(() => t.toArray()).toThrow();
    expect(() => t.clone()).toThrow();
    expect(() => t.__dlpack__()).toThrow();
  });

  test('shared WebAssembly memory: views work and share() gives a sab descriptor', async () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 4, shared: true });
    const kernel = await instantiate(memory);
    const t = dl.wasm.view(memory, { ptr: 64, dtype: 'int32', shape: [4] });
    kernel.fill(64, 4, 3);
    memory.grow(1);
    expect(Array.from(t.data)).toEqual([3, 3, 3, 3]);
    const d = t.share();
    expect(d.kind).toBe('sab');
    const u = dl.open(d);
    u.data[0] = 9;
    expect(kernel.sum(64, 4)).toBe(18);
    const f = dl.fromBuffer(memory.buffer, { dtype: 'int32', offset: 64, count: 4 });
    memory.grow(1); // a shared buffer is never detached: the old one keeps its length
    expect(Array.from(f.data)).toEqual([9, 3, 3, 3]);
  });

  test('view arguments are checked (rows W01-W05)', () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    expect(() => dl.wasm.view({}, { ptr: 0, dtype: 'int32', shape: [1] })).toThrow();
    expect(() => dl.wasm.view(memory, { ptr: 2, dtype: 'int32', shape: [1] })).toThrow();
    expect(() => dl.wasm.view(memory, { ptr: 65532, dtype: 'int32', shape: [2] })).toThrow();
    expect(() => dl.wasm.view(memory, { ptr: -4, dtype: 'int32', shape: [1] })).toThrow();
  });
});

describe("'shm' layouts: the rule Python's open() follows too", () => {
  // test/fixtures/open-layouts.json: python/tests/test_shm.py runs the same cases through dlpack_node.open().
  const { cases } = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'open-layouts.json'), 'utf8'));
  test.each(cases.map((c) => [c.why, c]))('%s', (why, { change, node }) => {
    const t = dl.empty([4], { shared: true });
    const good = t.share();
    expect(good.dataSize).toBe(16);
    const d = { ...good, ...change };
    if (!('strides' in change)) delete d.strides; // row-major for the new shape
    if (node === 'ok') {
      const view = dl.open(d);
      expect(view.shape).toEqual(d.shape);
      view.dispose();
    } else {
      let error;
      try { dl.open(d); } catch (e) { error = e; }
      expect(error && error.code).toBe(node);
    }
    t.dispose();
  });
});

describe("'local' layout bounds", () => {
  test('a layout past the shared memory is refused (row S09) and takes no reference', async () => {
    const ptr = producer.make({ shape: [4], strides: [1], code: 2, bits: 32 });
    const t = dl.fromDLPack(dl.DLPackCapsule.fromPointer(ptr, { versioned: true }));
    const d = t.share();
    expect(() => dl.open({ ...d, shape: [5] })).toThrow(/inside the 16 shared bytes/);
    t.dispose();
    await collect();
    expect(producer.calls(ptr)).toBe(1); // the refused open released what it took
  });
});

// API.md "Sharing", "Any tensor shareable": shareMemory() moves a Storage
// into a segment in place (torch's share_memory_()), toShared() copies.
// Which error each refusal gets: docs/errors.md rows T03, T16, T21, V04, F15.
describe('shareMemory() and toShared()', () => {
  let onExit = () => {};
  afterEach(async () => {
    await onExit();
    onExit = () => {};
  });
  afterAll(async () => {
    await collect();
  });

  test('shareMemory() moves the Storage in place: every tensor over it shares as the same segment', () => {
    const t = dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'int32' });
    const oldData = t.data;
    const oldBuffer = t.buffer;
    const permuted = t.permute(1, 0);
    const row = t.select(0, 1);
    const again = dl.fromBuffer(oldBuffer, { dtype: 'int32', shape: [2, 3] }); // a holder of the same Storage
    const copy = t.clone(); // its own Storage: stays where it is
    expect(t.shareMemory()).toBe(t);
    // Typed arrays and buffers handed out before are detached, never stale.
    expect(oldData.length).toBe(0);
    expect(oldBuffer.byteLength).toBe(0);
    expect(() => dl.fromBuffer(oldBuffer, { dtype: 'int32' })).toThrow(/detached/);
    const d = t.share();
    expect(d).toMatchObject({ kind: 'shm', dataSize: 24, shape: [2, 3] });
    for (const [u, layout] of [[permuted, { shape: [3, 2], strides: [1, 3], byteOffset: 0 }],
      [row, { shape: [3], strides: [1], byteOffset: 12 }], [again, { shape: [2, 3], byteOffset: 0 }]]) {
      expect(u.share()).toMatchObject({ kind: 'shm', name: d.name, ...layout });
    }
    expect(copy.share.bind(copy)).toThrow(/plain ArrayBuffer/);
    // Aliasing holds through the new memory, both ways.
    t.data[0] = 10;
    expect(permuted.toArray()).toEqual([[10, 4], [2, 5], [3, 6]]);
    row.copyFrom([40, 50, 60]);
    expect(again.toArray()).toEqual([[10, 2, 3], [40, 50, 60]]);
    expect(dl.fromBuffer(t.buffer, { dtype: 'int32' }).share().name).toBe(d.name);
    expect(t.shareMemory()).toBe(t); // already shared: nothing moves
    expect(t.share().name).toBe(d.name);
    for (const u of [t, permuted, row, again]) u.dispose();
    expect(segments()).toContain(d.name); // the fromBuffer(t.buffer) above still holds it
  });

  test('the segment goes with the last holder; empty tensors move too', async () => {
    const t = dl.zeros([4], { dtype: 'float32' }).shareMemory();
    const view = t.narrow(0, 1, 2);
    const { name } = t.share();
    t.dispose();
    expect(segments()).toContain(name);
    view.dispose();
    expect(segments()).not.toContain(name);
    const e = dl.zeros([0, 3]).shareMemory();
    expect(e.share()).toMatchObject({ kind: 'shm', dataSize: 0, shape: [0, 3] });
    e.dispose();
  });

  test('a worker thread and another Node process read the moved tensor and write back', async () => {
    const t = dl.tensor([1, 2, 3, 4], { dtype: 'int32' });
    t.shareMemory();
    const w = startWorker();
    try {
      expect((await w.ask({ op: 'open', key: 'r', descriptor: t.slice(0, null, null, -1).share() })).values)
        .toEqual([4, 3, 2, 1]);
      await w.ask({ op: 'open', key: 'a', descriptor: t.share() });
      await w.ask({ op: 'write', key: 'a', index: 3, value: 40 });
      expect(t.toArray()).toEqual([1, 2, 3, 40]);
    } finally {
      await w.worker.terminate();
    }
    const child = spawn(process.execPath, [path.join(__dirname, 'fixtures', 'shm-child.js'),
      JSON.stringify(t.share())]);
    let out = '';
    child.stdout.on('data', (b) => { out += b; });
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    expect(JSON.parse(out)).toEqual([1, 2, 3, 40]);
    expect(t.data[0]).toBe(99);
    t.dispose();
  });

  test('views of a shared tensor share as views of the same segment (permute, slice, select, fromBuffer)', async () => {
    const t = dl.empty([2, 3], { dtype: 'float32', shared: true });
    t.copyFrom([[1, 2, 3], [4, 5, 6]]);
    const { name } = t.share();
    const w = startWorker();
    onExit = () => w.worker.terminate();
    const cases = [
      [t.permute(1, 0), [1, 4, 2, 5, 3, 6]],
      [t.slice(1, 0, 3, 2), [1, 3, 4, 6]],
      [t.select(1, 2), [3, 6]],
      [dl.fromBuffer(t.buffer, { dtype: 'float32', offset: 8, count: 3 }), [3, 4, 5]],
      [dl.fromBuffer(t.data.subarray(4), { dtype: 'float32' }), [5, 6]],
    ];
    for (const [i, [view, values]] of cases.entries()) {
      const d = view.share();
      expect(d).toMatchObject({ kind: 'shm', name });
      expect((await w.ask({ op: 'open', key: `v${i}`, descriptor: d })).values).toEqual(values);
    }
    await w.worker.terminate();
    t.dispose();
  });

  test('an unconsumed capsule follows the move; a toPointer() struct pins the memory: refused, nothing moves', () => {
    const t = dl.tensor([1, 2, 3], { dtype: 'float32' });
    const capsule = t.__dlpack__();
    t.shareMemory();
    const u = dl.fromDLPack(capsule);
    expect(u.share().name).toBe(t.share().name);
    u.data[0] = 7;
    expect(t.data[0]).toBe(7);
    const p = dl.tensor([1, 2], { dtype: 'float32' });
    const data = p.data;
    const ptr = p.__dlpack__().toPointer();
    expect(() => p.shareMemory()).toThrow(/toPointer\(\).*toShared\(\)/);
    expect(data.length).toBe(2); // the struct's memory is still the tensor's, valid and attached
    const shared = p.toShared();
    expect(shared.share().kind).toBe('shm');
    expect(shared.toArray()).toEqual([1, 2]);
    producer.releaseOnThread(ptr, true);
    for (const x of [t, u, p, shared]) x.dispose();
  });

  test('memory the library does not own or cannot move is refused by shareMemory() and copied by toShared()', () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const { t: imported, ptr } = foreignTensor([1, 2, 3]);
    const local = dl.open(foreignTensor([4, 5]).t.share());
    const sources = [
      [dl.fromBuffer(new Float32Array([1, 2, 3]).buffer, { dtype: 'float32' }), /fromBuffer\(\)/, [1, 2, 3]],
      [dl.fromBuffer(new SharedArrayBuffer(8), { dtype: 'float32' }), /SharedArrayBuffer/, [0, 0]],
      [dl.wasm.view(memory, { ptr: 0, dtype: 'float32', shape: [2] }), /WebAssembly/, [0, 0]],
      [imported, /DLPack import/, [1, 2, 3]],
      [local, /'local' share/, [4, 5]],
    ];
    for (const [t, why, values] of sources) {
      const buffer = t.buffer;
      expect(() => t.shareMemory()).toThrow(why);
      expect(t.buffer).toBe(buffer); // nothing moved or detached
      expect(t.toArray()).toEqual(values);
      const copy = t.toShared();
      expect(copy).not.toBe(t);
      expect(copy.share()).toMatchObject({ kind: 'shm', dtype: 'float32', shape: [values.length] });
      expect(copy.toArray()).toEqual(values);
      copy.data[0] = 100; // a copy: the source is untouched
      expect(t.toArray()).toEqual(values);
      copy.dispose();
    }
    imported.dispose(); // the producer's deleter runs here, once
    expect(producer.calls(ptr)).toBe(1);
    local.dispose();
  });

  test('toShared() of a strided view is a contiguous shared copy; of a shared tensor, a new tensor over it', () => {
    const t = dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'int16' });
    const c = t.permute(1, 0).toShared();
    expect(c.share()).toMatchObject({ kind: 'shm', shape: [3, 2], strides: [2, 1], dataSize: 12 });
    expect(c.toArray()).toEqual([[1, 4], [2, 5], [3, 6]]);
    // Already shared: a new tensor over the same memory, never c (disposing it leaves c alive).
    const again = c.toShared();
    expect(again).not.toBe(c);
    expect(again.share().name).toBe(c.share().name);
    again.dispose();
    expect(c.toArray()).toEqual([[1, 4], [2, 5], [3, 6]]);
    expect(t.share.bind(t)).toThrow(/shareMemory\(\).*toShared\(\)/);
    expect(() => t.shareMemory(1)).toThrow(/at most 0 arguments/);
    c.dispose();
    t.dispose();
    expect(() => t.shareMemory()).toThrow(/disposed/);
    expect(() => t.toShared()).toThrow(/disposed/);
  });
});
