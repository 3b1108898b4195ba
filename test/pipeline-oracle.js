'use strict';
// torch as the oracle of the pipeline families' tests (test/sort.test.js,
// test/indexing.test.js, test/vision.test.js): the peers venv's torch 2.x
// and Debian's torch 1.13 (DLPACK_TEST_PYTHON names another), each that has
// torch; a case list runs in one child per interpreter
// (test/fixtures/pipeline_oracle.py), which must answer within 120 s.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const VENV = path.join(os.homedir(), '.cache', 'dlpack-ci', 'peers-venv', 'bin', 'python');
const CANDIDATES = process.env.DLPACK_TEST_PYTHON ? [process.env.DLPACK_TEST_PYTHON] : [VENV, '/usr/bin/python3'];
const SCRIPT = path.join(__dirname, 'fixtures', 'pipeline_oracle.py');

// The interpreters with torch, and why each other one is skipped.
function oracles() {
  const found = [];
  const skipped = [];
  for (const python of CANDIDATES) {
    if (!fs.existsSync(python)) {
      skipped.push(`${python}: absent`);
      continue;
    }
    const probe = spawnSync(python, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8', timeout: 60000 });
    if (probe.status !== 0) skipped.push(`${python}: no torch (${(probe.stderr || '').trim().split('\n').pop()})`);
    else found.push(python);
  }
  return { found, skipped };
}

// torch's results for `cases` under `python`: { version, results }.
function ask(python, cases) {
  const run = spawnSync(python, [SCRIPT], { input: JSON.stringify(cases), encoding: 'utf8', timeout: 120000,
    maxBuffer: 1 << 28 });
  if (run.status !== 0) throw new Error(`the oracle failed (${run.status} ${run.signal}): ${run.stderr}`);
  return JSON.parse(run.stdout);
}

// A tensor as the oracle writes one: { dtype, shape, values } (flat; non-finite as strings).
function encode(t) {
  let flat;
  if (t.ndim === 0) {
    flat = [t.item()];
  } else {
    const f = t.flatten();
    flat = f.toArray();
    if (f !== t) f.dispose();
  }
  const values = flat.map((v) => {
    if (typeof v === 'bigint') return Number(v);
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v).replace('Infinity', 'inf').toLowerCase();
    return v;
  });
  return { dtype: t.dtype, shape: t.shape.slice(), values };
}

// A spec the oracle reads, from plain values.
// JSON has no -0, NaN or infinities: those travel as strings Python's float() reads.
const spec = (dtype, shape, values) => ({ dtype, shape, values: values.map((v) => {
  if (Object.is(v, -0)) return '-0.0';
  return typeof v === 'number' && !Number.isFinite(v) ? String(v).replace('Infinity', 'inf').toLowerCase() : v;
}) });

module.exports = { oracles, ask, encode, spec };
