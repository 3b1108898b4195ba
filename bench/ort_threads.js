'use strict';
// Our thread pool beside onnxruntime-node's (docs/API.md "Threads",
// docs/onnxruntime.md "Threads"): dl.normalize of a batch of eight 224x224
// uint8 HWC frames into float32 NCHW, timed right after a session.run, at 1
// thread, 2 threads and the default, with onnxruntime's intra-op threads
// spinning after the run (its default) and not (allow_spinning "0"). Every
// round runs each setting once in a rotated order, each after its own
// session.run; ratios are paired (the same round) medians.
//
//   node --expose-gc bench/ort_threads.js [rounds]   alone (prints its rows)
//   npm run bench                                    one section of the table
const path = require('path');
const dl = require('../lib');
const { makeModel } = require('../examples/onnxruntime/make-model');
const { ortOrNull } = require('../examples/onnxruntime/ort');

const N = 8;
const SIZE = 224;
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];
const now = process.hrtime.bigint;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// What runs before each timed normalize: session.run with onnxruntime's
// defaults (its intra-op threads spin after the run), the same with spinning
// off, the same on one intra-op thread (no pool of its own), and, as the
// control, an idle wait as long as a run (our pool's threads have gone to
// sleep in each case; only onnxruntime's threads differ).
async function befores(ort, input, output) {
  const { model } = makeModel();
  const spinning = await ort.InferenceSession.create(model);
  const still = await ort.InferenceSession.create(model,
    { extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } } });
  const single = await ort.InferenceSession.create(model, { intraOpNumThreads: 1 });
  const runs = [];
  for (let i = 0; i < 7; i++) {
    const start = now();
    await spinning.run({ images: input }, { logits: output });
    runs.push(Number(now() - start) / 1e6);
  }
  const gap = median(runs);
  return {
    gap,
    list: [
      ['onnxruntime spinning (its default)', () => spinning.run({ images: input }, { logits: output })],
      ['onnxruntime not spinning', () => still.run({ images: input }, { logits: output })],
      ['onnxruntime on 1 intra-op thread', () => single.run({ images: input }, { logits: output })],
      [`an idle wait as long as a run (${gap.toFixed(1)} ms)`,
        () => new Promise((resolve) => { setTimeout(resolve, gap); })],
    ],
  };
}

// Rounds of ms per setting: normalize timed right after its `before` settled.
async function measure(ort, rounds) {
  const defaultThreads = dl.getNumThreads();
  const frames = dl.empty([N, SIZE, SIZE, 3], { dtype: 'uint8' });
  const bytes = frames.data;
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) & 255;
  const batch = dl.empty([N, 3, SIZE, SIZE]);
  const logits = dl.empty([N, 10]);
  const input = new ort.Tensor('float32', batch.data, batch.shape);
  const output = new ort.Tensor('float32', logits.data, logits.shape);
  const { gap, list } = await befores(ort, input, output);
  const settings = [];
  for (const [label, before] of list) {
    for (const threads of new Set([1, 2, defaultThreads])) settings.push({ label, before, threads });
  }
  const view = frames.permute(0, 3, 1, 2);
  const normalize = () => dl.normalize(view, MEAN, STD, { scale: 1 / 255, out: batch });
  const times = settings.map(() => []);
  for (let round = -2; round < rounds; round++) { // two rounds of warm-up
    for (let k = 0; k < settings.length; k++) {
      const j = (k + Math.max(round, 0)) % settings.length; // a rotated order each round
      const { before, threads } = settings[j];
      dl.setNumThreads(threads);
      await before();
      const start = now();
      normalize();
      const ms = Number(now() - start) / 1e6;
      if (round >= 0) times[j].push(ms);
    }
  }
  dl.setNumThreads(defaultThreads);
  for (const t of [view, frames, batch, logits]) t.dispose();
  return { defaultThreads, gap, labels: list.map(([label]) => label), settings, times };
}

async function ortThreadCases(record, rounds = 41) {
  const ort = ortOrNull();
  if (ort === null) {
    return 'ort threads: skipped (onnxruntime-node is not installed in examples/onnxruntime; ' +
      'cd examples/onnxruntime && npm install --ignore-scripts)';
  }
  const { defaultThreads, gap, labels, settings, times } = await measure(ort, rounds);
  const at = (label, threads) => times[settings.findIndex((s) => s.label === label && s.threads === threads)];
  const counts = [...new Set([2, defaultThreads])];
  labels.forEach((label, i) => {
    const one = at(label, 1);
    for (const threads of counts) {
      const other = at(label, threads);
      const name = threads === defaultThreads ? `${threads} threads (the default)` : `${threads} threads`;
      record({
        id: `ortThreads${['Spin', 'NoSpin', 'One', 'Idle'][i]}${threads}`,
        name: `normalize [${N},3,${SIZE},${SIZE}] after ${label}, ${name}`,
        unit: 'ns', value: median(other) * 1e6, baseline: median(one) * 1e6,
        baselineName: 'the same at 1 thread, in the same rounds',
        ratio: median(other.map((t, r) => t / one[r])),
        note: `paired median of ${rounds} rounds`,
        // The goal for the default: not slower than one thread.
        ...(threads === defaultThreads ? { target: { on: 'ratio', op: '<=', limit: 1, text: '<= 1x 1 thread' } } : {}),
      });
    }
  });
  const ortPackage = require.resolve('onnxruntime-node/package.json',
    { paths: [path.join(__dirname, '..', 'examples', 'onnxruntime')] });
  return `ort threads: onnxruntime-node ${require(ortPackage).version} with its default thread options, ` +
    `session.run ${gap.toFixed(1)} ms; ${require('os').availableParallelism()} cores, our default ` +
    `${defaultThreads} threads`;
}

module.exports = { ortThreadCases };

if (require.main === module) {
  const rows = [];
  ortThreadCases((row) => rows.push(row), Number(process.argv[2] ?? 41)).then((note) => {
    for (const r of rows) {
      console.log(`${r.name}: ${(r.value / 1e6).toFixed(3)} ms, 1 thread ${(r.baseline / 1e6).toFixed(3)} ms, ` +
        `paired ratio ${r.ratio.toFixed(2)}`);
    }
    if (note) console.log(note);
  });
}
