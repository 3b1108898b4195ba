'use strict';
// Benchmarks for dlpack (npm run bench = node --expose-gc bench/run.js).
//
// Every case runs in this one process, interleaved batch by batch with a
// baseline measured the same way, and reports the median over the batches.
// Targets are reported, never asserted: the script exits 0 whatever they say.
//
//   node --expose-gc bench/run.js          table
//   node --expose-gc bench/run.js --json   the same results as JSON
//
// DLPACK_BENCH_PYTHON names the interpreter for the optional PyTorch/NumPy
// reference (default /usr/bin/python3).
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const dl = require('../lib');
const { releaseRecycled } = require('../lib/memory');
const { VENV_PYTHON } = require('./tiny_ops');

const json = process.argv.includes('--json');
const gc = typeof global.gc === 'function' ? global.gc : null;
// gc() before a batch must leave no work behind: by default V8 frees the
// memory of dead ArrayBuffers on a background thread after the collection,
// and unmapping a baseline's 256 MiB array there slowed the next timed batch,
// whichever side ran it, 3 to 6x on this 2-core machine (bench/README.md,
// "Method"). Without concurrent sweeping gc() frees them itself, untimed.
require('v8').setFlagsFromString('--no-concurrent-array-buffer-sweeping');
const python = process.env.DLPACK_BENCH_PYTHON || '/usr/bin/python3';

// Reference figures taken earlier on this machine, in ns per call (bench/README.md).
const ISSUE_REFERENCE = { torchRoundTrip: 1300, numpyFrombuffer: 570 };

// Results flow into `sink` and the last object made into `last`, so that no
// case can be optimised away (escape analysis included).
let sink = 0;
let last = null;

const now = process.hrtime.bigint;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// Times `fn(ops)` (which runs the operation `ops` times) and returns ns per op.
function timeBatch(fn, ops) {
  const start = now();
  sink += fn(ops);
  return Number(now() - start) / ops;
}

// Runs candidate and baseline batches alternately, swapping which goes first
// each round so that drift (frequency, GC debt) lands on both equally.
// Returns the per-batch ns/op of each.
// `after` runs untimed after every batch (to free what the batch kept).
function compare(candidate, baseline, { ops, batches, warmup = 3, collect = false, after = () => {} }) {
  for (let i = 0; i < warmup; i++) {
    timeBatch(candidate, ops);
    after();
    timeBatch(baseline, ops);
    after();
  }
  const a = [];
  const b = [];
  for (let i = 0; i < batches; i++) {
    const order = i % 2 === 0 ? [[candidate, a], [baseline, b]] : [[baseline, b], [candidate, a]];
    for (const [fn, out] of order) {
      if (collect && gc) gc();
      out.push(timeBatch(fn, ops));
      after();
    }
  }
  return { candidate: a, baseline: b };
}

function single(fn, { ops, batches, warmup = 3 }) {
  for (let i = 0; i < warmup; i++) timeBatch(fn, ops);
  const out = [];
  for (let i = 0; i < batches; i++) out.push(timeBatch(fn, ops));
  return out;
}

// Cold calls: each one after other work, as a call between a pipeline's
// other steps meets it: a pass over 512 KiB of other memory (twice the L2 of
// this VM's cores) and 256 small objects allocated, so that the call's code,
// data and inline caches are no longer hot. Each call is timed alone
// (hrtime around it); a third, empty timed region run the same way gives
// the timer's own cost, taken off both sides. Candidate, baseline and the
// empty region take turns, call by call. Returns the medians (ns), and the
// candidate's per-round medians.
const COLD_NOTE = '512 KiB touched and 256 objects made between calls';
const coldMemory = new Float64Array(64 * 1024);
let coldObjects = null;
function spaceOut(round) {
  for (let k = 0; k < coldMemory.length; k += 8) coldMemory[k] += round;
  const made = new Array(256);
  for (let k = 0; k < made.length; k++) made[k] = { k, round };
  coldObjects = made;
}
function coldCompare(candidate, baseline, { rounds = 15, calls = 200 } = {}) {
  const empty = () => {};
  const order = [candidate, baseline, empty];
  const per = [[], [], []];
  const rows = [];
  for (let r = 0; r < rounds; r++) {
    const ns = [[], [], []];
    for (let i = 0; i < calls; i++) {
      for (let j = 0; j < 3; j++) {
        const k = (i + j) % 3;
        spaceOut(i);
        const start = now();
        order[k]();
        ns[k].push(Number(now() - start));
      }
    }
    for (let k = 0; k < 3; k++) per[k].push(median(ns[k]));
    rows.push(median(ns[0]) - median(ns[2]));
  }
  const timer = median(per[2]);
  sink += coldObjects.length;
  return { candidate: median(per[0]) - timer, baseline: median(per[1]) - timer, timer, candidates: rows };
}

