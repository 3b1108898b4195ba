'use strict';
// The reduction rows (issue 23, bench/README.md): sum(1) of a [4096, 1024]
// float32 tensor against NumPy's a.sum(1), softmax(-1) and topk(5) of a
// [256, 1000] float32 tensor against PyTorch's, each timed by the peer in a
// child Python (bench/reduce_reference.py) in the same run.
const path = require('path');
const { spawnSync } = require('child_process');
const dl = require('../lib');

function reduceCases(record, { single, median, python, consume }) {
  const reference = peers(python);
  const a = dl.tensor(Float32Array.from({ length: 4096 * 1024 }, (_, i) => ((i * 2654435761) >>> 0) / 2 ** 32))
    .reshape(4096, 1024);
  const logits = dl.tensor(Float32Array.from({ length: 256 * 1000 }, (_, i) => Math.sin(i) * 4)).reshape(256, 1000);
  const rows = [
    ['sumRows', 't.sum(1) of [4096, 1024] float32', () => a.sum(1), 'sum_ns', 'NumPy', 'a.sum(1)', 20],
    ['softmaxRows', 't.softmax(-1) of [256, 1000] float32', () => logits.softmax(-1), 'softmax_ns', 'PyTorch',
      'torch.softmax(t, -1)', 50],
    ['topk5', 't.topk(5) of [256, 1000] float32', () => logits.topk(5), 'topk_ns', 'PyTorch', 'torch.topk(t, 5)',
      50],
  ];
  for (const [id, name, op, key, peer, peerName, ops] of rows) {
    const batches = single((n) => {
      let s = 0;
      for (let i = 0; i < n; i++) {
        const r = op();
        const t = r instanceof dl.Tensor ? r : r.values;
        s += t.ndim;
        consume(t);
        if (r instanceof dl.Tensor) r.dispose();
        else {
          r.values.dispose();
          r.indices.dispose();
        }
      }
      return s;
    }, { ops, batches: 11 });
    const value = median(batches);
    if (!reference.available) {
      record({ id, name, unit: 'ns', value, info: true, batches });
      record({ id: `${id}Peer`, name: `${peer} reference skipped: ${reference.reason}`, unit: 'ns', info: true });
      continue;
    }
    const base = reference[key];
    record({
      id, name, unit: 'ns', value, baseline: base,
      baselineName: `${peer} ${reference[peer === 'NumPy' ? 'numpy' : 'torch']} ${peerName} (child process, ` +
        `${reference.threads} torch threads)`,
      ratio: value / base, target: { on: 'ratio', op: '<=', limit: 1, text: 'ratio <= 1' }, batches,
    });
  }
  a.dispose();
  logits.dispose();
}

function peers(python) {
  const script = path.join(__dirname, 'reduce_reference.py');
  const run = spawnSync(python, [script], { encoding: 'utf8', timeout: 180000 });
  if (run.error || run.status !== 0) {
    return { available: false, reason: run.error ? run.error.message : run.stderr.trim().split('\n').pop() };
  }
  return { available: true, ...JSON.parse(run.stdout) };
}

module.exports = { reduceCases };
