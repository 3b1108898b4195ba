'use strict';
// The showcase pipeline's per-batch overhead (docs/python.md "Workers"):
// Python fills a batch -> onnxruntime-node runs the model on it -> Python reads
// the logits, once with no copy (shared memory through dl.python.spawn) and
// once the copying way (the batch's bytes over a pipe, the logits' bytes back).
// Overhead is each way's time per batch less the model's own time, measured
// alone in the same run. Needs onnxruntime-node in examples/onnxruntime.
const path = require('path');
const { spawn } = require('child_process');
const dl = require('../lib');
const { makeModel, CLASSES } = require('../examples/onnxruntime/make-model');
const { ortOrNull } = require('../examples/onnxruntime/ort');

const SIZE = 224;
const now = process.hrtime.bigint;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const WORKER = path.join(__dirname, 'pipeline_worker.py');

// The copying baseline's Python: reads exactly `n` bytes at a time from its stdout.
function pipePeer(python, n) {
  const child = spawn(python, [WORKER, 'pipe', String(n), String(SIZE), String(SIZE), String(CLASSES)],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  let chunks = [];
  let have = 0;
  let want = null;
  child.stdout.on('data', (chunk) => {
    chunks.push(chunk);
    have += chunk.length;
    if (want !== null && have >= want.bytes) {
      const all = Buffer.concat(chunks, have);
      const { bytes, resolve } = want;
      want = null;
      chunks = have > bytes ? [all.subarray(bytes)] : [];
      have -= bytes;
      resolve(all.subarray(0, bytes));
    }
  });
  const read = (bytes) => new Promise((resolve) => {
    want = { bytes, resolve };
    child.stdout.emit('data', Buffer.alloc(0));
  });
  return { child, read };
}

async function timeEach(runs, fn) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = now();
    await fn(i);
    times.push(Number(now() - start) / 1e6);
  }
  return median(times);
}

async function pipelineCase(ort, session, python, n, runs) {
  const shape = [n, 3, SIZE, SIZE];
  // The model alone, on memory already in place.
  const batch = dl.empty(shape, { shared: true });
  const logits = dl.empty([n, CLASSES], { shared: true });
  const input = new ort.Tensor('float32', batch.data, shape);
  const output = new ort.Tensor('float32', logits.data, logits.shape);
  await session.run({ images: input }, { logits: output }); // warm-up
  const model = await timeEach(runs, () => session.run({ images: input }, { logits: output }));

  // No copy: Python fills the shared batch in place, onnxruntime reads it there
  // and writes the shared logits, Python reads them there.
  const worker = dl.python.spawn(WORKER, { python });
  await worker.ready;
  const zeroCopy = await timeEach(runs, async (i) => {
    await worker.call('refill', batch, i);
    await session.run({ images: input }, { logits: output });
    await worker.call('consume', logits);
  });
  await worker.close();

  // Copies: the batch's bytes through a pipe into new memory, the logits back.
  const peer = pipePeer(python, n);
  const copied = await timeEach(runs, async (i) => {
    peer.child.stdin.write(`${i}\n`);
    const size = (await peer.read(8)).readBigUInt64LE(0);
    const bytes = await peer.read(Number(size));
    const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
    const result = await session.run({ images: new ort.Tensor('float32', data, shape) });
    const out = result.logits.data;
    peer.child.stdin.write(Buffer.from(out.buffer, out.byteOffset, out.byteLength));
    await peer.read(8);
  });
  peer.child.stdin.end();
  batch.dispose();
  logits.dispose();
  return { batch: n, model, zeroCopy, copied, zeroCopyOverhead: zeroCopy - model, copiedOverhead: copied - model };
}

async function pipelineCases(record, python) {
  const ort = ortOrNull();
  if (ort === null) {
    return 'pipeline: skipped (onnxruntime-node is not installed in examples/onnxruntime; ' +
      'cd examples/onnxruntime && npm install --ignore-scripts)';
  }
  const session = await ort.InferenceSession.create(makeModel().model, { intraOpNumThreads: 1 });
  for (const [n, runs] of [[1, 31], [64, 7]]) {
    const r = await pipelineCase(ort, session, python, n, runs);
    const ms = (x) => `${x.toFixed(2)} ms`;
    record({
      id: `pipeline${n}`, name: `pipeline ${n}x3x224x224: per-batch overhead, zero-copy`, unit: 'ns',
      value: r.zeroCopyOverhead * 1e6, baseline: r.copiedOverhead * 1e6,
      baselineName: `the same pipeline with the batch and logits copied through pipes (${n}x3x224x224)`,
      ratio: r.zeroCopyOverhead / r.copiedOverhead,
      note: `model alone ${ms(r.model)}; whole batch ${ms(r.zeroCopy)} zero-copy, ${ms(r.copied)} copied`,
    });
  }
  return null;
}

module.exports = { pipelineCases };