const results = [];

// unit 'ns': lower is better, ratio = case / baseline.
// unit 'GB/s': higher is better, ratio = case / baseline.
function record(row) {
  const { target } = row;
  let pass = null;
  if (target) {
    const value = target.on === 'ratio' ? row.ratio : row.value;
    pass = target.op === '<=' ? value <= target.limit : value >= target.limit;
  }
  results.push({ ...row, pass });
}

// ---------------------------------------------------------------------------
// 1. fromBuffer vs a plain typed-array view over the same bytes.
const SMALL = 4096;
const OFFSET = 16;
const COUNT = 256;
const smallAb = new ArrayBuffer(SMALL);
const wrapOptions = { dtype: 'float32', offset: OFFSET, count: COUNT };

function typedView(ops) {
  let s = 0;
  for (let i = 0; i < ops; i++) {
    const v = new Float32Array(smallAb, OFFSET, COUNT);
    s += v.length;
    last = v;
  }
  return s;
}

function wrap(ops) {
  let s = 0;
  for (let i = 0; i < ops; i++) {
    const t = dl.fromBuffer(smallAb, { dtype: 'float32', offset: OFFSET, count: COUNT });
    s += t.size;
    last = t;
  }
  return s;
}

{
  const r = compare(wrap, typedView, { ops: 100000, batches: 21 });
  const value = median(r.candidate);
  const base = median(r.baseline);
  record({
    id: 'fromBuffer',
    name: `fromBuffer float32 (offset ${OFFSET}, count ${COUNT})`,
    unit: 'ns',
    value,
    baseline: base,
    baselineName: `new Float32Array(ab, ${OFFSET}, ${COUNT})`,
    ratio: value / base,
    // Issue 38 item 6: at most 3x the typed view (it was an absolute 200 ns).
    target: { on: 'ratio', op: '<=', limit: 3, text: '<= 3x typed view' },
    batches: r.candidate,
  });
  const cold = coldCompare(
    () => { last = dl.fromBuffer(smallAb, { dtype: 'float32', offset: OFFSET, count: COUNT }); },
    () => { last = new Float32Array(smallAb, OFFSET, COUNT); });
  record({
    id: 'fromBuffer:cold', name: `  fromBuffer float32, cold (${COLD_NOTE})`, unit: 'ns', value: cold.candidate,
    baseline: cold.baseline, baselineName: `new Float32Array(ab, ${OFFSET}, ${COUNT}), cold`,
    ratio: cold.candidate / cold.baseline, info: true, batches: cold.candidates,
  });
}

// ---------------------------------------------------------------------------
// 2. DLPack round trip: export a capsule and import it again.
const source = dl.fromBuffer(smallAb, wrapOptions);

function roundTrip(ops) {
  let s = 0;
  for (let i = 0; i < ops; i++) {
    const t = dl.fromDLPack(source.__dlpack__());
    s += t.size;
    last = t;
  }
  return s;
}

function roundTripDispose(ops) {
  let s = 0;
  for (let i = 0; i < ops; i++) {
    const t = dl.fromDLPack(source.__dlpack__());
    s += t.size;
    t.dispose();
  }
  return s;
}

