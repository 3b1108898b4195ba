'use strict';
// The compute rows (issue 23, bench/README.md "Compute"): dl.add of two 16M
// float32 against a plain C loop with the same traffic (bench/compute_reference.c,
// built here with the system C compiler) and NumPy; the in-place broadcast
// x.sub_(mean).div_(std) on [8, 3, 224, 224] and exp of 16M float32 against
// torch; dl.normalize of 8 uint8 224x224x3 frames against the best fused JS
// loop and torch eager. Peers run in a child Python (bench/compute_peers.py).
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const dl = require('../lib');

function cReference() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dlpack-bench-'));
  try {
    const exe = path.join(dir, 'reference');
    const cc = spawnSync('cc', ['-O2', '-o', exe, path.join(__dirname, 'compute_reference.c')],
      { encoding: 'utf8', timeout: 60000 });
    if (cc.error || cc.status !== 0) return { available: false, reason: cc.error ? cc.error.message : cc.stderr };
    const run = spawnSync(exe, [], { encoding: 'utf8', timeout: 60000 });
    if (run.error || run.status !== 0) return { available: false, reason: run.error ? run.error.message : run.stderr };
    return { available: true, ...JSON.parse(run.stdout) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function peers(python) {
  const run = spawnSync(python, [path.join(__dirname, 'compute_peers.py')], { encoding: 'utf8', timeout: 300000 });
  if (run.error || run.status !== 0) {
    return { available: false, reason: run.error ? run.error.message : run.stderr.trim().split('\n').pop() };
  }
  return { available: true, ...JSON.parse(run.stdout) };
}

function computeCases(record, { single, median, python, consume }) {
  const c = cReference();
  const p = peers(python);
  // A row: `value` ns against a baseline in ns; ratio = baseline / value (higher is faster).
  const row = (id, name, ns, baseNs, baselineName, limit, batches) => {
    if (baseNs === undefined) {
      record({ id, name, unit: 'ns', value: ns, info: true, batches });
      return;
    }
    record({
      id, name, unit: 'ns', value: ns, baseline: baseNs, baselineName, ratio: baseNs / ns,
      target: { on: 'ratio', op: '>=', limit, text: `speed >= ${limit}x` }, batches,
    });
  };
  const skipped = (id, why) => record({ id, name: `reference skipped: ${why}`, unit: 'ns', info: true });

  // --- dl.add of two 16M float32 into a new tensor ---
  const N = 16 << 20;
  const a = dl.empty([N]);
  const b = dl.empty([N]);
  a.data.forEach((_, i, v) => { v[i] = i & 255; });
  b.data.fill(1.5);
  const kept = [];
  const add = single((ops) => {
    for (let i = 0; i < ops; i++) {
      const r = dl.add(a, b);
      consume(r);
      r.dispose();
    }
    return 0;
  }, { ops: 1, batches: 7, warmup: 2 });
  const addNs = median(add);
  if (c.available) row('add16M', 'dl.add(a, b) 16M float32', addNs, c.add16M_ns, 'plain C loop (cc -O2, 1 thread)', 0.85, add);
  else skipped('add16M', c.reason);
  if (p.available) row('add16MVsNumpy', 'dl.add(a, b) 16M float32 vs NumPy', addNs, p.np_add_ns, `NumPy ${p.numpy} np.add`, 1, add);
  else skipped('add16MVsNumpy', p.reason);

  // --- exp of 16M float32 ---
  const exp = single((ops) => {
    for (let i = 0; i < ops; i++) {
      const r = dl.exp(a);
      consume(r);
      r.dispose();
    }
    return 0;
  }, { ops: 1, batches: 7, warmup: 1 });
  if (p.available) row('exp16M', 'dl.exp(a) 16M float32', median(exp), p.torch_exp_ns, `torch ${p.torch} torch.exp`, 1, exp);
  else skipped('exp16M', p.reason);
  a.dispose();
  b.dispose();

  // --- x.sub_(mean).div_(std) on [8, 3, 224, 224] ---
  const x = dl.empty([8, 3, 224, 224]);
  x.data.forEach((_, i, v) => { v[i] = (i % 251) / 251; });
  const mean = dl.tensor([0.485, 0.456, 0.406], { dtype: 'float32', shape: [3, 1, 1] });
  const std = dl.tensor([0.229, 0.224, 0.225], { dtype: 'float32', shape: [3, 1, 1] });
  const inPlace = single((ops) => {
    for (let i = 0; i < ops; i++) x.sub_(mean).div_(std);
    return 0;
  }, { ops: 20, batches: 9, warmup: 2 });
  if (p.available) {
    row('subDivInPlace', 'x.sub_(mean).div_(std) [8, 3, 224, 224]', median(inPlace), p.torch_sub_div_ns,
      `torch ${p.torch} in place`, 1, inPlace);
  } else {
    skipped('subDivInPlace', p.reason);
  }
  x.dispose();

  // --- dl.normalize of 8 uint8 224x224x3 frames into a [8, 3, 224, 224] batch ---
  const H = 224;
  const W = 224;
  const frames = Array.from({ length: 8 }, (_, f) => {
    const t = dl.empty([H, W, 3], { dtype: 'uint8' });
    t.data.forEach((_, i, v) => { v[i] = (i * 7 + f) & 255; });
    return t;
  });
  const m = [0.485, 0.456, 0.406];
  const s = [0.229, 0.224, 0.225];
  const batch = dl.empty([8, 3, H, W]);
  const norm = single((ops) => {
    for (let i = 0; i < ops; i++) {
      for (let f = 0; f < 8; f++) {
        dl.normalize(frames[f].permute(2, 0, 1), m, s, { scale: 1 / 255, out: batch.select(0, f) });
      }
    }
    return 0;
  }, { ops: 20, batches: 9, warmup: 2 });
  // The best fused JS loop: one pass per frame, channel-major writes, constants hoisted.
  const out = batch.data;
  const pix = frames.map((t) => t.data);
  const js = single((ops) => {
    for (let i = 0; i < ops; i++) {
      for (let f = 0; f < 8; f++) {
        const src = pix[f];
        for (let ch = 0; ch < 3; ch++) {
          const k = 1 / (255 * s[ch]);
          const off = -m[ch] / s[ch];
          const base = (f * 3 + ch) * H * W;
          for (let j = 0; j < H * W; j++) out[base + j] = src[j * 3 + ch] * k + off;
        }
      }
    }
    return out[1];
  }, { ops: 20, batches: 9, warmup: 2 });
  row('normalize8', 'dl.normalize of 8 uint8 224x224x3 frames', median(norm), median(js), 'fused JS loop', 2.5, norm);
  if (p.available) {
    row('normalize8VsTorch', 'dl.normalize of 8 frames vs torch', median(norm), p.torch_normalize_ns,
      `torch ${p.torch} eager (x.permute(2,0,1).float() / 255 - mean) / std, stacked`, 3, norm);
  } else {
    skipped('normalize8VsTorch', p.reason);
  }
  for (const t of frames) t.dispose();
  batch.dispose();
  kept.length = 0;
}

module.exports = { computeCases };
