'use strict';
// examples/onnxruntime-pipeline.js: Python -> Node -> onnxruntime-node -> Python
// over one set of shared pages. Needs onnxruntime-node in examples/onnxruntime
// (.ci/run installs it there with --ignore-scripts) and a Python with NumPy.
// The example runs as its own process, as a user runs it: onnxruntime-node
// checks typed arrays with instanceof, which Jest's separate realm fails.
const path = require('path');
const { spawnSync, execFileSync } = require('child_process');
const { PYTHON } = require('./helpers');

const example = path.join(__dirname, '..', 'examples', 'onnxruntime-pipeline.js');
let why = null;
try {
  require.resolve('onnxruntime-node', { paths: [path.join(__dirname, '..', 'examples', 'onnxruntime')] });
} catch (error) {
  why = `onnxruntime-node is not installed in examples/onnxruntime (${error.code}); ` +
    'install it there with npm install --ignore-scripts';
}
if (why === null && spawnSync(PYTHON, ['-c', 'import numpy']).status !== 0) why = `${PYTHON} cannot import numpy`;
const hasTorch = why === null && spawnSync(PYTHON, ['-c', 'import torch']).status === 0;
if (why !== null) console.log(`onnxruntime pipeline tests skipped: ${why}`);
else if (!hasTorch) console.log(`onnxruntime pipeline with PyTorch skipped: ${PYTHON} cannot import torch`);

const cases = [['numpy', ['--numpy']], ['torch', []]];

describe.each(cases)('the onnxruntime-node pipeline with %s on the Python side', (library, flags) => {
  const run = why === null && (library === 'numpy' || hasTorch) ? test : test.skip;
  run('no copy anywhere, and the answer is the model\'s', () => {
    const out = execFileSync(process.execPath, [example, '3', '--json', ...flags], {
      encoding: 'utf8', timeout: 60000, env: { ...process.env, DLPACK_PYTHON: PYTHON },
    });
    const report = JSON.parse(out.trim().split('\n').pop());
    expect(report).toMatchObject({
      images: { dtype: 'float32', shape: [3, 3, 224, 224] },
      inputInPlace: true, // onnxruntime's input was the typed array over Python's segment
      outputInPlace: true, // and its output our preallocated shared memory
      python: library,
      pythonWrite: 12345, // what Python wrote into the logits reads back in Node
    });
    expect(report.maxError).toBeLessThan(1e-4); // Python read, in place, what onnxruntime wrote
  });
});
