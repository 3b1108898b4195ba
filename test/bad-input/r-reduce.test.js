'use strict';
// docs/errors.md, the R rows: reductions, softmax and topk. One test per row;
// test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { area, leakFree, readOnly, cudaTensor, onlyCompiled, onlyCompiledNoDevice } = require('./rows');
const { producer } = require('../helpers');

const { row } = area(__filename);

describe('reductions', () => {
  const grid = () => dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'float32' }); // 2 x 3

  row('R01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = grid();
    throws(() => t.sum('1'), /`dim`/);
    throws(() => t.mean([0, '1']), /`dim\[1\]`/);
    throws(() => t.amax(1n), /`dim`/);
    throws(() => t.max(null), /`dim`/);
    throws(() => t.argmax('0'), /`dim`/);
    throws(() => t.softmax(), /`dim`/);
    throws(() => t.logSoftmax([1]), /`dim`/);
    throws(() => t.topk('3'), /`k`/);
    throws(() => t.topk(3n), /`k`/);
    throws(() => t.topk(1, '0'), /`dim`/);
    throws(() => t.sum(0, { keepdim: 1 }), /`options.keepdim`/);
    throws(() => t.topk(1, 0, { largest: 'yes' }), /`options.largest`/);
    throws(() => t.topk(1, 0, { sorted: null }), /`options.sorted`/);
    throws(() => t.sum(0, { async: 'yes' }), /`options.async`/);
    throws(() => t.topk(1, { async: 1 }), /`options.async`/);
    throws(() => dl.argmax(t, 0, { async: null }), /`options.async`/);
    throws(() => t.sum(0, 'keepdim'), /`options`/);
    throws(() => dl.sum([1, 2]), /`input`/);
    throws(() => dl.softmax(null, 0), /`input`/);
    throws(() => dl.sum(t, 0, { out: [0, 0] }), /`options.out`/);
  });

  row('R02', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const t = grid();
    throws(() => t.sum(2), /a dimension from -2 to 1 for `dim`, received 2/);
    throws(() => t.mean([0, -3]), /`dim\[1\]`/);
    throws(() => t.amin(0.5), /`dim`/);
    throws(() => t.max(-3), /`dim`/);
    throws(() => t.argmin(5), /`dim`/);
    throws(() => t.softmax(2), /`dim`/);
    throws(() => t.topk(4), /from 0 to 3 .* `k`, received 4/);
    throws(() => t.topk(-1, 0), /`k`, received -1/);
    throws(() => t.topk(1.5), /`k`/);
    throws(() => t.topk(1, 2), /`dim`/);
    throws(() => dl.tensor(1).sum(1), /`dim`/);
    expect(t.toArray()).toEqual([[1, 2, 3], [4, 5, 6]]);
  });

  row('R03', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = grid();
    throws(() => t.sum([0, -2]), /distinct dimensions \(dimension 0 repeats\)/);
    throws(() => t.amax([1, 1]), /`dim`/);
    throws(() => t.sum(0, { keepDim: true }), /unknown key `keepDim` \(did you mean `keepdim`\?\)/); // N01's rule
    throws(() => t.max(0, { out: t }), /unknown key `out`/); // max(dim) takes no out: N01's rule
    throws(() => t.topk(1, 0, { keepdim: true }), /unknown key `keepdim`/); // N01's rule
    throws(() => dl.sum(t, 0, { out: dl.zeros([2]) }), /a tensor of shape \[3\] for `options.out`/);
    throws(() => dl.softmax(t, 0, { out: dl.zeros([3, 2]) }), /`options.out`/);
  });

  row('R04', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.tensor([1, 2], { dtype: 'int32' }).mean(), /floating-point or complex tensor .* `input`, received dtype int32/);
    throws(() => dl.tensor([true], { dtype: 'bool' }).mean(), /`input`, received dtype bool/);
    throws(() => dl.tensor([1, 2], { dtype: 'int64' }).softmax(0), /floating-point tensor .* `input`/);
    throws(() => dl.tensor([1, 2], { dtype: 'uint8' }).logSoftmax(0), /`input`/);
    const c = dl.tensor([[1, 2], [3, 4]], { dtype: 'complex64' }); // 1+2i, 3+4i
    throws(() => c.amax(), /a real \(not complex\) tensor/);
    throws(() => c.max(0), /`input`/);
    throws(() => c.argmin(), /`input`/);
    throws(() => c.topk(1), /`input`/);
    throws(() => c.softmax(0), /`input`/);
    expect(c.sum().toArray()).toEqual([4, 6]);
  });

  row('R05', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const empty = dl.zeros([2, 0]);
    throws(() => empty.amax(1), /size 0 in dim 1/);
    throws(() => empty.amin(), /size 0 in dim 1/);
    throws(() => empty.max(1), /`input`/);
    throws(() => empty.min(-1), /`input`/);
    throws(() => empty.argmax(1), /`input`/);
    throws(() => empty.argmin(), /a non-empty tensor .* without a dim/);
    expect(empty.amax(0).shape).toEqual([0]);
    expect(empty.sum(1).toArray()).toEqual([0, 0]);
  });

  row('R06', dl.DLPackError, 'ERR_DLPACK_DISPOSED', (throws) => {
    const t = grid();
    const out = dl.zeros([3]);
    out.dispose();
    throws(() => dl.sum(t, 0, { out }), /disposed/);
    t.dispose();
    for (const op of ['sum', 'mean', 'amax', 'amin', 'argmax', 'argmin']) throws(() => t[op](), /disposed/);
    throws(() => t.max(0), /disposed/);
    throws(() => t.softmax(0), /disposed/);
    throws(() => t.logSoftmax(0), /disposed/);
    throws(() => t.topk(1), /disposed/);
    throws(() => dl.topk(t, 1), /disposed/);
  });

  row('R07', dl.DLPackError, 'ERR_DLPACK_WRONG_DEVICE', async (throws) => {
    await leakFree(() => {
      // Refused before any CUDA call, so this runs with a GPU too (the
      // tensor's memory is host memory no kernel may touch).
      const { ptr, t } = cudaTensor();
      const complex = cudaTensor({ code: 5, bits: 64 }); // complex64
      throws(() => dl.topk(complex.t, 1), /`topk\(\)` on cuda:0.*call \.cpu\(\) first/);
      throws(() => complex.t.sum(), /`sum\(\)`/);
      throws(() => complex.t.argmax(), /`argmax\(\)`/);
      complex.t.dispose();
      expect(producer.calls(complex.ptr)).toBe(1);
      throws(() => t.sum(0, { out: dl.zeros([3]) }), /`options.out` of sum\(\) on cuda:0/);
      const first = t.select(0, 0);
      throws(() => dl.amax(dl.zeros([2, 3]), 0, { out: first }), /`amax\(\) options.out`/);
      first.dispose();
      t.dispose();
      expect(producer.calls(ptr)).toBe(1);
    });
  }, onlyCompiled);

  row('R09', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', (throws) => {
    const { t } = cudaTensor();
    throws(() => t.sum(), /sum\(\) on cuda:0/);
    throws(() => dl.amax(t, 1), /amax\(\) on cuda:0/);
    throws(() => t.max(), /amax\(\) on cuda:0/);
    throws(() => t.softmax(0), /softmax\(\) on cuda:0/);
    throws(() => dl.logSoftmax(t, 1), /logSoftmax\(\) on cuda:0/);
    throws(() => t.max(1), /max\(\) on cuda:0/);
    throws(() => dl.argmin(t), /argmin\(\) on cuda:0/);
    throws(() => t.topk(2, 1, { largest: false }), /topk\(\) on cuda:0/);
    throws(() => t.mean(0, { dtype: 'float64' }), /cuda:0/);
    t.dispose();
  }, onlyCompiledNoDevice);

  row('R08', dl.DLPackError, 'ERR_DLPACK_READ_ONLY', (throws) => {
    const out = readOnly([0, 0, 0]);
    const t = grid();
    throws(() => dl.sum(t, 0, { out }), /writable tensor for `options.out`/);
    throws(() => dl.argmax(t, 0, { out }), /`options.out`/);
    expect(out.toArray()).toEqual([0, 0, 0]);
  });

  row('R10', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    const base = dl.zeros([1]);
    const t = grid(); // 2 x 3
    throws(() => dl.sum(t, 0, { out: base.expand(3) }), /`options.out` of sum\(\).*single memory location/);
    throws(() => t.amax(0, { out: base.expand(3), async: true }), /`options.out` of amax\(\)/); // at the call
    throws(() => dl.softmax(t, 1, { out: dl.zeros([1, 3]).expand(2, 3) }), /softmax\(\)/);
    throws(() => dl.argmax(t, 1, { out: dl.zeros([1], { dtype: 'int64' }).expand(2) }), /argmax\(\)/);
    expect(base.toArray()).toEqual([0]);
  });
});
