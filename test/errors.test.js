'use strict';
const path = require('path');
const { execFileSync } = require('child_process');
const dl = require('../lib');
const { expectError, producer } = require('./helpers');

describe('error classes', () => {
  test('DLPackError and CudaError are exported, with name and code', () => {
    const e = new dl.DLPackError('boom', 'ERR_DLPACK_CONSUMED');
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('DLPackError');
    expect(e.code).toBe('ERR_DLPACK_CONSUMED');
    const c = new dl.CudaError('no', 'ERR_DLPACK_CUDA', 'cudaErrorMemoryAllocation');
    expect(c).toBeInstanceOf(dl.DLPackError);
    expect(c.name).toBe('CudaError');
    expect(c.cudaError).toBe('cudaErrorMemoryAllocation');
  });

  test('native errors arrive as the JS class of their code, in this realm', () => {
    const capsule = dl.tensor([1]).__dlpack__();
    const ptr = capsule.toPointer();
    const e = expectError(() => dl.fromDLPack(capsule), dl.DLPackError, 'ERR_DLPACK_CONSUMED');
    expect(e.message).toMatch(/Expected an unconsumed DLPackCapsule, received/);
    producer.release(ptr, true);
  });

  test('messages name the argument, the expectation and what was received', () => {
    const e = expectError(() => dl.fromBuffer('abc', { dtype: 'uint8' }), TypeError, 'ERR_INVALID_ARG_TYPE');
    expect(e.message).toBe(
      'Expected an ArrayBuffer, SharedArrayBuffer, TypedArray, DataView or Buffer for `source`, ' +
      'received type string ("abc")');
    const r = expectError(() => dl.fromBuffer(new ArrayBuffer(4), { dtype: 'uint8', offset: 9 }), RangeError,
      'ERR_OUT_OF_RANGE');
    expect(r.message).toBe('Expected an integer from 0 to 4 (the byte length) for `options.offset`, received 9');
  });
});

describe('module entry points', () => {
  test('CommonJS exposes the whole surface, with snake_case aliases', () => {
    for (const name of ['dtypes', 'dlpackVersion', 'Tensor', 'DLPackCapsule', 'DLPackError', 'CudaError',
      'fromBuffer', 'frombuffer', 'empty', 'zeros', 'tensor', 'fromDLPack', 'from_dlpack', 'toDLPack',
      'to_dlpack', 'cuda']) {
      expect(dl[name]).toBeDefined();
    }
    expect(dl.frombuffer).toBe(dl.fromBuffer);
  });

  test('ESM import gives the same objects as require', () => {
    const root = path.join(__dirname, '..');
    const script = `
      import * as esm from 'dlpack';
      import { createRequire } from 'node:module';
      const cjs = createRequire(import.meta.url)('dlpack');
      const same = ['fromBuffer', 'Tensor', 'DLPackCapsule', 'dtypes', 'DLPackError'].every((k) => esm[k] === cjs[k]);
      const t = esm.fromDLPack(esm.tensor([1, 2, 3]).__dlpack__());
      console.log(same, esm.default === cjs, t.toArray().join(','));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
    expect(out.trim()).toBe('true true 1,2,3');
  });
});

// Issue 20, HIGH 3: a Node-API throw stays pending in Node-API while Node rethrows
// it, and a GC in between runs our finalizers (they run inside GC), which Node
// then takes for the finalizer's own uncaught exception: a V8 fatal error. So no
// binding throws: it returns a marker and keeps its error, and lib/binding.js
// throws it from JavaScript (the storm in lifetime.test.js is the crash itself).
describe('native failures are thrown from JavaScript, never through Node-API', () => {
  const addon = require('../lib/load').load();
  const FAILED = Symbol.for('dlpack.nativeFailure');

  test('a failing binding returns the marker; takeError() gives its coded error once', () => {
    expect(addon.storageLength({})).toBe(FAILED);
    const error = addon.takeError();
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
    expect(addon.takeError()).toBeUndefined();
  });

  test('lib/ sees the same call throw, with the same error', () => {
    const { native } = require('../lib/binding');
    expect(() => native.storageLength({})).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }));
    expect(addon.takeError()).toBeUndefined();
  });

  test('a coded refusal deep in native code (a stale open) is thrown the same way', () => {
    const t = dl.empty([4], { dtype: 'int32', shared: true });
    const descriptor = t.share();
    t.dispose();
    expect(() => dl.open(descriptor)).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_DISPOSED' }));
    expect(addon.takeError()).toBeUndefined();
  });
});

// Issue 37, finding 8: native code builds errors with the makeError the last
// init() registered (one per environment), so after a second load of lib/ in
// one thread the first load's native errors were the second load's classes.
// Each load now throws its own classes (lib/errors.js adopt), as two copies
// of a package would: an error is `instanceof` the DLPackError of the dl that
// threw it, not the other's.
describe('two loads of lib/ in one thread', () => {
  let other;
  beforeAll(() => {
    jest.isolateModules(() => { other = require('../lib'); });
  });

  test('a native error is an instance of the throwing load\'s class, for either load', () => {
    expect(other.DLPackError).not.toBe(dl.DLPackError);
    // A refusal made in native code: the open of a segment whose tensor was disposed.
    const staleOpen = (lib) => {
      const t = lib.empty([4], { dtype: 'int32', shared: true });
      const descriptor = t.share();
      t.dispose();
      try {
        lib.open(descriptor);
      } catch (e) {
        return e;
      }
      throw new Error('dl.open() of a released segment did not throw');
    };
    const first = staleOpen(dl); // the first load, after the second registered its factory
    expect(first).toBeInstanceOf(dl.DLPackError);
    expect(first).not.toBeInstanceOf(other.DLPackError);
    expect(first.code).toBe('ERR_DLPACK_DISPOSED');
    const second = staleOpen(other);
    expect(second).toBeInstanceOf(other.DLPackError);
    expect(second).not.toBeInstanceOf(dl.DLPackError);
  });

  test('the same for an asynchronous op\'s rejection and a builtin class (RangeError)', async () => {
    for (const lib of [dl, other]) {
      const t = lib.tensor([1, 2, 3, 4]);
      const view = lib.fromBuffer(t.buffer, { dtype: 'float32' });
      const p = view.sum(0, { async: true });
      await expect(p).resolves.toBeDefined();
      const e = expectError(() => lib.fromBuffer(new ArrayBuffer(4), { dtype: 'uint8', offset: 9 }), RangeError,
        'ERR_OUT_OF_RANGE');
      expect(e).toBeInstanceOf(RangeError);
    }
    // A rejection made natively, once the job has run: the engine refusing
    // a dtype (bool sub; lib/ops.js refuses it before, so the wrapper is
    // called directly).
    const { elementwise, opCodes } = require('../lib/binding');
    const { infos } = require('../lib/dtypes');
    const bytes = new Uint8Array(2);
    const rejected = elementwise(opCodes.sub, infos.bool.index, [2], bytes, 0, [1],
      [{ memory: bytes, offset: 0, strides: [1] }, 1], 0);
    const error = await rejected.then(() => null, (e) => e);
    expect(error).toBeInstanceOf(dl.DLPackError);
    expect(error).not.toBeInstanceOf(other.DLPackError);
    expect(error.code).toBe('ERR_DLPACK_UNSUPPORTED');
  });
});
