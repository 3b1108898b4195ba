'use strict';
const dl = require('../lib');
const { producer, collect, nativeStats } = require('./helpers');

// Both CUDA branches of the dlDevice test run somewhere: CI has no GPU, scripts/gpu-check.sh has one.
const hasGpu = dl.capabilities().cuda.available;

const FLAG_READ_ONLY = 1;
const FLAG_IS_COPIED = 2;

// A read-only tensor can only come from a producer that says so.
function readOnlyTensor() {
  const ptr = producer.make({ shape: [3], strides: [1], code: 2, bits: 32, flags: FLAG_READ_ONLY });
  return dl.fromDLPack(dl.DLPackCapsule.fromPointer(ptr, { versioned: true }));
}

// Export, hand the pointer to C, and return what C sees; releases it after.
function exported(t, options) {
  const capsule = t.__dlpack__(options);
  const versioned = capsule.versioned;
  const ptr = capsule.toPointer();
  const seen = producer.inspect(ptr, versioned);
  return { seen, ptr, versioned, release: () => producer.release(ptr, versioned) };
}

describe('__dlpack__ / toDLPack', () => {
  test('versioned by default: version 1.3, fields as DLPack requires', () => {
    const t = dl.fromBuffer(new ArrayBuffer(40), { dtype: 'int16', offset: 8, shape: [4, 4] });
    const { seen, release } = exported(t);
    expect(seen).toMatchObject({
      major: 1, minor: 3, flags: 0, hasDeleter: true, deviceType: 1, deviceId: 0, ndim: 2, code: 0, bits: 16,
      lanes: 1, shape: [4, 4], strides: [4, 1], byteOffset: 0, shapeIsNull: false, stridesIsNull: false,
    });
    // data points at the first element: zero-copy
    expect(seen.data).toBe(producer.address(new Uint8Array(t.buffer)) + 8n);
    release();
  });

  test('dl.toDLPack and to_dlpack are the same call', () => {
    expect(dl.to_dlpack).toBe(dl.toDLPack);
    const capsule = dl.toDLPack(dl.tensor([1]), { maxVersion: [0, 8] });
    expect(capsule.versioned).toBe(false);
    expect(capsule.version).toEqual({ major: 0, minor: 0 });
    capsule.dispose();
  });

  test.each([[[1, 0], true], [[1, 3], true], [[10, 10], true], [[0, 8], false], [[0, 0], false]])(
    'maxVersion %j gives versioned=%s', (maxVersion, versioned) => {
      const capsule = dl.tensor([1, 2]).__dlpack__({ maxVersion });
      expect(capsule.versioned).toBe(versioned);
      capsule.dispose();
    });

  test('legacy export is a DLManagedTensor a C consumer can read', () => {
    const t = dl.tensor([[1, 2, 3]], { dtype: 'float64' });
    const { seen, release } = exported(t, { maxVersion: [0, 8] });
    expect(seen.major).toBeUndefined();
    expect(seen).toMatchObject({ ndim: 2, code: 2, bits: 64, shape: [1, 3], strides: [3, 1] });
    release();
  });

  test('0-d exports NULL shape and strides; zero-size exports NULL data', () => {
    const scalar = exported(dl.tensor(4));
    expect(scalar.seen).toMatchObject({ ndim: 0, shapeIsNull: true, stridesIsNull: true });
    expect(producer.readBytes(scalar.ptr, true, 0, 4).readFloatLE(0)).toBe(4);
    scalar.release();
    const empty = exported(dl.zeros([3, 0]));
    expect(empty.seen).toMatchObject({ ndim: 2, shape: [3, 0], strides: [1, 1], data: 0n });
    empty.release();
  });

  test('strides of size-1 dims are not rewritten; negative strides export as they are', () => {
    const ptr = producer.make({ shape: [3, 1], strides: [-1, 7], byteOffset: 8, code: 2, bits: 32, fill: true });
    const t = dl.fromDLPack(dl.DLPackCapsule.fromPointer(ptr, { versioned: true }));
    const { seen, release } = exported(t);
    expect(seen.strides).toEqual([-1, 7]);
    expect(seen.byteOffset).toBe(0);
    release();
  });

  test('read-only tensors: versioned sets READ_ONLY, legacy is refused (row E03), copyFrom too (T12)', () => {
    const t = readOnlyTensor();
    expect(t.readOnly).toBe(true);
    const { seen, release } = exported(t);
    expect(seen.flags).toBe(FLAG_READ_ONLY);
    release();
    const before = t.toArray();
    expect(() => t.__dlpack__({ maxVersion: [0, 8] })).toThrow();
    expect(() => t.copyFrom([1, 2, 3])).toThrow();
    expect(t.toArray()).toEqual(before);
    exported(t).release(); // still exports
  });

  test('copy: true copies and sets IS_COPIED; copy: false never copies', () => {
    const t = dl.tensor([1, 2, 3]);
    const copied = exported(t, { copy: true });
    expect(copied.seen.flags).toBe(FLAG_IS_COPIED);
    expect(copied.seen.data).not.toBe(producer.address(t.data));
    producer.writeByte(copied.ptr, true, 0, 0xff);
    expect(t.data[0]).toBe(1);
    copied.release();
    const shared = exported(t, { copy: false });
    expect(shared.seen.flags).toBe(0);
    expect(shared.seen.data).toBe(producer.address(t.data));
    shared.release();
    const ro = readOnlyTensor();
    const roCopy = exported(ro, { copy: true, maxVersion: [0, 8] }); // a copy is writable: legacy is fine
    roCopy.release();
  });

  // Refusals: rows E04-E07 of docs/errors.md (test/bad-input/e-export.test.js).
  test('dlDevice: CPU is accepted, CUDA copies where a device is usable, unknown types are refused', () => {
    const t = dl.tensor([1]);
    exported(t, { dlDevice: [1, 0] }).release();
    if (hasGpu) {
      const { seen, release } = exported(t, { dlDevice: [2, 0] });
      expect(seen).toMatchObject({ deviceType: 2, deviceId: 0, flags: FLAG_IS_COPIED, shape: [1] });
      release();
    } else {
      expect(() => t.__dlpack__({ dlDevice: [2, 0] })).toThrow();
    }
    expect(() => t.__dlpack__({ dlDevice: [2, 0], copy: false })).toThrow(); // a device change is a copy
    expect(() => t.__dlpack__({ dlDevice: [10, 0] })).toThrow();
    expect(() => t.__dlpack__({ dlDevice: 'cpu' })).toThrow();
    exported(t, { dlDevice: [1, 0], copy: false }).release();
  });

  test('stream: CPU tensors accept only undefined (row E09)', () => {
    const t = dl.tensor([1]);
    for (const stream of [0, 1, 2, -1, 5n, null]) expect(() => t.__dlpack__({ stream })).toThrow();
    t.__dlpack__({ stream: undefined }).dispose();
  });

  test('bad options export nothing and leave the tensor exportable (rows E01, E02, E08)', () => {
    const t = dl.tensor([1]);
    for (const options of [5, { maxVersion: 1 }, { maxVersion: [1] }, { copy: 'yes' }]) {
      expect(() => t.__dlpack__(options)).toThrow();
    }
    exported(t).release();
    expect(t.toArray()).toEqual([1]);
  });

  test('writes are shared both ways between JS and a C consumer', () => {
    const t = dl.tensor([0, 0, 0, 0], { dtype: 'uint8' });
    const { ptr, release } = exported(t);
    producer.writeByte(ptr, true, 2, 42);
    expect(t.data[2]).toBe(42);
    t.data[3] = 7;
    expect(producer.readBytes(ptr, true, 3, 1)[0]).toBe(7);
    release();
  });

  test('a capsule keeps the source buffer alive after every JS reference is gone', async () => {
    let t = dl.tensor(new Float64Array([1.25, 2.5]));
    const capsule = t.__dlpack__();
    t = null;
    await collect();
    const u = dl.fromDLPack(capsule);
    expect(u.toArray()).toEqual([1.25, 2.5]);
  });

  test('__dlpack_device__ gives [1, 0] for CPU', () => {
    expect(dl.zeros([1]).__dlpack_device__()).toEqual([1, 0]);
    expect(nativeStats().managedLive).toBeGreaterThanOrEqual(0);
  });
});
