'use strict';
// docs/errors.md "Bad input: what each misuse throws", one test per row (issue 5,
// item 6). Each test names its row id, error class and code; the last test
// reads the table and fails when a row and a test part ways.
const fs = require('fs');
const path = require('path');
const dl = require('../lib');
const { spawn } = require('child_process');
const { producer, native, collect, expectError, nativeStats, heldSegments, PYTHON } = require('./helpers');

const caps = dl.capabilities().cuda;
// The shared-memory segments this process holds.
const segments = () => heldSegments();

// --- the table ---------------------------------------------------------------

function readTable() {
  const doc = fs.readFileSync(path.join(__dirname, '..', 'docs', 'errors.md'), 'utf8');
  if (!doc.startsWith('# Bad input')) throw new Error('docs/errors.md does not start with "# Bad input"');
  const table = new Map();
  for (const line of doc.split('\n')) {
    const m = /^\| ([A-Z]\d\d) \| (.*) \|$/.exec(line);
    if (m === null) continue;
    const cells = m[2].split(' | ');
    const outcome = cells[cells.length - 1];
    const error = /^(TypeError|RangeError|DLPackError|CudaError) `(ERR_[A-Z_]+)`$/.exec(outcome);
    if (table.has(m[1])) throw new Error(`docs/errors.md row ${m[1]} appears twice`);
    table.set(m[1], { text: cells.slice(0, -1).join(': '), error: error && { name: error[1], code: error[2] } });
  }
  return table;
}

const table = readTable();
const tested = new Map(); // id -> { name, code } the test expects

// row(id, Class, code, body, when): the test of one row. `body(throws)` calls
// `throws(fn, pattern)` for each misuse of the row; `throws` checks the class,
// the code and (where given) that the message names the argument. `when`
// gives a reason when the row cannot run here (the test is then skipped).
function row(id, Class, code, body, skipReason = null) {
  if (tested.has(id)) throw new Error(`two tests for row ${id}`);
  tested.set(id, { name: Class.name, code });
  const title = `${id} ${table.has(id) ? table.get(id).text : '(no row in docs/errors.md)'}: ${Class.name} ${code}`;
  (skipReason === null ? test : test.skip)(skipReason === null ? title : `${title} [skipped: ${skipReason}]`,
    async () => {
      let calls = 0;
      const throws = (fn, pattern) => {
        calls++;
        return expectError(fn, Class, code, pattern);
      };
      await body(throws);
      expect(calls).toBeGreaterThan(0);
    });
}

// --- helpers -------------------------------------------------------------------

// Runs `body`, then checks after GC that every producer tensor made in it was
// deleted exactly once and that no native struct, pin, share or segment is left.
async function leakFree(body) {
  await collect();
  const before = { made: producer.stats(), live: nativeStats(), shares: native.localShares(), segs: segments() };
  await body();
  await collect();
  const made = producer.stats();
  expect(made.deleterCalls - before.made.deleterCalls).toBe(made.made - before.made.made);
  expect(made.doubleDeletes).toBe(before.made.doubleDeletes);
  const after = nativeStats();
  for (const kind of ['managed', 'foreign']) { // each made in `body` was freed once
    expect(after[`${kind}Made`] - before.live[`${kind}Made`]).toBe(after[`${kind}Freed`] - before.live[`${kind}Freed`]);
  }
  const live = (stats) => Object.fromEntries(Object.entries(stats).filter(([key]) => key.endsWith('Live')));
  expect(live(after)).toEqual(live(before.live));
  expect(native.localShares()).toBe(before.shares);
  expect(segments()).toEqual(before.segs);
}

function rowMajor(shape) {
  const strides = [];
  let step = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = step;
    step *= Math.max(shape[i], 1);
  }
  return strides;
}

// A producer tensor (float32 [4], row-major, unless `options` says otherwise).
function foreign(options = {}) {
  const merged = { code: 2, bits: 32, shape: [4], ...options };
  if (merged.strides === undefined) merged.strides = rowMajor(merged.shape);
  return producer.make(merged);
}
const adopt = (ptr, versioned = true) => dl.DLPackCapsule.fromPointer(ptr, { versioned });

// A foreign capsule the import checklist must refuse: refused twice (nothing
// consumed), deleter untouched until dispose() calls it once.
function refuse(throws, options, pattern) {
  const versioned = options.versioned !== false;
  const ptr = foreign(options);
  const capsule = adopt(ptr, versioned);
  throws(() => dl.fromDLPack(capsule), pattern);
  throws(() => dl.fromDLPack(capsule, { copy: true }), pattern);
  expect(capsule.consumed).toBe(false);
  expect(producer.calls(ptr)).toBe(0);
  capsule.dispose();
  expect(producer.calls(ptr)).toBe(1);
}

// A row of such capsules, [options, pattern] each, versioned and legacy
// unless the options say which.
function lieRow(id, cases, { Class = dl.DLPackError, code = 'ERR_DLPACK_UNSUPPORTED', skip = null } = {}) {
  row(id, Class, code, (throws) => leakFree(() => {
    for (const [options, pattern] of cases) {
      for (const versioned of options.versioned === undefined ? [true, false] : [options.versioned]) {
        refuse(throws, { ...options, versioned }, pattern);
      }
    }
  }), skip);
}

// A float32 [2, 2] view with strides [1, 2] (a transpose) over a SharedArrayBuffer.
function strided() {
  const buffer = new SharedArrayBuffer(16);
  new Float32Array(buffer).set([1, 2, 3, 4]);
  return dl.open({ kind: 'sab', buffer, dtype: 'float32', shape: [2, 2], strides: [1, 2], byteOffset: 0,
    readOnly: false });
}

function readOnly(values = [1, 2, 3]) {
  const buffer = new SharedArrayBuffer(values.length * 4);
  new Float32Array(buffer).set(values);
  return dl.open({ kind: 'sab', buffer, dtype: 'float32', shape: [values.length], strides: [1], byteOffset: 0,
    readOnly: true });
}

// A kDLCUDA tensor; its "device" memory is the producer's host memory, which
// nothing may read (the point of these rows).
function cudaTensor() {
  const ptr = foreign({ shape: [2, 3], deviceType: 2, deviceId: 0 });
  return { ptr, t: dl.fromDLPack(adopt(ptr)) };
}

const onlyCompiled = caps.compiled ? null : 'built without CUDA';
const onlyNoDevice = caps.available ? 'a CUDA device is present' : null;
const onlyCompiledNoDevice = onlyCompiled || onlyNoDevice;

// --- fromBuffer ------------------------------------------------------------------

