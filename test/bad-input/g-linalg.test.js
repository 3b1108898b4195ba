'use strict';
// docs/errors.md, the G rows: matmul, mm, bmm, linear, and the statistics and
// norms. One test per row; test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { area, leakFree, cudaTensor, onlyCompiled, onlyCompiledNoDevice } = require('./rows');
const { producer } = require('../helpers');

const { row } = area(__filename);

describe('linear algebra', () => {
  const m = (shape, dtype = 'float32') => dl.ones(shape, { dtype });

  row('G01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.matmul([1, 2], m([2])), /`input`/);
    throws(() => dl.mm(m([2, 2]), null), /`other`/);
    throws(() => dl.linear(m([2, 3]), 'w'), /`weight`/);
    throws(() => dl.linear(m([2, 3]), m([4, 3]), [1, 2, 3, 4]), /`bias`/);
    throws(() => dl.matmul(m([2, 2]), m([2, 2]), 'out'), /`options`/);
    throws(() => dl.matmul(m([2, 2]), m([2, 2]), { async: 1 }), /`options.async`/);
    throws(() => m([2, 2]).matmul(m([2, 2]), { out: [0] }), /`options.out`/);
  });

  row('G02', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const out = dl.zeros([2, 4]);
    throws(() => dl.matmul(m([2, 3]), m([4, 5])), /\[2, 3\] and \[4, 5\]/);
    throws(() => dl.matmul(m([2, 2, 3]), m([3, 3, 2])), /\[2, 2, 3\] and \[3, 3, 2\]/);
    throws(() => dl.matmul(m([]), m([2])), /`input`/);
    throws(() => dl.mm(m([2, 3]), m([3])), /\[2, 3\] and \[3\]/);
    throws(() => dl.bmm(m([2, 2, 3]), m([1, 3, 2])), /\[2, 2, 3\] and \[1, 3, 2\]/);
    throws(() => dl.linear(m([2, 3]), m([4, 2])), /\[2, 3\] and \[4, 2\]/);
    throws(() => dl.linear(m([2, 3]), m([4, 3]), m([3])), /`bias`/);
    throws(() => dl.matmul(m([2, 3]), m([3, 4], 'float64')), /`other`/);
    throws(() => dl.matmul(m([2, 3]), m([3, 4]), { out: dl.zeros([4, 2]) }), /`options.out`/);
    throws(() => dl.matmul(m([2, 3]), m([3, 4]), { out: dl.zeros([2, 4], { dtype: 'float64' }) }), /`options.out`/);
    expect(out.toArray()).toEqual([[0, 0, 0, 0], [0, 0, 0, 0]]);
  });

  row('G03', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    throws(() => dl.matmul(m([2, 2], 'int32'), m([2, 2], 'int32')), /int32/);
    throws(() => dl.mm(m([2, 2], 'complex64'), m([2, 2], 'complex64')), /complex64/);
    throws(() => dl.linear(m([2, 2], 'uint8'), m([2, 2], 'uint8')), /uint8/);
  });

  row('G04', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', (throws) => {
    const a = cudaTensor();
    const b = cudaTensor({ shape: [3, 2] });
    throws(() => dl.matmul(a.t, b.t), /cuda:0/);
    throws(() => a.t.mm(b.t), /cuda:0/);
    a.t.dispose();
    b.t.dispose();
  }, onlyCompiledNoDevice);

  row('G09', dl.DLPackError, 'ERR_DLPACK_WRONG_DEVICE', (throws) => leakFree(() => {
    // Refused before any CUDA call, so this runs with a GPU too.
    const { ptr, t } = cudaTensor();
    throws(() => dl.matmul(t, m([3, 2])), /two devices/);
    const row0 = t.select(0, 0);
    const bias = row0.narrow(0, 0, 2);
    throws(() => dl.linear(m([4, 3]), m([2, 3]), bias), /two devices/);
    for (const x of [bias, row0, t]) x.dispose();
    expect(producer.calls(ptr)).toBe(1);
  }), onlyCompiled);

  row('G11', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    const out = dl.zeros([1, 2]);
    throws(() => dl.matmul(m([2, 3]), m([3, 2]), { out: out.expand([2, 2]) }), /`options.out`/);
    throws(() => dl.linear(m([2, 3]), m([2, 3]), null, { out: out.expand([2, 2]), async: true }), /`options.out`/);
    expect(out.toArray()).toEqual([[0, 0]]);
  });
});

