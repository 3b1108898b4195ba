'use strict';
// Arrow and Ray benchmarks (bench/README.md "Arrow and Ray"): reading a batch out of Arrow IPC
// bytes and writing one into IPC chunks, against apache-arrow's own tableFromIPC/tableToIPC on
// the same bytes and against one memcpy of the batch; 8 frames against 64; a cold call (fresh
// bytes or a fresh tensor each time) beside each hot loop; and a Ray put + get of the batch
// against a memcpy, through a local cluster (the peers venv's Ray; skipped with the reason
// where it is missing). Run alone with `node --expose-gc bench/arrow.js`, or in `npm run bench`.
const fs = require('fs');
const os = require('os');
const path = require('path');
const dl = require('../lib');

const FRAME = [3, 224, 224];
const VENV = process.env.DLPACK_PEERS_VENV || path.join(os.homedir(), '.cache', 'dlpack-ci', 'peers-venv');
const now = process.hrtime.bigint;

function batchOf(frames) {
  const t = dl.empty([frames, ...FRAME]);
  const d = t.data;
  for (let i = 0; i < d.length; i++) d[i] = i % 251;
  return t;
}

// The baselines: one memcpy of `nbytes`, into fresh memory (what a reader that copies does:
// allocate and copy, `bytes.slice()`; the targets are against it) and into memory written
// before (`dst.set(src)`: the copy alone, reported beside it).
function memcpyOf(nbytes) {
  const src = new Uint8Array(nbytes).fill(7);
  const dst = new Uint8Array(nbytes).fill(1);
  const fresh = (ops) => {
    let s = 0;
    for (let i = 0; i < ops; i++) s += src.slice()[nbytes - 1];
    return s;
  };
  const reused = (ops) => {
    for (let i = 0; i < ops; i++) dst.set(src);
    return dst[nbytes - 1];
  };
  return { fresh, reused };
}

async function arrowCases(record, { compare, median }) {
  const A = require('apache-arrow');
  const ratioRow = (id, name, r, baselineName, target, extra = {}) => {
    const value = median(r.candidate) / 1e6;
    const baseline = median(r.baseline) / 1e6;
    record({ id, name, unit: 'ms', value, baseline, baselineName, ratio: value / baseline, target,
      batches: r.candidate, ...extra });
    return value;
  };
  const reads = {};
  for (const frames of [8, 64]) {
    const t = batchOf(frames);
    const nbytes = t.nbytes;
    const bytes = Buffer.concat(dl.toArrowIPCChunks(t));
    const memcpy = memcpyOf(nbytes);
    const ours = (ops) => {
      let s = 0;
      for (let i = 0; i < ops; i++) s += dl.fromArrowIPC(bytes).size;
      return s;
    };
    const theirs = (ops) => {
      let s = 0;
      for (let i = 0; i < ops; i++) s += A.tableFromIPC(bytes).numRows;
      return s;
    };
    const label = `${frames}x3x224x224 float32 (${(nbytes / 1e6).toFixed(1)} MB)`;
    reads[frames] = ratioRow(`fromArrowIPC${frames}`, `fromArrowIPC ${label}`,
      compare(ours, theirs, { ops: 20, batches: 15 }), 'apache-arrow tableFromIPC of the same bytes',
      { on: 'ratio', op: '<=', limit: 1.5, text: '<= 1.5x tableFromIPC' });
    ratioRow(`fromArrowIPCmemcpy${frames}`, `fromArrowIPC ${label} vs a copy into fresh memory`,
      compare(ours, memcpy.fresh, { ops: 5, batches: 15, collect: true }), 'bytes.slice() of the batch',
      { on: 'ratio', op: '<=', limit: 0.1, text: '<= 0.1x memcpy' });
    ratioRow(`fromArrowIPCreused${frames}`, `  fromArrowIPC ${label} vs a copy into reused memory`,
      compare(ours, memcpy.reused, { ops: 5, batches: 15 }), 'dst.set(src) of the batch', null, { info: true });
    // Cold: each call on bytes just received (a fresh copy, made untimed between calls).
    let fresh = Buffer.from(bytes);
    ratioRow(`fromArrowIPCcold${frames}`, `  fromArrowIPC ${label}, cold (fresh bytes each call)`,
      compare((ops) => dl.fromArrowIPC(fresh).size * ops, memcpy.fresh, {
        ops: 1, batches: 15, after: () => { fresh = Buffer.from(bytes); },
      }), 'bytes.slice() of the batch', null, { info: true });
    // Writing: the chunks are headers and the tensor's own memory.
    const table = dl.toArrowTable({ tensor: t });
    const chunks = (ops) => {
      let s = 0;
      for (let i = 0; i < ops; i++) s += dl.toArrowIPCChunks(t).length;
      return s;
    };
    ratioRow(`toArrowIPCChunks${frames}`, `toArrowIPCChunks ${label} vs a copy into fresh memory`,
      compare(chunks, memcpy.fresh, { ops: 5, batches: 15, collect: true }), 'bytes.slice() of the batch',
      { on: 'ratio', op: '<=', limit: 0.1, text: '<= 0.1x memcpy' });
    ratioRow(`toArrowIPCChunksReused${frames}`, `  toArrowIPCChunks ${label} vs a copy into reused memory`,
      compare(chunks, memcpy.reused, { ops: 5, batches: 15 }), 'dst.set(src) of the batch', null, { info: true });
    ratioRow(`tableToIPC${frames}`, `  apache-arrow tableToIPC ${label} vs a copy into fresh memory`,
      compare((ops) => {
        let s = 0;
        for (let i = 0; i < ops; i++) s += A.tableToIPC(table).length;
        return s;
      }, memcpy.fresh, { ops: 3, batches: 11, collect: true }), 'bytes.slice() of the batch', null, { info: true });
    let cold = batchOf(frames);
    ratioRow(`toArrowIPCChunksCold${frames}`, `  toArrowIPCChunks ${label}, cold (a fresh tensor each call)`,
      compare((ops) => dl.toArrowIPCChunks(cold).length * ops, memcpy.fresh, {
        ops: 1, batches: 11, after: () => { cold = batchOf(frames); },
      }), 'bytes.slice() of the batch', null, { info: true });
  }
  record({
    id: 'fromArrowIPC64vs8', name: 'fromArrowIPC 64 frames vs 8 frames', unit: 'ms', value: reads[64],
    baseline: reads[8], baselineName: 'fromArrowIPC of 8 frames', ratio: reads[64] / reads[8],
    target: { on: 'ratio', op: '<=', limit: 2, text: '<= 2x 8 frames' },
  });
  return rayCase(record, median);
}

