'use strict';
// docs/errors.md, the H rows: issue 40's pipeline ops (sorting and scans,
// indexing, random numbers, vision). One test per row; test/bad-input/rows.js
// ties them to the table.
const dl = require('../../lib');
const { area, leakFree, readOnly, cudaTensor, onlyCompiled } = require('./rows');
const { producer } = require('../helpers');

const { row } = area(__filename);
const grid = () => dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'float32' });
const int64 = (values) => dl.tensor(values, { dtype: 'int64' });
const img = () => dl.zeros([1, 1, 2, 2]);

row('H01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
  const t = grid();
  throws(() => dl.sort([1, 2]), /`input`/);
  throws(() => t.sort('0'), /`dim`/);
  throws(() => t.sort(0, { dim: 0 }), /`options.dim`/);
  throws(() => t.argsort({ descending: 'yes' }), /`options.descending`/);
  throws(() => t.sort({ stable: 1 }), /`options.stable`/);
  throws(() => t.sort({ out: dl.zeros([2, 3]) }), /array \[values, indices\] of two tensors for `options.out`/);
  throws(() => t.sort({ out: [dl.zeros([2, 3]), null] }), /`options.out\[1\]`/);
  throws(() => t.argsort({ out: [dl.zeros([2, 3], { dtype: 'int64' })] }), /`options.out`/);
  throws(() => t.cumsum(), /`dim`/);
  throws(() => t.gather(0, [[0]]), /`index`/);
  throws(() => dl.maskedFill(t, [true], 0), /`mask`/);
  throws(() => dl.maskedFill(t, dl.ones([3], { dtype: 'bool' }), '1'), /`value`/);
  throws(() => dl.manualSeed('1'), /`seed`/);
  throws(() => new dl.Generator().manualSeed(null), /`seed`/);
  throws(() => dl.rand([2], { generator: {} }), /`options.generator`/);
  throws(() => dl.multinomial(dl.tensor([1, 1]), 1, { replacement: 1 }), /`options.replacement`/);
  throws(() => dl.ops.nms(dl.zeros([1, 4]), dl.zeros([1]), '0.5'), /`iouThreshold`/);
  throws(() => dl.interpolate(img(), { scaleFactor: '2' }), /`options.scaleFactor`/);
});

row('H02', RangeError, 'ERR_OUT_OF_RANGE', async (throws) => {
  await leakFree(() => {
    const t = grid();
    throws(() => t.sort(2), /`dim`/);
    throws(() => t.cumsum(0.5), /`dim`/);
    const out = dl.full([2, 1], -1);
    throws(() => t.gather(1, int64([[0], [3]]), { out }), /3/);
    expect(out.toArray()).toEqual([[-1], [-1]]);
    throws(() => t.indexSelect(0, int64([2])), /2/);
    throws(() => t.take(int64([-7])), /-7/);
    throws(() => dl.manualSeed(-1), /`seed`/);
    throws(() => dl.manualSeed(2n ** 64n), /`seed`/);
    throws(() => dl.multinomial(dl.tensor([[1, 1], [1, NaN]]), 1), /nan at \[1, 1\]/);
    throws(() => dl.multinomial(dl.tensor([1, -1]), 1));
    throws(() => dl.multinomial(dl.tensor([1, 1]), 3), /`numSamples`/);
    throws(() => dl.randint(2, 2, [1]), /`high`/);
    throws(() => dl.randint(0, 256, [1], { dtype: 'int8' }), /`high`/);
    throws(() => dl.interpolate(img(), { size: 0 }), /`options.size`/);
    throws(() => dl.interpolate(img(), { scaleFactor: [2, Infinity] }), /`options.scaleFactor\[1\]`/);
    throws(() => dl.ops.nms(dl.zeros([1, 4]), dl.zeros([1]), NaN), /`iouThreshold`/);
    throws(() => t.cumsum(0, { dtype: 'complex64' }), /`options.dtype`/);
    for (const x of [t, out]) x.dispose();
  });
});