function legacyRoundTrip(ops) {
  const legacy = { maxVersion: [0, 8] };
  let s = 0;
  for (let i = 0; i < ops; i++) {
    const t = dl.fromDLPack(source.__dlpack__(legacy));
    s += t.size;
    last = t;
  }
  return s;
}

function exportOnly(ops) {
  let s = 0;
  for (let i = 0; i < ops; i++) {
    const c = source.__dlpack__();
    s += c.version.major;
    c.dispose();
  }
  return s;
}

// The C ABI path: the DLManagedTensorVersioned struct is filled in the struct
// slab (lib/struct_slab.js), handed out as a pointer, taken back and imported.
function pointerRoundTrip(ops) {
  const adopt = { versioned: true };
  let s = 0;
  for (let i = 0; i < ops; i++) {
    const pointer = source.__dlpack__().toPointer();
    const t = dl.fromDLPack(dl.DLPackCapsule.fromPointer(pointer, adopt));
    s += t.size;
    t.dispose();
  }
  return s;
}

// The same through native code end to end: a legacy DLManagedTensor is made
// by the addon (export.cc), adopted and imported through the checklist
// (import.cc), as a versioned struct native code changed, or one from
// another thread, would be.
function legacyPointerRoundTrip(ops) {
  const adopt = { versioned: false };
  const request = { maxVersion: [0, 8] };
  let s = 0;
  for (let i = 0; i < ops; i++) {
    const pointer = source.__dlpack__(request).toPointer();
    const t = dl.fromDLPack(dl.DLPackCapsule.fromPointer(pointer, adopt));
    s += t.size;
    t.dispose();
  }
  return s;
}

{
  const r = compare(roundTrip, typedView, { ops: 50000, batches: 21 });
  const value = median(r.candidate);
  const base = median(r.baseline);
  record({
    id: 'roundTrip',
    name: 'fromDLPack(t.__dlpack__())',
    unit: 'ns',
    value,
    baseline: base,
    baselineName: `new Float32Array(ab, ${OFFSET}, ${COUNT})`,
    ratio: value / base,
    target: { on: 'value', op: '<=', limit: 400, text: '<= 400 ns' },
    batches: r.candidate,
  });
  const info = [
    ['roundTripDispose', 'round trip + dispose()', roundTripDispose, 50000],
    ['legacyRoundTrip', 'round trip, legacy capsule (maxVersion [0, 8])', legacyRoundTrip, 50000],
    ['export', '__dlpack__() + capsule.dispose()', exportOnly, 50000],
    ['legacyPointerRoundTrip', 'round trip via a native C struct (legacy: export.cc, import.cc)',
      legacyPointerRoundTrip, 10000],
  ];
  for (const [id, name, fn, ops] of info) {
    const batches = single(fn, { ops, batches: 11 });
    record({ id, name, unit: 'ns', value: median(batches), info: true, batches });
  }
  {
    const batches = single(pointerRoundTrip, { ops: 10000, batches: 21, warmup: 10 });
    const value = median(batches);
    record({ id: 'pointerRoundTrip', name: 'round trip via C struct (toPointer/fromPointer)', unit: 'ns',
      value, target: { on: 'value', op: '<=', limit: 300, text: '<= 300 ns' }, batches });
    // Issue 38 item 6: at or below NumPy 2's from_dlpack of a small array, timed
    // now, in this run, by the peers venv's Python.
    const numpy = numpyFromDLPack();
    if (numpy.ns === undefined) {
      record({ id: 'pointerVsNumpy', name: 'round trip via C struct vs NumPy from_dlpack(a)', unit: 'ns',
        value: null, info: true, note: `skipped: ${numpy.reason}` });
    } else {
      record({ id: 'pointerVsNumpy', name: 'round trip via C struct vs NumPy from_dlpack(a)', unit: 'ns', value,
        baseline: numpy.ns, baselineName: `NumPy ${numpy.version} from_dlpack(a), a float32[${COUNT}] ` +
          '(peers venv, same run)', ratio: value / numpy.ns,
        target: { on: 'ratio', op: '<=', limit: 1, text: '<= NumPy from_dlpack' }, batches });
    }
    const adopt = { versioned: true };
    const cold = coldCompare(() => {
      const t = dl.fromDLPack(dl.DLPackCapsule.fromPointer(source.__dlpack__().toPointer(), adopt));
      sink += t.size;
      t.dispose();
    }, () => { last = new Float32Array(smallAb, OFFSET, COUNT); });
    record({ id: 'pointerRoundTrip:cold', name: `  round trip via C struct, cold (${COLD_NOTE})`, unit: 'ns',
      value: cold.candidate, baseline: cold.baseline, baselineName: `new Float32Array(ab, ${OFFSET}, ${COUNT}), cold`,
      ratio: cold.candidate / cold.baseline, info: true, batches: cold.candidates });
  }
  const halves = pointerHalves(200, 101);
  record({ id: 'pointerExport', name: '  half 1: __dlpack__().toPointer()', unit: 'ns', value: median(halves.out),
    info: true, batches: halves.out });
  record({ id: 'pointerImport', name: '  half 2: fromDLPack(fromPointer(p)) + dispose()', unit: 'ns',
    value: median(halves.back), info: true, batches: halves.back });
}

