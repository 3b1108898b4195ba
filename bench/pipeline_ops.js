'use strict';
// issue 40's host families in `npm run bench` (bench/README.md "Pipeline ops"):
// sort, cumsum, gather, nms and interpolate against torch 2.x at the same
// thread count (bench/pipeline_ops_peers.py in a child Python; its script runs
// before and after ours and each side's figure is the lesser of its medians,
// this VM drifting by up to 30% in minutes) and against a plain JS loop over
// typed arrays (timed in turn with ours). ms per op, median; ratio = ours /
// baseline, lower is better. Run alone: node --expose-gc bench/pipeline_ops.js.
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const dl = require('../lib');

const REPEATS = 51;
const THREADS = 1;
const now = process.hrtime.bigint;
const VENV = path.join(os.homedir(), '.cache', 'dlpack-ci', 'peers-venv', 'bin', 'python');

// Median ms of each fn, taking turns, after one warm-up each; results disposed by `drop`.
function timeInTurn(fns, drop = (r) => (r && typeof r.dispose === 'function' ? r.dispose() : undefined)) {
  const times = fns.map(() => []);
  for (const fn of fns) drop(fn());
  for (let i = 0; i < REPEATS; i++) {
    fns.forEach((fn, k) => {
      const start = now();
      const r = fn();
      times[k].push(Number(now() - start) / 1e6);
      drop(r);
    });
  }
  return times.map((ts) => ts.sort((a, b) => a - b)[ts.length >> 1]);
}

function peers(python) {
  const run = spawnSync(python, [path.join(__dirname, 'pipeline_ops_peers.py'), String(THREADS), String(REPEATS)],
    { encoding: 'utf8', timeout: 300000 });
  if (run.status !== 0) return { reason: `${python}: ${(run.stderr || run.error || '').toString().trim().split('\n').pop()}` };
  return JSON.parse(run.stdout);
}

// --- plain JS loops over typed arrays, what a user writes without the library ---
function jsSortRows(data, rows, n) {
  const values = new Float32Array(rows * n);
  const indices = new BigInt64Array(rows * n);
  const order = new Array(n);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < n; i++) order[i] = i;
    const base = r * n;
    order.sort((a, b) => data[base + a] - data[base + b] || a - b);
    for (let i = 0; i < n; i++) {
      values[base + i] = data[base + order[i]];
      indices[base + i] = BigInt(order[i]);
    }
  }
  return { values, indices };
}

function jsCumsumRows(data, rows, n) {
  const out = new Float32Array(rows * n);
  for (let r = 0; r < rows; r++) {
    let acc = 0;
    for (let i = 0; i < n; i++) {
      acc += data[r * n + i];
      out[r * n + i] = acc;
    }
  }
  return out;
}

function jsGather(table, cols, index, rows, k) {
  const out = new Float32Array(rows * k);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < k; j++) out[r * k + j] = table[r * cols + Number(index[r * k + j])];
  }
  return out;
}

function jsNms(boxes, scores, threshold) {
  const n = scores.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
  const area = new Float32Array(n);
  for (let i = 0; i < n; i++) area[i] = (boxes[4 * i + 2] - boxes[4 * i]) * (boxes[4 * i + 3] - boxes[4 * i + 1]);
  const suppressed = new Uint8Array(n);
  const keep = [];
  for (const i of order) {
    if (suppressed[i]) continue;
    keep.push(i);
    for (const j of order) {
      if (suppressed[j] || j === i) continue;
      const w = Math.max(Math.min(boxes[4 * i + 2], boxes[4 * j + 2]) - Math.max(boxes[4 * i], boxes[4 * j]), 0);
      const h = Math.max(Math.min(boxes[4 * i + 3], boxes[4 * j + 3]) - Math.max(boxes[4 * i + 1], boxes[4 * j + 1]), 0);
      const inter = w * h;
      if (inter / (area[i] + area[j] - inter) > threshold) suppressed[j] = 1;
    }
  }
  return keep;
}

// Bilinear, align_corners false (torch's rule), NCHW float32.
function jsBilinear(src, c, h, w, oh, ow) {
  const out = new Float32Array(c * oh * ow);
  const sh = h / oh;
  const sw = w / ow;
  for (let ch = 0; ch < c; ch++) {
    for (let y = 0; y < oh; y++) {
      const fy = Math.max(sh * (y + 0.5) - 0.5, 0);
      const y0 = Math.floor(fy);
      const y1 = Math.min(y0 + 1, h - 1);
      const ly = fy - y0;
      for (let x = 0; x < ow; x++) {
        const fx = Math.max(sw * (x + 0.5) - 0.5, 0);
        const x0 = Math.floor(fx);
        const x1 = Math.min(x0 + 1, w - 1);
        const lx = fx - x0;
        const p = ch * h * w;
        out[(ch * oh + y) * ow + x] = (src[p + y0 * w + x0] * (1 - lx) + src[p + y0 * w + x1] * lx) * (1 - ly) +
          (src[p + y1 * w + x0] * (1 - lx) + src[p + y1 * w + x1] * lx) * ly;
      }
    }
  }
  return out;
}