describe('fromBuffer', () => {
  row('F01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const src of ['abc', [1, 2], null, undefined, 5, {}]) {
      throws(() => dl.fromBuffer(src, { dtype: 'uint8' }), /for `source`/);
      throws(() => dl.frombuffer(src, { dtype: 'uint8' }), /for `source`/);
    }
  });

  row('F02', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const ab = new ArrayBuffer(4);
    throws(() => dl.fromBuffer(ab), /`options.dtype`/);
    throws(() => dl.fromBuffer(ab, null), /`options.dtype`/);
    throws(() => dl.fromBuffer(ab, {}), /`options.dtype`/);
    throws(() => dl.fromBuffer(ab, 'float32'), /`options.dtype`/);
  });

  row('F03', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.fromBuffer(new ArrayBuffer(4), { dtype: 'float8' }), /`options.dtype`, received.*float8/);
    throws(() => dl.fromBuffer(new ArrayBuffer(4), { dtype: 'Float32' }), /`options.dtype`/);
  });

  row('F04', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const lookalike = { ...dl.dtypes.float32 };
    for (const dtype of [3, lookalike, Float32Array, null]) {
      throws(() => dl.fromBuffer(new ArrayBuffer(4), { dtype }), /`options.dtype`/);
    }
  });

  row('F05', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const offset of ['4', 4n, null]) {
      throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', offset }), /`options.offset`/);
    }
  });

  row('F06', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', offset: -1 }), /`options.offset`/);
    throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', offset: 9 }), /`options.offset`, received 9/);
    throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', offset: 1.5 }), /`options.offset`, received 1.5/);
    throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', offset: NaN }), /`options.offset`/);
    // A view bounds the bytes, not its buffer.
    throws(() => dl.fromBuffer(new Uint8Array(new ArrayBuffer(16), 0, 4), { dtype: 'uint8', offset: 8 }),
      /from 0 to 4/);
  });

  row('F07', RangeError, 'ERR_DLPACK_MISALIGNED', (throws) => {
    throws(() => dl.fromBuffer(new ArrayBuffer(16), { dtype: 'float32', offset: 2 }), /`options.offset`/);
    throws(() => dl.fromBuffer(new ArrayBuffer(16), { dtype: 'complex128', offset: 8 }), /multiple of 16/);
  });

  row('F08', RangeError, 'ERR_DLPACK_MISALIGNED', (throws) => {
    const ab = new ArrayBuffer(64);
    throws(() => dl.fromBuffer(Buffer.from(ab, 3, 32), { dtype: 'float64' }), /at byte 3 of the buffer/);
    throws(() => dl.fromBuffer(new DataView(ab, 2, 8), { dtype: 'int32' }), /at byte 2/);
    expect(dl.fromBuffer(new DataView(ab, 2, 8), { dtype: 'int32', offset: 2, count: 1 }).byteOffset).toBe(4);
  });

  row('F09', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const count of ['2', 2n, null]) {
      throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8', count }), /`options.count`/);
    }
  });

  row('F10', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const ab = new ArrayBuffer(16);
    throws(() => dl.fromBuffer(ab, { dtype: 'float32', count: -2 }), /`options.count`/);
    throws(() => dl.fromBuffer(ab, { dtype: 'float32', count: 1.5 }), /`options.count`, received 1.5/);
    throws(() => dl.fromBuffer(ab, { dtype: 'float32', count: 5 }), /`options.count`, received 5/);
    throws(() => dl.fromBuffer(ab, { dtype: 'float32', offset: 4, count: 4 }), /`options.count`/);
    throws(() => dl.fromBuffer(ab, { dtype: 'float32', count: Number.MAX_SAFE_INTEGER }), /`options.count`/);
  });

  row('F11', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.fromBuffer(new ArrayBuffer(10), { dtype: 'int32' }),
      /whole number of int32 elements .* for `source`, received 10 bytes$/);
    throws(() => dl.fromBuffer(new Uint8Array(18), { dtype: 'float32' }), /for `source`/); // count was not passed
    throws(() => dl.fromBuffer(new Uint8Array(18), { dtype: 'float32', count: -1 }), /for `options.count`/);
    throws(() => dl.fromBuffer(new Uint8Array(new ArrayBuffer(16), 0, 10), { dtype: 'float64', offset: 8 }),
      /whose 2 bytes after the offset/);
  });

  row('F12', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const ab = new ArrayBuffer(8);
    throws(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: 'x' }), /`options.shape`/);
    throws(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: { length: 1, 0: 8 } }), /`options.shape`/);
    throws(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: [2, '4'] }), /`options.shape\[1\]`/);
    throws(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: [8n] }), /`options.shape\[0\]`/);
  });

  row('F13', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const ab = new ArrayBuffer(8);
    throws(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: [2, -4] }), /`options.shape\[1\]`/);
    throws(() => dl.fromBuffer(ab, { dtype: 'uint8', shape: [2.5, 3.2] }), /`options.shape\[0\]`/);
    throws(() => dl.fromBuffer(new ArrayBuffer(1), { dtype: 'uint8', shape: new Array(65).fill(1) }),
      /at most 64 dimensions for `options.shape`/);
  });

  row('F14', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.fromBuffer(new ArrayBuffer(24), { dtype: 'float32', shape: [4, 2] }),
      /product is 6.*`options.shape`, received \[4, 2\]/);
    throws(() => dl.fromBuffer(new ArrayBuffer(24), { dtype: 'float32', count: 2, shape: [] }), /`options.shape`/);
  });

  row('F15', dl.DLPackError, 'ERR_DLPACK_DETACHED', (throws) => {
    const a = new ArrayBuffer(8);
    structuredClone(a, { transfer: [a] });
    throws(() => dl.fromBuffer(a, { dtype: 'uint8' }), /detached/);
    if (typeof ArrayBuffer.prototype.transfer === 'function') { // Node >= 22
      const b = new ArrayBuffer(8);
      b.transfer();
      throws(() => dl.fromBuffer(b, { dtype: 'uint8' }), /detached/);
    }
  });

  row('F16', dl.DLPackError, 'ERR_DLPACK_DETACHED', (throws) => {
    const ab = new ArrayBuffer(16);
    const typed = new Float32Array(ab);
    const bytes = new Uint8Array(ab, 4, 8);
    const dv = new DataView(ab, 4);
    structuredClone(ab, { transfer: [ab] });
    throws(() => dl.fromBuffer(typed, { dtype: 'float32' }), /detached/);
    throws(() => dl.fromBuffer(bytes, { dtype: 'uint8' }), /detached/);
    throws(() => dl.fromBuffer(dv, { dtype: 'uint8' }), /detached/);
  });

  row('F17', dl.DLPackError, 'ERR_DLPACK_DETACHED', (throws) => {
    const rab = new ArrayBuffer(16, { maxByteLength: 32 });
    const views = [new Uint8Array(rab, 8, 4), new Float64Array(rab, 8), new Uint8Array(rab, 8, 0),
      new DataView(rab, 8, 4), Buffer.from(rab, 12)];
    const inBounds = [new Uint8Array(rab, 4, 0), new Uint8Array(rab), new Uint8Array(rab, 0, 4)];
    rab.resize(4);
    for (const view of views) throws(() => dl.fromBuffer(view, { dtype: 'uint8' }), /shrunk below it/);
    expect(inBounds.map((v) => dl.fromBuffer(v, { dtype: 'uint8' }).size)).toEqual([0, 4, 4]);
    rab.resize(32);
    // Back in bounds, each covers its view's bytes again (a length-tracking view's grown
    // length included; whether Buffer.from(rab, 12) tracks differs between Node 20 and 22).
    const sizes = views.map((v) => dl.fromBuffer(v, { dtype: 'uint8' }).size);
    expect(sizes).toEqual(views.map((v) => v.byteLength));
    expect(sizes.slice(0, 4)).toEqual([4, 24, 0, 4]);
  });

  row('F18', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const gsab = new SharedArrayBuffer(8, { maxByteLength: 64 });
    throws(() => dl.fromBuffer(gsab, { dtype: 'uint8', count: 16 }), /`options.count`, received 16/);
    throws(() => dl.fromBuffer(gsab, { dtype: 'uint8', offset: 16 }), /`options.offset`/);
    gsab.grow(16);
    expect(dl.fromBuffer(gsab, { dtype: 'uint8', count: 16 }).size).toBe(16); // the grown length counts
  });

  row('F22', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const proto of [ArrayBuffer.prototype, SharedArrayBuffer.prototype, Uint8Array.prototype, DataView.prototype]) {
      throws(() => dl.fromBuffer(Object.create(proto), { dtype: 'uint8' }), /inherits from .* but is not one/);
    }
    // A real view's own properties do not move the bytes read.
    const u = new Uint8Array(8).fill(7);
    Object.defineProperty(u, 'byteOffset', { value: 4 });
    Object.defineProperty(u, 'length', { value: 100 });
    Object.defineProperty(u, 'buffer', { value: new ArrayBuffer(100) });
    const t = dl.fromBuffer(u, { dtype: 'uint8' });
    expect([t.size, t.byteOffset, t.buffer === u.buffer]).toEqual([8, 0, false]);
  });

  row('F19', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const b = new Uint8Array(16);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [4], strides: 1 }), /`options.strides`/);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [4], strides: ['1'] }), /`options.strides\[0\]`/);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', strides: [1] }), /`options.shape`/);
  });

  row('F20', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const b = new Uint8Array(16);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [4, 4], strides: [4] }), /2 strides .* `options.strides`/);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [4], strides: [1], count: 4 }), /`options.count`/);
  });

  row('F21', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const b = new Uint8Array(15);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [3, 5], strides: [1, 3.5] }), /`options.strides\[1\]`/);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [3, 5], strides: [1, 4] }), /spanning bytes 0 to 19/);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [3], strides: [-1] }), /spanning bytes -2 to 1/);
    throws(() => dl.fromBuffer(b, { dtype: 'uint8', shape: [3], strides: [1], offset: 13 }), /`options.strides`/);
    // The same numbers inside the buffer are a view.
    expect(dl.fromBuffer(b, { dtype: 'uint8', shape: [3], strides: [-1], offset: 2 }).strides).toEqual([-1]);
  });
});

// --- memory that changes under a tensor ---------------------------------------------

// The uses of M01-M03: each reads or hands out the bytes.
const byteUses = (t) => [() => t.data, () => t.toArray(), () => t.clone(),
  () => t.copyFrom(dl.zeros(t.shape, { dtype: t.dtype })), () => dl.zeros(t.shape, { dtype: t.dtype }).copyFrom(t),
  () => t.__dlpack__(), () => dl.fromDLPack(t)];

describe('memory that changes under a tensor', () => {
  row('M01', dl.DLPackError, 'ERR_DLPACK_DETACHED', async (throws) => {
    await leakFree(() => {
      const ab = new ArrayBuffer(16);
      const t = dl.fromBuffer(ab, { dtype: 'float32' });
      const view = t.data;
      structuredClone(ab, { transfer: [ab] });
      expect(view.length).toBe(0);
      for (const use of byteUses(t)) throws(use, /detached/);
      expect(String(t)).toBe('tensor(<detached>, dtype=float32)');
      t.dispose(); // never detaches or throws on a caller's buffer
    });
  });

  row('M02', dl.DLPackError, 'ERR_DLPACK_DETACHED', async (throws) => {
    await leakFree(() => {
      const rab = new ArrayBuffer(16, { maxByteLength: 64 });
      const t = dl.fromBuffer(rab, { dtype: 'float32', offset: 4, count: 2 });
      t.data.set([5, 6]);
      const tracking = dl.fromBuffer(new Uint8Array(rab), { dtype: 'uint8' }); // a length-tracking view
      rab.resize(8);
      for (const use of byteUses(t)) throws(use, /detached or shrunk/);
      throws(() => tracking.toArray(), /detached or shrunk/);
      rab.resize(64);
      expect(t.toArray()).toEqual([5, 0]); // usable again; the bytes cut off came back zeroed
      expect(tracking.size).toBe(16);
    });
  });

  row('M03', dl.DLPackError, 'ERR_DLPACK_DETACHED', (throws) => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 4 });
    const t = dl.fromBuffer(memory.buffer, { dtype: 'int32', offset: 64, count: 4 });
    const viewed = dl.wasm.view(memory, { ptr: 64, dtype: 'int32', shape: [4] });
    viewed.data.set([1, 2, 3, 4]);
    memory.grow(1);
    for (const use of byteUses(t)) throws(use, /detached/);
    expect(Array.from(viewed.data)).toEqual([1, 2, 3, 4]); // wasm.view follows the memory
  });

  row('M04', dl.DLPackError, 'ERR_DLPACK_DETACHED', (throws) => {
    const gone = new ArrayBuffer(8);
    const src = dl.fromBuffer(gone, { dtype: 'float32' });
    structuredClone(gone, { transfer: [gone] });
    const dst = dl.tensor([1, 2]);
    throws(() => dst.copyFrom(src), /detached/);
    throws(() => dst.copyFrom(src.reshape([2, 1]).reshape([2])), /detached/);
    expect(dst.toArray()).toEqual([1, 2]);
    const rab = new ArrayBuffer(8, { maxByteLength: 8 });
    const shrunk = dl.fromBuffer(rab, { dtype: 'float32' });
    rab.resize(4);
    throws(() => shrunk.copyFrom(dst), /detached or shrunk/);
    throws(() => shrunk.copyFrom([7, 8]), /detached or shrunk/);
    rab.resize(8);
    expect(shrunk.toArray()).toEqual([0, 0]);
  });

  row('M05', dl.DLPackError, 'ERR_DLPACK_DETACHED', async (throws) => {
    await leakFree(() => {
      const ab = new ArrayBuffer(8);
      const a = dl.fromBuffer(ab, { dtype: 'float32' }).__dlpack__();
      structuredClone(ab, { transfer: [ab] });
      throws(() => a.toPointer(), /detached/);
      expect(a.consumed).toBe(false);
      a.dispose();
      const rab = new ArrayBuffer(16, { maxByteLength: 16 });
      const b = dl.fromBuffer(rab, { dtype: 'float32' }).__dlpack__({ maxVersion: [0, 8] });
      rab.resize(8);
      throws(() => b.toPointer(), /detached or shrunk/);
      expect(b.consumed).toBe(false);
      rab.resize(16);
      const ptr = b.toPointer(); // regrown: the same capsule hands out the struct
      producer.release(ptr, false);
    });
  });

  row('M06', dl.DLPackError, 'ERR_DLPACK_DETACHED', async (throws) => {
    await leakFree(() => {
      const ab = new ArrayBuffer(8);
      const a = dl.fromBuffer(ab, { dtype: 'float32' }).__dlpack__();
      structuredClone(ab, { transfer: [ab] });
      throws(() => dl.fromDLPack(a), /detached/);
      throws(() => dl.fromDLPack(a, { copy: true }), /detached/);
      expect(a.consumed).toBe(false);
      a.dispose();
      const rab = new ArrayBuffer(16, { maxByteLength: 16 });
      const t = dl.fromBuffer(rab, { dtype: 'float32', offset: 8 });
      t.data.set([1, 2]);
      const b = t.__dlpack__();
      rab.resize(12);
      throws(() => dl.fromDLPack(b), /detached or shrunk/);
      expect(b.consumed).toBe(false);
      rab.resize(16);
      expect(dl.fromDLPack(b).toArray()).toEqual([1, 0]); // regrown: the same capsule imports
    });
  });
});