// NumPy's from_dlpack of the same small array, in ns per call, by the peers
// venv's Python (bench/python_reference.py from_dlpack): { ns, version }, or
// { reason } where that Python or its NumPy is missing.
function numpyFromDLPack() {
  if (!fs.existsSync(VENV_PYTHON)) return { reason: `no peers venv Python at ${VENV_PYTHON} (scripts/peers-venv.sh)` };
  const script = path.join(__dirname, 'python_reference.py');
  const run = spawnSync(VENV_PYTHON, [script, 'from_dlpack', String(SMALL), String(OFFSET), String(COUNT)],
    { encoding: 'utf8', timeout: 120000 });
  if (run.error || run.status !== 0) {
    return { reason: `${VENV_PYTHON} ${script} failed: ` +
      `${run.error ? run.error.message : run.stderr.trim().split('\n').pop()}` };
  }
  try {
    const out = JSON.parse(run.stdout);
    return { ns: out.from_dlpack_ns, version: out.numpy };
  } catch (error) {
    return { reason: `${script} printed no JSON: ${error.message}` };
  }
}

// The two halves of pointerRoundTrip timed apart: each batch hands `ops`
// structs out, then adopts, imports and disposes each. Batches are smaller
// than the struct slab (256 entries, src/core/struct_slab.h), so that every
// struct is filled in it as in the round trip.
// Each half is a function called once per batch, as every other row's batch
// is: one long loop inside a single call would be timed in on-stack-replaced
// code, several times slower than the same loop in an optimized function.
// The warm-up is long (300 batches, about 50 ms): with batches this short,
// V8 reaches its optimized code for the halves only after some thousand calls,
// and 20 batches timed code still on its way up (400 to 900 ns for half 1).
function exportHalf(pointers, ops) {
  for (let i = 0; i < ops; i++) pointers[i] = source.__dlpack__().toPointer();
}

function importHalf(pointers, ops, adopt) {
  let s = 0;
  for (let i = 0; i < ops; i++) {
    const t = dl.fromDLPack(dl.DLPackCapsule.fromPointer(pointers[i], adopt));
    s += t.size;
    t.dispose();
  }
  return s;
}

function pointerHalves(ops, batches, warmup = 300) {
  const adopt = { versioned: true };
  const pointers = new Array(ops);
  const out = [];
  const back = [];
  for (let b = 0; b < warmup + batches; b++) {
    let start = now();
    exportHalf(pointers, ops);
    const exportNs = Number(now() - start) / ops;
    start = now();
    sink += importHalf(pointers, ops, adopt);
    const importNs = Number(now() - start) / ops;
    if (b >= warmup) {
      out.push(exportNs);
      back.push(importNs);
    }
  }
  return { out, back };
}

