'use strict';
const dl = require('../lib');
const { producer, native, expectError, collect } = require('./helpers');

const capsuleOf = (ptr, versioned = true) => dl.DLPackCapsule.fromPointer(ptr, { versioned });
// Row-major strides unless the case says otherwise (null means NULL).
function rowMajor(shape) {
  const strides = [];
  let step = 1;
  for (let i = shape.length - 1; i >= 0; i--) { strides[i] = step; step *= Math.max(shape[i], 1); }
  return strides;
}
function make(options) {
  const merged = { code: 2, bits: 32, shape: [4], ...options };
  if (merged.strides === undefined) merged.strides = rowMajor(merged.shape);
  return producer.make(merged);
}

// Run `fn` with a producer tensor and check the deleter ran exactly once after.
async function deletedOnce(fn) {
  await collect(); // earlier tests' garbage must not be counted here
  const before = producer.stats();
  await fn();
  await collect();
  const after = producer.stats();
  expect(after.deleterCalls - before.deleterCalls).toBe(after.made - before.made);
  expect(after.doubleDeletes).toBe(before.doubleDeletes);
}

describe('fromDLPack: zero-copy import of foreign memory', () => {
  test('versioned and legacy capsules; memory shared both ways', async () => {
    for (const versioned of [true, false]) {
      await deletedOnce(() => {
        const ptr = make({ versioned, fill: true, bits: 8, code: 1, shape: [2, 3] });
        const t = dl.fromDLPack(capsuleOf(ptr, versioned));
        expect(t.shape).toEqual([2, 3]);
        expect(t.dtype).toBe('uint8');
        expect(t.toArray()).toEqual([[0, 1, 2], [3, 4, 5]]);
        producer.writeByte(ptr, versioned, 1, 99);
        expect(t.data[1]).toBe(99);
        t.data[0] = 50;
        expect(producer.readBytes(ptr, versioned, 0, 1)[0]).toBe(50);
        expect(t.readOnly).toBe(false);
        expect(t.isCopy).toBe(false);
        t.dispose();
      });
    }
  });

  test('from_dlpack is the same function', () => {
    expect(dl.from_dlpack).toBe(dl.fromDLPack);
  });

  test('honours byte_offset', async () => {
    await deletedOnce(() => {
      const ptr = make({ byteOffset: 8, fill: true, bits: 8, code: 1, shape: [3], strides: [1] });
      expect(dl.fromDLPack(capsuleOf(ptr)).toArray()).toEqual([8, 9, 10]);
    });
  });

  test('accepts NULL strides as row-major from legacy and < 1.2 producers', async () => {
    await deletedOnce(() => {
      const legacy = dl.fromDLPack(capsuleOf(make({ shape: [2, 3], strides: null, versioned: false }), false));
      expect(legacy.strides).toEqual([3, 1]);
      const v11 = dl.fromDLPack(capsuleOf(make({ shape: [2, 3], strides: null, minor: 1 })));
      expect(v11.strides).toEqual([3, 1]);
    });
  });

  test('zero-size and 0-d tensors (NULL data, NULL shape)', async () => {
    await deletedOnce(() => {
      const empty = dl.fromDLPack(capsuleOf(make({ shape: [1, 8, 0, 128], strides: [0, 0, 0, 0], nullData: true })));
      expect(empty.shape).toEqual([1, 8, 0, 128]);
      expect(empty.size).toBe(0);
      expect(empty.data.length).toBe(0);
      const scalar = dl.fromDLPack(capsuleOf(make({ shape: [], strides: null, fill: true, bits: 8, code: 0 })));
      expect(scalar.ndim).toBe(0);
      expect(scalar.toArray()).toBe(0);
    });
  });

  test('negative and zero strides', async () => {
    await deletedOnce(() => {
      // data points at the last byte; stride -1 walks backwards
      const ptr = make({ shape: [4], strides: [-1], byteOffset: 3, fill: true, bits: 8, code: 1, bytes: 4 });
      const t = dl.fromDLPack(capsuleOf(ptr));
      expect(t.toArray()).toEqual([3, 2, 1, 0]);
      expect(Array.from(t.contiguous().data)).toEqual([3, 2, 1, 0]);
      const b = dl.fromDLPack(capsuleOf(make({ shape: [3, 2], strides: [0, 1], fill: true, bits: 8, code: 1 })));
      expect(b.toArray()).toEqual([[0, 1], [0, 1], [0, 1]]);
    });
  });

  test('size-1 dims with odd strides import fine', async () => {
    await deletedOnce(() => {
      const t = dl.fromDLPack(capsuleOf(make({ shape: [10, 5, 1], strides: [5, 1, 7], code: 2, bits: 64 })));
      expect(t.isContiguous).toBe(true);
      expect(t.data.length).toBe(50);
    });
  });

  test('READ_ONLY gives a readOnly tensor; IS_COPIED gives isCopy', async () => {
    await deletedOnce(() => {
      expect(dl.fromDLPack(capsuleOf(make({ flags: 1 }))).readOnly).toBe(true);
      expect(dl.fromDLPack(capsuleOf(make({ flags: 2 }))).isCopy).toBe(true);
    });
  });

  test('CUDA host and managed memory import as CPU-accessible tensors', async () => {
    await deletedOnce(() => {
      const pinned = dl.fromDLPack(capsuleOf(make({ deviceType: 3 })));
      expect(String(pinned.device)).toBe('cuda_host');
      expect(pinned.__dlpack_device__()).toEqual([3, 0]);
      expect(pinned.data.length).toBe(4);
      const managed = dl.fromDLPack(capsuleOf(make({ deviceType: 13 })));
      expect(String(managed.device)).toBe('cuda_managed');
      expect(managed.to('cpu').device.type).toBe('cpu');
    });
  });

  test('zero-copy: the typed view reads the producer\'s memory', () => {
    const ptr = make({ shape: [2] });
    const t = dl.fromDLPack(capsuleOf(ptr));
    expect(producer.address(t.data)).toBe(producer.inspect(ptr, true).data);
  });
});