// --- empty / zeros / tensor --------------------------------------------------------

describe('empty, zeros, tensor', () => {
  row('C01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const make of [dl.empty, dl.zeros]) {
      for (const shape of ['abc', null, undefined, { length: 2 }, 2n]) throws(() => make(shape), /for `shape`/);
      throws(() => make([2, '3']), /`shape\[1\]`/);
    }
  });

  row('C02', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    for (const make of [dl.empty, dl.zeros]) {
      throws(() => make([2, -1]), /`shape\[1\]`/);
      throws(() => make([1.5]), /`shape\[0\]`/);
      throws(() => make(-3), /`shape\[0\]`/);
      throws(() => make([2 ** 53]), /`shape\[0\]`/);
      throws(() => make([NaN]), /`shape\[0\]`/);
      throws(() => make(new Array(65).fill(1)), /at most 64 dimensions/);
    }
  });

  row('C03', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.empty([2 ** 40, 2 ** 20]), /for `shape`/);
    throws(() => dl.zeros([2 ** 30, 2 ** 30, 2 ** 10], { dtype: 'complex128' }), /for `shape`/);
  });

  row('C04', RangeError, 'ERR_OUT_OF_RANGE', async (throws) => {
    await leakFree(() => {
      const huge = [2 ** 30, 2 ** 30, 2 ** 10];
      throws(() => dl.empty(huge, { dtype: 'uint8', shared: true }), /at most 2\^53 - 1 bytes for `shape`/);
      throws(() => dl.zeros([2 ** 27, 2 ** 27], { dtype: 'float64', shared: true }), /for `shape`/);
      for (const device of ['cuda', 'cuda_host', 'cuda_managed']) {
        throws(() => dl.zeros(huge, { device }), /for `shape`/); // before any device is asked for
      }
    });
  });

  row('C05', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const options of ['float32', null, 3]) {
      throws(() => dl.empty([1], options), /for `options`/);
      throws(() => dl.zeros([1], options), /for `options`/);
      throws(() => dl.tensor([1], options), /for `options`/);
    }
  });

  row('C06', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.empty([1], { dtype: 'float' }), /`options.dtype`/);
    throws(() => dl.zeros([1], { dtype: 'int128' }), /`options.dtype`/);
    throws(() => dl.tensor([1], { dtype: 'double' }), /`options.dtype`/);
  });

  row('C07', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.empty([1], { shared: 'yes' }), /`options.shared`/);
    throws(() => dl.zeros([1], { shared: 1 }), /`options.shared`/);
  });

  row('C08', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      for (const device of ['cuda_host', 'cuda_managed']) {
        throws(() => dl.empty([2], { device, shared: true }), /device memory only\) for `options.shared`/);
      }
    });
  });

  row('C09', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.tensor(null), /for `values`/);
    throws(() => dl.tensor(undefined), /for `values`/);
    throws(() => dl.tensor({ a: 1 }), /for `values`/);
    throws(() => dl.tensor('abc'), /for `values`/);
    throws(() => dl.tensor([1, 'a']), /for `values\[1\]`/);
    throws(() => dl.tensor([[1], [Symbol('x')]]), /for `values\[1\]\[0\]`/);
  });

  row('C10', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.tensor([[1, 2], [3]]), /for `values\[1\]`/);
    throws(() => dl.tensor([[1, 2], 3]), /for `values\[1\]`/);
    throws(() => dl.tensor([1, [2]]), /for `values\[1\]`/);
  });

  row('C11', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.tensor(new ArrayBuffer(4)), /use dl.fromBuffer/);
    throws(() => dl.tensor(new SharedArrayBuffer(4)), /use dl.fromBuffer/);
    throws(() => dl.tensor(new DataView(new ArrayBuffer(4))), /use dl.fromBuffer/);
  });

  row('C12', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const ints = ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64'];
    for (const dtype of ints) {
      for (const v of [NaN, Infinity, -Infinity]) throws(() => dl.tensor([1, v], { dtype }), /`values \(element 1\)`/);
    }
    const outside = { int8: [128, -129], int16: [32768, -32769], int32: [2 ** 31, -(2 ** 31) - 1],
      int64: [2 ** 63, -(2 ** 64), 2n ** 63n], uint8: [256, -1], uint16: [65536, -1], uint32: [2 ** 32, -1],
      uint64: [2 ** 64, -1, -1n, 2n ** 64n] };
    for (const dtype of ints) {
      for (const v of outside[dtype]) throws(() => dl.tensor([v], { dtype }), new RegExp(`the ${dtype} range`));
    }
    throws(() => dl.tensor(new Float32Array([NaN]), { dtype: 'int64' }), /`values \(element 0\)`/);
    // Checked before anything is written: copyFrom leaves the destination as it was.
    const t = dl.tensor([5, 6], { dtype: 'int32' });
    throws(() => t.copyFrom([1, 2 ** 31]), /`src \(element 1\)`/);
    expect(t.toArray()).toEqual([5, 6]);
    // What is allowed: fractions truncate toward zero, and the range's ends.
    expect(dl.tensor([2.7, -2.7, -128, 127.9], { dtype: 'int8' }).toArray()).toEqual([2, -2, -128, 127]);
    expect(dl.tensor([-0.9, 2 ** 64 - 2 ** 11], { dtype: 'uint64' }).toArray()).toEqual([0n, 2n ** 64n - 2048n]);
  });

  row('C15', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.tensor(new Array(3)), /`values\[0\]`, received a hole/);
    throws(() => dl.tensor([, 1]), /`values\[0\]`/); // eslint-disable-line no-sparse-arrays
    throws(() => dl.tensor([[1, 2], [3, ,]]), /`values\[1\]\[1\]`/); // eslint-disable-line no-sparse-arrays
    const t = dl.tensor([1, 2]);
    throws(() => t.copyFrom(new Array(2)), /`src\[0\]`/);
    expect(t.toArray()).toEqual([1, 2]);
  });

  row('C16', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.tensor(Object.create(Uint8Array.prototype)), /inherits from Uint8Array but is not one/);
    // A real typed array's own properties and iterator do not change what is read.
    const u = new Int16Array([1, 2, 3]);
    Object.defineProperty(u, 'length', { value: 1 });
    Object.defineProperty(u, Symbol.toStringTag, { value: 'Float64Array' });
    u[Symbol.iterator] = function* fake() { yield 99; };
    const t = dl.tensor(u);
    expect([t.dtype, t.toArray()]).toEqual(['int16', [1, 2, 3]]);
    expect(dl.tensor(u, { dtype: 'float32' }).toArray()).toEqual([1, 2, 3]);
  });

  row('C13', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.tensor([1, 2, 3], { shape: [2, 2] }), /product is 3.*for `options.shape`/);
    throws(() => dl.tensor(new Float32Array(4), { shape: [3] }), /product is 4.*for `options.shape`/);
    throws(() => dl.tensor(new Int8Array(4), { shape: [-1, 2] }), /`options.shape\[0\]`/);
    throws(() => dl.tensor([[1, 2], [3, 4]], { shape: [-1] }), /`options.shape\[0\]`/);
  });

  row('C14', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    let deep = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    throws(() => dl.tensor(deep), /at most 64 levels/);
  });
});

// --- devices and CUDA without a device ---------------------------------------------

describe('devices', () => {
  row('D01', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([1]);
    for (const device of ['tpu', 'cpu:1', 'cuda:-1', 'CUDA', 'cuda_host:0', '']) {
      throws(() => dl.empty([1], { device }), /`options.device`/);
      throws(() => dl.tensor([1], { device }), /`options.device`/);
      throws(() => t.to(device), /for `device`/);
      throws(() => dl.fromDLPack(t, { device }), /for `device`/);
    }
    throws(() => dl.zeros([1], { device: { type: 'tpu', index: 0 } }), /`options.device`/);
  });

  row('D02', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const device of [0, null, true, ['cpu']]) {
      throws(() => dl.empty([1], { device }), /`options.device`/);
      throws(() => t.to(device), /for `device`/);
    }
  });

  row('D03', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([1, 2]);
    for (const device of [new dl.Device('tpu', 0), new dl.Device('cuda', -1), new dl.Device('cuda', 1.5)]) {
      throws(() => dl.empty([1], { device }), /`options.device`/);
      throws(() => t.to(device), /for `device`/);
    }
    expect(t.to(new dl.Device('cpu', 0))).toBe(t); // the same device as 'cpu': no copy
    expect(dl.zeros([1], { device: new dl.Device('cpu', 0) }).device).toBe(t.device);
  });

  row('D04', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', (throws) => {
    for (const device of ['cuda', 'cuda:1', 'cuda_host', 'cuda_managed']) {
      const e = throws(() => dl.empty([2], { device }), /Expected a usable CUDA device/);
      expect(typeof e.cudaError).toBe('string');
      throws(() => dl.zeros([2], { device }));
      throws(() => dl.tensor([1, 2], { device }));
    }
  }, onlyNoDevice);

  row('D05', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', (throws) => {
    const t = dl.tensor([1, 2]);
    throws(() => t.cuda());
    throws(() => t.cuda(1));
    for (const device of ['cuda', 'cuda:0', 'cuda_host', 'cuda_managed']) throws(() => t.to(device));
    expect(t.toArray()).toEqual([1, 2]);
  }, onlyNoDevice);

  row('D06', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', (throws) => {
    throws(() => dl.cuda.synchronize());
    throws(() => dl.cuda.memoryStats(0));
    throws(() => new dl.cuda.Stream());
  }, onlyNoDevice);

  row('D07', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const index of [-1, 1.5, '0', null, 0n]) {
      throws(() => dl.cuda.synchronize(index), /for `index`/);
      throws(() => dl.cuda.memoryStats(index), /for `index`/);
      throws(() => new dl.cuda.Stream(index), /for `index`/);
    }
  });

  row('D08', dl.DLPackError, 'ERR_DLPACK_WRONG_DEVICE', async (throws) => {
    await leakFree(() => {
      const { ptr, t } = cudaTensor();
      throws(() => t.data, /`data`.*on cuda:0/);
      throws(() => t.buffer, /`buffer`/);
      throws(() => t.toArray(), /`toArray\(\)`/);
      expect(String(t)).toBe('tensor(<2x3 on cuda:0>, dtype=float32)');
      t.dispose();
      expect(producer.calls(ptr)).toBe(1);
    });
  }, onlyCompiled);

  row('D09', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', async (throws) => {
    await leakFree(() => {
      const { ptr, t } = cudaTensor();
      throws(() => t.clone(), /cuda:0 to cuda:0/);
      throws(() => t.cpu(), /cuda:0 to cpu/);
      throws(() => t.to('cuda_host'));
      throws(() => t.copyFrom(dl.zeros([2, 3])));
      throws(() => dl.zeros([2, 3]).copyFrom(t));
      throws(() => t.__dlpack__({ dlDevice: [1, 0] }), /cuda:0 to cpu/);
      expect(t.shape).toEqual([2, 3]);
      t.dispose();
      expect(producer.calls(ptr)).toBe(1);
    });
  }, onlyCompiledNoDevice);

  lieRow('D10', [[{ deviceType: 2, deviceId: 0 }, /device type 2.*no CUDA support/]],
    { Class: dl.CudaError, code: 'ERR_DLPACK_CUDA_UNAVAILABLE', skip: caps.compiled ? 'built with CUDA' : null });
});

