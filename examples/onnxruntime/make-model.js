'use strict';
// Writes a small ONNX image classifier, with no download and no ONNX tooling:
// the protobuf bytes are encoded here, field by field (onnx.proto3 numbers).
//
//   input  [N, 3, H, W] float32
//   -> Conv 3x3, 8 channels, stride 2, pad 1 -> Relu -> GlobalAveragePool
//   -> Flatten -> Gemm (10 classes)              output [N, 10] float32
//
// The weights come from a seeded generator and are returned with the model
// bytes, so a test can check the runtime's answer against its own arithmetic.
// Run: node examples/onnxruntime/make-model.js OUT.onnx
const fs = require('fs');

const CHANNELS = 8;
const CLASSES = 10;

// Protobuf wire format: varints (type 0), length-delimited (type 2), fixed32 (type 5).
function varint(value) {
  let n = BigInt.asUintN(64, BigInt(value));
  const bytes = [];
  do {
    let byte = Number(n & 0x7fn);
    n >>= 7n;
    if (n !== 0n) byte |= 0x80;
    bytes.push(byte);
  } while (n !== 0n);
  return Buffer.from(bytes);
}
const key = (field, wire) => varint((field << 3) | wire);
const int = (field, value) => Buffer.concat([key(field, 0), varint(value)]);
const bytes = (field, data) => Buffer.concat([key(field, 2), varint(data.length), data]);
const str = (field, text) => bytes(field, Buffer.from(text, 'utf8'));
const message = (field, ...parts) => bytes(field, Buffer.concat(parts));

// onnx.proto: TensorProto.DataType FLOAT = 1; AttributeProto.AttributeType INT = 2, INTS = 7.
const FLOAT = 1;
const ATTR_INT = 2;
const ATTR_INTS = 7;

function intAttribute(name, value) {
  return message(5, str(1, name), int(20, ATTR_INT), int(3, value));
}
function intsAttribute(name, values) {
  return message(5, str(1, name), int(20, ATTR_INTS), ...values.map((v) => int(8, v)));
}
function node(opType, inputs, outputs, ...attributes) {
  return message(1, ...inputs.map((i) => str(1, i)), ...outputs.map((o) => str(2, o)),
    str(3, `${opType.toLowerCase()}_${outputs[0]}`), str(4, opType), ...attributes);
}
function initializer(name, dims, values) {
  const raw = Buffer.from(new Float32Array(values).buffer);
  return message(5, ...dims.map((d) => int(1, d)), int(2, FLOAT), str(8, name), bytes(9, raw));
}
// A graph input or output: float32 with named (symbolic) or fixed dimensions.
function valueInfo(field, name, dims) {
  const dim = (d) => message(1, typeof d === 'string' ? str(2, d) : int(1, d));
  const shape = message(2, ...dims.map(dim));
  return message(field, str(1, name), message(2, message(1, int(1, FLOAT), shape)));
}

// A small deterministic generator (mulberry32), values in [-scale, scale).
function weights(count, seed, scale) {
  let state = seed >>> 0;
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (((t ^ (t >>> 14)) >>> 0) / 2 ** 32 * 2 - 1) * scale;
  }
  return out;
}

function makeModel(seed = 1) {
  const params = {
    convWeight: { dims: [CHANNELS, 3, 3, 3], values: weights(CHANNELS * 27, seed, 0.5) },
    convBias: { dims: [CHANNELS], values: weights(CHANNELS, seed + 1, 0.1) },
    fcWeight: { dims: [CLASSES, CHANNELS], values: weights(CLASSES * CHANNELS, seed + 2, 1) },
    fcBias: { dims: [CLASSES], values: weights(CLASSES, seed + 3, 0.1) },
  };
  const graph = Buffer.concat([
    node('Conv', ['images', 'convWeight', 'convBias'], ['conv'],
      intsAttribute('kernel_shape', [3, 3]), intsAttribute('strides', [2, 2]), intsAttribute('pads', [1, 1, 1, 1])),
    node('Relu', ['conv'], ['relu']),
    node('GlobalAveragePool', ['relu'], ['pooled']),
    node('Flatten', ['pooled'], ['features'], intAttribute('axis', 1)),
    node('Gemm', ['features', 'fcWeight', 'fcBias'], ['logits'], intAttribute('transB', 1)),
    str(2, 'dlpack_example'),
    ...Object.entries(params).map(([name, p]) => initializer(name, p.dims, p.values)),
    valueInfo(11, 'images', ['batch', 3, 'height', 'width']),
    valueInfo(12, 'logits', ['batch', CLASSES]),
  ]);
  // ModelProto: ir_version 8, producer_name, graph, opset_import { domain '', version 13 }.
  const model = Buffer.concat([int(1, 8), str(2, 'dlpack examples'), bytes(7, graph), message(8, str(1, ''), int(2, 13))]);
  return { model, params };
}

if (require.main === module) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: node examples/onnxruntime/make-model.js OUT.onnx');
    process.exit(2);
  }
  fs.writeFileSync(out, makeModel().model);
  console.log(`wrote ${out}`);
}

module.exports = { makeModel, CLASSES };
