'use strict';
// Sharing benchmarks (bench/README.md "Sharing"): time until the other side can read a tensor
// handed over zero-copy, for 1 KiB and 256 MiB, against the copying way of
// handing the same bytes over. The target is a handover time independent of
// size (256 MiB within 2x of 1 KiB).
const path = require('path');
const { Worker } = require('worker_threads');
const { spawn, spawnSync } = require('child_process');
const dl = require('../lib');

const SMALL = 1024;
const BIG = 256 * 1024 * 1024;
const BATCHES = 7;
const now = process.hrtime.bigint;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The worker opens what it is sent and answers with its first and last value.
const WORKER = `
const { parentPort } = require('worker_threads');
const dl = require(${JSON.stringify(path.join(__dirname, '..', 'lib'))});
parentPort.on('message', (m) => {
  if (m.descriptor) {
    const t = dl.open(m.descriptor);
    const d = t.data;
    parentPort.postMessage(d[0] + d[d.length - 1]);
    t.dispose();
  } else {
    const d = new Uint8Array(m.copy);
    parentPort.postMessage(d[0] + d[d.length - 1]);
  }
});`;

// The Python side: a descriptor line is opened with dlpack_node (zero-copy);
// "raw N" is followed by N bytes on stdin (the pipe baseline).
const PYTHON = `
import json, sys
sys.path.insert(0, ${JSON.stringify(path.join(__dirname, '..', 'python'))})
import numpy, dlpack_node
out = sys.stdout
for line in sys.stdin.buffer:
    if line.startswith(b'raw '):
        n = int(line[4:]); buf = sys.stdin.buffer.read(n)
        a = numpy.frombuffer(buf, dtype=numpy.uint8)
        out.write('%d\\n' % (int(a[0]) + int(a[-1])))
    else:
        a = dlpack_node.open(json.loads(line)).reshape(-1)
        out.write('%d\\n' % (int(a[0]) + int(a[-1])))
        del a
    out.flush()
`;

// A tensor for worker threads ('sab': a SharedArrayBuffer, posted by
// reference) or for other processes ('shm': a POSIX segment).
function shared(nbytes, kind) {
  const t = kind === 'sab'
    ? dl.fromBuffer(new SharedArrayBuffer(nbytes), { dtype: 'uint8' })
    : dl.empty([nbytes], { dtype: 'uint8', shared: true });
  t.data[0] = 1;
  t.data[nbytes - 1] = 2;
  return t;
}

async function timeMany(handOver) {
  await handOver(); // warm-up
  const ns = [];
  for (let i = 0; i < BATCHES; i++) {
    const start = now();
    await handOver();
    ns.push(Number(now() - start));
  }
  return median(ns);
}

async function workerCases(record) {
  const worker = new Worker(WORKER, { eval: true });
  const ask = (message, transfer) => new Promise((resolve) => {
    worker.once('message', resolve);
    worker.postMessage(message, transfer);
  });
  const small = shared(SMALL, 'sab');
  const big = shared(BIG, 'sab');
  // share() is part of the handover: the descriptor is made each time.
  const smallNs = await timeMany(() => ask({ descriptor: small.share() }));
  const bigNs = await timeMany(() => ask({ descriptor: big.share() }));
  const segment = shared(BIG, 'shm');
  const shmNs = await timeMany(() => ask({ descriptor: segment.share() }));
  const bigBytes = new Uint8Array(BIG);
  bigBytes[0] = 1;
  const copyNs = await timeMany(() => ask({ copy: bigBytes.buffer })); // cloned: a copy
  await worker.terminate();
  small.dispose();
  big.dispose();
  segment.dispose();
  record({
    id: 'workerShare', name: "worker thread: share() 256 MiB ('sab') -> readable", unit: 'ns', value: bigNs,
    baseline: smallNs, baselineName: "share() 1 KiB ('sab') to the same worker", ratio: bigNs / smallNs,
    target: { on: 'ratio', op: '<=', limit: 2, text: 'ratio <= 2' },
  });
  record({
    id: 'workerShm', name: "worker thread: 256 MiB 'shm' segment -> readable", unit: 'ns', value: shmNs,
    info: true, note: 'varies: the worker\'s new 256 MiB external ArrayBuffer can make V8 collect garbage',
  });
  record({
    id: 'workerCopy', name: 'worker thread: postMessage copy of 256 MiB', unit: 'ns', value: copyNs,
    info: true, note: `${(copyNs / bigNs).toFixed(0)}x the zero-copy handover`,
  });
}

function pythonAvailable(python) {
  const probe = spawnSync(python, ['-c', 'import numpy'], { encoding: 'utf8', timeout: 60000 });
  return !probe.error && probe.status === 0;
}

async function pythonCases(record, python) {
  if (!pythonAvailable(python)) {
    return `${python} has no NumPy: Python handover not measured`;
  }
  const child = spawn(python, ['-c', PYTHON], { stdio: ['pipe', 'pipe', 'inherit'] });
  let pending = null;
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    const nl = buffered.indexOf('\n');
    if (nl >= 0 && pending) {
      buffered = buffered.slice(nl + 1);
      const settle = pending;
      pending = null;
      settle();
    }
  });
  let failed = null;
  child.on('exit', (code) => {
    failed = new Error(`the Python side exited (${code}) before answering`);
    if (pending) pending(failed);
  });
  const ask = (...chunks) => new Promise((resolve, reject) => {
    if (failed) {
      reject(failed);
      return;
    }
    pending = (error) => (error ? reject(error) : resolve());
    for (const c of chunks) child.stdin.write(c);
  });
  const small = shared(SMALL, 'shm');
  const big = shared(BIG, 'shm');
  const smallNs = await timeMany(() => ask(`${JSON.stringify(small.share())}\n`));
  const bigNs = await timeMany(() => ask(`${JSON.stringify(big.share())}\n`));
  const raw = Buffer.alloc(BIG, 1);
  const pipeNs = await timeMany(() => ask(`raw ${BIG}\n`, raw));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.stdin.end();
  await exited;
  small.dispose();
  big.dispose();
  record({
    id: 'pythonShare', name: 'Python process: share() 256 MiB -> numpy', unit: 'ns', value: bigNs,
    baseline: smallNs, baselineName: 'share() 1 KiB to the same Python process', ratio: bigNs / smallNs,
    target: { on: 'ratio', op: '<=', limit: 2, text: 'ratio <= 2' },
  });
  record({
    id: 'pythonPipe', name: 'Python process: 256 MiB through a pipe', unit: 'ns', value: pipeNs,
    info: true, note: `${(pipeNs / bigNs).toFixed(0)}x the zero-copy handover`,
  });
  return null;
}

async function sharingCases(record, python) {
  await workerCases(record);
  return pythonCases(record, python);
}

module.exports = { sharingCases };
