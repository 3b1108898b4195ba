'use strict';
// docs/errors.md, the B rows: cat and stack. One test per row;
// test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { area, readOnly } = require('./rows');

const { row } = area(__filename);

describe('cat and stack', () => {
  const pair = () => [dl.tensor([[1, 2]]), dl.tensor([[3, 4]])];

  row('B01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const op of ['cat', 'stack']) {
      throws(() => dl[op](dl.tensor([1])), /`tensors`/);
      throws(() => dl[op]([dl.tensor([1]), [2]]), /`tensors\[1\]`/);
      throws(() => dl[op](pair(), 0, { out: [0, 0] }), /`options.out`/);
      throws(() => dl[op](pair(), 0, 'out'), /`options`/);
    }
  });

  row('B02', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    for (const op of ['cat', 'stack']) {
      throws(() => dl[op]([]), /at least one tensor/);
      throws(() => dl[op]([dl.tensor([[1, 2]]), dl.tensor([[1, 2, 3]])], 0), /`tensors\[1\]`/);
      throws(() => dl[op]([dl.tensor([1]), dl.tensor([1], { dtype: 'int8' })]), /or pass `options.out`/);
      throws(() => dl[op](pair(), 0, { out: dl.zeros([5, 5]) }), /`options.out`/);
    }
    throws(() => dl.stack([dl.tensor([[1, 2]]), dl.tensor([[1], [2]])]), /`tensors\[1\]`/);
    throws(() => dl.cat([dl.tensor(1), dl.tensor(2)]), /at least one dimension/);
  });

  row('B03', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.cat(pair(), 2), /`dim`, received 2/);
    throws(() => dl.stack(pair(), 3), /`dim`, received 3/);
    throws(() => dl.stack(pair(), 0.5), /`dim`/);
    expect(dl.stack(pair(), 2).shape).toEqual([1, 2, 2]);
  });

  row('B04', dl.DLPackError, 'ERR_DLPACK_READ_ONLY', (throws) => {
    const out = readOnly([0, 0, 0, 0]).reshape(2, 2);
    throws(() => dl.cat(pair(), 0, { out }), /writable/);
    expect(out.toArray()).toEqual([[0, 0], [0, 0]]);
  });
});
