'use strict';
// docs/errors.md, the E rows: __dlpack__ / toDLPack. One test per row;
// test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { area, leakFree, readOnly, cudaTensor, onlyCompiledNoDevice, onlyCompiled, onlyNoDevice } = require('./rows');

const { row } = area(__filename);

describe('__dlpack__ / toDLPack', () => {
  // Export rows run under leakFree: a refused export must leave no struct or pin.
  const exportRow = (id, Class, code, body, skip = null) => row(id, Class, code,
    (throws) => leakFree(() => body(throws)), skip);

  exportRow('E01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const options of [5, null, 'copy']) {
      throws(() => t.__dlpack__(options), /for `options`/);
      throws(() => dl.toDLPack(t, options), /for `options`/);
      throws(() => dl.to_dlpack(t, options), /for `options`/);
    }
  });

  exportRow('E02', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const maxVersion of [1, [1], [1, 2, 3], [1.5, 0], [-1, 0], ['1', '0'], [1n, 0n], '1.3']) {
      throws(() => t.__dlpack__({ maxVersion }), /for `maxVersion`/);
    }
  });

  exportRow('E03', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    const t = readOnly();
    throws(() => t.__dlpack__({ maxVersion: [0, 8] }), /legacy.*readOnly/);
    throws(() => t.__dlpack__({ maxVersion: [0, 8] }), /read-only/);
    throws(() => dl.toDLPack(t, { maxVersion: [0, 0], copy: false }), /readOnly/);
    const c = t.__dlpack__({ maxVersion: [0, 8], copy: true }); // a copy is writable: fine
    expect(c.versioned).toBe(false);
    c.dispose();
  });

  exportRow('E04', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const dlDevice of ['cpu', [1], [1, 0, 0], [-1, 0], [1, -1], [1.5, 0], null, [1n, 0n]]) {
      throws(() => t.__dlpack__({ dlDevice }), /for `dlDevice`/);
    }
  });

  exportRow('E05', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    const t = dl.tensor([1]);
    for (const type of [0, 4, 7, 10, 14]) throws(() => t.__dlpack__({ dlDevice: [type, 0] }), /received \d+/);
  });

  exportRow('E06', dl.DLPackError, 'ERR_DLPACK_COPY_REQUIRED', (throws) => {
    const t = dl.tensor([1]);
    throws(() => t.__dlpack__({ dlDevice: [2, 0], copy: false }), /cpu -> cuda:0/);
    throws(() => t.__dlpack__({ dlDevice: [3, 0], copy: false }), /cpu -> cuda_host/);
  });

  exportRow('E07', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', (throws) => {
    const t = dl.tensor([1]);
    throws(() => t.__dlpack__({ dlDevice: [2, 0] }), /cpu to cuda:0/);
    throws(() => t.__dlpack__({ dlDevice: [13, 0], copy: true }));
  }, onlyNoDevice);

  exportRow('E08', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const copy of ['yes', 1, 0, null]) throws(() => t.__dlpack__({ copy }), /for `copy`/);
  });

  exportRow('E09', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([1]);
    for (const stream of [0, 1, 2, -1, 5n, null, 'x']) throws(() => t.__dlpack__({ stream }), /for `stream`/);
  });

  exportRow('E10', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const { t } = cudaTensor();
    throws(() => t.__dlpack__({ stream: 0 }), /ambiguous/);
    throws(() => t.__dlpack__({ stream: 0n }), /ambiguous/);
    t.dispose();
  }, onlyCompiled);

  exportRow('E11', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const { t } = cudaTensor();
    for (const stream of [-2, 1.5, 'x', null, 2n ** 64n, {}]) throws(() => t.__dlpack__({ stream }), /for `stream`/);
    t.dispose();
  }, onlyCompiled);

  exportRow('E12', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', (throws) => {
    const { t } = cudaTensor();
    throws(() => t.__dlpack__({ stream: 2 }), /stream 2/);
    throws(() => t.__dlpack__({ stream: 0x7f00n }));
    t.__dlpack__({ stream: -1 }).dispose(); // no ordering asked: fine without a device
    t.dispose();
  }, onlyCompiledNoDevice);

  exportRow('E13', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const capsule = dl.tensor([1]).__dlpack__();
    for (const x of [undefined, {}, capsule, { __dlpack__: () => null }]) {
      throws(() => dl.toDLPack(x), /a Tensor for `tensor`/);
      throws(() => dl.to_dlpack(x, {}), /a Tensor for `tensor`/);
    }
    capsule.dispose();
  });
});
