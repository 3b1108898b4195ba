'use strict';
// README quick start: an image's pixels into a tensor, and on to Python without a copy.
// Run: node examples/image-to-python.js (DLPACK_PYTHON=/path/to/python3 with NumPy picks one).
const dl = require('..');
const { execFileSync } = require('child_process');

// Raw RGB pixels, as sharp(file).raw().toBuffer() gives them (here a 2x2 image).
const pixels = Buffer.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255]);
const image = dl.fromBuffer(pixels, { dtype: 'uint8', shape: [2, 2, 3] }); // no copy

// Shared memory another process can map; copyFrom converts uint8 to float32.
const batch = dl.empty([2, 2, 3], { dtype: 'float32', shared: true });
batch.copyFrom(image);

// Python maps the same memory (NumPy; like='torch' gives a torch tensor) and scales it.
const python = `import json, sys, dlpack_node
x = dlpack_node.open(json.loads(sys.argv[1]))
x /= 255`;
execFileSync(process.env.DLPACK_PYTHON || 'python3', ['-c', python, JSON.stringify(batch.share())],
  { env: { ...process.env, PYTHONPATH: dl.pythonPath } });
console.log(batch.toArray()[0][0]);      // [ 1, 0, 0 ]: Python's writes, no copy back
batch.dispose();
