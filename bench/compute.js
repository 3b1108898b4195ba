'use strict';
// The compute targets (bench/README.md "Compute"): the ops a pipeline runs between
// two exchanges, each timed against what a user would pick instead, in the same run:
// - memory-bound ops against a plain C loop with the same traffic (bench/bandwidth.c,
//   compiled here with -O3, one thread) and against the fastest peer;
// - compute-bound ops against the fastest peer at the same thread count, and our
//   2-thread time against our 1-thread time;
// - dl.normalize of 8 uint8 HWC frames against the best fused JS loop and the peers.
// Peers: NumPy and PyTorch (bench/compute_reference.py in a child Python, torch at
// the same thread count) and TensorFlow.js with its wasm backend (devDependencies
// @tensorflow/tfjs-core + @tensorflow/tfjs-backend-wasm; XNNPACK + SIMD, one thread
// in Node). Rows are ms per op (median); ratio = ours / baseline, lower is better.
// The rows judged against NumPy/torch that take well under a millisecond, and the
// exp/sigmoid/tanh rows of 16M float32 (since 2026-11-27 evening), are timed
// side by side: the peers' script runs first, ours later, and this VM's speed
// drifts by up to 1.5x between the two (bench/README.md), so these rows get
// SIDE_BY_SIDE_ROUNDS more rounds at the end, ours then the peers' (only those
// rows) each round, and each side's figure is the least of its medians.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { monitorEventLoopDelay } = require('perf_hooks');
const dl = require('../lib');

const REPEATS = 9;
// Rows of under a few milliseconds take this many samples, on every side
// (ours, the JS loops, tfjs, and compute_reference.py's): with 9, one row's
// median moved by up to 50% between runs on the benchmark VM.
const SHORT_REPEATS = 101;
// Extra rounds of the side-by-side rows (round 0 is the rows' first timing).
const SIDE_BY_SIDE_ROUNDS = 2;
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];
const now = process.hrtime.bigint;

// Median ms of each of `fns` over REPEATS rounds after one warm-up each, the
// fns taking turns within a round; `after` runs untimed after every call.
function timeMsInTurn(fns, { repeats = REPEATS, after = () => {} } = {}) {
  const times = fns.map(() => []);
  for (const fn of fns) {
    fn();
    after();
  }
  for (let i = 0; i < repeats; i++) {
    fns.forEach((fn, k) => {
      const start = now();
      fn();
      times[k].push(Number(now() - start) / 1e6);
      after();
    });
  }
  return times.map((ts) => ts.sort((x, y) => x - y)[ts.length >> 1]);
}