// ---------------------------------------------------------------------------
// 3. clone() bandwidth vs copying into a freshly allocated typed array.
const CLONE_BYTES = 64 * 1024 * 1024;
const cloneN = CLONE_BYTES / 4;
const cloneSrc = new Float32Array(cloneN);
for (let i = 0; i < cloneN; i++) cloneSrc[i] = i;
const cloneTensor = dl.fromBuffer(cloneSrc.buffer, { dtype: 'float32' });

// Both sides keep what they made until the batch ends, and free it untimed:
// clones by dispose() (which detaches the buffer and frees the memory at
// once), arrays by dropping them before the gc() that precedes each batch.
const kept = [];
function releaseKept() {
  for (const x of kept) if (x instanceof dl.Tensor) x.dispose();
  kept.length = 0;
}

function cloneCase(ops) {
  let s = 0;
  for (let i = 0; i < ops; i++) {
    const c = cloneTensor.clone();
    const d = c.data;
    s += d[i] + d[cloneN - 1];
    kept.push(c);
  }
  return s;
}

function copyBaseline(ops) {
  let s = 0;
  for (let i = 0; i < ops; i++) {
    const a = new Float32Array(cloneN);
    a.set(cloneSrc);
    s += a[i] + a[cloneN - 1];
    kept.push(a);
  }
  return s;
}

{
  const r = compare(cloneCase, copyBaseline,
    { ops: 3, batches: 11, warmup: 1, collect: true, after: releaseKept });
  const gbps = (ns) => CLONE_BYTES / ns; // bytes per ns = GB/s
  const value = gbps(median(r.candidate));
  const base = gbps(median(r.baseline));
  record({
    id: 'clone',
    name: 'clone() 64 MiB float32',
    unit: 'GB/s',
    value,
    baseline: base,
    baselineName: 'new Float32Array(n).set(src)',
    ratio: value / base,
    target: { on: 'ratio', op: '>=', limit: 0.9, text: 'ratio >= 0.9' },
    batches: r.candidate.map(gbps),
  });
  // The row above is the steady state of a pipeline: clone() takes the memory
  // of the clone disposed before it (lib/memory.js), while the baseline pays
  // fresh pages. Here both pay fresh pages: the kept memory is freed after
  // every batch.
  const fresh = compare(cloneCase, copyBaseline, {
    ops: 3, batches: 7, warmup: 1, collect: true,
    after: () => { releaseKept(); releaseRecycled(); },
  });
  const freshValue = gbps(median(fresh.candidate));
  record({
    id: 'cloneFresh', name: 'clone() 64 MiB float32, fresh memory every batch', unit: 'GB/s',
    value: freshValue, baseline: gbps(median(fresh.baseline)), baselineName: 'new Float32Array(n).set(src)',
    ratio: freshValue / gbps(median(fresh.baseline)), info: true, batches: fresh.candidate.map(gbps),
  });
}

// ---------------------------------------------------------------------------
// 4. fromBuffer cost does not depend on the buffer's size.
const tinyAb = new ArrayBuffer(1024);
const hugeAb = new ArrayBuffer(256 * 1024 * 1024); // zero pages: never touched
const wholeOptions = { dtype: 'float32' };

// One factory, so both closures share their feedback and optimised code:
// the buffer is the only difference between the two cases.
function wrapWhole(buffer) {
  return (ops) => {
    let s = 0;
    for (let i = 0; i < ops; i++) {
      const t = dl.fromBuffer(buffer, wholeOptions);
      s += t.size;
      last = t;
    }
    return s;
  };
}
const wrapTiny = wrapWhole(tinyAb);
const wrapHuge = wrapWhole(hugeAb);

{
  const r = compare(wrapHuge, wrapTiny, { ops: 100000, batches: 21 });
  const value = median(r.candidate);
  const base = median(r.baseline);
  record({
    id: 'fromBufferSize',
    name: 'fromBuffer 256 MiB buffer (whole)',
    unit: 'ns',
    value,
    baseline: base,
    baselineName: 'fromBuffer 1 KiB buffer (whole)',
    ratio: value / base,
    target: { on: 'ratio', op: '<=', limit: 1.2, text: 'ratio <= 1.2' },
    batches: r.candidate,
  });
}
last = null;

