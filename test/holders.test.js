'use strict';
// Memory lives while anything holds it (docs/API.md "Lifetimes"): every tensor over
// memory the library owns is a holder of that memory however it was made
// (fromBuffer of its buffer, dl.open, views, exports), and a toPointer()
// struct keeps it alive until its deleter runs. The native consumer
// (test/native/consumer.cc) reads through the struct as a C library would;
// under the sanitizer build a read of freed memory is an ASan report.
const { spawnSync } = require('child_process');
const path = require('path');
const dl = require('../lib');
const { consumer, producer, collect, nativeStats } = require('./helpers');

const floats = (buffer) => Array.from(new Float32Array(buffer.buffer, buffer.byteOffset, buffer.length / 4));
const capsuleOf = (ptr) => dl.DLPackCapsule.fromPointer(ptr, { versioned: true });
const iota = (n, options) => {
  const t = dl.empty([n], options);
  for (let i = 0; i < n; i++) t.data[i] = i + 1;
  return t;
};

describe.each([
  ['JS memory (dl.zeros)', {}],
  ['shared memory (dl.empty, shared: true)', { shared: true }],
])('%s: holders of the same memory', (_, options) => {
  test('fromBuffer(t.buffer) is a holder: t.dispose() leaves it readable', () => {
    const t = iota(8, options);
    const u = dl.fromBuffer(t.buffer, { dtype: 'float32' });
    t.dispose();
    expect(Array.from(u.data)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    u.dispose();
  });

  test('fromBuffer(t.buffer, { strides }) is a holder too', () => {
    const t = iota(8, options);
    const u = dl.fromBuffer(t.buffer, { dtype: 'float32', shape: [2, 4], strides: [1, 2] });
    t.dispose();
    expect(u.toArray()).toEqual([[1, 3, 5, 7], [2, 4, 6, 8]]);
    u.dispose();
  });

  test('fromBuffer(t.data) is a holder too (a view\'s buffer is the same memory)', () => {
    const t = iota(8, options);
    const u = dl.fromBuffer(t.data.subarray(2), { dtype: 'float32' });
    t.dispose();
    expect(u.toArray()).toEqual([3, 4, 5, 6, 7, 8]);
    u.dispose();
  });

  test('a toPointer() struct from fromBuffer(t.buffer) outlives t: read, write, import, delete', async () => {
    const t = iota(1024, options);
    const u = dl.fromBuffer(t.buffer, { dtype: 'float32' });
    const p = u.__dlpack__().toPointer();
    t.dispose();
    u.dispose();
    await collect();
    expect(floats(consumer.read(p, true)).slice(0, 4)).toEqual([1, 2, 3, 4]);
    consumer.write(p, true, 0, 0); // low byte of 1.0f: still 1, written through the struct
    const back = dl.fromDLPack(capsuleOf(p));
    expect(back.toArray().slice(0, 3)).toEqual([1, 2, 3]);
    back.dispose();
  });

  test('the memory goes when the last holder (the struct) goes', async () => {
    const before = nativeStats();
    const t = iota(16, options);
    const u = dl.fromBuffer(t.buffer, { dtype: 'float32' });
    const p = u.__dlpack__().toPointer();
    t.dispose();
    u.dispose();
    await collect();
    expect(floats(consumer.read(p, true))[3]).toBe(4); // the struct still pins it
    consumer.delete(p, true);
    await collect();
    expect(nativeStats().jsKeepaliveLive).toBe(before.jsKeepaliveLive);
    expect(nativeStats().managedLive).toBe(before.managedLive);
  });
});

test('a disposed tensor\'s memory is still detached when nothing else holds it', () => {
  const t = iota(8);
  const view = t.data;
  const u = dl.fromBuffer(t.buffer, { dtype: 'float32' });
  u.dispose();
  expect(view.length).toBe(8); // t still holds it
  t.dispose();
  expect(view.length).toBe(0);
});

test('shared memory read natively after its tensors were disposed: no crash (a child process)', () => {
  // Before the fix the segment was unmapped under the struct: SIGSEGV.
  const script = `
    const dl = require(${JSON.stringify(path.join(__dirname, '..', 'lib'))});
    const { consumer } = require(${JSON.stringify(path.join(__dirname, 'helpers'))});
    const t = dl.empty([1024], { shared: true });
    t.data.fill(3);
    const u = dl.fromBuffer(t.buffer, { dtype: 'float32' });
    const p = u.__dlpack__().toPointer();
    t.dispose();
    u.dispose();
    const bytes = consumer.read(p, true);
    consumer.delete(p, true);
    console.log(new Float32Array(bytes.buffer, bytes.byteOffset, 1024).every((x) => x === 3));`;
  const result = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 30000 });
  expect({ signal: result.signal, status: result.status, stdout: result.stdout })
    .toEqual({ signal: null, status: 0, stdout: 'true\n' });
});

test('imported pinned memory (kDLCUDAHost): fromBuffer(t.buffer) holds it, on its device', () => {
  const ptr = producer.make({ shape: [4], strides: [1], code: 2, bits: 32, deviceType: 3 });
  const t = dl.fromDLPack(capsuleOf(ptr));
  t.data.set([1, 2, 3, 4]);
  const u = dl.fromBuffer(t.buffer, { dtype: 'float32' });
  expect(String(u.device)).toBe('cuda_host');
  const p = u.__dlpack__().toPointer();
  t.dispose();
  u.dispose();
  expect(producer.calls(ptr)).toBe(0); // the struct still holds the producer's memory
  expect(floats(consumer.read(p, true))).toEqual([1, 2, 3, 4]);
  consumer.delete(p, true);
  expect(producer.calls(ptr)).toBe(1);
});

// Issue 20, MEDIUM 6: holders are per memory, not per load of lib/. Two loads in one
// thread: load B's fromBuffer(t.buffer) + toPointer() holds load A's memory, so A's
// dispose() neither detaches the buffer nor recycles it into A's next copy.
test('another load\'s fromBuffer(t.buffer) and toPointer() hold the memory: dispose() does not recycle it', () => {
  let other;
  jest.isolateModules(() => { other = require('../lib'); });
  const n = 1 << 20; // 4 MiB of float32: a buffer the library recycles (lib/memory.js)
  const t = dl.empty([n], { dtype: 'float32' });
  t.data.fill(2);
  const u = other.fromBuffer(t.buffer, { dtype: 'float32' });
  const p = u.__dlpack__().toPointer();
  u.dispose();
  t.dispose();
  const c = dl.zeros([n], { dtype: 'float32' }).clone(); // would take a recycled 4 MiB buffer
  c.data.fill(1.7e38);
  const back = dl.fromDLPack(capsuleOf(p));
  expect(back.data[0]).toBe(2);
  expect(back.data[n - 1]).toBe(2);
  back.dispose();
  c.dispose();
});
