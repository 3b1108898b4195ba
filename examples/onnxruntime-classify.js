'use strict';
// The README's onnxruntime recipe, zero-copy end to end:
//   raw RGB frames (Buffers, as sharp(file).resize(224, 224).raw().toBuffer()
//   gives them) -> wrapped, no copy -> dl.normalize into one float32 NCHW batch
//   -> session.run with its input over the batch's memory and a preallocated
//   output over ours -> softmax -> topk.
// The frames are made here (a gradient per frame) so that the example needs no
// image file and no sharp; the model is examples/onnxruntime/make-model.js's
// (no download). Run: node examples/onnxruntime-classify.js [frames]   (needs
// onnxruntime-node: `npm install --ignore-scripts` in examples/onnxruntime).
const dl = require('..');
const { makeModel, CLASSES } = require('./onnxruntime/make-model');
const { loadOrt } = require('./onnxruntime/ort');


const H = 224;
const W = 224;
const MEAN = [0.485, 0.456, 0.406]; // ImageNet's, per channel
const STD = [0.229, 0.224, 0.225];

// A frame of H x W RGB pixels, one byte each, row-major HWC: sharp's .raw() layout.
function rawFrame(seed) {
  const raw = Buffer.alloc(H * W * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * (seed + 1) + seed * 37) % 256;
  return raw;
}

async function main(argv) {
  const ort = loadOrt();
  const count = Number(argv.find((a) => /^\d+$/.test(a)) || 4);
  const session = await ort.InferenceSession.create(makeModel().model);
  const raws = Array.from({ length: count }, (_, i) => rawFrame(i));

  // --- the recipe (README "An image pipeline") ---
  const frames = raws.map((raw) => dl.fromBuffer(raw, { dtype: 'uint8', shape: [H, W, 3] })); // no copy
  const batch = dl.empty([frames.length, 3, H, W], { dtype: 'float32' });
  frames.forEach((frame, i) => {
    // HWC uint8 -> CHW float32, (x / 255 - mean[c]) / std[c], in one pass into the batch's slot.
    dl.normalize(frame.permute(2, 0, 1), MEAN, STD, { scale: 1 / 255, out: batch.select(0, i) });
  });
  const logits = dl.empty([frames.length, CLASSES], { dtype: 'float32' });
  const input = new ort.Tensor('float32', batch.data, batch.shape); // over the batch's memory
  const output = new ort.Tensor('float32', logits.data, logits.shape); // preallocated: ORT writes here
  await session.run({ images: input }, { logits: output });
  const probs = logits.softmax(-1);
  const { values, indices } = probs.topk(5); // per frame: the 5 likeliest classes
  // ---

  // What the recipe claims, checked: no copy at either end of session.run, the
  // frames are the caller's Buffers, the normalised values, and top-k's order.
  const failures = [];
  const check = (ok, what) => { if (!ok) failures.push(what); };
  check(input.data === batch.data && output.data === logits.data, 'onnxruntime ran over our memory');
  check(frames.every((f, i) => f.buffer === raws[i].buffer), 'the frames wrap the raw Buffers');
  const at = [1, 2, 100, 50]; // frame 1, channel 2 (blue), y 100, x 50
  const pixel = raws[1][(100 * W + 50) * 3 + 2];
  const expected = Math.fround((Math.fround(pixel * Math.fround(1 / 255)) - MEAN[2]) / STD[2]);
  check(Math.abs(batch.toArray()[at[0]][at[1]][at[2]][at[3]] - expected) < 1e-5, 'normalize matches its formula');
  const p = probs.toArray();
  const top = indices.toArray();
  const best = values.toArray();
  for (let n = 0; n < frames.length; n++) {
    check(Math.abs(p[n].reduce((a, b) => a + b, 0) - 1) < 1e-5, `softmax row ${n} sums to 1`);
    check(best[n].every((v, k) => k === 0 || best[n][k - 1] >= v), `topk row ${n} is sorted`);
    check(Number(top[n][0]) === p[n].indexOf(Math.max(...p[n])), `topk row ${n} starts at the argmax`);
    console.log(`frame ${n}: top-5 classes ${top[n].map(Number).join(', ')} ` +
      `(p = ${best[n].map((v) => v.toFixed(3)).join(', ')})`);
  }
  console.log(`onnxruntime read the batch [${batch.shape}] and wrote the logits [${logits.shape}] in place: ` +
    `${input.data === batch.data && output.data === logits.data}`);
  for (const t of [...frames, batch, logits, probs, values, indices]) t.dispose();
  if (failures.length !== 0) throw new Error(`onnxruntime-classify: ${failures.join('; ')} failed`);
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exit(1);
});