// ---------------------------------------------------------------------------
// 5. Views and conversion: bench/ops.js.
require('./ops').opsCases(record, { compare, median, python, consume: (v) => { last = v; } });
last = null; // eslint-disable-line no-unused-vars -- lets the section's last object be collected

// ---------------------------------------------------------------------------
// Optional reference: PyTorch and NumPy timed by Python's timeit on the same
// sizes. Informational only; never installed by this script.
function pythonReference() {
  const probe = spawnSync(python, ['-c', 'import numpy, torch'], { encoding: 'utf8', timeout: 60000 });
  if (probe.error || probe.status !== 0) {
    const why = probe.error ? probe.error.code || probe.error.message
      : (probe.stderr.trim().split('\n').pop() || `exit ${probe.status}`);
    return { available: false, reason: `${python} -c 'import numpy, torch' failed: ${why}` };
  }
  const script = path.join(__dirname, 'python_reference.py');
  const run = spawnSync(python, [script, String(SMALL), String(OFFSET), String(COUNT)],
    { encoding: 'utf8', timeout: 120000 });
  if (run.error || run.status !== 0) {
    const why = run.error ? run.error.message : run.stderr.trim();
    return { available: false, reason: `${script} failed: ${why}` };
  }
  try {
    return { available: true, ...JSON.parse(run.stdout) };
  } catch (error) {
    return { available: false, reason: `${script} printed no JSON: ${error.message}` };
  }
}

const reference = pythonReference();
if (reference.available) {
  record({
    id: 'torchRoundTrip',
    name: `PyTorch ${reference.torch} from_dlpack(to_dlpack(t))`,
    unit: 'ns',
    value: reference.torch_roundtrip_ns,
    info: true,
    external: true,
  });
  record({
    id: 'numpyFromDLPack',
    name: `NumPy ${reference.numpy} from_dlpack(a) (a.__dlpack__() + import)`,
    unit: 'ns',
    value: reference.numpy_from_dlpack_ns,
    info: true,
    external: true,
  });
  record({
    id: 'numpyFrombuffer',
    name: `NumPy ${reference.numpy} frombuffer(b, float32, count, offset)`,
    unit: 'ns',
    value: reference.numpy_frombuffer_ns,
    info: true,
    external: true,
  });
}

// ---------------------------------------------------------------------------
const environment = {
  node: process.version,
  v8: process.versions.v8,
  cpu: os.cpus()[0] ? os.cpus()[0].model : 'unknown',
  cores: os.cpus().length,
  platform: `${os.platform()} ${os.arch()}`,
  exposeGc: gc !== null,
  dlpackVersion: `${dl.dlpackVersion.major}.${dl.dlpackVersion.minor}`,
};

// The sharing cases hand tensors to a worker thread and a Python process.
let sharingNote = null;
let arrowNote = null; // the Arrow and Ray rows' note (bench/arrow.js): why Ray was skipped, or null
let cudaNote = null;
let cudaOpsNote = null;
let pipelineNote = null;
let ortThreadsNote = null;
let computeNotes = [];
let tinyOpsNote = null;
require('./sharing').sharingCases(record, python).then(async (note) => {
  sharingNote = note;
  pipelineNote = await require('./pipeline').pipelineCases(record, python);
  ortThreadsNote = await require('./ort_threads').ortThreadCases(record);
  arrowNote = await require('./arrow').arrowCases(record, { compare, median });
  computeNotes = await require('./compute').computeCases(record, { python });
  // issue 40's host families: sort, cumsum, gather, nms, interpolate (bench/pipeline_ops.js).
  computeNotes.push(...await require('./pipeline_ops').pipelineOpCases(record));
  // Host memory: native blocks against ArrayBuffers, staging, a tiny op (bench/memory.js).
  await require('./memory').memoryCases(record, { compare, median });
  // A tiny op per call beside NumPy's and torch's (bench/tiny_ops.js).
  tinyOpsNote = require('./tiny_ops').tinyOpCases(record, { compare, median, python });
  // matmul, layerNorm, varMean against NumPy, torch and JS loops (bench/linalg.js).
  computeNotes.push(...await require('./linalg').linalgCases(record, { python }));
  try {
    cudaNote = require('./cuda').cudaCases(record);
  } catch (error) {
    // A failed CUDA case must not take the rest of the table with it.
    cudaNote = `CUDA benchmarks failed: ${error.message}`;
  }
  try {
    cudaOpsNote = require('./cuda_ops').cudaOpCases(record);
  } catch (error) {
    cudaOpsNote = `CUDA op benchmarks failed: ${error.message}`;
  }
  if (json) {
    console.log(JSON.stringify({
      environment,
      results,
      reference,
      sharingNote,
      arrowNote,
      pipelineNote,
      computeNotes,
      tinyOpsNote,
      cudaNote,
      cudaOpsNote,
      issueReference: ISSUE_REFERENCE,
      checksum: sink,
    }, null, 2));
  } else {
    printTable();
  }
}, (error) => {
  console.error('sharing benchmarks failed:', error);
  process.exitCode = 1;
});