async function pipelineOpCases(record, { python = VENV } = {}) {
  const notes = [];
  const before = dl.getNumThreads();
  const first = peers(python);
  if (first.reason) notes.push(`pipeline ops: no torch peer (${first.reason})`);
  dl.setNumThreads(THREADS);
  const g = new dl.Generator().manualSeed(1);
  const x = dl.rand([64, 1000], { generator: g });
  const c = dl.rand([64, 32000], { generator: g });
  const table = dl.rand([1000, 384], { generator: g });
  const index = dl.randint(0, 384, [1000, 64], { generator: g });
  const image = dl.rand([1, 3, 256, 256], { generator: g });
  const xy = dl.mul(dl.rand([2000, 2], { generator: g }), 600);
  const wh = dl.add(dl.mul(dl.rand([2000, 2], { generator: g }), 60), 10);
  const boxes = dl.cat([xy, dl.add(xy, wh)], 1);
  const scores = dl.rand([2000], { generator: g });
  const ours = {};
  const js = {};
  const cases = [
    ['sort [64, 1000] float32 dim -1', () => dl.sort(x, -1), () => jsSortRows(x.data, 64, 1000),
      (r) => { r.values.dispose(); r.indices.dispose(); }],
    ['cumsum [64, 32000] float32 dim -1', () => dl.cumsum(c, -1), () => jsCumsumRows(c.data, 64, 32000)],
    ['gather [1000, 384] float32 dim 1, index [1000, 64]', () => dl.gather(table, 1, index),
      () => jsGather(table.data, 384, index.data, 1000, 64)],
    ['nms 2000 boxes float32 iou 0.5', () => dl.ops.nms(boxes, scores, 0.5), () => jsNms(boxes.data, scores.data, 0.5)],
    ['interpolate [1, 3, 256, 256] bilinear -> 512x512', () => dl.interpolate(image, { size: [512, 512], mode: 'bilinear' }),
      () => jsBilinear(image.data, 3, 256, 256, 512, 512)],
  ];
  for (const [name, mine, loop, drop] of cases) {
    const dropAny = (r) => {
      if (drop && r && r.values instanceof dl.Tensor) drop(r);
      else if (r && typeof r.dispose === 'function') r.dispose();
    };
    [ours[name], js[name]] = timeInTurn([mine, loop], dropAny);
  }
  const second = peers(python);
  dl.setNumThreads(before);
  for (const t of [x, c, table, index, image, xy, wh, boxes, scores]) t.dispose();
  const torchMs = (name) => {
    const v = [first, second].filter((p) => p.rows && p.rows[name] !== undefined).map((p) => p.rows[name]);
    return v.length === 0 ? null : Math.min(...v);
  };
  if (first.version) notes.push(`pipeline ops: torch ${first.version}, ${THREADS} thread(s) on both sides`);
  for (const [name] of cases) {
    const t = torchMs(name);
    if (t === null) {
      record({ id: 'P', name: `${name} (torch)`, unit: 'ms', info: true, value: ours[name], note: 'no torch figure ' +
        '(torchvision absent for nms)' });
    } else {
      record({ id: 'P', name: `${name} vs torch`, unit: 'ms', value: ours[name], baseline: t, baselineName: 'torch',
        ratio: ours[name] / t, target: { on: 'ratio', op: '<=', limit: 1, text: 'at least as fast as torch' } });
    }
    record({ id: 'P', name: `${name} vs a JS loop`, unit: 'ms', value: ours[name], baseline: js[name],
      baselineName: 'plain JS loop', ratio: ours[name] / js[name], info: true });
  }
  return notes;
}

module.exports = { pipelineOpCases };

if (require.main === module) {
  const rows = [];
  pipelineOpCases((r) => rows.push(r), { python: process.env.DLPACK_BENCH_PYTHON || VENV }).then((notes) => {
    for (const r of rows) {
      const ms = (v) => (typeof v === 'number' ? `${v.toFixed(3)} ms` : '-');
      const pass = r.target ? (r.ratio <= r.target.limit ? 'pass' : 'FAIL') : 'info';
      console.log(`${r.name.padEnd(68)} ${ms(r.value).padStart(11)} ${ms(r.baseline).padStart(11)} ` +
        `${r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`} ${pass}${r.note ? `  (${r.note})` : ''}`);
    }
    for (const note of notes) console.log(note);
  });
}
