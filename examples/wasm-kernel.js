'use strict';
// A WebAssembly kernel over a tensor: the tensor and the wasm code share the
// same memory, so neither side copies. Run: node examples/wasm-kernel.js
const dl = require('..');

// Compiled from this text (wabt): scale(ptr, n, k) multiplies n float32
// values at ptr by k in place; sum(ptr, n) adds them up.
//   (func (export "scale") (param $ptr i32) (param $n i32) (param $k f32) ...)
//   (func (export "sum") (param $ptr i32) (param $n i32) (result f32) ...)
const KERNEL = Buffer.from('AGFzbQEAAAABDQJgA39/fQBgAn9/AX0CDwEDZW52Bm1lbW9yeQIAAQMDAgABBw8CBXNjYWxlAAADc3VtAAEKYgIxAQJ/AkADQCADIAFPDQEgACADQQJ0aiEEIAQgBCoCACAClDgCACADQQFqIQMMAAsLCy4CAX8BfQJAA0AgAiABTw0BIAMgACACQQJ0aioCAJIhAyACQQFqIQIMAAsLIAML', 'base64');

async function main() {
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 16 });
  const { instance } = await WebAssembly.instantiate(KERNEL, { env: { memory } });
  const { scale, sum } = instance.exports;

  // A 4x4 float32 tensor living at byte 256 of the wasm memory.
  const ptr = 256;
  const t = dl.wasm.view(memory, { ptr, dtype: 'float32', shape: [4, 4] });
  t.copyFrom(dl.tensor([...Array(16).keys()], { shape: [4, 4] }));
  console.log('tensor written by JS:   ', String(t).replace(/\n\s*/g, ' '));

  scale(ptr, t.size, 0.5); // wasm works on the same bytes
  console.log('after wasm scale(0.5): ', String(t).replace(/\n\s*/g, ' '));

  memory.grow(2); // detaches the old ArrayBuffer; the view follows the memory
  t.data[0] = 100;
  console.log('wasm sum after grow():  ', sum(ptr, t.size), '(expected', 100 + 60, ')');

  // The same tensor goes out through DLPack like any other.
  const copy = dl.fromDLPack(t.__dlpack__(), { copy: true });
  console.log('DLPack copy, isCopy:    ', copy.isCopy, copy.toArray()[0]);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
