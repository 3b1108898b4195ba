'use strict';
// What an { async: true } job may use while JavaScript runs on (docs/API.md
// "Off the event loop"; issue 37, findings 1, 2 and 9): no in-flight op
// touches memory JavaScript can free. Every async host form goes through one
// rule (lib/storage.js Storage#jobStages): native memory is held by the job,
// the library's small ArrayBuffers are staged, SharedArrayBuffers and
// WebAssembly memory are used in place, and a caller's own ArrayBuffer is
// refused with ERR_DLPACK_DETACHABLE (docs/errors.md O14). Each mechanism
// that takes a buffer away runs in a child process, which crashed (SIGSEGV in
// a release build, heap-use-after-free under ASan) before the rule.
const path = require('path');
const { spawnSync } = require('child_process');
const dl = require('../lib');
const { NATIVE_MIN, releaseRecycled } = require('../lib/memory');
const { collect, nativeStats, EXIT_SAFE_FLAGS } = require('./helpers');

const FIXTURES = path.join(__dirname, 'fixtures');

// A child of this Node, failing fast if it hangs or dies.
function child(args, { timeout = 120000, env = process.env } = {}) {
  const run = spawnSync(process.execPath, ['--expose-gc', ...EXIT_SAFE_FLAGS, ...args],
    { encoding: 'utf8', timeout, env });
  return { status: run.status, signal: run.signal, stderr: run.stderr, stdout: run.stdout };
}

// Under AddressSanitizer (CI's sanitizer phase preloads it), a request past
// what the machine has must come back as NULL, as glibc's malloc does.
function allowNull(env) {
  const asan = env.ASAN_OPTIONS;
  return asan === undefined ? env : { ...env, ASAN_OPTIONS: `${asan}:allocator_may_return_null=1` };
}

const FORMS = ['add', 'mulOut', 'addInPlace', 'to', 'clone', 'copyFrom', 'sum', 'max', 'softmax', 'topk', 'normalize',
  'normalizeOut'];
const WRITES = new Set(['mulOut', 'addInPlace', 'copyFrom', 'normalizeOut']);

describe('an async op whose operand\'s ArrayBuffer is taken away while it runs', () => {
  const mechanisms = ['structuredClone', 'postMessage', 'transfer', 'byob', 'resize'];
  const hasTransfer = typeof ArrayBuffer.prototype.transfer === 'function';
  it.each(mechanisms)('%s: refused for a caller\'s buffer, held or staged for library memory', (mechanism) => {
    const run = child([path.join(FIXTURES, 'async-detach.js'), mechanism]);
    expect({ status: run.status, signal: run.signal, stderr: run.stderr }).toEqual({ status: 0, signal: null,
      stderr: '' });
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.pop()).toBe('done');
    expect(lines.length).toBe(3 * (FORMS.length + WRITES.size));
    const effects = {};
    for (const { kind, form, target, effect, result } of lines) {
      const key = `${kind} ${form} ${target}`;
      let want;
      if (kind === 'caller') want = 'threw ERR_DLPACK_DETACHABLE';
      else if (effect === 'detached' && target === 'output') want = 'rejected ERR_DLPACK_DETACHED';
      else want = 'same';
      expect(`${key} [${effect}]: ${result}`).toBe(`${key} [${effect}]: ${want}`);
      if (kind !== 'caller') (effects[kind] ||= new Set()).add(effect);
    }
    // What the mechanism did to each kind, so that no case passes for want of
    // a detach: a JS buffer is detached by all but resize (the library makes
    // none resizable); a native block's (external) buffer is copied by Node
    // 20's structuredClone and postMessage and refused by Node 22's, and
    // detached by a BYOB read and transfer().
    const jsBuffer = mechanism === 'resize' || (mechanism === 'transfer' && !hasTransfer) ? 'unavailable' : 'detached';
    const external = { structuredClone: ['kept', 'refused'], postMessage: ['kept', 'refused'] }[mechanism] ||
      [jsBuffer];
    expect([...effects.heap]).toEqual([jsBuffer]);
    expect(effects.block.size).toBe(1);
    expect(external).toContain([...effects.block][0]);
    if (jsBuffer === 'unavailable') {
      console.log(`${mechanism}: library buffers cannot be taken away so on Node ${process.versions.node} ` +
        '(only the caller\'s buffer refusal ran)');
    }
  });

  it('survives worker.terminate() and process.exit() with such ops in flight', () => {
    const run = child([path.join(FIXTURES, 'async-memory-terminate.js')]);
    expect({ status: run.status, signal: run.signal, stderr: run.stderr }).toEqual({ status: 0, signal: null,
      stderr: '' });
    expect(run.stdout).toContain('terminated');
  });
});