// --- Tensor ----------------------------------------------------------------------------

describe('Tensor', () => {
  row('T01', TypeError, 'ERR_ILLEGAL_CONSTRUCTOR', (throws) => {
    throws(() => new dl.Tensor(), /not by `new Tensor\(\)`/);
    throws(() => Reflect.construct(dl.Tensor, [Symbol('dlpack.internal')]));
  });

  row('T02', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1, 2]);
    const inspect = t[Symbol.for('nodejs.util.inspect.custom')];
    for (const name of ['reshape', 'contiguous', 'clone', 'to', 'cpu', 'cuda', 'copyFrom', 'toArray', 'toString',
      'dispose', '__dlpack__', '__dlpack_device__', 'share']) {
      const method = t[name];
      throws(() => method(), /a Tensor for `this`/);
      throws(() => method.call({}), /a Tensor for `this`/);
    }
    throws(() => t[Symbol.dispose].call(undefined), /`this`/);
    throws(() => inspect.call(5), /`this`/);
    expect(t.toArray()).toEqual([1, 2]);
  });

  row('T03', dl.DLPackError, 'ERR_DLPACK_DISPOSED', async (throws) => {
    await leakFree(() => {
      const ptr = foreign();
      for (const t of [dl.tensor([1, 2]), dl.fromBuffer(new ArrayBuffer(8), { dtype: 'float32' }),
        dl.fromDLPack(adopt(ptr))]) {
        t.dispose();
        for (const use of [() => t.data, () => t.buffer, () => t.reshape([2]), () => t.contiguous(),
          () => t.clone(), () => t.to('cpu'), () => t.cpu(), () => t.copyFrom([1, 2]), () => t.toArray(),
          () => t.__dlpack__(), () => dl.toDLPack(t), () => t.__dlpack_device__(), () => t.share()]) {
          throws(use, /disposed/);
        }
        expect(t.disposed).toBe(true);
        expect(String(t)).toMatch(/<disposed>/);
        t.dispose(); // idempotent
      }
      expect(producer.calls(ptr)).toBe(1);
    });
  });

  row('T04', dl.DLPackError, 'ERR_DLPACK_NOT_CONTIGUOUS', (throws) => {
    const t = strided();
    throws(() => t.data, /contiguous\(\)/);
    expect(t.toArray()).toEqual([[1, 3], [2, 4]]);
    expect(Array.from(t.contiguous().data)).toEqual([1, 3, 2, 4]);
  });

  row('T05', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1, 2, 3, 4]);
    for (const shape of ['4', null, undefined, { 0: 4, length: 1 }]) throws(() => t.reshape(shape), /for `shape`/);
    throws(() => t.reshape([2, '2']), /`shape\[1\]`/);
  });

  row('T06', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const t = dl.tensor([1, 2, 3, 4, 5, 6]);
    throws(() => t.reshape([4, 2]), /product is 6.*\[4, 2\]/);
    throws(() => t.reshape([4, -1]), /product is 6/);
    throws(() => t.reshape([-2, -3]), /`shape\[0\]`/);
    throws(() => dl.zeros([0]).reshape([0, -1]), /product is 0/);
    expect(t.reshape([3, -1]).shape).toEqual([3, 2]);
  });

  row('T07', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.tensor([1, 2, 3, 4]).reshape([-1, -1]), /at most one -1/);
  });

  row('T08', dl.DLPackError, 'ERR_DLPACK_NOT_CONTIGUOUS', (throws) => {
    const t = strided();
    throws(() => t.view([4]), /use reshape\(\)/);
    throws(() => t.view(4), /use reshape\(\)/);
    expect(t.reshape([4]).toArray()).toEqual([1, 3, 2, 4]); // reshape copies (torch)
  });

  row('T09', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    throws(() => t.to('cpu', 5), /for `options`/);
    throws(() => t.to('cpu', null), /for `options`/);
    throws(() => t.clone('cuda'), /for `options`/);
    throws(() => t.copyFrom([2], 5), /for `options`/);
    expect(t.toArray()).toEqual([1]); // checked before anything is copied
  });

  row('T10', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const stream of ['x', 1.5, {}, null, -2, 2n ** 64n]) {
      throws(() => t.to('cpu', { stream }), /for `stream`/);
      throws(() => t.to('cuda', { stream }), /for `stream`/); // checked before the device is
      throws(() => t.clone({ stream }), /for `stream`/);
      throws(() => t.copyFrom([2], { stream }), /for `stream`/);
    }
    expect(t.toArray()).toEqual([1]);
    expectError(() => t.clone({ stream: 0 }), TypeError, 'ERR_INVALID_ARG_VALUE', /ambiguous/);
    expect(t.clone({ stream: 7n }).toArray()).toEqual([1]); // host copies take any stream
    expectError(() => t.to('cpu', { stream: 0 }), TypeError, 'ERR_INVALID_ARG_VALUE', /ambiguous/);
    expect(t.to('cpu', { stream: -1 })).toBe(t);
    expect(t.to('cpu', { stream: 7n })).toBe(t);
  });

  row('T11', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const index of ['0', null]) throws(() => t.cuda(index), /for `index`/);
  });

  row('T19', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const t = dl.tensor([1]);
    for (const index of [-1, 1.5]) throws(() => t.cuda(index), /for `index`/);
  });

  row('T20', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => JSON.stringify(dl.tensor([0, -Infinity], { dtype: 'float16' })), /-Infinity in a float16/);
    throws(() => JSON.stringify(dl.tensor([[1, NaN]], { dtype: 'complex128' })), /NaN in a complex128/);
    throws(() => JSON.stringify(dl.tensor([-(2n ** 60n)], { dtype: 'int64' })), /`toJSON\(\)`/);
  });

  row('T12', dl.DLPackError, 'ERR_DLPACK_READ_ONLY', (throws) => {
    const t = readOnly([1, 2, 3]);
    throws(() => t.copyFrom([4, 5, 6]), /readOnly/);
    throws(() => t.copyFrom(dl.tensor([4, 5, 6])), /readOnly/);
    expect(t.toArray()).toEqual([1, 2, 3]);
  });

  row('T13', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([[1, 2, 3], [4, 5, 6]]);
    throws(() => t.copyFrom(dl.zeros([3, 2])), /shape \[2, 3\] for `src`, received one of shape \[3, 2\]$/);
    throws(() => t.copyFrom(dl.zeros([6])), /for `src`/);
    throws(() => t.copyFrom(dl.zeros([1, 3])), /for `src`/); // no broadcasting
    expect(t.toArray()).toEqual([[1, 2, 3], [4, 5, 6]]);
  });

  row('T14', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([1, 2]);
    throws(() => t.copyFrom('ab'), /for `src`/);
    throws(() => t.copyFrom(null), /for `src`/);
    throws(() => t.copyFrom([1, 'x']), /`src\[1\]`/);
    throws(() => t.copyFrom(1), /2 values .* for `src`, received 1 value$/);
    expect(t.toArray()).toEqual([1, 2]);
  });

  row('T15', dl.DLPackError, 'ERR_DLPACK_DISPOSED', (throws) => {
    const t = dl.tensor([1, 2]);
    const src = dl.tensor([3, 4]);
    src.dispose();
    throws(() => t.copyFrom(src), /disposed/);
    expect(t.toArray()).toEqual([1, 2]);
  });

  row('T16', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    throws(() => dl.tensor([1]).share(), /plain ArrayBuffer.*t\.shareMemory\(\).*t\.toShared\(\)/);
    throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8' }).share(), /plain ArrayBuffer/);
    throws(() => dl.fromBuffer(new ArrayBuffer(8, { maxByteLength: 16 }), { dtype: 'uint8' }).share());
  });

  row('T21', dl.DLPackError, 'ERR_DLPACK_COPY_REQUIRED', (throws) => {
    const mine = new Float32Array([1, 2]);
    const caller = dl.fromBuffer(mine, { dtype: 'float32' });
    throws(() => caller.shareMemory(), /buffer passed to fromBuffer\(\).*toShared\(\)/);
    expect(mine.length).toBe(2); // the caller's buffer is neither moved nor detached
    throws(() => dl.fromBuffer(new SharedArrayBuffer(4), { dtype: 'float32' }).shareMemory(), /SharedArrayBuffer/);
    throws(() => dl.wasm.view(new WebAssembly.Memory({ initial: 1 }), { ptr: 0, dtype: 'uint8', shape: [1] })
      .shareMemory(), /WebAssembly/);
    const imported = dl.fromDLPack(adopt(foreign()));
    throws(() => imported.shareMemory(), /DLPack import/);
    imported.dispose();
    const t = dl.tensor([1, 2]);
    const data = t.data;
    const ptr = t.__dlpack__().toPointer();
    throws(() => t.shareMemory(), /toPointer\(\)/);
    expect(data.length).toBe(2); // the memory the struct points at stays the tensor's, attached
    producer.releaseOnThread(ptr, true);
  });

  row('T17', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.tensor([1, 2]).item(), /one element for item\(\), received a tensor of shape \[2\]/);
    throws(() => dl.zeros([0]).item(), /shape \[0\]/);
    expect(dl.tensor([[7]], { dtype: 'int64' }).item()).toBe(7n);
    expect(dl.tensor(2.5).item()).toBe(2.5);
  });

  row('T18', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([1]);
    throws(() => t.to({ dtype: 'float8' }), /`dtype`/);
    throws(() => t.to({ dtype: 'float32', device: 'gpu' }), /`device`/);
  });
});

