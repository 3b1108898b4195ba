'use strict';
// The linear-algebra and statistics rows (bench/README.md "Linear algebra"),
// issue 40's goals: matmul of [1024, 1024] x [1024, 1024] float32 and the
// pipeline shapes [8, 384] x [384, 384] and [1000, 384] x [384] against NumPy
// (OpenBLAS) and torch at one thread (bench/linalg_peers.py, run from the peers
// venv); layerNorm and varMean of [8, 128, 384] against torch and against
// plain JS loops written the way transformers.js writes its layer_norm and
// std_mean (transformers.js is not installed here: these loops stand in for
// it, with the same passes over a Float32Array). Ours at one thread, and at
// two as an info row. Rows are ms per op (median); ratio = ours / baseline,
// lower is better.
// Run alone: node --expose-gc bench/linalg.js [python]
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const dl = require('../lib');

const REPEATS = 21;
const now = process.hrtime.bigint;

// Median ms of each of `fns`, taking turns within a round, after a warm-up.
function timeInTurn(fns, repeats = REPEATS) {
  const times = fns.map(() => []);
  for (const fn of fns) fn();
  for (let i = 0; i < repeats; i++) {
    fns.forEach((fn, k) => {
      const start = now();
      fn();
      times[k].push(Number(now() - start) / 1e6);
    });
  }
  return times.map((ts) => ts.sort((x, y) => x - y)[ts.length >> 1]);
}

function uniform(n, seed) {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32) * 2 - 1;
  }
  return out;
}

// layer_norm over the last dim of rows x n, as transformers.js's JS loop does
// it: per row a mean pass, a variance pass, a normalising pass.
function jsLayerNorm(data, rows, n, eps = 1e-5) {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) {
    const base = r * n;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += data[base + i];
    const mean = sum / n;
    let sq = 0;
    for (let i = 0; i < n; i++) sq += (data[base + i] - mean) ** 2;
    const inv = 1 / Math.sqrt(sq / n + eps);
    for (let i = 0; i < n; i++) out[base + i] = (data[base + i] - mean) * inv;
  }
  return out;
}

// std_mean-style var and mean over the last dim (correction 1), the same passes.
function jsVarMean(data, rows, n) {
  const v = new Float32Array(rows);
  const m = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    const base = r * n;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += data[base + i];
    const mean = sum / n;
    let sq = 0;
    for (let i = 0; i < n; i++) sq += (data[base + i] - mean) ** 2;
    v[r] = sq / (n - 1);
    m[r] = mean;
  }
  return [v, m];
}

function peers(python) {
  if (!fs.existsSync(python)) return { reason: `${python} is absent` };
  const run = spawnSync(python, [path.join(__dirname, 'linalg_peers.py'), String(REPEATS)],
    { encoding: 'utf8', timeout: 600000 });
  if (run.error || run.status !== 0) return { reason: `linalg_peers.py exited ${run.status}: ${run.stderr}` };
  return JSON.parse(run.stdout);
}

async function linalgCases(record, { python } = {}) {
  const venv = path.join(process.env.DLPACK_PEERS_VENV ||
    path.join(os.homedir(), '.cache', 'dlpack-ci', 'peers-venv'), 'bin', 'python');
  const py = fs.existsSync(venv) ? venv : python || '/usr/bin/python3';
  const before = dl.getNumThreads();
  const t = (shape, seed) => dl.tensor(uniform(shape.reduce((a, b) => a * b, 1), seed), { shape });
  const bigA = t([1024, 1024], 1);
  const bigB = t([1024, 1024], 2);
  const smallA = t([8, 384], 3);
  const smallB = t([384, 384], 4);
  const mvA = t([1000, 384], 5);
  const mvB = t([384], 6);
  const lnX = t([8, 128, 384], 7);
  const lnData = lnX.data;
  const cases = {
    matmul1024: { name: 'matmul [1024,1024] x [1024,1024] f32', fn: () => dl.matmul(bigA, bigB).dispose(),
      flops: 2 * 1024 ** 3, repeats: 7 },
    matmul8x384: { name: 'matmul [8,384] x [384,384] f32', fn: () => dl.matmul(smallA, smallB).dispose(),
      flops: 2 * 8 * 384 * 384 },
    matvec1000x384: { name: 'matmul [1000,384] x [384] f32', fn: () => dl.matmul(mvA, mvB).dispose(),
      flops: 2 * 1000 * 384 },
    layerNorm: { name: 'layerNorm [8,128,384] over 384 f32', fn: () => dl.layerNorm(lnX, [384]).dispose(),
      js: () => jsLayerNorm(lnData, 8 * 128, 384) },
    varMean: { name: 'varMean [8,128,384] dim -1 f32', fn: () => dl.varMean(lnX, -1).forEach((x) => x.dispose()),
      js: () => jsVarMean(lnData, 8 * 128, 384) },
  };
  const notes = [];
  const theirs = peers(py);
  if (theirs.reason) notes.push(`linalg peers skipped: ${theirs.reason}`);
  try {
    for (const [id, c] of Object.entries(cases)) {
      dl.setNumThreads(1);
      const fns = [c.fn];
      if (c.js) fns.push(c.js);
      const [ours, js] = timeInTurn(fns, c.repeats || REPEATS);
      dl.setNumThreads(2);
      const [two] = timeInTurn([c.fn], c.repeats || REPEATS);
      const gflops = c.flops ? `, ${(c.flops / (ours * 1e6)).toFixed(1)} GFLOP/s` : '';
      for (const peer of ['numpy', 'torch']) {
        const base = theirs[peer] && theirs[peer][id];
        if (base === undefined) continue;
        record({ id: `linalg:${id}:${peer}`, name: `${c.name}, 1 thread (vs ${peer})`, unit: 'ms', value: ours,
          baseline: base, baselineName: `${peer} ${theirs.versions[peer]} at 1 thread`, ratio: ours / base,
          target: { on: 'ratio', op: '<=', limit: 1, text: `<= 1x ${peer}` }, note: gflops ? `ours${gflops}` : undefined });
      }
      if (js !== undefined) {
        record({ id: `linalg:${id}:js`, name: `${c.name}, 1 thread (vs a JS loop)`, unit: 'ms', value: ours, baseline: js,
          baselineName: 'the plain JS loop transformers.js writes (bench/linalg.js)', ratio: ours / js,
          target: { on: 'ratio', op: '<=', limit: 1 / 3, text: '>= 3x faster than JS' } });
      }
      record({ id: `linalg:${id}:threads`, name: `${c.name}, 2 threads (vs 1)`, unit: 'ms', value: two, baseline: ours,
        baselineName: 'ours at 1 thread', ratio: two / ours, info: true });
    }
  } finally {
    dl.setNumThreads(before);
    for (const x of [bigA, bigB, smallA, smallB, mvA, mvB, lnX]) x.dispose();
  }
  return notes;
}

module.exports = { linalgCases };

if (require.main === module) {
  const rows = [];
  linalgCases((r) => rows.push(r), { python: process.argv[2] }).then((notes) => {
    console.log(`linalg rows: Node ${process.version}, ${os.cpus()[0].model}, ${os.cpus().length} cores, ` +
      `${new Date().toISOString()}`);
    for (const r of rows) {
      console.log(`${r.name.padEnd(62)} ${r.value.toFixed(4).padStart(9)} ms  ${r.baseline.toFixed(4).padStart(9)} ms ` +
        `${r.ratio.toFixed(2).padStart(6)}x  ${r.baselineName}${r.note ? `  (${r.note})` : ''}`);
    }
    for (const n of notes) console.log(n);
  });
}
