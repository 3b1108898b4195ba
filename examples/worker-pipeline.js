'use strict';
// A worker-thread pipeline over one tensor: the main thread fills a batch,
// two workers normalise half of the rows each, in place, with no copy.
// Run: node examples/worker-pipeline.js
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');
const dl = require('..');

if (isMainThread) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  // Worker: open the shared tensor and normalise rows [from, to) to unit length.
  const batch = dl.open(workerData.descriptor);
  const [, cols] = batch.shape;
  const data = batch.data;
  for (let r = workerData.from; r < workerData.to; r++) {
    let norm = 0;
    for (let c = 0; c < cols; c++) norm += data[r * cols + c] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let c = 0; c < cols; c++) data[r * cols + c] /= norm;
  }
  batch.dispose();
  parentPort.postMessage(workerData.to - workerData.from);
}

async function main() {
  const rows = 1024;
  const cols = 256;
  // Shared memory: a 'shm' segment here; a SharedArrayBuffer tensor
  // (dl.fromBuffer(new SharedArrayBuffer(n), ...)) would do as well ('sab').
  const batch = dl.empty([rows, cols], { dtype: 'float32', shared: true });
  const data = batch.data;
  for (let i = 0; i < data.length; i++) data[i] = (i % 7) + 1;

  const descriptor = batch.share();
  console.log(`batch ${rows}x${cols} float32 shared as '${descriptor.kind}' (${descriptor.name})`);
  const started = process.hrtime.bigint();
  const halves = [[0, rows / 2], [rows / 2, rows]];
  const done = await Promise.all(halves.map(([from, to]) => new Promise((resolve, reject) => {
    const worker = new Worker(__filename, { workerData: { descriptor, from, to } });
    worker.once('message', resolve);
    worker.once('error', reject);
  })));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  console.log(`workers normalised ${done.join(' + ')} rows in place in ${ms.toFixed(1)} ms`);

  let norm = 0;
  for (let c = 0; c < cols; c++) norm += data[c] ** 2;
  console.log(`row 0 norm seen by the main thread: ${Math.sqrt(norm).toFixed(6)} (expected 1)`);
  batch.dispose(); // the segment is removed once every thread has let go
}