describe('the one rule, the same in every async form', () => {
  // Each form as (x, options): options { async: true }, or undefined for the
  // synchronous form.
  const forms = {
    'dl.add': (x, o) => dl.add(x, 1, o),
    'out': (x, o) => dl.mul(x, 2, { out: x, ...o }),
    'in place': (x, o) => dl.exp(x, { out: x, ...o }),
    'to()': (x, o) => x.to({ dtype: 'float64', ...o }),
    'clone()': (x, o) => x.clone(o),
    'contiguous()': (x, o) => x.transpose(0, 1).contiguous(o),
    'copyFrom()': (x, o) => dl.zeros(x.shape).copyFrom(x, o),
    'copyFrom() into': (x, o) => x.copyFrom(dl.ones(x.shape).mul(5), o),
    'sum()': (x, o) => x.sum(1, o),
    'amax()': (x, o) => x.amax(undefined, o),
    'argmax()': (x, o) => x.argmax(1, o),
    'softmax()': (x, o) => x.softmax(1, o),
    'topk()': (x, o) => x.topk(2, 1, o),
    'normalize': (x, o) => dl.normalize(x.reshape([1, 4, 4]), 1, 2, o),
    'fill_()': (x, o) => x.fill_(3, o),
  };
  const callerBuffer = () => {
    const ab = new ArrayBuffer(64);
    new Float32Array(ab).fill(4);
    return dl.fromBuffer(ab, { dtype: 'float32', shape: [4, 4] });
  };

  it.each(Object.keys(forms))('%s refuses a caller\'s ArrayBuffer at the call, nothing started', (name) => {
    const x = callerBuffer();
    let error;
    try {
      forms[name](x, { async: true });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(dl.DLPackError);
    expect(error.code).toBe('ERR_DLPACK_DETACHABLE');
    expect(error.message).toMatch(/SharedArrayBuffer.*library memory.*synchronous form/);
    expect(x.toArray()).toEqual([[4, 4, 4, 4], [4, 4, 4, 4], [4, 4, 4, 4], [4, 4, 4, 4]]); // nothing written
    expect(forms[name](x)).toBeDefined(); // the synchronous form takes it
  });

  // In place: a SharedArrayBuffer (never detached; a growable one only
  // grows), WebAssembly memory, native memory (a segment, a native block);
  // staged: library ArrayBuffers. Each gives what the synchronous form gives.
  const memories = {
    'a SharedArrayBuffer': () => dl.fromBuffer(new SharedArrayBuffer(64), { dtype: 'float32', shape: [4, 4] }),
    'a growable SharedArrayBuffer': () => dl.fromBuffer(new SharedArrayBuffer(64, { maxByteLength: 4096 }),
      { dtype: 'float32', shape: [4, 4] }),
    'WebAssembly memory': () => dl.wasm.view(new WebAssembly.Memory({ initial: 1 }), { ptr: 64, dtype: 'float32',
      shape: [4, 4] }),
    'a shared segment': () => dl.zeros([4, 4], { shared: true }),
    'a native block': () => dl.zeros([NATIVE_MIN / 64, 16]).narrow(0, 0, 4).narrow(1, 0, 4),
    'a library ArrayBuffer': () => dl.zeros([4, 4]),
  };
  // The values a form left: its result's (both tensors of a pair) and its operand's.
  const left = (result, x) => {
    const values = result && result.values ? [result.values.toArray(), result.indices.toArray()] : result.toArray();
    return { values, operand: x.toArray() };
  };
  it.each(Object.keys(memories))('every form takes %s and gives what the synchronous form gives', async (kind) => {
    for (const [name, form] of Object.entries(forms)) {
      const [a, b] = [memories[kind](), memories[kind]()];
      for (const t of [a, b]) t.copyFrom(dl.arange(16, { dtype: 'float32' }).reshape([4, 4]).add(1));
      const got = left(await form(a, { async: true }), a);
      expect([name, got]).toEqual([name, left(form(b), b)]);
    }
  });
});

describe('memory used in place', () => {
  // The claim docs/API.md makes for WebAssembly memory: memory.grow() in
  // flight detaches the old buffer object but never moves the memory (its
  // whole range is reserved up front on 64-bit targets), so the op's address
  // stays good.
  it('WebAssembly memory grown while an op runs keeps its address and gets the result', async () => {
    const { native } = require('../lib/binding');
    const memory = new WebAssembly.Memory({ initial: 64 });
    const n = (64 * 65536) / 8;
    const x = dl.wasm.view(memory, { ptr: 0, dtype: 'float32', shape: [n] });
    const y = dl.wasm.view(memory, { ptr: n * 4, dtype: 'float32', shape: [n] });
    x.copyFrom(dl.full([n], 3));
    const address = native.bytesAddress(new Uint8Array(memory.buffer));
    const p = dl.mul(x, 2, { out: y, async: true });
    memory.grow(64);
    expect(native.bytesAddress(new Uint8Array(memory.buffer))).toBe(address);
    expect(await p).toBe(y);
    expect(y.data.every((v) => v === 6)).toBe(true);
  });

  it('a growable SharedArrayBuffer grown while an op runs keeps its address and gets the result', async () => {
    const sab = new SharedArrayBuffer(1 << 20, { maxByteLength: 1 << 22 });
    const x = dl.fromBuffer(sab, { dtype: 'float32', count: 1 << 17 });
    const y = dl.fromBuffer(sab, { dtype: 'float32', offset: 1 << 19, count: 1 << 17 });
    x.copyFrom(dl.full([1 << 17], 3));
    const p = dl.mul(x, 2, { out: y, async: true });
    sab.grow(1 << 22);
    await p;
    expect(y.data.every((v) => v === 6)).toBe(true);
  });
});

describe('library memory: a native block from NATIVE_MIN bytes on, an ArrayBuffer below', () => {
  it('is a native block at and above the threshold, an ArrayBuffer below, and t.buffer an ArrayBuffer of this realm',
    async () => {
      await collect();
      releaseRecycled();
      const made = () => nativeStats().hostBlocksMade;
      const freed = () => nativeStats().hostBlocksFreed;
      const [made0, freed0] = [made(), freed()];
      const small = dl.empty([NATIVE_MIN - 1], { dtype: 'uint8' });
      expect(made()).toBe(made0);
      const large = dl.empty([NATIVE_MIN], { dtype: 'uint8' });
      expect(made()).toBe(made0 + 1);
      for (const t of [small, large]) {
        expect(t.buffer).toBeInstanceOf(ArrayBuffer);
        expect(t.data.every((v) => v === 0)).toBe(true);
      }
      // fromBuffer(t.buffer) finds the owner again: one memory, one holder count.
      const again = dl.fromBuffer(large.buffer, { dtype: 'uint8' });
      again.data[7] = 9;
      expect(large.data[7]).toBe(9);
      const view = large.data;
      large.dispose();
      expect(freed()).toBe(freed0); // `again` holds it
      expect(again.data[7]).toBe(9);
      again.dispose();
      expect(freed()).toBe(freed0 + 1); // below RECYCLE_MIN: freed, not kept
      expect(view.length).toBe(0); // its views detached first
      small.dispose();
    });

  it('dispose() in flight lets go of the tensors; the block is freed once the op settles', async () => {
    await collect();
    const before = nativeStats();
    const x = dl.full([1 << 20], 2);
    const p = dl.mul(x, x, { async: true });
    const q = x.sum(undefined, { async: true });
    x.dispose();
    expect(nativeStats().hostBlocksLive).toBeGreaterThan(before.hostBlocksLive); // held while in flight
    const [r, s] = await Promise.all([p, q]);
    expect(r.data[12345]).toBe(4);
    expect(s.item()).toBe(2 * (1 << 20));
    r.dispose();
    s.dispose();
    releaseRecycled();
    await collect();
    const after = nativeStats();
    expect(after.hostBlocksLive).toBe(before.hostBlocksLive);
    expect(after.hostBlocksMade - before.hostBlocksMade).toBe(after.hostBlocksFreed - before.hostBlocksFreed);
  });

  it('a tensor whose ArrayBuffer a BYOB read took reads as detached, and its block lives for the new owner',
    async () => {
      const t = dl.full([1 << 16], 7);
      const stream = new ReadableStream({ type: 'bytes', pull(c) { c.close(); c.byobRequest.respond(0); } });
      const read = stream.getReader({ mode: 'byob' }).read(new Uint8Array(t.buffer));
      expect(t.buffer.byteLength).toBe(0);
      expect(() => t.toArray()).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_DETACHED' }));
      expect(() => dl.add(t, 1)).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_DETACHED' }));
      expect(() => dl.add(t, 1, { async: true })).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_DETACHED' }));
      expect(() => t.__dlpack__()).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_DETACHED' }));
      t.dispose(); // the block is not freed under the buffer's new owner
      await collect();
      const { value } = await read;
      expect(new Float32Array(value.buffer)[65535]).toBe(7);
    });

  it('shareMemory() moves a block nothing else holds, and refuses one a DLPack struct points at', () => {
    const t = dl.full([1 << 16], 3);
    expect(t.shareMemory().share().kind).toBe('shm');
    expect(t.data[100]).toBe(3);
    const u = dl.full([1 << 16], 3);
    expect(() => u.share()).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_UNSUPPORTED' }));
    const pointer = u.__dlpack__().toPointer();
    expect(() => u.shareMemory()).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_COPY_REQUIRED',
      message: expect.stringMatching(/toPointer/) }));
    dl.DLPackCapsule.fromPointer(pointer, { versioned: true }).dispose();
    t.dispose();
    u.dispose();
  });
});

describe('an allocation failure inside the engine (issue 37, findings 2 and 9)', () => {
  it.each([1, 2, 4])('topk of rows of 2^40 elements is ERR_DLPACK_OUT_OF_MEMORY sync and async on %i threads, ' +
    'and the process goes on', (threads) => {
    const run = child([path.join(FIXTURES, 'topk-oom.js'), String(threads)], { env: allowNull(process.env) });
    // Under ASan the refused request is also a warning line: the one thing allowed on stderr.
    const stderr = run.stderr.split('\n').filter((l) => !/AddressSanitizer failed to allocate/.test(l)).join('\n');
    expect({ status: run.status, signal: run.signal, stderr }).toEqual({ status: 0, signal: null, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ sync: 'DLPackError ERR_DLPACK_OUT_OF_MEMORY',
      async: 'DLPackError ERR_DLPACK_OUT_OF_MEMORY', after: [1, 2, 3, 4, 5, 6, 7, 8], threads });
  });
});
