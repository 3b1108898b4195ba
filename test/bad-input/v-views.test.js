'use strict';
// docs/errors.md, the V rows: views. One test per row;
// test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { area } = require('./rows');

const { row } = area(__filename);

describe('views', () => {
  const grid = () => dl.tensor([[1, 2, 3], [4, 5, 6]]); // 2 x 3

  row('V01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = grid();
    throws(() => t.permute(1, '0'), /`permute\(\) argument 1`/);
    throws(() => t.permute('x'), /`dims`/);
    throws(() => t.transpose(0, null), /`dim1`/);
    throws(() => t.narrow('0', 0, 1), /`dim`/);
    throws(() => t.select(0, 1n), /`index`/);
    throws(() => t.slice(0, '1'), /`start`/);
    throws(() => t.unsqueeze(), /`dim`/);
    throws(() => t.squeeze('0'), /`dim`/);
    throws(() => t.flatten(0, '1'), /`endDim`/);
    throws(() => t.expand([2, '3']), /`sizes\[1\]`/);
    throws(() => t.asStrided([2], ['1']), /`strides\[0\]`/);
    throws(() => t.reshape('6'), /`shape`/);
    throws(() => t.view([2, '3']), /`shape\[1\]`/);
  });

  row('V02', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const t = grid();
    throws(() => t.transpose(0, 1.5), /`dim1`, received 1.5/);
    throws(() => t.transpose(0, 2), /a dimension from -2 to 1 for `dim1`, received 2/);
    throws(() => t.permute(0, -3), /`dims\[1\]`/);
    throws(() => t.select(0, 2), /an index from -2 to 1 for `index`, received 2/);
    throws(() => t.select(1, -4), /`index`/);
    throws(() => t.narrow(1, 2, 2), /`length`/);
    throws(() => t.narrow(1, 4, 0), /`start`/);
    throws(() => t.slice(1, 0, 3, 0), /non-zero integer for `step`/);
    throws(() => t.unsqueeze(3), /`dim`/);
    throws(() => t.squeeze(2), /`dim`/);
    throws(() => t.reshape(2, 3.5), /`shape\[1\]`/);
    expect(t.toArray()).toEqual([[1, 2, 3], [4, 5, 6]]);
  });

  row('V03', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = grid();
    throws(() => t.permute(0, 0), /dimension 0 repeats/);
    throws(() => t.permute(0), /a permutation of 2 dimensions/);
    throws(() => t.expand(2, 4), /`sizes\[1\]`/);
    throws(() => t.expand(3), /at least 2 sizes/);
    throws(() => t.flatten(1, 0), /`endDim`/);
    const scalar = dl.tensor(1);
    throws(() => scalar.select(0, 0), /at least one dimension for select\(\)/);
    throws(() => scalar.narrow(0, 0, 1), /narrow\(\)/);
    throws(() => scalar.slice(0), /slice\(\)/);
  });

  row('V04', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = grid();
    throws(() => t.transpose(0, 1, 2), /at most 2 arguments for transpose\(\) for `transpose\(\) argument 2`/);
    throws(() => t.select(0, 1, 2), /`select\(\) argument 2`/);
    throws(() => t.item(0), /`item\(\) argument 0`/);
    throws(() => t.clone({}, 1), /`clone\(\) argument 1`/);
    throws(() => t.to('int8', {}, 1), /`to\(\) argument 2`/);
    throws(() => t.copyFrom(t, {}, 1), /`copyFrom\(\) argument 2`/);
  });

  row('V05', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const t = dl.tensor([1, 2, 3, 4], { dtype: 'int32' });
    throws(() => t.asStrided([2, 2], [3, 1]), /inside the storage's 16 bytes .* spanning bytes 0 to 20/);
    throws(() => t.asStrided([2], [1], 12), /spanning bytes 12 to 20/);
    throws(() => t.asStrided([2], [-1], 0), /spanning bytes -4 to 4/);
    throws(() => t.asStrided([1], [1], -4), /`byteOffset`/);
    expect(t.asStrided([2, 2], [1, 1], 4).toArray()).toEqual([[2, 3], [3, 4]]);
  });

  row('V06', RangeError, 'ERR_DLPACK_MISALIGNED', (throws) => {
    const t = dl.tensor([1, 2, 3, 4], { dtype: 'int32' });
    throws(() => t.asStrided([1], [1], 2), /multiple of 4 .* `byteOffset`, received 2/);
    throws(() => t.narrow(0, 1, 2).view('int64'), /multiple of 8/);
  });

  row('V07', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'int16' });
    throws(() => t.view('int32'), /divides the last dimension/);
    throws(() => t.transpose(0, 1).view('int8'), /last dimension is strided/);
    throws(() => dl.tensor(1, { dtype: 'int32' }).view('int8'), /0-d/);
    throws(() => dl.tensor([[1, 2], [3, 4], [5, 6]], { dtype: 'int16' }).slice(0, 0, 3, 2).view('int64'),
      /divides the last dimension/);
  });

  row('V08', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const one = dl.ones([1, 1]);
    throws(() => one.expand([2 ** 32, 2 ** 32]), /numel: integer multiplication overflow.*`sizes`/);
    throws(() => one.expand(2 ** 27, 2 ** 26), /`sizes`/); // 2^53 elements
    throws(() => one.asStrided([2 ** 40, 2 ** 40], [0, 0], 0), /`shape`/);
    throws(() => dl.zeros([2], { dtype: 'float64' }).asStrided([2 ** 50, 2], [1, 0], 0), /`shape`/);
    throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'float64', shape: [2 ** 27, 2 ** 27], strides: [0, 0] }),
      /`options.shape`/);
    throws(() => dl.add(one.expand(2 ** 27, 1), one.expand(1, 2 ** 27)), /`shape`/); // the broadcast result
  });
});
