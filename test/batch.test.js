'use strict';
// dl.cat, dl.stack (docs/API.md "Batching") against torch as the oracle where
// /usr/bin/python3 has it; `out` in shared memory; copyFrom into views.
// Bad input: docs/errors.md rows B01-B04, tested in test/bad-input/b-cat-stack.test.js.
const fs = require('fs');
const { spawnSync } = require('child_process');
const dl = require('../lib');
const { PYTHON } = require('./helpers');

// [op, shapes, dim]: inputs are aranges offset by 100 * their index.
const CASES = [
  ['cat', [[2, 3], [1, 3], [4, 3]], 0],
  ['cat', [[2, 3], [2, 1], [2, 2]], 1],
  ['cat', [[2, 3, 2], [2, 0, 2], [2, 1, 2]], -2],
  ['stack', [[2, 3], [2, 3], [2, 3]], 0],
  ['stack', [[2, 3], [2, 3]], 1],
  ['stack', [[2, 3], [2, 3]], -1],
  ['stack', [[], []], 0],
];

function torchResults() {
  if (!fs.existsSync(PYTHON)) return { skip: `${PYTHON} is absent` };
  const script = `
import json, sys, torch
out = []
for op, shapes, dim in json.loads(sys.argv[1]):
    ts = [torch.arange(torch.Size(s).numel(), dtype=torch.int32).reshape(s) + 100 * i for i, s in enumerate(shapes)]
    r = getattr(torch, op)(ts, dim)
    out.append({"shape": list(r.shape), "values": r.tolist()})
print(json.dumps(out))`;
  const child = spawnSync(PYTHON, ['-c', script, JSON.stringify(CASES)], { encoding: 'utf8', timeout: 60000 });
  if (child.status !== 0 && /No module named 'torch'/.test(child.stderr)) return { skip: 'torch is not installed' };
  if (child.status !== 0) throw new Error(`torch child failed (${child.signal || child.status}): ${child.stderr}`);
  return { results: JSON.parse(child.stdout) };
}

const oracle = torchResults();
if (oracle.skip) console.log(`batch.test.js: torch oracle skipped: ${oracle.skip}`);
const itOracle = oracle.skip ? it.skip : it;

const inputs = (shapes) => shapes.map((s, i) => {
  const n = s.reduce((a, b) => a * b, 1);
  return dl.tensor(Array.from({ length: n }, (_, k) => k + 100 * i), { dtype: 'int32', shape: s });
});

describe.each(CASES.map((c, i) => [`${c[0]}(${JSON.stringify(c[1])}, ${c[2]})`, c, i]))('%s', (name, c, i) => {
  const [op, shapes, dim] = c;
  itOracle('matches torch', () => {
    const r = dl[op](inputs(shapes), dim);
    expect(r.shape).toEqual(oracle.results[i].shape);
    expect(r.toArray()).toEqual(oracle.results[i].values);
  });

  itOracle('into `out` of another dtype in shared memory, and into a strided `out`', () => {
    const want = oracle.results[i];
    const out = dl.zeros(want.shape, { dtype: 'float64', shared: true });
    expect(dl[op](inputs(shapes), dim, { out })).toBe(out);
    expect(out.toArray()).toEqual(want.values);
    if (want.shape.length >= 2) {
      // A transposed out: the values land by index, not by memory order.
      const rev = [...want.shape].reverse();
      const base = dl.zeros(rev, { dtype: 'int64' });
      const t = base.permute([...rev.keys()].reverse());
      dl[op](inputs(shapes), dim, { out: t });
      const plain = (v) => (Array.isArray(v) ? v.map(plain) : Number(v));
      expect(plain(t.toArray())).toEqual(want.values);
    }
    out.dispose();
  });
});

test('collating HWC uint8 images into a float32 NCHW batch in shared memory', () => {
  const images = [0, 1, 2, 3].map((i) => dl.fromBuffer(new Uint8Array(2 * 3 * 3).map((_, k) => k + i),
    { dtype: 'uint8', shape: [2, 3, 3] }));
  const batch = dl.empty([4, 3, 2, 3], { dtype: 'float32', shared: true });
  dl.stack(images.map((img) => img.permute(2, 0, 1)), 0, { out: batch });
  for (let i = 0; i < 4; i++) {
    expect(batch.select(0, i).toArray()).toEqual(images[i].permute(2, 0, 1).to('float32').toArray());
  }
  const d = batch.share();
  expect(d.kind).toBe('shm');
  batch.dispose();
});

test('item() of 0-d and one-element tensors, every dtype', () => {
  expect(dl.tensor(5, { dtype: 'uint8' }).item()).toBe(5);
  expect(dl.tensor([[true]], { dtype: 'bool' }).item()).toBe(true);
  expect(dl.tensor([[1.5, -2]], { dtype: 'complex64' }).reshape([]).item()).toEqual([1.5, -2]);
  expect(dl.tensor([[1, 2], [3, 4]]).select(1, 1).select(0, 1).item()).toBe(4);
  expect(dl.tensor([2n ** 63n - 1n], { dtype: 'int64' }).item()).toBe(2n ** 63n - 1n);
});