describe('fromDLPack: the checklist, in order; a failed import does not consume', () => {
  const cases = [
    ['ndim 65', { shape: new Array(65).fill(1), strides: new Array(65).fill(1) }, /ndim between 0 and 64.*65/],
    ['ndim -1', { shape: [], ndim: -1 }, /ndim.*-1/],
    ['OpenCL device', { deviceType: 4 }, /device type 4/],
    ['lanes 4', { lanes: 4 }, /lanes 1.*received 4/],
    ['unknown dtype code 3', { code: 3, bits: 32 }, /code 3 bits 32/],
    ['float with 8 bits', { code: 2, bits: 8 }, /code 2 bits 8/],
    ['bool with 16 bits', { code: 6, bits: 16 }, /code 6 bits 16/],
    ['NULL shape with ndim 2', { shape: [2, 2], nullShape: true }, /shape array.*NULL/],
    ['negative dim', { shape: [2, -3], bytes: 8 }, /shape\[1\].*-3/],
    ['NULL strides from a 1.3 producer', { shape: [2, 2], strides: null }, /strides.*NULL/],
    ['overflowing stride', { shape: [2, 2], strides: [2 ** 62, 1] }, /stride/],
    ['NULL data for a non-empty tensor', { nullData: true }, /non-NULL data/],
    ['byte_offset that wraps', { byteOffset: 2n ** 64n - 8n }, /byte_offset/],
  ];

  test.each(cases)('%s: refused (rows L02-L15), capsule not consumed, deleter not called', async (_, options, pattern) => {
    const ptr = make(options);
    const capsule = capsuleOf(ptr);
    expect(() => dl.fromDLPack(capsule)).toThrow(pattern);
    expect(capsule.consumed).toBe(false);
    expect(producer.calls(ptr)).toBe(0);
    capsule.dispose(); // the capsule still owns it; dispose calls the deleter once
    expect(producer.calls(ptr)).toBe(1);
  });

  (dl.capabilities().cuda.compiled ? test.skip : test)(
    'CUDA device memory in a build without CUDA: refused (row D10), not consumed', () => {
      const ptr = make({ deviceType: 2, deviceId: 1 });
      const capsule = capsuleOf(ptr);
      expect(() => dl.fromDLPack(capsule)).toThrow(/device type 2/);
      expect(capsule.consumed).toBe(false);
      capsule.dispose();
      expect(producer.calls(ptr)).toBe(1);
    });

  test('major version 2: refused (row L01), the deleter is called, nothing else is read', () => {
    const ptr = make({ major: 2, minor: 99, garbageAfterVersion: true });
    const capsule = capsuleOf(ptr);
    expect(capsule.version).toEqual({ major: 2, minor: 99 });
    expect(() => dl.fromDLPack(capsule)).toThrow(/major version.*2/);
    expect(producer.calls(ptr)).toBe(1);
    expect(capsule.consumed).toBe(true);
    capsule.dispose();
    expect(producer.calls(ptr)).toBe(1);
  });

  test('minor version 99 of major 1 is accepted', () => {
    expect(dl.fromDLPack(capsuleOf(make({ minor: 99 }))).shape).toEqual([4]);
  });

  test('a NULL deleter is never called', () => {
    const t = dl.fromDLPack(capsuleOf(make({ nullDeleter: true })));
    t.dispose();
    expect(producer.stats().doubleDeletes).toBe(0);
  });
});

