'use strict';
// A tiny op's per-call cost (issue 38 item 6, bench/README.md "A tiny op per
// call"): dl.add(a, b) and dl.add(a, b, { out }) of 8 float32, each a ratio
// against a plain JS loop over the same elements in the same run, beside
// NumPy's np.add(out=) and torch.add(out=) timed by the peers' Python the same
// way (median of batches, perf_counter_ns), and a cold row: one call between
// passes over 4 MiB of other memory, as a pipeline meets the op between its
// other work.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const dl = require('../lib');

const N = 8;
// The peers venv's Python (NumPy 2, torch 2.x) where it is there, else `python`.
const VENV_PYTHON = path.join(process.env.DLPACK_PEERS_VENV ||
  path.join(os.homedir(), '.cache', 'dlpack-ci', 'peers-venv'), 'bin', 'python');

function tinyOpCases(record, { compare, median, python }) {
  const a = dl.tensor(Array.from({ length: N }, (_, i) => i), { dtype: 'float32' });
  const b = dl.tensor(Array.from({ length: N }, (_, i) => 2 * i), { dtype: 'float32' });
  const out = dl.zeros([N]);
  const options = { out };
  const [ja, jb, jc] = [a.data, b.data, out.data];
  const jsLoop = (ops) => {
    for (let i = 0; i < ops; i++) for (let k = 0; k < N; k++) jc[k] = ja[k] + jb[k];
    return jc[N - 1];
  };
  const withOut = (ops) => {
    for (let i = 0; i < ops; i++) dl.add(a, b, options);
    return jc[N - 1];
  };
  const fresh = (ops) => {
    let s = 0;
    for (let i = 0; i < ops; i++) {
      const c = dl.add(a, b);
      s += c.size;
      c.dispose();
    }
    return s;
  };
  // Other work between calls: a pass over 4 MiB, so the op's code and data
  // are no longer in the caches when it runs (its own time only is counted).
  const other = new Float64Array(512 * 1024);
  const cold = (ops) => {
    let total = 0n;
    for (let i = 0; i < ops; i++) {
      for (let k = 0; k < other.length; k += 8) other[k] += 1;
      const start = process.hrtime.bigint();
      dl.add(a, b, options);
      total += process.hrtime.bigint() - start;
    }
    return Number(total) / ops;
  };
  const rows = {}; // the medians by id, for the rows against NumPy below
  const row = (id, name, r, baselineName) => {
    const value = median(r.candidate);
    const base = median(r.baseline);
    rows[id] = value;
    record({ id, name, unit: 'ns', value, baseline: base, baselineName, ratio: value / base, batches: r.candidate });
  };
  row('tiny:out', `dl.add(a, b, { out }) of ${N} float32`, compare(withOut, jsLoop, { ops: 20000, batches: 15 }),
    `a JS loop over the ${N} elements`);
  row('tiny:fresh', `dl.add(a, b) of ${N} float32, a new result disposed`,
    compare(fresh, jsLoop, { ops: 20000, batches: 15 }), `a JS loop over the ${N} elements`);
  const colds = [];
  for (let i = 0; i < 11; i++) colds.push(cold(50));
  record({ id: 'tiny:cold', name: `dl.add(a, b, { out }) of ${N} float32, one call after 4 MiB of other work`,
    unit: 'ns', value: median(colds), batches: colds, info: true });

  const script = path.join(__dirname, 'tiny_ops_reference.py');
  const peersPython = fs.existsSync(VENV_PYTHON) ? VENV_PYTHON : python;
  const run = spawnSync(peersPython, [script, '20000', '15'], { encoding: 'utf8', timeout: 300000 });
  if (run.error || run.status !== 0) {
    return `NumPy/torch tiny-op rows skipped: ${peersPython} ${script} failed: ` +
      `${run.error ? run.error.message : run.stderr.trim().split('\n').pop()}`;
  }
  const peers = JSON.parse(run.stdout);
  for (const [name, ns] of Object.entries(peers.ns)) {
    const lib = name.startsWith('torch') ? `PyTorch ${peers.versions.torch}` : `NumPy ${peers.versions.numpy}`;
    record({ id: `tiny:${name}`, name: `${lib} ${name} of ${N} float32`, unit: 'ns', value: ns, info: true,
      external: true });
  }
  // Issue 38 item 6's goal: each at or below NumPy's, timed in this run.
  for (const [id, ours, theirs] of [['out', 'tiny:out', 'numpy.add(out=)'], ['fresh', 'tiny:fresh', 'numpy.add']]) {
    const value = rows[ours];
    const base = peers.ns[theirs];
    record({ id: `tiny:${id}VsNumpy`, name: `${ours === 'tiny:out' ? 'dl.add(a, b, { out })' : 'dl.add(a, b)'} ` +
      `vs ${theirs}`, unit: 'ns', value, baseline: base, baselineName: `NumPy ${peers.versions.numpy} ${theirs} ` +
      `of ${N} float32 (same run)`, ratio: value / base,
    target: { on: 'ratio', op: '<=', limit: 1, text: `<= ${theirs}` } });
  }
  return null;
}

module.exports = { tinyOpCases, VENV_PYTHON };

if (require.main === module) {
  // node --expose-gc bench/tiny_ops.js [python]: these rows alone, as a table.
  const now = process.hrtime.bigint;
  const median = (xs) => {
    const s = [...xs].sort((x, y) => x - y);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  const time = (fn, ops) => {
    const start = now();
    fn(ops);
    return Number(now() - start) / ops;
  };
  const compare = (candidate, baseline, { ops, batches }) => {
    for (let i = 0; i < 3; i++) {
      time(candidate, ops);
      time(baseline, ops);
    }
    const c = [];
    const b = [];
    for (let i = 0; i < batches; i++) {
      c.push(time(candidate, ops));
      b.push(time(baseline, ops));
    }
    return { candidate: c, baseline: b };
  };
  const rows = [];
  const note = tinyOpCases((r) => rows.push(r), { compare, median, python: process.argv[2] || '/usr/bin/python3' });
  for (const r of rows) {
    const ratio = r.ratio === undefined ? '' : `  ${r.ratio.toFixed(1)}x ${r.baselineName} (${Math.round(r.baseline)} ns)`;
    console.log(`${r.name}: ${Math.round(r.value)} ns${ratio}`);
  }
  if (note) console.log(note);
}
