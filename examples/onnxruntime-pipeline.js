'use strict';
// Python -> Node -> onnxruntime-node -> Python with no copy anywhere:
//   1. a Python worker writes a batch of images into shared memory;
//   2. Node opens it, and onnxruntime-node reads it in place as the model input;
//   3. the model writes its logits into shared memory Node preallocated;
//   4. Python reads them in place and checks them against its own arithmetic.
// The model is made on the spot by examples/onnxruntime/make-model.js (no download).
// Run: node examples/onnxruntime-pipeline.js [batch] [--numpy] [--json]   (needs onnxruntime-node:
// `npm install --ignore-scripts onnxruntime-node` in examples/onnxruntime, and
// python3 with NumPy; PyTorch is used where installed; DLPACK_PYTHON=... picks one).
const path = require('path');
const dl = require('..');
const { makeModel, CLASSES } = require('./onnxruntime/make-model');
const { loadOrt } = require('./onnxruntime/ort');

// The model's parameters as shared tensors, so the Python side can check the answer.
function sharedParams(params) {
  return Object.values(params).map(({ dims, values }) => {
    const t = dl.empty(dims, { dtype: 'float32', shared: true });
    t.data.set(values);
    return t;
  });
}

async function runPipeline({ ort, session, worker, params, batch, height = 224, width = 224 }) {
  const images = await worker.call('make_batch', batch, height, width); // Python's memory, opened in place
  const logits = dl.empty([batch, CLASSES], { dtype: 'float32', shared: true });
  const input = new ort.Tensor('float32', images.data, images.shape); // over the same bytes
  const output = new ort.Tensor('float32', logits.data, logits.shape); // preallocated: ORT writes here
  await session.run({ images: input }, { logits: output });
  const check = await worker.call('check', images, logits, ...params);
  return { images, logits, input, output, check };
}

// The Python worker; `numpy: true` leaves PyTorch out even where it is installed.
function startWorker({ python = process.env.DLPACK_PYTHON || 'python3', numpy = false } = {}) {
  return dl.python.spawn(path.join(__dirname, 'onnxruntime', 'worker.py'), { python, args: numpy ? ['numpy'] : [] });
}

// node examples/onnxruntime-pipeline.js [batch] [--numpy] [--json]
async function main(argv) {
  const ort = loadOrt();
  const batch = Number(argv.find((a) => /^\d+$/.test(a)) || 4);
  const { model, params } = makeModel();
  const session = await ort.InferenceSession.create(model);
  const worker = startWorker({ numpy: argv.includes('--numpy') });
  const shared = sharedParams(params);
  try {
    const { images, logits, input, output, check } = await runPipeline({ ort, session, worker, params: shared, batch });
    const report = {
      images: { dtype: images.dtype, shape: images.shape },
      inputInPlace: input.data === images.data, // onnxruntime's input is our view of Python's segment
      outputInPlace: output.data === logits.data, // and its output our preallocated shared memory
      python: check.library,
      maxError: check.maxError,
      pythonWrite: logits.data[0],
    };
    if (argv.includes('--json')) {
      console.log(JSON.stringify(report));
    } else {
      console.log(`python made images ${images.dtype} [${images.shape}] in shared memory; ` +
        `onnxruntime read them in place: ${report.inputInPlace}`);
      console.log(`onnxruntime wrote logits [${logits.shape}] into Node's shared memory: ${report.outputInPlace}`);
      console.log(`python (${check.library}) read them in place: max |error| ${check.maxError.toExponential(2)}; ` +
        `its write reads back here as ${report.pythonWrite}`);
    }
    images.dispose();
    logits.dispose();
  } finally {
    for (const t of shared) t.dispose();
    await worker.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { runPipeline, sharedParams, startWorker };
