'use strict';
// onnxruntime-node for the examples and the pipeline bench: installed in this
// folder (`npm install --ignore-scripts`) or beside the caller. ortOrNull()
// gives null where it is not installed; loadOrt() says how to install it and
// exits.
const path = require('path');

function ortOrNull() {
  try {
    return require(require.resolve('onnxruntime-node', { paths: [__dirname, path.join(__dirname, '..')] }));
  } catch (error) {
    if (error.code !== 'MODULE_NOT_FOUND') throw error;
    return null;
  }
}

function loadOrt() {
  const ort = ortOrNull();
  if (ort !== null) return ort;
  console.error('This example needs onnxruntime-node: (cd examples/onnxruntime && npm install --ignore-scripts)');
  return process.exit(2);
}

module.exports = { loadOrt, ortOrNull };