row('H03', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
  const t = grid();
  throws(() => dl.sort(dl.zeros([2], { dtype: 'complex64' })), /`input`/);
  throws(() => t.take(dl.tensor([0], { dtype: 'int16' })), /`index`/);
  throws(() => t.gather(0, int64([0])), /`index`/);
  throws(() => t.indexSelect(0, int64([[0]])), /`index`/);
  throws(() => dl.maskedFill(t, dl.ones([3]), 0), /`mask`/);
  throws(() => dl.maskedFill(t, dl.ones([2], { dtype: 'bool' }), 0), /`mask`/);
  throws(() => dl.multinomial(dl.tensor([1, 1], { dtype: 'int32' }), 1), /`probs`/);
  throws(() => dl.multinomial(dl.tensor([[1, 1], [0, 0]]), 1), /row 1/);
  throws(() => dl.multinomial(dl.tensor([1, 0, 0]), 2));
  throws(() => dl.ops.nms(dl.zeros([2, 5]), dl.zeros([2]), 0.5), /`boxes`/);
  throws(() => dl.ops.nms(dl.zeros([2, 4]), dl.zeros([3]), 0.5), /`scores`/);
  throws(() => dl.ops.batchedNms(dl.zeros([2, 4]), dl.zeros([2]), dl.zeros([2]), 0.5), /`idxs`/);
  throws(() => dl.interpolate(dl.zeros([1, 2, 2]), { size: 4 }), /`input`/);
  throws(() => dl.interpolate(img(), { size: 4, scaleFactor: 2 }), /`options`/);
  throws(() => dl.interpolate(img(), { size: 4, mode: 'bicubic' }), /`options.mode`/);
  throws(() => t.sort({ decending: true }), /`options`/);
  throws(() => t.cumsum(0, { out: dl.zeros([3]) }), /`options.out`/);
  const indices = dl.zeros([2, 3], { dtype: 'int64' });
  throws(() => t.sort({ out: [dl.zeros([2, 3])] }), /`options.out`, received an array of 1/);
  throws(() => t.sort({ out: [dl.zeros([3, 2]), indices] }), /shape \[2, 3\] for `options.out\[0\]`/);
  throws(() => t.sort({ out: [dl.zeros([2, 3]), dl.zeros([2, 3], { dtype: 'int32' })] }), /int64 for `options.out\[1\]`/);
  throws(() => t.sort({ out: [dl.zeros([2, 3], { dtype: 'float64' }), indices] }), /float32 for `options.out\[0\]`/);
  throws(() => t.argsort({ out: dl.zeros([2, 3], { dtype: 'int32' }) }), /int64 for `options.out`/);
  throws(() => t.argsort(0, { out: dl.zeros([2], { dtype: 'int64' }) }), /shape \[2, 3\] for `options.out`/);
});

row('H04', dl.DLPackError, 'ERR_DLPACK_WRONG_DEVICE', async (throws) => {
  await leakFree(() => {
    // Refused before anything reads the memory, with or without a GPU.
    const { ptr, t } = cudaTensor();
    throws(() => t.sort(), /`input` of sort\(\).*cuda:0.*\.to\('cpu'\) first/);
    throws(() => dl.cumsum(t, 0), /cumsum\(\)/);
    throws(() => dl.gather(grid(), 0, t), /`index` of gather\(\)/);
    throws(() => dl.nonzero(t), /nonzero\(\)/);
    throws(() => dl.ops.nms(t, dl.zeros([2]), 0.5), /ops.nms\(\)/);
    throws(() => dl.interpolate(t, { size: 2 }), /interpolate\(\)/);
    throws(() => dl.multinomial(t, 1), /multinomial\(\)/);
    t.dispose();
    expect(producer.calls(ptr)).toBe(1);
  });
}, onlyCompiled); // a build without CUDA refuses to import a CUDA tensor at all (I rows)

row('H05', dl.DLPackError, 'ERR_DLPACK_DISPOSED', (throws) => {
  const t = grid();
  const out = dl.zeros([2, 3]);
  out.dispose();
  throws(() => t.cumsum(0, { out }));
  throws(() => t.sort({ out: [out, dl.zeros([2, 3], { dtype: 'int64' })] }));
  throws(() => t.argsort({ out }));
  t.dispose();
  throws(() => t.sort());
  throws(() => dl.nonzero(t));
  throws(() => dl.ops.boxIou(t, t));
});

row('H06', dl.DLPackError, 'ERR_DLPACK_READ_ONLY', (throws) => {
  const t = grid();
  throws(() => t.cumsum(0, { out: readOnly([1, 2, 3, 4, 5, 6]).reshape([2, 3]) }), /`options.out`/);
  throws(() => t.take(int64([0]), { out: readOnly([0]) }), /`options.out`/);
  const values = readOnly([1, 2, 3, 4, 5, 6]).reshape([2, 3]);
  throws(() => t.sort({ out: [values, dl.zeros([2, 3], { dtype: 'int64' })] }), /`options.out\[0\]`/);
});

row('H07', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
  const t = grid();
  const indices = dl.full([2, 3], -1, { dtype: 'int64' });
  throws(() => t.cumsum(0, { out: dl.zeros([3]).expand([2, 3]) }), /`options.out` of cumsum\(\)/);
  throws(() => t.sort({ out: [dl.zeros([3]).expand([2, 3]), indices] }), /`options.out\[0\]` of sort\(\)/);
  throws(() => t.argsort({ out: dl.zeros([1], { dtype: 'int64' }).expand([2, 3]) }), /`options.out` of argsort/);
  const s = int64([[3, 1, 2], [0, 5, 4]]);
  throws(() => s.sort({ out: [indices, indices] }), /share memory/);
  expect(indices.toArray()).toEqual([[-1n, -1n, -1n], [-1n, -1n, -1n]]);
});