// Median ms of `fn()` over REPEATS runs after one warm-up; `after` runs untimed.
function timeMs(fn, { repeats = REPEATS, after = () => {} } = {}) {
  fn();
  after();
  const times = [];
  for (let i = 0; i < repeats; i++) {
    const start = now();
    fn();
    times.push(Number(now() - start) / 1e6);
    after();
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

// bench/bandwidth.c, compiled with the system's cc: { ms: {name: ms} } or { reason }.
function cLoops() {
  const exe = path.join(os.tmpdir(), `dlpack-bandwidth-${process.pid}`);
  const cc = spawnSync('cc', ['-O3', '-o', exe, path.join(__dirname, 'bandwidth.c')],
    { encoding: 'utf8', timeout: 120000 });
  if (cc.error || cc.status !== 0) return { reason: `cc failed: ${cc.error ? cc.error.code : cc.stderr.trim()}` };
  try {
    const run = spawnSync(exe, [String(REPEATS)], { encoding: 'utf8', timeout: 300000 });
    if (run.error || run.status !== 0) return { reason: `bandwidth exited ${run.status}` };
    return { ms: JSON.parse(run.stdout) };
  } finally {
    fs.rmSync(exe, { force: true });
  }
}

// bench/compute_reference.py at `threads`: { ms, versions } or { reason }.
// `only`: the row names to time (every row when absent).
function pythonPeers(python, threads, only = undefined) {
  const args = [path.join(__dirname, 'compute_reference.py'), String(threads), String(REPEATS), String(SHORT_REPEATS)];
  if (only !== undefined) args.push(JSON.stringify(only));
  const run = spawnSync(python, args, { encoding: 'utf8', timeout: 600000 });
  if (run.error || run.status !== 0) {
    const why = run.error ? run.error.code || run.error.message : run.stderr.trim().split('\n').pop();
    return { reason: `${python} compute_reference.py: ${why}` };
  }
  try {
    return JSON.parse(run.stdout);
  } catch (error) {
    return { reason: `compute_reference.py printed no JSON: ${error.message}` };
  }
}

// TensorFlow.js on its wasm backend: { tf } or { reason }.
async function tfjsWasm() {
  let tf;
  try {
    tf = require('@tensorflow/tfjs-core');
    require('@tensorflow/tfjs-backend-wasm');
  } catch (error) {
    return { reason: `@tensorflow/tfjs-core / tfjs-backend-wasm not installed (${error.code || error.message})` };
  }
  try {
    if (!(await tf.setBackend('wasm'))) return { reason: 'tfjs: the wasm backend did not start' };
    await tf.ready();
  } catch (error) {
    return { reason: `tfjs wasm backend: ${error.message}` };
  }
  return { tf, version: tf.version_core, simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT') };
}

// Times a tfjs op that makes one tensor (or a list of tensors), disposing it untimed.
function tfMs(tf, make, repeats = REPEATS) {
  let made = null;
  return timeMs(() => { made = make(); }, { repeats, after: () => { tf.dispose(made); made = null; } });
}

// The fastest of `peers` ({name: ms}, undefined entries skipped).
function fastest(peers) {
  let best = null;
  for (const [name, ms] of Object.entries(peers)) {
    if (typeof ms === 'number' && (best === null || ms < best.ms)) best = { name, ms };
  }
  return best;
}

// A row's ms in one pythonPeers() result, or undefined.
function msIn(result, name) {
  return result.ms ? result.ms[name] : undefined;
}

// The least of the numbers among `values`, or undefined.
function least(values) {
  const numbers = values.filter((v) => typeof v === 'number');
  return numbers.length === 0 ? undefined : Math.min(...numbers);
}

// Rows timed side by side (the header): `add(spec)` at the row's place, with
//   { id, name, ours: () => ms, first (ours already timed there, or absent),
//     peers: { label: [threads, python row] },
//     others: { label: ms } (in-process peers, timed once), limit, text };
// `finish()` runs the extra rounds and records every row. `py`: the
// pythonPeers() results of the start, by thread count (round 0).
function sideBySide(python, py, row) {
  const specs = [];
  return {
    add(spec) {
      const first = { ours: spec.first !== undefined ? spec.first : spec.ours(), peers: {} };
      for (const [label, [t, name]] of Object.entries(spec.peers)) first.peers[label] = msIn(py[t], name);
      specs.push({ ...spec, rounds: [first] });
    },
    finish() {
      for (let round = 0; round < SIDE_BY_SIDE_ROUNDS && specs.length !== 0; round++) {
        const ours = specs.map((spec) => spec.ours());
        const wanted = { 1: new Set(), 2: new Set() };
        for (const spec of specs) for (const [t, name] of Object.values(spec.peers)) wanted[t].add(name);
        const again = {};
        for (const t of [1, 2]) again[t] = wanted[t].size === 0 ? {} : pythonPeers(python, t, [...wanted[t]]);
        specs.forEach((spec, i) => {
          const peers = {};
          for (const [label, [t, name]] of Object.entries(spec.peers)) peers[label] = msIn(again[t], name);
          spec.rounds.push({ ours: ours[i], peers });
        });
      }
      for (const spec of specs) {
        const candidates = { ...spec.others };
        for (const label of Object.keys(spec.peers)) candidates[label] = least(spec.rounds.map((r) => r.peers[label]));
        const best = fastest(candidates);
        if (best) {
          row(spec.id, spec.name, least(spec.rounds.map((r) => r.ours)), best.ms,
            `${best.name} (fastest peer; least of ${spec.rounds.length} side-by-side rounds)`, spec.limit, spec.text);
        }
      }
    },
  };
}

function has(...names) {
  return names.every((n) => typeof dl[n] === 'function');
}

async function computeCases(record, { python }) {
  const notes = [];
  const unavailable = (id, name, why) => record({ id, name, unit: 'ms', info: true, value: null, note: why });
  const row = (id, name, value, base, baselineName, limit, text) => record({
    id, name, unit: 'ms', value, baseline: base, baselineName, ratio: value / base,
    target: { on: 'ratio', op: '<=', limit, text },
  });
  if (!has('add', 'normalize', 'setNumThreads', 'getNumThreads')) {
    notes.push('compute: this build has no dl.add / dl.normalize / dl.setNumThreads: rows skipped');
    return notes;
  }
  const c = cLoops();
  if (c.reason) notes.push(`compute: no C loop reference (${c.reason})`);
  const py = { 1: pythonPeers(python, 1), 2: pythonPeers(python, 2) };
  for (const t of [1, 2]) if (py[t].reason) notes.push(`compute: no NumPy/PyTorch at ${t} threads (${py[t].reason})`);
  const pyMs = (t, name) => msIn(py[t], name);
  const paired = sideBySide(python, py, row);
  const tfw = await tfjsWasm();
  if (tfw.reason) notes.push(`compute: no TensorFlow.js peer (${tfw.reason})`);
  else notes.push(`compute: TensorFlow.js ${tfw.version} wasm backend, SIMD ${tfw.simd}, one thread`);
  if (py[1].versions) notes.push(`compute: peers ${JSON.stringify(py[1].versions)}`);
  const { tf } = tfw;
  const threadsBefore = dl.getNumThreads();
  const cores = Math.min(2, os.cpus().length);

  // --- memory-bound: add 16M float32 into a new tensor and into `out` -------------
  const N = 16 * 1024 * 1024;
  const a = dl.empty([N]);
  const b = dl.empty([N]);
  for (let i = 0; i < N; i++) {
    a.data[i] = (i % 1000) / 1000;
    b.data[i] = (i % 777) / 777;
  }
  dl.setNumThreads(cores);
  let made = null;
  const addNew = timeMs(() => { made = dl.add(a, b); }, { after: () => { made.dispose(); made = null; } });
  const out = dl.empty([N]);
  const addOut = timeMs(() => dl.add(a, b, { out }));
  const tfA = tf ? tf.tensor1d(a.data) : null;
  const tfB = tf ? tf.tensor1d(b.data) : null;
  const addPeers = {
    [`NumPy np.add`]: pyMs(1, 'numpy add 16M float32'),
    [`torch.add (${cores} threads)`]: pyMs(cores, 'torch add 16M float32'),
    'tf.add (wasm)': tf ? tfMs(tf, () => tf.add(tfA, tfB)) : undefined,
  };
  if (c.ms) {
    row('add:c', `dl.add 16M float32 into out (${cores} threads)`, addOut, c.ms['add 16M float32'],
      'plain C loop, same traffic', 1 / 0.85, '<= 1.18 (>= 0.85x C bandwidth)');
  }
  const addBest = fastest(addPeers);
  if (addBest) {
    row('add:peer', `dl.add 16M float32, new result (${cores} threads)`, addNew, addBest.ms,
      `${addBest.name} (fastest peer)`, 1, '<= 1.0 (>= 1x fastest peer)');
  }

  // --- memory-bound: in-place broadcast x.sub_(mean).div_(std) on [8,3,224,224] ---
  if (has('tensor') && typeof a.sub_ === 'function') {
    const batch = dl.empty([8, 3, 224, 224]);
    batch.data.fill(0.5);
    const mean = dl.tensor(MEAN).reshape([1, 3, 1, 1]);
    const std = dl.tensor(STD).reshape([1, 3, 1, 1]);
    const inPlace = timeMs(() => batch.sub_(mean).div_(std), { repeats: SHORT_REPEATS });
    if (c.ms) {
      row('normalize_:c', `x.sub_(mean).div_(std) [8,3,224,224] (${cores} threads)`, inPlace,
        c.ms['in-place sub/div [8,3,224,224]'], 'plain C loop, same traffic', 1 / 0.85,
        '<= 1.18 (>= 0.85x C bandwidth)');
    }
    let tfBatch = null;
    paired.add({
      id: 'normalize_:peer',
      name: `x.sub_(mean).div_(std) [8,3,224,224] (${cores} threads)`,
      ours: () => timeMs(() => batch.sub_(mean).div_(std), { repeats: SHORT_REPEATS }),
      first: inPlace,
      peers: {
        [`torch sub_/div_ (${cores} threads)`]: [cores, 'torch in-place sub_/div_ [8,3,224,224]'],
        'NumPy subtract/divide out=': [1, 'numpy in-place sub/div [8,3,224,224]'],
      },
      others: {
        'tf.sub/tf.div (wasm, new tensors)': tf ? (tfBatch = tf.tensor4d(batch.data, [8, 3, 224, 224]),
        tfMs(tf, () => tf.tidy(() => tf.div(tf.sub(tfBatch, tf.tensor4d(MEAN, [1, 3, 1, 1])),
          tf.tensor4d(STD, [1, 3, 1, 1]))), SHORT_REPEATS)) : undefined,
      },
      limit: 1,
      text: '<= 1.0 (>= 1x fastest peer)',
    });
    if (tfBatch) tfBatch.dispose();
  } else {
    unavailable('normalize_', 'x.sub_(mean).div_(std)', 'no in-place ops in this build');
  }

  // --- memory-bound: contiguous uint8 -> float32, 16M -----------------------------
  const u8 = dl.empty([N], { dtype: 'uint8' });
  u8.data.fill(7);
  const f32out = dl.empty([N]);
  const convert = timeMs(() => f32out.copyFrom(u8));
  if (c.ms) {
    row('convert:c', `f32.copyFrom(u8) 16M (${cores} threads)`, convert, c.ms['uint8 -> float32 16M'],
      'plain C loop, same traffic', 1 / 0.85, '<= 1.18 (>= 0.85x C bandwidth)');
  }

  // --- compute-bound: exp, sigmoid, tanh of 16M float32; softmax(-1) [256,1000] ----
  const logits = dl.empty([256, 1000]);
  for (let i = 0; i < logits.data.length; i++) logits.data[i] = Math.sin(i) * 4;
  const tfLogits = tf ? tf.tensor2d(logits.data, [256, 1000]) : null;
  const unary = [
    ['exp', (x) => x.exp(), 'torch exp 16M float32', 'numpy exp 16M float32', (t) => tf.exp(t)],
    ['sigmoid', (x) => x.sigmoid(), 'torch sigmoid 16M float32', null, (t) => tf.sigmoid(t)],
    ['tanh', (x) => x.tanh(), 'torch tanh 16M float32', 'numpy tanh 16M float32', (t) => tf.tanh(t)],
    ['softmax', (x) => x.softmax(-1), 'torch softmax(-1) [256,1000]', 'numpy softmax(-1) [256,1000]',
      (t) => tf.softmax(t, -1), logits, tfLogits],
  ];
  for (const [op, run, torchName, numpyName, tfRun, input = a, tfInput = tfA] of unary) {
    if (typeof input[op] !== 'function') {
      unavailable(`${op}`, op, `no ${op} in this build`);
      continue;
    }
    const label = input === a ? `${op} 16M float32` : `${op}(-1) [256,1000]`;
    const repeats = input === a ? REPEATS : SHORT_REPEATS;
    const dispose = () => { made.dispose(); made = null; };
    const ours = {};
    const counts = cores > 1 ? [1, cores] : [1];
    if (input === a) {
      // 1 thread and `cores` threads take turns, call by call, so that the VM's
      // drift reaches both alike (their ratio is a row). Not for softmax: a call
      // of 0.2 ms on 1 thread outlasts the pool threads' 200 us watch, so every
      // call on `cores` threads would pay a wake-up no loop of its own meets.
      const inTurn = timeMsInTurn(counts.map((t) => () => {
        dl.setNumThreads(t);
        made = run(input);
      }), { repeats, after: dispose });
      counts.forEach((t, k) => { ours[t] = inTurn[k]; });
    }
    for (const t of counts) {
      dl.setNumThreads(t);
      const time = () => timeMs(() => { made = run(input); }, { repeats, after: dispose });
      // The 16M rows' first figure is the in-turn one above.
      if (input !== a) ours[t] = time();
      // Side by side: softmax is under a millisecond, and the 16M rows' peers
      // (timed at the run's start, before every row of ours) met the VM in
      // another phase than ours (tanh on 1 thread read 1.12x NumPy in a run
      // whose exp was 40% slower than the hour before).
      paired.add({
        id: `${op}:peer:${t}`,
        name: `${label} (${t} thread${t > 1 ? 's' : ''})`,
        ours: () => {
          const before = dl.getNumThreads();
          dl.setNumThreads(t);
          try {
            return time();
          } finally {
            dl.setNumThreads(before);
          }
        },
        first: ours[t],
        peers: {
          [`torch (${t} thread${t > 1 ? 's' : ''})`]: [t, torchName],
          ...(numpyName ? { 'NumPy (1 thread)': [1, numpyName] } : {}),
        },
        others: { 'tfjs wasm (1 thread)': tf && t === 1 ? tfMs(tf, () => tfRun(tfInput), repeats) : undefined },
        limit: 1,
        text: '<= 1.0 (>= 1x fastest peer)',
      });
    }
    if (cores > 1) {
      row(`${op}:threads`, `${label}, ${cores} threads vs 1`, ours[cores], ours[1], 'ours, 1 thread',
        1 / 1.6, '<= 0.625 (>= 1.6x)');
    }
  }
  dl.setNumThreads(cores);

  // --- sum(1) of [4096,1024], topk(5) of [256,1000] -------------------------------
  const m = dl.empty([4096, 1024]);
  for (let i = 0; i < m.data.length; i++) m.data[i] = (i % 1013) / 1013;
  if (typeof m.sum === 'function') {
    const tfM = tf ? tf.tensor2d(m.data, [4096, 1024]) : null;
    paired.add({
      id: 'sum1:peer',
      name: `t.sum(1) [4096,1024] float32 (${cores} threads)`,
      ours: () => timeMs(() => { made = m.sum(1); },
        { repeats: SHORT_REPEATS, after: () => { made.dispose(); made = null; } }),
      peers: {
        'NumPy a.sum(1)': [1, 'numpy sum(1) [4096,1024] float32'],
        [`torch sum(1) (${cores} threads)`]: [cores, 'torch sum(1) [4096,1024] float32'],
      },
      others: { 'tf.sum (wasm)': tf ? tfMs(tf, () => tf.sum(tfM, 1), SHORT_REPEATS) : undefined },
      limit: 1,
      text: '<= 1.0 (>= 1x fastest peer)',
    });
    if (tfM) tfM.dispose();
  } else {
    unavailable('sum1', 'sum(1)', 'no sum in this build');
  }
  if (typeof logits.topk === 'function') {
    const top = timeMs(() => { made = logits.topk(5); },
      { repeats: SHORT_REPEATS, after: () => { made.values.dispose(); made.indices.dispose(); made = null; } });
    const base = pyMs(cores, 'torch topk(5) [256,1000]');
    if (base !== undefined) {
      record({ id: 'topk:torch', name: `t.topk(5) [256,1000] (${cores} threads)`, unit: 'ms', value: top,
        baseline: base, baselineName: `torch.topk (${cores} threads)`, ratio: top / base, info: true });
    }
  }

  // --- dl.normalize: 8 uint8 224x224x3 frames -> float32 [8,3,224,224] ------------
  const H = 224;
  const W = 224;
  const frames = [];
  for (let f = 0; f < 8; f++) {
    const fr = dl.empty([H, W, 3], { dtype: 'uint8' });
    for (let i = 0; i < fr.data.length; i++) fr.data[i] = (i * 31 + f * 7) & 255;
    frames.push(fr);
  }
  const batchOut = dl.empty([8, 3, H, W]);
  const ourNormalize = () => {
    for (let f = 0; f < 8; f++) {
      dl.normalize(frames[f].permute(2, 0, 1), MEAN, STD, { scale: 1 / 255, out: batchOut.select(0, f) });
    }
  };
  // The best fused JS loop: one pass per frame, HWC in, CHW out, x * k[c] + d[c].
  const k = STD.map((s) => 1 / (255 * s));
  const d = MEAN.map((mu, i) => -mu / STD[i]);
  const jsOut = new Float32Array(8 * 3 * H * W);
  const fusedJs = () => {
    const plane = H * W;
    for (let f = 0; f < 8; f++) {
      const src = frames[f].data;
      const base = f * 3 * plane;
      for (let p = 0, s = 0; p < plane; p++, s += 3) {
        jsOut[base + p] = src[s] * k[0] + d[0];
        jsOut[base + plane + p] = src[s + 1] * k[1] + d[1];
        jsOut[base + 2 * plane + p] = src[s + 2] * k[2] + d[2];
      }
    }
  };
  const oursMs = timeMs(ourNormalize, { repeats: SHORT_REPEATS });
  const jsMs = timeMs(fusedJs, { repeats: SHORT_REPEATS });
  row('normalize:js', `dl.normalize 8 uint8 HWC frames -> float32 NCHW (${cores} threads)`, oursMs, jsMs,
    'fused JS loop', 1 / 2.5, '<= 0.4 (>= 2.5x)');
  let tfFrames = null;
  const normPeers = {
    [`torch eager (${cores} threads)`]: pyMs(cores, 'torch preprocess 8 frames'),
    'NumPy': pyMs(1, 'numpy preprocess 8 frames'),
    'tfjs wasm (int32 frames)': tf ? (tfFrames = frames.map((fr) => tf.tensor3d(Int32Array.from(fr.data), [H, W, 3])),
    tfMs(tf, () => tf.tidy(() => tf.stack(tfFrames.map((x) => tf.div(tf.sub(
      tf.div(tf.cast(tf.transpose(x, [2, 0, 1]), 'float32'), 255), tf.tensor3d(MEAN, [3, 1, 1])),
    tf.tensor3d(STD, [3, 1, 1]))))), SHORT_REPEATS)) : undefined,
  };
  const normBest = fastest(normPeers);
  if (normBest) {
    row('normalize:peer', `dl.normalize 8 uint8 HWC frames -> float32 NCHW (${cores} threads)`, oursMs,
      normBest.ms, `${normBest.name} (fastest peer)`, 1 / 3, '<= 0.333 (>= 3x fastest peer)');
  }
  // The raw-frame (video) row: one frame, where the normalise is the whole cost.
  const one = batchOut.select(0, 0);
  const oneFrame = () => dl.normalize(frames[0].permute(2, 0, 1), MEAN, STD, { scale: 1 / 255, out: one });
  const oneFrameJs = () => {
    const src = frames[0].data;
    const plane = H * W;
    for (let p = 0, s = 0; p < plane; p++, s += 3) {
      jsOut[p] = src[s] * k[0] + d[0];
      jsOut[plane + p] = src[s + 1] * k[1] + d[1];
      jsOut[2 * plane + p] = src[s + 2] * k[2] + d[2];
    }
  };
  const oneMs = timeMs(oneFrame, { repeats: SHORT_REPEATS });
  const oneJs = timeMs(oneFrameJs, { repeats: SHORT_REPEATS });
  row('normalize:frame', `dl.normalize one raw 224x224 frame (${cores} threads)`, oneMs, oneJs,
    'fused JS loop', 1 / 2.5, '<= 0.4 (>= 2.5x)');

  // --- what a user meets: cold calls, fresh memory, the event loop -----------------
  // Cold: each call after other work has pushed the data out of the caches (a
  // 64 MiB scrub between calls), as a per-frame call between a decoder and a
  // model meets it; the JS loop is timed the same way.
  const scrub = new Float64Array(8 * 1024 * 1024);
  let scrubs = 0;
  const spaceOut = () => { scrub.fill(++scrubs); };
  const oneCold = timeMs(oneFrame, { repeats: 31, after: spaceOut });
  const oneJsCold = timeMs(oneFrameJs, { repeats: 31, after: spaceOut });
  row('normalize:frame:cold', `dl.normalize one raw frame, cold: caches flushed between calls (${cores} threads)`,
    oneCold, oneJsCold, 'fused JS loop, cold', 1 / 2.5, '<= 0.4 (>= 2.5x)');
  if (typeof logits.softmax === 'function') {
    const softCold = timeMs(() => { made = logits.softmax(-1); },
      { repeats: 31, after: () => { made.dispose(); made = null; spaceOut(); } });
    const rows = logits.shape[0];
    const cols = logits.shape[1];
    const src = logits.data;
    const jsSoftCold = timeMs(() => {
      const o = new Float32Array(rows * cols);
      for (let r = 0; r < rows; r++) {
        let max = -Infinity;
        for (let i = r * cols; i < (r + 1) * cols; i++) if (src[i] > max) max = src[i];
        let sum = 0;
        for (let i = r * cols; i < (r + 1) * cols; i++) sum += (o[i] = Math.exp(src[i] - max));
        for (let i = r * cols; i < (r + 1) * cols; i++) o[i] /= sum;
      }
    }, { repeats: 31, after: spaceOut });
    row('softmax:cold', `softmax(-1) [256,1000], cold (${cores} threads)`, softCold, jsSoftCold,
      'JS loop, cold', 1, '<= 1.0 (>= 1x the JS loop)');
  }

  // Fresh memory: every result in pages nothing has touched before (results are
  // kept until the row ends, so no allocator hands back warm pages), as the first
  // calls of a pipeline and long-lived batches meet them.
  const freshMs = (make, drop) => {
    const kept = [];
    const ms = timeMs(() => kept.push(make()));
    kept.forEach(drop);
    return ms;
  };
  const addFresh = freshMs(() => dl.add(a, b), (t) => t.dispose());
  const freshPeers = {
    'JS loop into a new Float32Array': freshMs(() => {
      const o = new Float32Array(N);
      const x = a.data;
      const y = b.data;
      for (let i = 0; i < N; i++) o[i] = x[i] + y[i];
      return o;
    }, () => {}),
    'tf.add (wasm)': tf ? freshMs(() => tf.add(tfA, tfB), (t) => t.dispose()) : undefined,
  };
  const freshBest = fastest(freshPeers);
  row('add:fresh', `dl.add 16M float32, new result in fresh memory (${cores} threads)`, addFresh, freshBest.ms,
    `${freshBest.name}, fresh memory (fastest)`, 1, '<= 1.0 (>= 1x fastest)');

  // The event loop during a long op: the longest gap between 1 ms timer ticks
  // while dl.add of 32M float32 runs, synchronous and with { async: true }
  // (the median of 5 of each).
  const M = 32 * 1024 * 1024;
  const big = dl.zeros([M]);
  const bigOut = dl.empty([M]);
  const stall = async (run) => {
    const gaps = [];
    for (let i = 0; i < 5; i++) {
      let last = performance.now();
      let worst = 0;
      const timer = setInterval(() => {
        const t = performance.now();
        worst = Math.max(worst, t - last);
        last = t;
      }, 1);
      await new Promise((resolve) => setTimeout(resolve, 10));
      last = performance.now();
      worst = 0;
      await run();
      await new Promise((resolve) => setTimeout(resolve, 5));
      clearInterval(timer);
      gaps.push(worst);
    }
    gaps.sort((x, y) => x - y);
    return gaps[2];
  };
  const syncStall = await stall(() => dl.add(big, big, { out: bigOut }));
  const asyncStall = await stall(() => dl.add(big, big, { out: bigOut, async: true }));
  row('add:eventloop', 'event-loop stall during dl.add 32M float32, { async: true } vs synchronous', asyncStall,
    syncStall, 'the synchronous call\'s stall', 0.2, '<= 0.2 (the loop stays free)');
  big.dispose();
  bigOut.dispose();

  // The issue's own metric: the event-loop delay p99 (perf_hooks
  // monitorEventLoopDelay at 1 ms resolution) during a 256 MiB conversion
  // (64M float32 -> float64) with t.to({ dtype, async: true }), the
  // synchronous conversion's beside it (the median of 5 of each). gc() before
  // each window: V8 counts every ArrayBuffer's bytes as external memory, so the
  // previous 512 MiB result, once dropped, brings a mark-compact whose last
  // pause (1.1-1.4 ms here) lands in the next window's first 10 ms, whatever
  // made the buffer. The row after it keeps that collection in, as a loop of
  // conversions meets it (bench/README.md "2026-11-27 afternoon").
  const wide = dl.empty([64 * 1024 * 1024]);
  wide.data.fill(0.5);
  const delayP99 = async (convert, collectFirst = true) => {
    const p99s = [];
    const h = monitorEventLoopDelay({ resolution: 1 });
    for (let i = 0; i < 5; i++) {
      if (collectFirst && global.gc) global.gc();
      h.reset();
      h.enable(); // sampling from the first tick on: 10 ms before the conversion starts
      await new Promise((resolve) => setTimeout(resolve, 10));
      const converted = await convert();
      await new Promise((resolve) => setTimeout(resolve, 5));
      h.disable();
      converted.dispose();
      p99s.push(h.percentile(99) / 1e6);
    }
    p99s.sort((x, y) => x - y);
    return p99s[2];
  };
  const syncP99 = await delayP99(() => wide.to('float64'));
  const asyncP99 = await delayP99(() => wide.to({ dtype: 'float64', async: true }));
  record({
    id: 'to:eventloop-p99', name: 'event-loop delay p99, 256 MiB conversion (64M float32 -> float64), { async: true }',
    unit: 'ms', value: asyncP99, baseline: syncP99, baselineName: 'the synchronous conversion\'s p99',
    ratio: asyncP99 / syncP99, target: { on: 'value', op: '<=', limit: 2, text: '<= 2 ms' },
  });
  const loopP99 = await delayP99(() => wide.to({ dtype: 'float64', async: true }), false);
  record({
    id: 'to:eventloop-p99:gc', name: 'the same in a loop, the previous result\'s collection in the window',
    unit: 'ms', value: loopP99, baseline: asyncP99, baselineName: 'with gc() between',
    ratio: loopP99 / asyncP99, info: true,
  });
  wide.dispose();

  dl.setNumThreads(cores);
  paired.finish();
  if (tfFrames) tf.dispose(tfFrames);
  if (tf) tf.dispose([tfA, tfB, tfLogits]);
  dl.setNumThreads(threadsBefore);
  return notes;
}

module.exports = { computeCases };

// `node --expose-gc bench/compute.js`: these rows alone (npm run bench prints them
// with the rest).
if (require.main === module) {
  const rows = [];
  computeCases((r) => rows.push(r), { python: process.env.DLPACK_BENCH_PYTHON || '/usr/bin/python3' })
    .then((notes) => {
      for (const r of rows) {
        const judged = r.target && r.target.on === 'value' ? r.value : r.ratio;
        const pass = r.target ? (judged <= r.target.limit ? 'pass' : 'FAIL') : 'info';
        const ms = (v) => (typeof v === 'number' ? `${v.toFixed(3)} ms` : '-');
        console.log(`${r.name.padEnd(64)} ${ms(r.value).padStart(11)} ${ms(r.baseline).padStart(11)} ` +
          `${r.ratio === undefined ? '' : r.ratio.toFixed(2) + 'x'}  ${r.target ? r.target.text : ''} ${pass}` +
          `${r.baselineName ? `  [${r.baselineName}]` : ''}${r.note ? `  (${r.note})` : ''}`);
      }
      for (const note of notes) console.log(note);
    }, (error) => {
      console.error(error);
      process.exitCode = 1;
    });
}
