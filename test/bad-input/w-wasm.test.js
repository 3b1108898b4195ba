'use strict';
// docs/errors.md, the W rows: wasm.view. One test per row;
// test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { area } = require('./rows');

const { row } = area(__filename);

describe('wasm.view', () => {
  const memory = new WebAssembly.Memory({ initial: 1 }); // 65536 bytes

  row('W01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const m of [{}, null, memory.buffer, { buffer: new ArrayBuffer(8), grow() {} }]) {
      throws(() => dl.wasm.view(m, { ptr: 0, dtype: 'int32', shape: [1] }), /for `memory`/);
    }
  });

  row('W02', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.wasm.view(memory), /for `options`/);
    throws(() => dl.wasm.view(memory, null), /for `options`/);
  });

  row('W03', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const ptr of [-4, 1.5, '0', 0n, undefined]) {
      throws(() => dl.wasm.view(memory, { ptr, dtype: 'int32', shape: [1] }), /`options.ptr`/);
    }
  });

  row('W04', RangeError, 'ERR_DLPACK_MISALIGNED', (throws) => {
    throws(() => dl.wasm.view(memory, { ptr: 2, dtype: 'int32', shape: [1] }), /`options.ptr`/);
    throws(() => dl.wasm.view(memory, { ptr: 8, dtype: 'complex128', shape: [1] }), /`options.ptr`/);
  });

  row('W05', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.wasm.view(memory, { ptr: 65532, dtype: 'int32', shape: [2] }), /65536 bytes/);
    throws(() => dl.wasm.view(memory, { ptr: 65536 * 2, dtype: 'uint8', shape: [0] }), /65536 bytes/);
    throws(() => dl.wasm.view(memory, { ptr: 0, dtype: 'float64', shape: [2 ** 20, 2 ** 20] }), /65536 bytes/);
  });

  row('W06', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.wasm.view(memory, { ptr: 0, dtype: 'f32', shape: [1] }), /`options.dtype`/);
  });

  row('W07', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.wasm.view(memory, { ptr: 0, dtype: 'int32', shape: 'x' }), /`options.shape`/);
    throws(() => dl.wasm.view(memory, { ptr: 0, dtype: 'int32' }), /`options.shape`/);
  });
});