describe('fromDLPack: options and producers', () => {
  test('consuming twice is refused (rows K02, K03) and does not call the deleter again', () => {
    const ptr = make({});
    const capsule = capsuleOf(ptr);
    const t = dl.fromDLPack(capsule);
    expect(capsule.consumed).toBe(true);
    expect(() => dl.fromDLPack(capsule)).toThrow();
    expect(() => capsule.toPointer()).toThrow();
    capsule.dispose();
    expect(producer.calls(ptr)).toBe(0);
    t.dispose();
    expect(producer.calls(ptr)).toBe(1);
  });

  test('any object with __dlpack__ is a producer; it is asked for maxVersion [1, 3]', () => {
    const src = dl.tensor([1, 2, 3]);
    const requests = [];
    const foreign = { __dlpack__: (opts) => { requests.push(opts); return src.__dlpack__(opts); } };
    expect(dl.fromDLPack(foreign).toArray()).toEqual([1, 2, 3]);
    expect(requests[0]).toEqual({ maxVersion: [1, 3] });
    dl.fromDLPack(foreign, { copy: true });
    expect(requests[1]).toEqual({ maxVersion: [1, 3], copy: true });
    expect(() => dl.fromDLPack({ __dlpack__: () => 5 })).toThrow();
    expect(() => dl.fromDLPack({})).toThrow(/`x`/);
    expect(() => dl.fromDLPack(null)).toThrow();
  });

  test('a tensor of this library imports zero-copy', () => {
    const t = dl.tensor([1, 2]);
    const u = dl.fromDLPack(t);
    u.data[0] = 5;
    expect(t.data[0]).toBe(5);
    expect(u.isCopy).toBe(false);
  });

  test('copy: true gives a copy with isCopy, from a capsule or a producer', async () => {
    const t = dl.tensor([1, 2]);
    const u = dl.fromDLPack(t, { copy: true });
    expect(u.isCopy).toBe(true);
    u.data[0] = 9;
    expect(t.data[0]).toBe(1);
    await deletedOnce(() => {
      const c = dl.fromDLPack(capsuleOf(make({ fill: true, bits: 8, code: 1 })), { copy: true });
      expect(c.isCopy).toBe(true);
      expect(c.toArray()).toEqual([0, 1, 2, 3]);
    });
  });

  test('device option: cpu from pinned memory copies, unless copy: false', async () => {
    await deletedOnce(() => {
      const t = dl.fromDLPack(capsuleOf(make({ deviceType: 3 })), { device: 'cpu' });
      expect(t.device.type).toBe('cpu');
      expect(t.isCopy).toBe(true);
      expect(() => dl.fromDLPack(capsuleOf(make({ deviceType: 3 })), { device: 'cpu', copy: false })).toThrow();
    });
  });

  test('bad options (rows I03, I04) leave the capsule unconsumed and importable', () => {
    const capsule = dl.tensor([1]).__dlpack__();
    expect(() => dl.fromDLPack(capsule, { copy: 1 })).toThrow(/`copy`/);
    expect(() => dl.fromDLPack(capsule, { device: 'tpu' })).toThrow(/`device`/);
    expect(() => dl.fromDLPack(capsule, 3)).toThrow();
    expect(capsule.consumed).toBe(false);
    expect(dl.fromDLPack(capsule).toArray()).toEqual([1]);
  });
});