// --- batching ----------------------------------------------------------------------------

describe('cat and stack', () => {
  const pair = () => [dl.tensor([[1, 2]]), dl.tensor([[3, 4]])];

  row('B01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const op of ['cat', 'stack']) {
      throws(() => dl[op](dl.tensor([1])), /`tensors`/);
      throws(() => dl[op]([dl.tensor([1]), [2]]), /`tensors\[1\]`/);
      throws(() => dl[op](pair(), 0, { out: [0, 0] }), /`options.out`/);
      throws(() => dl[op](pair(), 0, 'out'), /`options`/);
    }
  });

  row('B02', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    for (const op of ['cat', 'stack']) {
      throws(() => dl[op]([]), /at least one tensor/);
      throws(() => dl[op]([dl.tensor([[1, 2]]), dl.tensor([[1, 2, 3]])], 0), /`tensors\[1\]`/);
      throws(() => dl[op]([dl.tensor([1]), dl.tensor([1], { dtype: 'int8' })]), /or pass `options.out`/);
      throws(() => dl[op](pair(), 0, { out: dl.zeros([5, 5]) }), /`options.out`/);
      throws(() => dl[op](pair(), 0, { outt: dl.zeros([2, 2]) }), /`options.outt`/);
    }
    throws(() => dl.stack([dl.tensor([[1, 2]]), dl.tensor([[1], [2]])]), /`tensors\[1\]`/);
    throws(() => dl.cat([dl.tensor(1), dl.tensor(2)]), /at least one dimension/);
  });

  row('B03', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.cat(pair(), 2), /`dim`, received 2/);
    throws(() => dl.stack(pair(), 3), /`dim`, received 3/);
    throws(() => dl.stack(pair(), 0.5), /`dim`/);
    expect(dl.stack(pair(), 2).shape).toEqual([1, 2, 2]);
  });

  row('B04', dl.DLPackError, 'ERR_DLPACK_READ_ONLY', (throws) => {
    const out = readOnly([0, 0, 0, 0]).reshape(2, 2);
    throws(() => dl.cat(pair(), 0, { out }), /writable/);
    expect(out.toArray()).toEqual([[0, 0], [0, 0]]);
  });
});

// --- views ---------------------------------------------------------------------------------

describe('views', () => {
  const grid = () => dl.tensor([[1, 2, 3], [4, 5, 6]]); // 2 x 3

  row('V01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = grid();
    throws(() => t.permute(1, '0'), /`permute\(\) argument 1`/);
    throws(() => t.permute('x'), /`dims`/);
    throws(() => t.transpose(0, null), /`dim1`/);
    throws(() => t.narrow('0', 0, 1), /`dim`/);
    throws(() => t.select(0, 1n), /`index`/);
    throws(() => t.slice(0, '1'), /`start`/);
    throws(() => t.unsqueeze(), /`dim`/);
    throws(() => t.squeeze('0'), /`dim`/);
    throws(() => t.flatten(0, '1'), /`endDim`/);
    throws(() => t.expand([2, '3']), /`sizes\[1\]`/);
    throws(() => t.asStrided([2], ['1']), /`strides\[0\]`/);
    throws(() => t.reshape('6'), /`shape`/);
    throws(() => t.view([2, '3']), /`shape\[1\]`/);
  });

  row('V02', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const t = grid();
    throws(() => t.transpose(0, 1.5), /`dim1`, received 1.5/);
    throws(() => t.transpose(0, 2), /a dimension from -2 to 1 for `dim1`, received 2/);
    throws(() => t.permute(0, -3), /`dims\[1\]`/);
    throws(() => t.select(0, 2), /an index from -2 to 1 for `index`, received 2/);
    throws(() => t.select(1, -4), /`index`/);
    throws(() => t.narrow(1, 2, 2), /`length`/);
    throws(() => t.narrow(1, 4, 0), /`start`/);
    throws(() => t.slice(1, 0, 3, 0), /non-zero integer for `step`/);
    throws(() => t.unsqueeze(3), /`dim`/);
    throws(() => t.squeeze(2), /`dim`/);
    throws(() => t.reshape(2, 3.5), /`shape\[1\]`/);
    expect(t.toArray()).toEqual([[1, 2, 3], [4, 5, 6]]);
  });

  row('V03', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = grid();
    throws(() => t.permute(0, 0), /dimension 0 repeats/);
    throws(() => t.permute(0), /a permutation of 2 dimensions/);
    throws(() => t.expand(2, 4), /`sizes\[1\]`/);
    throws(() => t.expand(3), /at least 2 sizes/);
    throws(() => t.flatten(1, 0), /`endDim`/);
    const scalar = dl.tensor(1);
    throws(() => scalar.select(0, 0), /at least one dimension for select\(\)/);
    throws(() => scalar.narrow(0, 0, 1), /narrow\(\)/);
    throws(() => scalar.slice(0), /slice\(\)/);
  });

  row('V04', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = grid();
    throws(() => t.transpose(0, 1, 2), /at most 2 arguments for transpose\(\) for `transpose\(\) argument 2`/);
    throws(() => t.select(0, 1, 2), /`select\(\) argument 2`/);
    throws(() => t.item(0), /`item\(\) argument 0`/);
    throws(() => t.clone({}, 1), /`clone\(\) argument 1`/);
    throws(() => t.clone({ strem: 1 }), /`options.strem`/);
    throws(() => t.to('int8', {}, 1), /`to\(\) argument 2`/);
    throws(() => t.to({ dtyp: 'int8' }), /`options.dtyp`/);
    throws(() => t.to('cpu', { strem: 1 }), /`options.strem`/);
    throws(() => t.copyFrom(t, {}, 1), /`copyFrom\(\) argument 2`/);
  });

  row('V05', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const t = dl.tensor([1, 2, 3, 4], { dtype: 'int32' });
    throws(() => t.asStrided([2, 2], [3, 1]), /inside the storage's 16 bytes .* spanning bytes 0 to 20/);
    throws(() => t.asStrided([2], [1], 12), /spanning bytes 12 to 20/);
    throws(() => t.asStrided([2], [-1], 0), /spanning bytes -4 to 4/);
    throws(() => t.asStrided([1], [1], -4), /`byteOffset`/);
    expect(t.asStrided([2, 2], [1, 1], 4).toArray()).toEqual([[2, 3], [3, 4]]);
  });

  row('V06', RangeError, 'ERR_DLPACK_MISALIGNED', (throws) => {
    const t = dl.tensor([1, 2, 3, 4], { dtype: 'int32' });
    throws(() => t.asStrided([1], [1], 2), /multiple of 4 .* `byteOffset`, received 2/);
    throws(() => t.narrow(0, 1, 2).view('int64'), /multiple of 8/);
  });

  row('V07', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'int16' });
    throws(() => t.view('int32'), /divides the last dimension/);
    throws(() => t.transpose(0, 1).view('int8'), /last dimension is strided/);
    throws(() => dl.tensor(1, { dtype: 'int32' }).view('int8'), /0-d/);
    throws(() => dl.tensor([[1, 2], [3, 4], [5, 6]], { dtype: 'int16' }).slice(0, 0, 3, 2).view('int64'),
      /divides the last dimension/);
  });
});

// --- export ------------------------------------------------------------------------------

describe('__dlpack__ / toDLPack', () => {
  // Export rows run under leakFree: a refused export must leave no struct or pin.
  const exportRow = (id, Class, code, body, skip = null) => row(id, Class, code,
    (throws) => leakFree(() => body(throws)), skip);

  exportRow('E01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const options of [5, null, 'copy']) {
      throws(() => t.__dlpack__(options), /for `options`/);
      throws(() => dl.toDLPack(t, options), /for `options`/);
      throws(() => dl.to_dlpack(t, options), /for `options`/);
    }
  });

  exportRow('E02', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const maxVersion of [1, [1], [1, 2, 3], [1.5, 0], [-1, 0], ['1', '0'], [1n, 0n], '1.3']) {
      throws(() => t.__dlpack__({ maxVersion }), /for `maxVersion`/);
    }
  });

  exportRow('E03', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    const t = readOnly();
    throws(() => t.__dlpack__({ maxVersion: [0, 8] }), /legacy.*readOnly/);
    throws(() => dl.toDLPack(t, { maxVersion: [0, 0], copy: false }), /readOnly/);
    const c = t.__dlpack__({ maxVersion: [0, 8], copy: true }); // a copy is writable: fine
    expect(c.versioned).toBe(false);
    c.dispose();
  });

  exportRow('E04', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const dlDevice of ['cpu', [1], [1, 0, 0], [-1, 0], [1, -1], [1.5, 0], null, [1n, 0n]]) {
      throws(() => t.__dlpack__({ dlDevice }), /for `dlDevice`/);
    }
  });

  exportRow('E05', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    const t = dl.tensor([1]);
    for (const type of [0, 4, 7, 10, 14]) throws(() => t.__dlpack__({ dlDevice: [type, 0] }), /received \d+/);
  });

  exportRow('E06', dl.DLPackError, 'ERR_DLPACK_COPY_REQUIRED', (throws) => {
    const t = dl.tensor([1]);
    throws(() => t.__dlpack__({ dlDevice: [2, 0], copy: false }), /cpu -> cuda:0/);
    throws(() => t.__dlpack__({ dlDevice: [3, 0], copy: false }), /cpu -> cuda_host/);
  });

  exportRow('E07', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', (throws) => {
    const t = dl.tensor([1]);
    throws(() => t.__dlpack__({ dlDevice: [2, 0] }), /cpu to cuda:0/);
    throws(() => t.__dlpack__({ dlDevice: [13, 0], copy: true }));
  }, onlyNoDevice);

  exportRow('E08', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const copy of ['yes', 1, 0, null]) throws(() => t.__dlpack__({ copy }), /for `copy`/);
  });

  exportRow('E09', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([1]);
    for (const stream of [0, 1, 2, -1, 5n, null, 'x']) throws(() => t.__dlpack__({ stream }), /for `stream`/);
  });

  exportRow('E10', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const { t } = cudaTensor();
    throws(() => t.__dlpack__({ stream: 0 }), /ambiguous/);
    throws(() => t.__dlpack__({ stream: 0n }), /ambiguous/);
    t.dispose();
  }, onlyCompiled);

  exportRow('E11', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const { t } = cudaTensor();
    for (const stream of [-2, 1.5, 'x', null, 2n ** 64n, {}]) throws(() => t.__dlpack__({ stream }), /for `stream`/);
    t.dispose();
  }, onlyCompiled);

  exportRow('E12', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', (throws) => {
    const { t } = cudaTensor();
    throws(() => t.__dlpack__({ stream: 2 }), /stream 2/);
    throws(() => t.__dlpack__({ stream: 0x7f00n }));
    t.__dlpack__({ stream: -1 }).dispose(); // no ordering asked: fine without a device
    t.dispose();
  }, onlyCompiledNoDevice);

  exportRow('E13', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const capsule = dl.tensor([1]).__dlpack__();
    for (const x of [undefined, {}, capsule, { __dlpack__: () => null }]) {
      throws(() => dl.toDLPack(x), /a Tensor for `tensor`/);
      throws(() => dl.to_dlpack(x, {}), /a Tensor for `tensor`/);
    }
    capsule.dispose();
  });
});

