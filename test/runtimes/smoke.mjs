// The smoke subset .ci/run runs under Bun and Deno (README "Install": the
// versions checked): DLPack exchange, views, a worker thread over shared
// memory, and the onnxruntime-node example where onnxruntime-node loads.
// Prints one line per check and exits non-zero on the first wrong value.
// Run: bun test/runtimes/smoke.mjs | deno run -A test/runtimes/smoke.mjs
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dl = require(root);

const runtime = globalThis.Bun ? `bun ${globalThis.Bun.version}` :
  globalThis.Deno ? `deno ${globalThis.Deno.version.deno}` : `node ${process.version}`;
let failed = 0;
function check(name, got, want) {
  const ok = JSON.stringify(got) === JSON.stringify(want);
  if (!ok) failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${runtime}: ${name}${ok ? '' : `: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`}`);
}
const plain = (v) => JSON.parse(JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? `${x}n` : x)));

// Exchange: zero-copy fromBuffer, a DLPack round trip, the FFI hand-off.
const bytes = new Float32Array([1, 2, 3, 4, 5, 6]);
const t = dl.fromBuffer(bytes, { dtype: 'float32', shape: [2, 3] });
bytes[0] = 10;
check('fromBuffer is a view', t.toArray(), [[10, 2, 3], [4, 5, 6]]);
const back = dl.fromDLPack(t.__dlpack__());
check('DLPack round trip, same memory', [back.toArray(), back.buffer === t.buffer], [[[10, 2, 3], [4, 5, 6]], true]);
const ptr = dl.tensor([7n, 8n], { dtype: 'int64' }).__dlpack__().toPointer();
const adopted = dl.fromDLPack(dl.DLPackCapsule.fromPointer(ptr, { versioned: true }));
check('toPointer -> fromPointer -> fromDLPack', plain(adopted.toArray()), ['7n', '8n']);
adopted.dispose();

// Views and conversion.
const grid = dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'int32' });
check('permute + contiguous', Array.from(grid.permute(1, 0).contiguous().data), [1, 4, 2, 5, 3, 6]);
check('slice with a step', grid.slice(1, 0, 3, 2).toArray(), [[1, 3], [4, 6]]);
check('to(float16) and back', grid.to('float16').to('float32').toArray(), [[1, 2, 3], [4, 5, 6]]);
check('unknown option key is coded', (() => {
  try { dl.empty([1], { dytpe: 'int8' }); } catch (e) { return e.code; }
  return null;
})(), 'ERR_INVALID_ARG_VALUE');

// dispose() detaches the buffers handed out over native memory. Deno ran the
// buffer's finalizer inside the detach, and the addon then wrote to the freed
// hold: a segfault (src/addon/host_storage.cc, StorageRelease).
const segment = dl.empty([2], { dtype: 'float32', shared: true });
const handedOut = segment.data;
segment.dispose();
check('dispose() of native memory after data: detached, no crash', [segment.disposed, handedOut.length], [true, 0]);

// A worker thread opens shared memory zero-copy and writes into it.
const shared = dl.empty([4], { dtype: 'float32', shared: true });
shared.copyFrom([1, 2, 3, 4]);
const worker = new Worker(`
  const { parentPort, workerData } = require('node:worker_threads');
  const dl = require(workerData.root);
  const t = dl.open(workerData.descriptor);
  t.data[0] = t.data[0] + 100;
  parentPort.postMessage(Array.from(t.data));
  t.dispose();`, { eval: true, workerData: { root, descriptor: shared.share() } });
const seen = await new Promise((resolve, reject) => {
  worker.once('message', resolve);
  worker.once('error', reject);
});
await worker.terminate();
check('worker opened shared memory', seen, [101, 2, 3, 4]);
check('its write is seen here', Array.from(shared.data), [101, 2, 3, 4]);

// The onnxruntime-node example, where onnxruntime-node loads in this runtime.
let ort = null;
try {
  ort = require(require.resolve('onnxruntime-node', { paths: [path.join(root, 'examples', 'onnxruntime')] }));
} catch (error) {
  console.log(`skip ${runtime}: onnxruntime example: onnxruntime-node does not load (${error.message.split('\n')[0]})`);
}
if (ort !== null) {
  const { makeModel, CLASSES } = require(path.join(root, 'examples', 'onnxruntime', 'make-model.js'));
  const session = await ort.InferenceSession.create(makeModel().model);
  const input = dl.zeros([1, 3, 16, 16]);
  input.copyFrom(dl.tensor(Array.from({ length: 768 }, (_, i) => (i % 5) / 5)).reshape([1, 3, 16, 16]));
  const output = dl.empty([1, CLASSES], { dtype: 'float32' });
  const results = await session.run({ images: new ort.Tensor('float32', input.data, input.shape) },
    { logits: new ort.Tensor('float32', output.data, output.shape) });
  check('onnxruntime wrote its output into our memory', Array.from(output.data), Array.from(results.logits.data));
}

console.log(`${runtime}: ${failed === 0 ? 'smoke passed' : `${failed} check(s) failed`}`);
process.exit(failed === 0 ? 0 : 1);