function fmt(value, unit) {
  if (value === undefined || value === null) return '-';
  if (unit === 'GB/s') return `${value.toFixed(2)} GB/s`;
  if (unit === 'ms') return `${value < 10 ? value.toFixed(3) : value.toFixed(1)} ms`;
  return `${value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US')} ns`;
}

function printTable() {
  console.log(`dlpack bench: Node ${environment.node} (V8 ${environment.v8}), ${environment.platform}`);
  console.log(`CPU: ${environment.cpu}, ${environment.cores} cores; DLPack ${environment.dlpackVersion}` +
    `${gc ? '' : '; run with --expose-gc for gc() between clone batches'}`);
  console.log('median over batches; ratio = case / baseline (ns: lower is better, GB/s: higher is better)\n');
  const header = ['case', 'median', 'baseline', 'ratio', 'target', 'result'];
  // The Python reference rows sit with the round trips they compare to.
  const anchor = results.findIndex((x) => x.id === 'pointerImport') + 0.5;
  const order = (r) => (r.external ? anchor : results.indexOf(r));
  const sorted = [...results].sort((a, b) => order(a) - order(b));
  const rows = sorted.map((r) => [
    r.info ? `  ${r.name}` : r.name,
    fmt(r.value, r.unit),
    r.baseline === undefined ? '' : fmt(r.baseline, r.unit),
    r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`,
    r.target ? r.target.text : (r.external ? 'reference' : 'info'),
    r.pass === null ? '' : (r.pass ? 'pass' : 'FAIL'),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const pad = (c, i) => (i === 0 || i === 4 ? c.padEnd(widths[i]) : c.padStart(widths[i]));
  const line = (cells) => cells.map(pad).join('  ').trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
  console.log('\nbaselines:');
  for (const r of results) if (r.baselineName) console.log(`  ${r.name}: ${r.baselineName}`);
  const { torchRoundTrip, numpyFrombuffer } = ISSUE_REFERENCE;
  console.log('\nissue reference on this machine: ' +
    `PyTorch 1.13 round trip ~${torchRoundTrip.toLocaleString('en-US')} ns, ` +
    `numpy.frombuffer ~${numpyFrombuffer} ns`);
  if (!reference.available) console.log(`python reference: unavailable (${reference.reason})`);
  if (sharingNote) console.log(sharingNote);
  if (pipelineNote) console.log(pipelineNote);
  if (ortThreadsNote) console.log(ortThreadsNote);
  if (arrowNote) console.log(arrowNote);
  for (const note of computeNotes) console.log(note);
  if (tinyOpsNote) console.log(tinyOpsNote);
  if (cudaNote) console.log(cudaNote);
  if (cudaOpsNote) console.log(cudaOpsNote);
  for (const r of results) if (r.note) console.log(`  ${r.name}: ${r.note}`);
  const targeted = results.filter((r) => r.pass !== null);
  console.log(`${targeted.filter((r) => r.pass).length} of ${targeted.length} targets met ` +
    '(reported only; the exit status is 0)');
}