// --- capsules ------------------------------------------------------------------------------

describe('DLPackCapsule', () => {
  row('K01', TypeError, 'ERR_ILLEGAL_CONSTRUCTOR', (throws) => {
    throws(() => new dl.DLPackCapsule(), /not by `new DLPackCapsule\(\)`/);
    throws(() => new dl.DLPackCapsule(Symbol('dlpack.internal'), true, dl.dlpackVersion));
  });

  row('K02', dl.DLPackError, 'ERR_DLPACK_CONSUMED', async (throws) => {
    await leakFree(() => {
      const ptr = foreign();
      const c = adopt(ptr);
      const t = dl.fromDLPack(c);
      throws(() => dl.fromDLPack(c), /unconsumed DLPackCapsule/);
      const ours = dl.tensor([1]).__dlpack__();
      producer.release(ours.toPointer(), true);
      throws(() => dl.fromDLPack(ours));
      const disposed = dl.tensor([1]).__dlpack__({ maxVersion: [0, 1] });
      disposed.dispose();
      disposed.dispose(); // idempotent
      throws(() => dl.fromDLPack(disposed));
      const foreignDisposed = adopt(foreign());
      foreignDisposed.dispose();
      throws(() => dl.fromDLPack(foreignDisposed));
      expect(producer.calls(ptr)).toBe(0);
      t.dispose();
      expect(producer.calls(ptr)).toBe(1);
    });
  });

  row('K03', dl.DLPackError, 'ERR_DLPACK_CONSUMED', async (throws) => {
    await leakFree(() => {
      const ptr = foreign();
      const c = adopt(ptr);
      expect(c.toPointer()).toBe(ptr); // handed back: the caller owns it again
      throws(() => c.toPointer());
      throws(() => dl.fromDLPack(c));
      const ours = dl.tensor([1]).__dlpack__();
      dl.fromDLPack(ours);
      throws(() => ours.toPointer());
      const disposed = adopt(foreign());
      disposed.dispose();
      throws(() => disposed.toPointer());
      producer.release(ptr, true);
    });
  });

  row('K04', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const c = dl.tensor([1]).__dlpack__();
    const { toPointer, dispose } = c;
    throws(() => toPointer.call({}), /for `capsule`/);
    throws(() => dispose.call(undefined), /for `capsule`/);
    throws(() => toPointer.call(dl.tensor([1])), /for `capsule`/);
    throws(() => c.toString.call({}), /for `capsule`/);
    throws(() => c[Symbol.dispose].call(undefined), /for `capsule`/);
    throws(() => dl.DLPackCapsule.prototype[Symbol.for('nodejs.util.inspect.custom')].call(null), /for `capsule`/);
    expect(c.consumed).toBe(false);
    c.dispose();
  });

  row('K05', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const p of [5, '0x1000', null, undefined, { valueOf: () => 8n }]) {
      throws(() => dl.DLPackCapsule.fromPointer(p, { versioned: true }), /for `pointer`/);
    }
  });

  row('K06', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    for (const p of [0n, -1n, -(2n ** 63n), 2n ** 64n, 2n ** 100n]) {
      throws(() => dl.DLPackCapsule.fromPointer(p, { versioned: true }), /for `pointer`/);
    }
  });

  row('K08', dl.DLPackError, 'ERR_DLPACK_CONSUMED', async (throws) => {
    await leakFree(() => {
      const ptr = foreign();
      const first = adopt(ptr);
      throws(() => adopt(ptr), /already adopted/);
      throws(() => adopt(ptr, false), /already adopted/); // the address is what is owned
      const t = dl.fromDLPack(first);
      throws(() => adopt(ptr), /already adopted/); // the tensor holds it now
      expect(t.toArray()).toHaveLength(4);
      t.dispose();
      expect(producer.calls(ptr)).toBe(1);
      // Our own struct: adopted, handed back, adopted again, imported once.
      const own = dl.tensor([1, 2]).__dlpack__().toPointer();
      const a = adopt(own);
      throws(() => adopt(own), /already adopted/);
      expect(a.toPointer()).toBe(own);
      const b = adopt(own);
      expect(dl.fromDLPack(b).toArray()).toEqual([1, 2]);
      expect(a.consumed && b.consumed).toBe(true);
    });
  });

  row('K07', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await leakFree(() => {
      const ptr = foreign();
      throws(() => dl.DLPackCapsule.fromPointer(ptr), /for `options`/);
      throws(() => dl.DLPackCapsule.fromPointer(ptr, null), /for `options`/);
      throws(() => dl.DLPackCapsule.fromPointer(ptr, {}), /`options.versioned`/);
      throws(() => dl.DLPackCapsule.fromPointer(ptr, { versioned: 1 }), /`options.versioned`/);
      expect(producer.calls(ptr)).toBe(0); // refused: still the caller's
      adopt(ptr).dispose();
    });
  });
});

// --- import ------------------------------------------------------------------------------

describe('fromDLPack', () => {
  row('I01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const x of [null, undefined, 5, 'capsule', {}, { __dlpack__: 1 }, new ArrayBuffer(4)]) {
      throws(() => dl.fromDLPack(x), /for `x`/);
      throws(() => dl.from_dlpack(x), /for `x`/);
    }
  });

  row('I02', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await leakFree(() => {
      for (const result of [5, null, {}, dl.tensor([1])]) {
        throws(() => dl.fromDLPack({ __dlpack__: () => result }), /for `x.__dlpack__\(\)`/);
      }
    });
  });

  row('I03', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await leakFree(() => {
      const c = adopt(foreign());
      throws(() => dl.fromDLPack(c, 3), /for `options`/);
      throws(() => dl.fromDLPack(c, null), /for `options`/);
      throws(() => dl.fromDLPack(c, { copy: 1 }), /for `copy`/);
      throws(() => dl.fromDLPack(c, { copy: 'false' }), /for `copy`/);
      expect(c.consumed).toBe(false);
      dl.fromDLPack(c).dispose();
    });
  });

  row('I04', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const c = adopt(foreign());
      throws(() => dl.fromDLPack(c, { device: 'tpu' }), /for `device`/);
      throws(() => dl.fromDLPack(c, { device: 'gpu:0' }), /for `device`/);
      expect(c.consumed).toBe(false);
      dl.fromDLPack(c).dispose();
    });
  });

  // A capsule of each kind on `device`: ours (from __dlpack__) and a producer's.
  const capsules = (deviceType = 1) => {
    const ptr = foreign({ deviceType });
    const ours = dl.fromDLPack(adopt(foreign({ deviceType })));
    return [adopt(ptr), ours.__dlpack__({ stream: deviceType === 2 ? -1 : undefined }), ours];
  };

  row('I05', dl.DLPackError, 'ERR_DLPACK_COPY_REQUIRED', async (throws) => {
    await leakFree(() => {
      const [theirs, ours, source] = capsules(3); // pinned host memory
      for (const c of [theirs, ours]) {
        throws(() => dl.fromDLPack(c, { device: 'cpu', copy: false }), /cuda_host -> cpu needs one/);
        throws(() => dl.fromDLPack(c, { device: 'cuda:0', copy: false }), /cuda_host -> cuda:0/);
        expect(c.consumed).toBe(false);
        const t = dl.fromDLPack(c, { device: 'cuda_host', copy: false }); // where it is: fine
        expect(t.isCopy).toBe(false);
        t.dispose();
      }
      source.dispose();
      throws(() => dl.fromDLPack(dl.tensor([1]), { device: 'cuda_host', copy: false }), /cpu -> cuda_host/);
    });
  });

  row('I06', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', async (throws) => {
    await leakFree(() => {
      const [theirs, ours, source] = capsules(1);
      for (const c of [theirs, ours]) {
        throws(() => dl.fromDLPack(c, { device: 'cuda' }), /cpu to cuda:0/);
        throws(() => dl.fromDLPack(c, { device: 'cuda_managed', copy: true }), /cpu to cuda_managed/);
        expect(c.consumed).toBe(false);
        dl.fromDLPack(c, { device: 'cpu', copy: true }).dispose();
      }
      source.dispose();
      const [pinned, pinnedOurs, pinnedSource] = capsules(3);
      for (const c of [pinned, pinnedOurs]) {
        throws(() => dl.fromDLPack(c, { device: 'cuda_managed' }), /cuda_host to cuda_managed/);
        const host = dl.fromDLPack(c, { device: 'cpu' }); // host to host: no CUDA needed
        expect(host.isCopy).toBe(true);
        host.dispose();
      }
      pinnedSource.dispose();
    });
  }, onlyNoDevice);

  row('I07', dl.DLPackError, 'ERR_DLPACK_DISPOSED', (throws) => {
    const t = dl.tensor([1]);
    t.dispose();
    throws(() => dl.fromDLPack(t), /disposed/);
  });

  // A worker exports a tensor over its own JS memory with toPointer() and
  // either waits (until `release` is called) or exits at once.
  const workerStruct = async (wait) => {
    const { Worker } = require('worker_threads');
    const worker = new Worker(`
      const { parentPort, workerData } = require('worker_threads');
      const dl = require(workerData.lib);
      parentPort.postMessage(dl.tensor([1, 2, 3]).__dlpack__().toPointer());
      if (workerData.wait) parentPort.once('message', () => process.exit(0));`,
    { eval: true, workerData: { lib: path.join(__dirname, '..', 'lib'), wait } });
    const pointer = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    if (!wait) await exited;
    return { capsule: adopt(pointer), release: () => { worker.postMessage('exit'); return exited; } };
  };

  row('I08', dl.DLPackError, 'ERR_DLPACK_COPY_REQUIRED', async (throws) => {
    await leakFree(async () => {
      const { capsule, release } = await workerStruct(true);
      throws(() => dl.fromDLPack(capsule, { copy: false }), /another thread's JavaScript memory/);
      expect(capsule.consumed).toBe(false);
      const t = dl.fromDLPack(capsule); // copies allowed: a copy
      expect([t.isCopy, t.toArray()]).toEqual([true, [1, 2, 3]]);
      t.dispose();
      await release();
    });
  });

  // (The process warning the worker's end raises: threads.test.js, outside Jest's sandboxed `process`.)
  row('I09', dl.DLPackError, 'ERR_DLPACK_DETACHED', async (throws) => {
    await leakFree(async () => {
      const { capsule } = await workerStruct(false);
      throws(() => dl.fromDLPack(capsule), /thread that has ended/);
      expect(capsule.consumed).toBe(false);
      capsule.dispose(); // the deleter still runs, and touches nothing of the ended thread
    });
  });
});

