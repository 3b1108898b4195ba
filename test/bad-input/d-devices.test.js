'use strict';
// docs/errors.md, the D rows: device arguments, and CUDA tensors without a device. One test per row;
// test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { producer } = require('../helpers');
const { area, leakFree, cudaTensor, caps, onlyCompiledNoDevice, onlyCompiled, onlyNoDevice } = require('./rows');

const { row, lieRow } = area(__filename);

describe('devices', () => {
  row('D01', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([1]);
    for (const device of ['tpu', 'gpu', 'cpu:1', 'cuda:-1', 'CUDA', 'cuda_host:0', '']) {
      throws(() => dl.empty([1], { device }), /`options.device`/);
      throws(() => dl.tensor([1], { device }), /`options.device`/);
      throws(() => t.to(device), /a dtype \(bool.*float32.*\) or a device \('cpu'.*for `target`/);
      throws(() => dl.fromDLPack(t, { device }), /for `device`/);
    }
    throws(() => dl.zeros([1], { device: { type: 'tpu', index: 0 } }), /`options.device`/);
    // to() takes a dtype too: the dtype meant, by torch's name or a typo.
    for (const [name, meant] of [['float', 'float32'], ['double', 'float64'], ['long', 'int64'], ['flaot16', 'float16']]) {
      throws(() => t.to(name), new RegExp(`for \`target\`, received type string \\("${name}"\\); did you mean '${meant}'\\?$`));
    }
    expect(throws(() => t.to('tpu')).message).not.toMatch(/did you mean/);
  });

  row('D02', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const device of [0, null, true, ['cpu']]) {
      throws(() => dl.empty([1], { device }), /`options.device`/);
      throws(() => t.to(device), /for `device`/);
    }
  });

  row('D03', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([1, 2]);
    for (const device of [new dl.Device('tpu', 0), new dl.Device('cuda', -1), new dl.Device('cuda', 1.5)]) {
      throws(() => dl.empty([1], { device }), /`options.device`/);
      throws(() => t.to(device), /for `device`/);
    }
    expect(t.to(new dl.Device('cpu', 0)).buffer).toBe(t.buffer); // the same device as 'cpu': no copy
    expect(dl.zeros([1], { device: new dl.Device('cpu', 0) }).device).toBe(t.device);
  });

  row('D04', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', (throws) => {
    for (const device of ['cuda', 'cuda:1', 'cuda_host', 'cuda_managed']) {
      const e = throws(() => dl.empty([2], { device }), /Expected a usable CUDA device/);
      expect(typeof e.cudaError).toBe('string');
      throws(() => dl.zeros([2], { device }));
      throws(() => dl.tensor([1, 2], { device }));
    }
  }, onlyNoDevice);

  row('D05', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', (throws) => {
    const t = dl.tensor([1, 2]);
    throws(() => t.cuda());
    throws(() => t.cuda(1));
    for (const device of ['cuda', 'cuda:0', 'cuda_host', 'cuda_managed']) throws(() => t.to(device));
    expect(t.toArray()).toEqual([1, 2]);
  }, onlyNoDevice);

  row('D06', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', (throws) => {
    throws(() => dl.cuda.synchronize());
    throws(() => dl.cuda.memoryStats(0));
    throws(() => dl.cuda.emptyCache(0));
    throws(() => new dl.cuda.Stream());
  }, onlyNoDevice);

  row('D07', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const index of [-1, 1.5, '0', null, 0n]) {
      throws(() => dl.cuda.synchronize(index), /for `index`/);
      throws(() => dl.cuda.memoryStats(index), /for `index`/);
      throws(() => dl.cuda.emptyCache(index), /for `index`/);
      throws(() => new dl.cuda.Stream(index), /for `index`/);
    }
  });

  row('D08', dl.DLPackError, 'ERR_DLPACK_WRONG_DEVICE', async (throws) => {
    await leakFree(() => {
      const { ptr, t } = cudaTensor();
      throws(() => t.data, /`data`.*on cuda:0/);
      throws(() => t.buffer, /`buffer`/);
      throws(() => t.toArray(), /`toArray\(\)`/);
      expect(String(t)).toBe('tensor(<2x3 on cuda:0>, dtype=float32)');
      t.dispose();
      expect(producer.calls(ptr)).toBe(1);
    });
  }, onlyCompiled);

  row('D09', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', async (throws) => {
    await leakFree(() => {
      const { ptr, t } = cudaTensor();
      throws(() => t.clone(), /cuda:0 to cuda:0/);
      throws(() => t.cpu(), /cuda:0 to cpu/);
      throws(() => t.to('cuda_host'));
      throws(() => t.copyFrom(dl.zeros([2, 3])));
      throws(() => dl.zeros([2, 3]).copyFrom(t));
      throws(() => t.__dlpack__({ dlDevice: [1, 0] }), /cuda:0 to cpu/);
      expect(t.shape).toEqual([2, 3]);
      t.dispose();
      expect(producer.calls(ptr)).toBe(1);
    });
  }, onlyCompiledNoDevice);

  lieRow('D10', [[{ deviceType: 2, deviceId: 0 }, /device type 2.*no CUDA support/]],
    { Class: dl.CudaError, code: 'ERR_DLPACK_CUDA_UNAVAILABLE', skip: caps.compiled ? 'built with CUDA' : null });
});