describe('statistics and norms', () => {
  const grid = () => dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'float32' });

  row('G05', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = grid();
    throws(() => dl.var(t, '1'), /`dim`/);
    throws(() => t.std([0, '1']), /`dim\[1\]`/);
    throws(() => dl.var(t, 0, { correction: '1' }), /`options.correction`/);
    throws(() => dl.stdMean(t, 0, { keepdim: 1 }), /`options.keepdim`/);
    throws(() => dl.vectorNorm(t, 'fro'), /`ord`/);
    throws(() => dl.layerNorm(t, '3'), /`normalizedShape`/);
    throws(() => dl.layerNorm(t, [3], [1, 1, 1]), /`weight`/);
    throws(() => dl.layerNorm(t, [3], null, null, '1e-5'), /`eps`/);
    throws(() => dl.cosineSimilarity(t, t, '1'), /`dim`/);
    throws(() => dl.lpNormalize(t, '2'), /`p`/);
    throws(() => dl.varMean([1, 2]), /`input`/);
    throws(() => dl.var(t, 0, { async: 'yes' }), /`options.async`/);
  });

  row('G06', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const t = grid();
    throws(() => dl.var(t, 2), /`dim`/);
    throws(() => t.std(0.5), /`dim`/);
    throws(() => dl.vectorNorm(t, NaN), /`ord`/);
    throws(() => dl.lpNormalize(t, NaN), /`p`/);
    throws(() => dl.lpNormalize(t, 2, 1, Infinity), /`eps`/);
    throws(() => dl.var(t, 0, { correction: Infinity }), /`options.correction`/);
    throws(() => dl.cosineSimilarity(t, t, -3), /`dim`/);
  });

  row('G07', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = grid();
    throws(() => dl.var(dl.ones([3], { dtype: 'int64' })), /floating-point/);
    throws(() => dl.vectorNorm(dl.ones([3], { dtype: 'bool' })), /floating-point/);
    throws(() => dl.var(t, [0, -2]), /distinct dimensions/);
    throws(() => dl.var(t, 0, { unbiased: true }), /unknown key `unbiased`/);
    throws(() => dl.varMean(t, 0, { out: t }), /unknown key `out`/);
    throws(() => dl.layerNorm(t, [2]), /`normalizedShape`/);
    throws(() => dl.layerNorm(t, [3], dl.ones([2])), /`weight`/);
    throws(() => dl.layerNorm(t, [3], null, dl.ones([3], { dtype: 'float64' })), /`bias`/);
    throws(() => dl.cosineSimilarity(t, dl.ones([3, 3])), /`x2`/);
    throws(() => dl.lpNormalize(dl.tensor(1), 2, 0), /`input`/);
    throws(() => dl.vectorNorm(dl.ones([0, 2]), Infinity, 0), /size 0/);
  });

  row('G08', dl.DLPackError, 'ERR_DLPACK_WRONG_DEVICE', (throws) => leakFree(() => {
    const { ptr, t } = cudaTensor();
    throws(() => dl.var(t), /`var\(\)`/);
    throws(() => t.std(0), /`std\(\)`/);
    throws(() => dl.layerNorm(t, [3]), /`layerNorm\(\)`/);
    throws(() => dl.cosineSimilarity(grid(), t), /`cosineSimilarity\(\)`/);
    t.dispose();
    expect(producer.calls(ptr)).toBe(1);
  }), onlyCompiled);

  row('G10', dl.DLPackError, 'ERR_DLPACK_DISPOSED', (throws) => {
    const gone = grid();
    gone.dispose();
    throws(() => dl.var(gone), /disposed/);
    throws(() => dl.matmul(gone, grid().transpose(0, 1)), /disposed/);
    throws(() => dl.layerNorm(grid(), [3], gone.select(0, 0)), /disposed/);
    throws(() => dl.matmul(grid(), grid().transpose(0, 1), { out: gone }), /disposed/);
  });
});