// Ray: put then get back into Node of an 8-frame batch, against a memcpy of it, timed
// one round at a time in alternation (a round is async: compare() times sync batches).
async function rayCase(record, median) {
  const python = path.join(VENV, 'bin', 'python');
  if (!fs.existsSync(python)) return `ray: skipped (no peers venv at ${VENV})`;
  let ray;
  try {
    ray = await dl.ray.connect({ python, numCpus: 1, objectStoreMemory: 256 * 1024 * 1024, stderr: 'ignore' });
  } catch (error) {
    return `ray: skipped (${error.code}: ${error.message.split('\n')[0]})`;
  }
  try {
    const batch = dl.empty([8, ...FRAME], { shared: true });
    batch.data.fill(0.5);
    const memcpy = memcpyOf(batch.nbytes);
    const round = async () => {
      const ref = await ray.put(batch);
      const back = await ray.get(ref);
      await ray.release(ref);
      back.dispose();
    };
    await round(); // warm-up (the first put maps the store)
    const rounds = [];
    const copies = [];
    const reusedCopies = [];
    const coldStart = now();
    await round();
    const cold = Number(now() - coldStart) / 1e6;
    for (let i = 0; i < 15; i++) {
      const start = now();
      await round();
      rounds.push(Number(now() - start) / 1e6);
      let c = now();
      memcpy.fresh(1);
      copies.push(Number(now() - c) / 1e6);
      c = now();
      memcpy.reused(1);
      reusedCopies.push(Number(now() - c) / 1e6);
    }
    const value = median(rounds);
    const baseline = median(copies);
    record({
      id: 'rayPutGet', name: `ray put + get of 8x3x224x224 float32 (${(batch.nbytes / 1e6).toFixed(1)} MB), local cluster`,
      unit: 'ms', value, baseline, baselineName: 'bytes.slice() of the batch', ratio: value / baseline,
      target: { on: 'ratio', op: '<=', limit: 4, text: '<= 4x memcpy' }, batches: rounds,
      note: `a copy into reused memory ${median(reusedCopies).toFixed(3)} ms; the round after warm-up ` +
        `${cold.toFixed(2)} ms; Ray ${ray.version}`,
    });
    return null;
  } finally {
    await ray.close();
  }
}

module.exports = { arrowCases };

if (require.main === module) {
  // Alone: the same rows, printed as a small table.
  const results = [];
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  const time = (fn, ops) => {
    const start = now();
    fn(ops);
    return Number(now() - start) / ops;
  };
  const compare = (candidate, baseline, { ops, batches, after = () => {} }) => { // gc() before every batch
    for (let i = 0; i < 3; i++) { time(candidate, ops); after(); time(baseline, ops); after(); }
    const a = [];
    const b = [];
    for (let i = 0; i < batches; i++) {
      for (const [fn, out] of i % 2 ? [[baseline, b], [candidate, a]] : [[candidate, a], [baseline, b]]) {
        if (global.gc) global.gc();
        out.push(time(fn, ops));
        after();
      }
    }
    return { candidate: a, baseline: b };
  };
  arrowCases((row) => results.push(row), { compare, median }).then((note) => {
    console.log(`${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}, ${new Date().toISOString()}`);
    for (const r of results) {
      const pass = r.target ? ((r.target.on === 'ratio' ? r.ratio : r.value) <= r.target.limit ? 'pass' : 'FAIL') : '';
      console.log(`${r.name.padEnd(86)} ${r.value.toFixed(3).padStart(9)} ms  ${(r.baseline ?? 0).toFixed(3)
        .padStart(8)} ms  ${r.ratio.toFixed(3).padStart(7)}x  ${r.target ? r.target.text : 'info'} ${pass}` +
        `${r.note ? `  (${r.note})` : ''}`);
    }
    if (note) console.log(note);
  });
}