// --- foreign capsules that lie ---------------------------------------------------------

describe('foreign capsules that lie', () => {
  row('L01', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', async (throws) => {
    await leakFree(() => {
      const ptr = foreign({ major: 2, minor: 0, garbageAfterVersion: true });
      const c = adopt(ptr);
      expect(c.version).toEqual({ major: 2, minor: 0 });
      throws(() => dl.fromDLPack(c), /major version 0 or 1, received 2/);
      expect(producer.calls(ptr)).toBe(1); // the spec: call the deleter, read nothing else
      expect(c.consumed).toBe(true);
      c.dispose();
      expect(producer.calls(ptr)).toBe(1);
    });
  });

  lieRow('L02', [
    [{ shape: new Array(65).fill(1) }, /ndim between 0 and 64.*65/],
    [{ shape: [], ndim: -1 }, /ndim.*-1/],
  ]);

  lieRow('L03', [[{ shape: [1], ndim: 2 ** 31 - 1 }, /received 2147483647/]]);

  lieRow('L04', [4, 7, 8, 9, 10, 14, 0, 99].map((deviceType) =>
    [{ deviceType }, new RegExp(`device type ${deviceType}\\b`)]));

  lieRow('L05', [[{ lanes: 4 }, /lanes 1.*received 4/], [{ lanes: 0 }, /received 0/]]);

  lieRow('L06', [[3, 32], [2, 8], [6, 16], [2, 0], [5, 32], [0, 7], [200, 32]].map(([code, bits]) =>
    [{ code, bits }, new RegExp(`code ${code} bits ${bits}`)]));

  lieRow('L07', [[{ shape: [2, 2], nullShape: true }, /shape.*NULL/]]);

  lieRow('L08', [[{ shape: [2, -3], strides: [1, 1], bytes: 8 }, /shape\[1\].*-3/]]);

  lieRow('L09', [
    [{ shape: [2 ** 40, 2 ** 40], strides: [1, 1], bytes: 4 }, /element count/],
    [{ shape: new Array(64).fill(2), strides: new Array(64).fill(1), bytes: 4 }, /element count/],
  ]);

  lieRow('L10', [[{ shape: [0, 2 ** 62], strides: [1, 1], nullData: true }, /below 2\^53/]]);

  lieRow('L11', [
    [{ shape: [2, 2], strides: null, minor: 2, versioned: true }, /strides.*NULL/],
    [{ shape: [2, 2], strides: null, minor: 3, versioned: true }, /strides.*NULL/],
  ]);

  lieRow('L12', [
    [{ shape: [2, 2], strides: [2 ** 62, 1] }, /stride/],
    [{ shape: [3], strides: [2 ** 52] }, /stride/],
    [{ shape: [2], strides: [-(2 ** 63)] }, /stride/],
  ]);

  // Element 1 sits 2^48 bytes below data: below address 0 for any user-space pointer.
  lieRow('L13', [[{ shape: [2], strides: [-(2 ** 46)] }, /inside the address space/]]);

  lieRow('L14', [[{ byteOffset: 2n ** 64n - 8n }, /byte_offset/]]);

  lieRow('L15', [[{ nullData: true }, /non-NULL data/]]);

  lieRow('L16', [[{ deviceType: 2, deviceId: -1 }, /non-negative device_id.*received -1/]], { skip: onlyCompiled });
});

// --- sharing ---------------------------------------------------------------------------

describe('open', () => {
  const cudaIpc = (changes) => ({ kind: 'cuda-ipc', version: 2, handle: 'ab'.repeat(64),
    ticket: `dlpack-${'0123456789abcdef'.repeat(2)}`, pid: process.pid, fd: 1000000, device: 'cuda:0', dataSize: 16,
    dtype: 'float32', shape: [4], ...changes });
  // A fresh 'shm' tensor and its descriptor; the row disposes the tensor.
  const shm = () => {
    const t = dl.empty([4], { dtype: 'int32', shared: true });
    t.data.set([1, 2, 3, 4]);
    return { t, d: t.share() };
  };
  const sab = () => {
    const t = dl.fromBuffer(new SharedArrayBuffer(16), { dtype: 'int32' });
    return { t, d: t.share() };
  };
  const local = () => {
    const ptr = foreign();
    const t = dl.fromDLPack(adopt(ptr));
    return { t, d: t.share(), ptr };
  };
  // Every kind, each checked leak-free: `body(d)` for each descriptor.
  async function eachKind(body) {
    await leakFree(() => {
      for (const make of [sab, shm, local]) {
        const { t, d } = make();
        body(d);
        expect(t.toArray()).toHaveLength(4); // the sharing side is untouched
        t.dispose();
      }
    });
  }

  row('S01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const d of [null, undefined, 'shm', 5]) throws(() => dl.open(d), /for `descriptor`/);
  });

  row('S02', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await eachKind((d) => {
      throws(() => dl.open({ ...d, kind: 'nfs' }), /`descriptor.kind`/);
      throws(() => dl.open({ ...d, kind: undefined }), /`descriptor.kind`/);
      throws(() => dl.open({ ...d, kind: 'SHM' }), /`descriptor.kind`/);
    });
  });

  row('S03', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await eachKind((d) => throws(() => dl.open({ ...d, dtype: 'float8' }), /`descriptor.dtype`/));
  });

  row('S04', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await eachKind((d) => {
      throws(() => dl.open({ ...d, shape: 'x' }), /`descriptor.shape`/);
      throws(() => dl.open({ ...d, shape: undefined }), /`descriptor.shape`/);
    });
  });

  row('S05', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await eachKind((d) => {
      throws(() => dl.open({ ...d, strides: [1, 1] }), /`descriptor.strides`/);
      throws(() => dl.open({ ...d, strides: [1.5] }), /`descriptor.strides`/);
      throws(() => dl.open({ ...d, strides: 'x' }), /`descriptor.strides`/);
      throws(() => dl.open({ ...d, strides: null }), /`descriptor.strides`/);
    });
  });

  row('S06', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await eachKind((d) => {
      for (const byteOffset of [-4, '4', 1.5, null]) {
        throws(() => dl.open({ ...d, byteOffset }), /`descriptor.byteOffset`/);
      }
    });
  });

  row('S07', RangeError, 'ERR_DLPACK_MISALIGNED', async (throws) => {
    await eachKind((d) => throws(() => dl.open({ ...d, byteOffset: 2, shape: [1] }), /`descriptor.byteOffset`/));
  });

  row('S08', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await eachKind((d) => throws(() => dl.open({ ...d, readOnly: 'yes' }), /`descriptor.readOnly`/));
  });

  row('S09', RangeError, 'ERR_OUT_OF_RANGE', async (throws) => {
    await eachKind((d) => {
      throws(() => dl.open({ ...d, shape: [5] }), /inside the 16 shared bytes/);
      throws(() => dl.open({ ...d, byteOffset: 4 }), /inside the 16 shared bytes/);
      throws(() => dl.open({ ...d, strides: [-1] }), /from byte -12/);
      throws(() => dl.open({ ...d, shape: [2], strides: [2 ** 50] }), /inside the 16 shared bytes/);
      // An empty layout may start at the end of the shared bytes, not past it.
      throws(() => dl.open({ ...d, shape: [0], byteOffset: 2 ** 52 }), /inside the 16 shared bytes/);
      throws(() => dl.open({ ...d, shape: [0], byteOffset: 20 }), /inside the 16 shared bytes/);
      const edge = dl.open({ ...d, byteOffset: 12, shape: [4], strides: [-1] }); // the last byte is fine
      expect(edge.toArray()).toHaveLength(4);
      edge.dispose();
      const end = dl.open({ ...d, byteOffset: 16, shape: [0] });
      expect(end.size).toBe(0);
      end.dispose();
    });
  });

  row('S10', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const { d } = sab();
    throws(() => dl.open({ ...d, buffer: new ArrayBuffer(16) }), /`descriptor.buffer`/);
    throws(() => dl.open({ ...d, buffer: new Int32Array(new SharedArrayBuffer(16)) }), /`descriptor.buffer`/);
    throws(() => dl.open({ ...d, buffer: undefined }), /`descriptor.buffer`/);
  });

  row('S11', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      for (const version of [1, 3, 0, '2', undefined]) throws(() => dl.open({ ...d, version }), /version 2/);
      t.dispose();
    });
  });

  row('S12', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      for (const name of [undefined, 5, null, ['dlpack-1']]) throws(() => dl.open({ ...d, name }), /`descriptor.name`/);
      t.dispose();
    });
  });

  // One rule for every segment name a descriptor carries: the 'shm' name and
  // the 'cuda-ipc' ticket.
  row('S13', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      const names = ['../etc/passwd', 'foo', '', 'dlpack-a/b', `/${d.name}`, `${d.name}/..`, `${d.name}\0`,
        `${d.name}\0/../x`, `${d.name}\n`, d.name.toUpperCase().replace('DLPACK', 'dlpack'), d.name.slice(0, -1),
        'dlpack-1-0123456789abcdef'];
      for (const name of names) {
        throws(() => dl.open({ ...d, name }), /`descriptor.name`/);
        throws(() => dl.open(cudaIpc({ ticket: name })), /`descriptor.ticket`/);
      }
      // The native backstops behind lib/sharing.js give the same class and code.
      throws(() => native.shmOpen('../etc/passwd', d.pid, d.fd, d.dataSize), /segment name/);
      throws(() => native.cudaIpcOpen('0'.repeat(128), '../etc/passwd', d.pid, d.fd, 0, 16), /segment name/);
      t.dispose();
    });
  });

  row('S14', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      for (const dataSize of [-1, '16', 1.5, undefined]) {
        throws(() => dl.open({ ...d, dataSize }), /`descriptor.dataSize`/);
      }
      t.dispose();
    });
  });

  row('S15', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      throws(() => dl.open({ ...d, dataSize: 1 << 20 }), /fewer than/);
      const u = dl.open(d); // the descriptor as made still opens
      expect(u.toArray()).toEqual([1, 2, 3, 4]);
      u.dispose();
      t.dispose();
    });
  });

  row('S16', dl.DLPackError, 'ERR_DLPACK_DISPOSED', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      t.dispose();
      throws(() => dl.open(d), /no longer open there/);
      throws(() => dl.open({ ...d, name: `dlpack-${'0'.repeat(32)}` }), /no longer open there/);
      throws(() => dl.open({ ...d, fd: 0 }), /no longer open there/); // the place holds something else
    });
  });

  row('S17', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const { t, d } = local();
      for (const pid of [process.pid + 1, 0, String(process.pid), undefined]) {
        throws(() => dl.open({ ...d, pid }), /`descriptor.pid`/);
      }
      t.dispose();
    });
  });

  row('S18', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await leakFree(() => {
      const { t, d } = local();
      for (const id of [Number(d.id), undefined, null, BigInt(d.id)]) {
        throws(() => dl.open({ ...d, id }), /`descriptor.id`/);
      }
      t.dispose();
    });
  });

  row('S19', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const { t, d } = local();
      for (const id of ['abc', '', '1'.repeat(30), ' ', 'x1', `${d.id}x`, ` ${d.id}`, `+${d.id}`, `0${d.id}`, '-1',
        '0x10', '1e3']) {
        throws(() => dl.open({ ...d, id }), /`descriptor.id`/);
      }
      t.dispose();
    });
  });

  row('S20', dl.DLPackError, 'ERR_DLPACK_DISPOSED', async (throws) => {
    await leakFree(() => {
      const { t, d, ptr } = local();
      throws(() => dl.open({ ...d, id: '999999999' }), /never existed/);
      t.dispose();
      expect(producer.calls(ptr)).toBe(1);
      throws(() => dl.open(d), /released by the sharing thread/);
    });
  });

  row('S21', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const { t, d } = local();
      for (const device of ['tpu', 'cpu:0', 'cuda:x']) throws(() => dl.open({ ...d, device }), /`descriptor.device`/);
      // Host memory opened as CUDA memory, or the reverse, would be misread: refused.
      throws(() => dl.open({ ...d, device: 'cuda:0' }), /'cpu' \(the device the memory was shared from\)/);
      t.dispose();
    });
  });


  row('S22', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      for (const handle of ['ab', 'AB'.repeat(64), 'zz'.repeat(64), 12]) {
        throws(() => dl.open(cudaIpc({ handle })), /`descriptor.handle`/);
      }
      for (const device of ['cpu', 'cuda_host']) throws(() => dl.open(cudaIpc({ device })), /`descriptor.device`/);
      // The native backstop (src/core/cuda_ipc.cc) gives the same class and code, before CUDA is asked.
      throws(() => native.cudaIpcOpen('zz'.repeat(64), `dlpack-${'0'.repeat(32)}`, process.pid, 0, 0, 16),
        /128 lowercase hex/);
    });
  });

  row('S23', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    for (const version of [1, 3]) throws(() => dl.open(cudaIpc({ version })), /'cuda-ipc' descriptor version 2/);
  });

  row('S24', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', async (throws) => {
    await leakFree(() => {
      throws(() => dl.open(cudaIpc()), /'cuda-ipc' descriptor/);
      throws(() => dl.empty([4], { device: 'cuda', shared: true }), /a tensor on cuda:0/);
    });
  }, onlyNoDevice);

  row('S25', RangeError, 'ERR_OUT_OF_RANGE', async (throws) => {
    await eachKind((d) => {
      // Zero strides describe any count in 4 bytes: the count must still be a safe integer.
      throws(() => dl.open({ ...d, shape: [2 ** 30, 2 ** 30], strides: [0, 0] }), /`descriptor.shape`/);
      throws(() => dl.open({ ...d, shape: [2 ** 27, 2 ** 27], strides: [0, 0] }), /`descriptor.shape`/);
      const wide = dl.open({ ...d, shape: [2 ** 26, 2 ** 26], strides: [0, 0] }); // 2^52: still a number
      expect(wide.size).toBe(2 ** 52);
      wide.dispose();
    });
  });

  row('S26', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      for (const pid of [0, -1, 1.5, '1', 2 ** 31, undefined, null]) {
        throws(() => dl.open({ ...d, pid }), /`descriptor.pid`/);
        throws(() => dl.open(cudaIpc({ pid })), /`descriptor.pid`/);
      }
      for (const fd of [-1, 0.5, '3', 2 ** 31, undefined]) {
        throws(() => dl.open({ ...d, fd }), /`descriptor.fd`/);
        throws(() => dl.open(cudaIpc({ fd })), /`descriptor.fd`/);
      }
      t.dispose();
    });
  });

  // A peer offering a memfd of the right name without the seals: it could
  // shrink the file under this process's mapping (SIGBUS). (Another user's
  // segment, the other case of this row, is in test/shm-adversarial.test.js.)
  row('S27', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', async (throws) => {
    const name = `dlpack-${'ab'.repeat(16)}`;
    const peer = spawn(PYTHON, ['-c', `import os, sys
fd = os.memfd_create(${JSON.stringify(name)}, 0)
os.ftruncate(fd, 4096)
print(fd, flush=True)
sys.stdin.read()`]);
    try {
      const fd = Number(await new Promise((resolve, reject) => {
        peer.stdout.once('data', resolve);
        peer.once('exit', (code) => reject(new Error(`the peer exited with ${code}`)));
      }));
      await leakFree(() => {
        const { t, d } = shm();
        throws(() => dl.open({ ...d, name, pid: peer.pid, fd }), /not sealed/);
        // A 'cuda-ipc' ticket place holding no ticket is the same kind of mistake, and the same code
        // (native here: without a device, dl.open() stops at CUDA's availability first).
        const ticket = cudaIpc({ ticket: name, pid: peer.pid, fd });
        if (caps.available) throws(() => dl.open(ticket), /not sealed/);
        throws(() => native.cudaIpcOpen(ticket.handle, name, peer.pid, fd, 0, 16), /not sealed/);
        throws(() => native.cudaIpcOpen(ticket.handle, d.name, d.pid, d.fd, 0, 16), /not a ticket/);
        t.dispose();
      });
    } finally {
      peer.kill('SIGKILL');
    }
  });
});