describe('runtimes that refuse external ArrayBuffers (V8 sandbox)', () => {
  afterEach(() => native.setExternalBuffers(true));

  test('import copies, sets isCopy, and releases the producer at once', () => {
    native.setExternalBuffers(false);
    const ptr = make({ fill: true, bits: 8, code: 1 });
    const t = dl.fromDLPack(capsuleOf(ptr));
    expect(t.isCopy).toBe(true);
    expect(t.toArray()).toEqual([0, 1, 2, 3]);
    expect(producer.calls(ptr)).toBe(1);
  });

  test('with copy: false it throws ERR_DLPACK_COPY_REQUIRED without consuming', () => {
    native.setExternalBuffers(false);
    const capsule = capsuleOf(make({}));
    // Not a row of docs/errors.md: only a runtime without external buffers gets it.
    expectError(() => dl.fromDLPack(capsule, { copy: false }), dl.DLPackError, 'ERR_DLPACK_COPY_REQUIRED');
    expect(capsule.consumed).toBe(false);
    capsule.dispose();
  });

  test('our own capsules still import zero-copy', () => {
    native.setExternalBuffers(false);
    const t = dl.tensor([1, 2]);
    const u = dl.fromDLPack(t.__dlpack__(), { copy: false });
    expect(u.buffer).toBe(t.buffer);
  });
});

describe('DLPackCapsule', () => {
  test('fromPointer refuses bad pointers and options (rows K01, K05-K07)', () => {
    expect(() => dl.DLPackCapsule.fromPointer(5, { versioned: true })).toThrow();
    expect(() => dl.DLPackCapsule.fromPointer(0n, { versioned: true })).toThrow();
    expect(() => dl.DLPackCapsule.fromPointer(2n ** 64n, { versioned: true })).toThrow();
    expect(() => dl.DLPackCapsule.fromPointer(8n)).toThrow();
    expect(() => dl.DLPackCapsule.fromPointer(8n, {})).toThrow(/versioned/);
    expect(() => new dl.DLPackCapsule()).toThrow(TypeError);
  });

  test('inspect and properties', () => {
    const capsule = dl.tensor([1]).__dlpack__();
    expect(String(capsule)).toBe('DLPackCapsule(DLManagedTensorVersioned, version=1.3)');
    expect(capsule.version).toEqual(dl.dlpackVersion);
    expect(dl.dlpackVersion).toEqual({ major: 1, minor: 3 });
    capsule.dispose();
    expect(capsule.consumed).toBe(true);
    expect(String(capsule)).toMatch(/consumed/);
  });
});

describe('fromDLPack: every number fits a JavaScript safe integer', () => {
  test('an empty tensor with a dim above 2^53 is refused, not rounded', () => {
    const ptr = producer.make({ shape: [0, 2 ** 62], strides: [1, 1], code: 2, bits: 32, nullData: true });
    const capsule = dl.DLPackCapsule.fromPointer(ptr, { versioned: true });
    expect(() => dl.fromDLPack(capsule)).toThrow(/below 2\^53/);
    capsule.dispose();
  });
});
