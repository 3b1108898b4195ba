'use strict';
// The views and conversion targets (bench/README.md "Views and conversion"):
// view ops against reshape, to('float32') of 64 MiB uint8 against a JS loop
// and NumPy's astype, and HWC -> CHW float32 of a 1080x1920x3 image against a
// hand-written JS loop. Each is a ratio against
// a baseline run in the same process (NumPy's in a child Python).
const path = require('path');
const { spawnSync } = require('child_process');
const dl = require('../lib');
const { releaseRecycled } = require('../lib/memory');

function opsCases(record, { compare, median, python, consume }) {
  // --- view ops vs reshape, on a contiguous [8, 16, 32] float32 tensor ---
  const t = dl.zeros([8, 16, 32]);
  const loop = (make) => (ops) => {
    let s = 0;
    for (let i = 0; i < ops; i++) {
      const v = make();
      s += v.ndim;
      consume(v);
    }
    return s;
  };
  const reshape = loop(() => t.reshape([16, 8, 32]));
  const views = {
    'permute(2, 0, 1)': () => t.permute(2, 0, 1),
    'transpose(0, 2)': () => t.transpose(0, 2),
    'narrow(1, 4, 8)': () => t.narrow(1, 4, 8),
    'select(0, 3)': () => t.select(0, 3),
    'slice(2, 0, 32, 2)': () => t.slice(2, 0, 32, 2),
    'unsqueeze(1)': () => t.unsqueeze(1),
    'squeeze()': () => t.squeeze(),
    'flatten(1)': () => t.flatten(1),
    'expand(4, 8, 16, 32)': () => t.expand(4, 8, 16, 32),
    'view(\'int32\')': () => t.view('int32'),
  };
  for (const [name, make] of Object.entries(views)) {
    const r = compare(loop(make), reshape, { ops: 20000, batches: 11 });
    const value = median(r.candidate);
    const base = median(r.baseline);
    record({
      id: `view:${name}`, name: `t.${name}`, unit: 'ns', value, baseline: base,
      baselineName: 't.reshape([16, 8, 32])', ratio: value / base,
      target: { on: 'ratio', op: '<=', limit: 3, text: 'ratio <= 3' }, batches: r.candidate,
    });
  }

  // --- to('float32') of 64 MiB uint8 ---
  const N = 64 * 1024 * 1024;
  const u8 = dl.zeros([N], { dtype: 'uint8' });
  u8.data.fill(7, 0, N >> 1);
  const kept = [];
  const release = () => {
    for (const x of kept) if (x instanceof dl.Tensor) x.dispose();
    kept.length = 0;
  };
  const convert = (ops) => {
    let s = 0;
    for (let i = 0; i < ops; i++) {
      const f = u8.to('float32');
      s += f.data[1];
      kept.push(f);
    }
    return s;
  };
  const src = u8.data;
  const jsLoop = (ops) => {
    let s = 0;
    for (let i = 0; i < ops; i++) {
      const f = new Float32Array(N);
      for (let k = 0; k < N; k++) f[k] = src[k];
      s += f[1];
      kept.push(f);
    }
    return s;
  };
  const gbps = (ns) => N / ns; // source bytes per ns
  const astype = numpyAstype(python, N);
  const against = (id, name, r, numpyNs, numpyName, jsName) => {
    const value = gbps(median(r.candidate));
    const base = gbps(median(r.baseline));
    record({
      id, name, unit: 'GB/s', value, baseline: base, baselineName: jsName, ratio: value / base,
      target: { on: 'ratio', op: '>=', limit: 3, text: 'ratio >= 3' }, batches: r.candidate.map(gbps),
    });
    if (!astype.available) {
      record({ id: `${id}VsNumpy`, name: `NumPy reference skipped: ${astype.reason}`, unit: 'ns', info: true });
      return;
    }
    const np = gbps(numpyNs);
    record({
      id: `${id}VsNumpy`, name: `${name} vs NumPy`, unit: 'GB/s', value, baseline: np,
      baselineName: `NumPy ${astype.numpy} ${numpyName} (child process)`, ratio: value / np,
      target: { on: 'ratio', op: '>=', limit: 1, text: 'ratio >= 1' }, batches: r.candidate.map(gbps),
    });
  };
  // Allocating, with the result disposed after each batch (untimed), as a
  // loop that converts, uses and disposes does: the next conversion reuses
  // that memory (lib/memory.js). NumPy's astype in its own loop gets the
  // pages its previous result just freed back from the kernel.
  against('toFloat32', 'u8.to(\'float32\') 64 MiB',
    compare(convert, jsLoop, { ops: 1, batches: 7, warmup: 1, collect: true, after: release }),
    astype.astype_ns, 'a.astype(float32)', 'JS loop into new Float32Array');
  // The same on fresh memory: what was kept is freed before every batch, so
  // each result faults its 256 MiB in. No target: it shows what reuse saves.
  const fresh = [];
  for (let i = 0; i < 8; i++) {
    if (typeof global.gc === 'function') global.gc();
    releaseRecycled();
    const start = process.hrtime.bigint();
    consume(convert(1));
    const ns = Number(process.hrtime.bigint() - start);
    release();
    if (i !== 0) fresh.push(ns); // the first is a warm-up
  }
  record({
    id: 'toFloat32Fresh', name: 'u8.to(\'float32\') 64 MiB, fresh memory every batch', unit: 'GB/s',
    value: gbps(median(fresh)), info: true, batches: fresh.map(gbps),
    ...(astype.available ? {
      baseline: gbps(astype.astype_ns), baselineName: `NumPy ${astype.numpy} a.astype(float32) (child process)`,
      ratio: gbps(median(fresh)) / gbps(astype.astype_ns),
    } : {}),
  });
  // Into memory that exists: the conversion loop itself.
  const dst = dl.zeros([N], { dtype: 'float32' });
  dst.data.fill(1);
  const into = (ops) => {
    for (let i = 0; i < ops; i++) dst.copyFrom(u8);
    return dst.data[1];
  };
  const fixed = new Float32Array(N).fill(1);
  const jsInto = (ops) => {
    for (let i = 0; i < ops; i++) for (let k = 0; k < N; k++) fixed[k] = src[k];
    return fixed[1];
  };
  against('copyFromFloat32', 'f32.copyFrom(u8) 64 MiB',
    compare(into, jsInto, { ops: 1, batches: 7, warmup: 1 }),
    astype.copyto_ns, 'copyto(out, a, casting=\'unsafe\')', 'JS loop into an existing Float32Array');
  dst.dispose();
  u8.dispose();

  // --- HWC -> CHW float32 of a 1080x1920x3 uint8 image ---
  const H = 1080;
  const W = 1920;
  const C = 3;
  const img = dl.zeros([H, W, C], { dtype: 'uint8' });
  img.data.forEach((_, i, a) => { a[i] = i & 0xff; });
  const pixels = img.data;
  const chw = (ops) => {
    let s = 0;
    for (let i = 0; i < ops; i++) {
      const f = img.permute(2, 0, 1).to('float32');
      s += f.data[W + 1];
      kept.push(f);
    }
    return s;
  };
  const handLoop = (ops) => {
    let s = 0;
    for (let i = 0; i < ops; i++) {
      const f = new Float32Array(C * H * W);
      for (let c = 0; c < C; c++) {
        for (let y = 0; y < H; y++) {
          const row = (c * H + y) * W;
          const from = y * W * C + c;
          for (let x = 0; x < W; x++) f[row + x] = pixels[from + x * C];
        }
      }
      s += f[W + 1];
      kept.push(f);
    }
    return s;
  };
  const bytes = H * W * C;
  const rate = (ns) => bytes / ns;
  const chwRow = (id, name, r, baselineName) => {
    const value = rate(median(r.candidate));
    const base = rate(median(r.baseline));
    record({
      id, name, unit: 'GB/s', value, baseline: base, baselineName, ratio: value / base,
      target: { on: 'ratio', op: '>=', limit: 3, text: 'ratio >= 3' }, batches: r.candidate.map(rate),
    });
  };
  chwRow('hwcToChw', 'img.permute(2, 0, 1).to(\'float32\') 1080x1920x3',
    compare(chw, handLoop, { ops: 3, batches: 9, warmup: 1, collect: true, after: release }),
    'hand-written JS loop into new Float32Array');
  const chwOut = dl.zeros([C, H, W]);
  chwOut.data.fill(1);
  const chwData = chwOut.data;
  const chwInto = (ops) => {
    for (let i = 0; i < ops; i++) chwOut.copyFrom(img.permute(2, 0, 1));
    return chwData[W + 1];
  };
  const handInto = (ops) => {
    for (let i = 0; i < ops; i++) {
      for (let c = 0; c < C; c++) {
        for (let y = 0; y < H; y++) {
          const row = (c * H + y) * W;
          const from = y * W * C + c;
          for (let x = 0; x < W; x++) chwData[row + x] = pixels[from + x * C];
        }
      }
    }
    return chwData[W + 1];
  };
  chwRow('hwcToChwInto', 'out.copyFrom(img.permute(2, 0, 1)) 1080x1920x3',
    compare(chwInto, handInto, { ops: 3, batches: 9, warmup: 1 }), 'hand-written JS loop into existing memory');
  chwOut.dispose();
  img.dispose();
}

// NumPy's a.astype(numpy.float32) for `n` uint8, timed by the child.
function numpyAstype(python, n) {
  const script = path.join(__dirname, 'python_reference.py');
  const run = spawnSync(python, [script, 'astype', String(n)], { encoding: 'utf8', timeout: 120000 });
  if (run.error || run.status !== 0) {
    return { available: false, reason: run.error ? run.error.message : run.stderr.trim().split('\n').pop() };
  }
  return { available: true, ...JSON.parse(run.stdout) };
}

module.exports = { opsCases };