// --- WebAssembly ------------------------------------------------------------------------

describe('wasm.view', () => {
  const memory = new WebAssembly.Memory({ initial: 1 }); // 65536 bytes

  row('W01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const m of [{}, null, memory.buffer, { buffer: new ArrayBuffer(8), grow() {} }]) {
      throws(() => dl.wasm.view(m, { ptr: 0, dtype: 'int32', shape: [1] }), /for `memory`/);
    }
  });

  row('W02', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.wasm.view(memory), /for `options`/);
    throws(() => dl.wasm.view(memory, null), /for `options`/);
  });

  row('W03', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const ptr of [-4, 1.5, '0', 0n, undefined]) {
      throws(() => dl.wasm.view(memory, { ptr, dtype: 'int32', shape: [1] }), /`options.ptr`/);
    }
  });

  row('W04', RangeError, 'ERR_DLPACK_MISALIGNED', (throws) => {
    throws(() => dl.wasm.view(memory, { ptr: 2, dtype: 'int32', shape: [1] }), /`options.ptr`/);
    throws(() => dl.wasm.view(memory, { ptr: 8, dtype: 'complex128', shape: [1] }), /`options.ptr`/);
  });

  row('W05', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.wasm.view(memory, { ptr: 65532, dtype: 'int32', shape: [2] }), /65536 bytes/);
    throws(() => dl.wasm.view(memory, { ptr: 65536 * 2, dtype: 'uint8', shape: [0] }), /65536 bytes/);
    throws(() => dl.wasm.view(memory, { ptr: 0, dtype: 'float64', shape: [2 ** 20, 2 ** 20] }), /65536 bytes/);
  });

  row('W06', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.wasm.view(memory, { ptr: 0, dtype: 'f32', shape: [1] }), /`options.dtype`/);
  });

  row('W07', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.wasm.view(memory, { ptr: 0, dtype: 'int32', shape: 'x' }), /`options.shape`/);
    throws(() => dl.wasm.view(memory, { ptr: 0, dtype: 'int32' }), /`options.shape`/);
  });
});

// --- Python workers ------------------------------------------------------------

describe('python.spawn', () => {
  // Each refusal comes before any process is started.
  // This process's children, read from /proc (no helper process: under the
  // sanitizer phase's LD_PRELOAD, pgrep hangs).
  const spawned = () => fs.readdirSync(`/proc/${process.pid}/task`)
    .map((tid) => fs.readFileSync(`/proc/${process.pid}/task/${tid}/children`, 'utf8').trim())
    .filter(Boolean).join(' ');

  row('P01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const before = spawned();
    throws(() => dl.python.spawn(['model.py']), /`script`/);
    throws(() => dl.python.spawn(undefined), /`script`/);
    throws(() => dl.python.spawn('model.py', 'python3'), /`options`/);
    throws(() => dl.python.spawn('model.py', null), /`options`/);
    expect(spawned()).toBe(before);
  });

  row('P02', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.python.spawn('model.py', { interpreter: 'python3' }), /`options`.*"interpreter"/);
    throws(() => dl.python.spawn('model.py', { stdio: 'pipe' }), /`options`.*"stdio"/);
  });

  row('P03', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.python.spawn('model.py', { python: 3 }), /`options.python`/);
    throws(() => dl.python.spawn('model.py', { args: 'a b' }), /`options.args`/);
    throws(() => dl.python.spawn('model.py', { args: [1] }), /`options.args`/);
    throws(() => dl.python.spawn('model.py', { env: null }), /`options.env`/);
  });

  row('P04', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.python.spawn('model.py', { stderr: 'stdout' }), /`options.stderr`/);
  });
});

// --- the table and the tests agree ----------------------------------------------------

describe('docs/errors.md table', () => {
  test('every row has a test, every test a row, and both name the same error class and code', () => {
    expect(table.size).toBeGreaterThan(0);
    const rowsWithoutTest = [...table.keys()].filter((id) => !tested.has(id));
    const testsWithoutRow = [...tested.keys()].filter((id) => !table.has(id));
    expect({ rowsWithoutTest, testsWithoutRow }).toEqual({ rowsWithoutTest: [], testsWithoutRow: [] });
    for (const [id, expected] of tested) {
      expect({ id, error: table.get(id).error }).toEqual({ id, error: expected });
    }
  });
});
