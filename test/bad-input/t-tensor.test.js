'use strict';
// docs/errors.md, the T rows: Tensor methods. One test per row;
// test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { producer, expectError } = require('../helpers');
const { area, leakFree, foreign, adopt, strided, readOnly } = require('./rows');

const { row } = area(__filename);

describe('Tensor', () => {
  row('T01', TypeError, 'ERR_ILLEGAL_CONSTRUCTOR', (throws) => {
    throws(() => new dl.Tensor(), /not by `new Tensor\(\)`/);
    throws(() => Reflect.construct(dl.Tensor, [Symbol('dlpack.internal')]));
  });

  row('T02', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1, 2]);
    const inspect = t[Symbol.for('nodejs.util.inspect.custom')];
    for (const name of ['reshape', 'contiguous', 'clone', 'to', 'cpu', 'cuda', 'copyFrom', 'toArray', 'toString',
      'dispose', '__dlpack__', '__dlpack_device__', 'share']) {
      const method = t[name];
      throws(() => method(), /a Tensor for `this`/);
      throws(() => method.call({}), /a Tensor for `this`/);
    }
    throws(() => t[Symbol.dispose].call(undefined), /`this`/);
    throws(() => inspect.call(5), /`this`/);
    expect(t.toArray()).toEqual([1, 2]);
  });

  row('T03', dl.DLPackError, 'ERR_DLPACK_DISPOSED', async (throws) => {
    await leakFree(() => {
      const ptr = foreign();
      for (const t of [dl.tensor([1, 2]), dl.fromBuffer(new ArrayBuffer(8), { dtype: 'float32' }),
        dl.fromDLPack(adopt(ptr))]) {
        t.dispose();
        for (const use of [() => t.data, () => t.buffer, () => t.reshape([2]), () => t.contiguous(),
          () => t.clone(), () => t.to('cpu'), () => t.cpu(), () => t.copyFrom([1, 2]), () => t.toArray(),
          () => t.__dlpack__(), () => dl.toDLPack(t), () => t.__dlpack_device__(), () => t.share()]) {
          throws(use, /disposed/);
        }
        expect(t.disposed).toBe(true);
        expect(String(t)).toMatch(/<disposed>/);
        t.dispose(); // idempotent
      }
      expect(producer.calls(ptr)).toBe(1);
    });
  });

  row('T04', dl.DLPackError, 'ERR_DLPACK_NOT_CONTIGUOUS', (throws) => {
    const t = strided();
    throws(() => t.data, /contiguous\(\)/);
    expect(t.toArray()).toEqual([[1, 3], [2, 4]]);
    expect(Array.from(t.contiguous().data)).toEqual([1, 3, 2, 4]);
  });

  row('T05', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1, 2, 3, 4]);
    for (const shape of ['4', null, undefined, { 0: 4, length: 1 }]) throws(() => t.reshape(shape), /for `shape`/);
    throws(() => t.reshape([2, '2']), /`shape\[1\]`/);
  });

  row('T06', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const t = dl.tensor([1, 2, 3, 4, 5, 6]);
    throws(() => t.reshape([4, 2]), /product is 6.*\[4, 2\]/);
    throws(() => t.reshape([4, -1]), /product is 6/);
    throws(() => t.reshape([-2, -3]), /`shape\[0\]`/);
    throws(() => dl.zeros([0]).reshape([0, -1]), /product is 0/);
    expect(t.reshape([3, -1]).shape).toEqual([3, 2]);
  });

  row('T07', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.tensor([1, 2, 3, 4]).reshape([-1, -1]), /at most one -1/);
  });

  row('T08', dl.DLPackError, 'ERR_DLPACK_NOT_CONTIGUOUS', (throws) => {
    const t = strided();
    throws(() => t.view([4]), /use reshape\(\)/);
    throws(() => t.view(4), /use reshape\(\)/);
    expect(t.reshape([4]).toArray()).toEqual([1, 3, 2, 4]); // reshape copies (torch)
  });

  row('T09', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    throws(() => t.to('cpu', 5), /for `options`/);
    throws(() => t.to('cpu', null), /for `options`/);
    throws(() => t.clone('cuda'), /for `options`/);
    throws(() => t.copyFrom([2], 5), /for `options`/);
    throws(() => t.contiguous(5), /for `options`/);
    expect(t.toArray()).toEqual([1]); // checked before anything is copied
  });

  row('T10', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const stream of ['x', 1.5, {}, null, -2, 2n ** 64n]) {
      throws(() => t.to('cpu', { stream }), /for `stream`/);
      throws(() => t.to('cuda', { stream }), /for `stream`/); // checked before the device is
      throws(() => t.clone({ stream }), /for `stream`/);
      throws(() => t.contiguous({ stream }), /for `stream`/);
      throws(() => t.copyFrom([2], { stream }), /for `stream`/);
    }
    for (const async of ['yes', 1, null]) {
      throws(() => t.clone({ async }), /`options.async`/);
      throws(() => t.copyFrom([2], { async }), /`options.async`/);
      throws(() => t.contiguous({ async }), /`options.async`/);
    }
    expect(t.toArray()).toEqual([1]);
    expectError(() => t.clone({ stream: 0 }), TypeError, 'ERR_INVALID_ARG_VALUE', /ambiguous/);
    expect(t.clone({ stream: 7n }).toArray()).toEqual([1]); // host copies take any stream
    const columns = dl.tensor([[1, 2], [3, 4]]).transpose(0, 1);
    expect(columns.contiguous({ stream: 7n }).toArray()).toEqual([[1, 3], [2, 4]]);
    expectError(() => columns.contiguous({ async: true, stream: 7n }), Error, 'ERR_DLPACK_UNSUPPORTED',
      /a contiguous\(\) in host memory.*on a stream/);
    expectError(() => t.to('cpu', { stream: 0 }), TypeError, 'ERR_INVALID_ARG_VALUE', /ambiguous/);
    expect(t.to('cpu', { stream: -1 }).buffer).toBe(t.buffer);
    expect(t.to('cpu', { stream: 7n }).buffer).toBe(t.buffer);
  });

  row('T11', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = dl.tensor([1]);
    for (const index of ['0', null]) throws(() => t.cuda(index), /for `index`/);
  });

  row('T19', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const t = dl.tensor([1]);
    for (const index of [-1, 1.5]) throws(() => t.cuda(index), /for `index`/);
  });

  row('T20', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => JSON.stringify(dl.tensor([0, -Infinity], { dtype: 'float16' })), /-Infinity in a float16/);
    throws(() => JSON.stringify(dl.tensor([[1, NaN]], { dtype: 'complex128' })), /NaN in a complex128/);
    throws(() => JSON.stringify(dl.tensor([-(2n ** 60n)], { dtype: 'int64' })), /`toJSON\(\)`/);
    throws(() => JSON.stringify(dl.tensor([1, NaN])), /NaN in a float32/);
    throws(() => JSON.stringify(dl.tensor([Infinity], { dtype: 'float64' })), /Infinity in a float64/);
    throws(() => JSON.stringify(dl.tensor([2n ** 53n + 1n], { dtype: 'int64' })), /9007199254740993n in a int64/);
    throws(() => JSON.stringify(dl.tensor([1, -0])), /-0 in a float32/);
    throws(() => JSON.stringify(dl.tensor([[0, -0]], { dtype: 'complex64' })), /-0 in a complex64/);
  });

  row('T12', dl.DLPackError, 'ERR_DLPACK_READ_ONLY', (throws) => {
    const t = readOnly([1, 2, 3]);
    throws(() => t.copyFrom([4, 5, 6]), /readOnly/);
    throws(() => t.copyFrom(dl.tensor([4, 5, 6])), /readOnly/);
    throws(() => t.fill_(4), /writable tensor for fill_\(\)/);
    throws(() => t.zero_(), /writable tensor for fill_\(\)/);
    expect(t.toArray()).toEqual([1, 2, 3]);
  });

  row('T13', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([[1, 2, 3], [4, 5, 6]]);
    throws(() => t.copyFrom(dl.zeros([3, 2])), /shape \[2, 3\] for `src`, received one of shape \[3, 2\]$/);
    throws(() => t.copyFrom(dl.zeros([6])), /for `src`/);
    throws(() => t.copyFrom(dl.zeros([1, 3])), /for `src`/); // no broadcasting
    expect(t.toArray()).toEqual([[1, 2, 3], [4, 5, 6]]);
  });

  row('T22', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    const base = dl.tensor([1, 2, 3]);
    const wide = base.expand(2, 3); // both rows are base's memory
    throws(() => wide.copyFrom(dl.tensor([[4, 5, 6], [7, 8, 9]])), /share memory.*expand\(\)/);
    throws(() => wide.copyFrom([[4, 5, 6], [7, 8, 9]]), /stride-0/);
    throws(() => wide.fill_(4), /stride-0/);
    expect(base.toArray()).toEqual([1, 2, 3]);
    const column = dl.tensor([[1], [2]]).expand(2, 1); // a stride-0 dim of size 1 shares nothing
    expect(column.copyFrom(dl.tensor([[5], [6]])).toArray()).toEqual([[5], [6]]);
    // Rows that overlap: [2, 4] at strides [2, 1] over 6 elements.
    const rows = dl.zeros([6]).asStrided([2, 4], [2, 1]);
    throws(() => rows.copyFrom(dl.ones([2, 4])), /reach one element twice/);
    throws(() => rows.fill_(1), /fill_\(\)/);
    expect(rows.toArray()).toEqual([[0, 0, 0, 0], [0, 0, 0, 0]]);
  });

  row('T23', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    const t = dl.tensor([1, 2, 3]);
    throws(() => t.clone({ async: true, stream: 2 }), /`async: true` for a clone\(\) in host memory.*on a stream/);
    throws(() => t.copyFrom([4, 5, 6], { async: true, stream: 2 }), /copyFrom\(\) in host memory/);
    expect(t.toArray()).toEqual([1, 2, 3]); // nothing copied
  });

  row('T14', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([1, 2]);
    throws(() => t.copyFrom('ab'), /for `src`/);
    throws(() => t.copyFrom(null), /for `src`/);
    throws(() => t.copyFrom([1, 'x']), /`src\[1\]`/);
    throws(() => t.copyFrom(1), /2 values .* for `src`, received 1 value$/);
    expect(t.toArray()).toEqual([1, 2]);
  });

  row('T15', dl.DLPackError, 'ERR_DLPACK_DISPOSED', (throws) => {
    const t = dl.tensor([1, 2]);
    const src = dl.tensor([3, 4]);
    src.dispose();
    throws(() => t.copyFrom(src), /disposed/);
    expect(t.toArray()).toEqual([1, 2]);
  });

  row('T16', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    throws(() => dl.tensor([1]).share(),
      /over a SharedArrayBuffer.*plain ArrayBuffer.*t\.shareMemory\(\).*t\.toShared\(\)/);
    throws(() => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8' }).share(), /plain ArrayBuffer/);
    throws(() => dl.fromBuffer(new ArrayBuffer(8, { maxByteLength: 16 }), { dtype: 'uint8' }).share());
    // The advice works: shareMemory() is named only where it would not refuse (T21).
    const memory = new WebAssembly.Memory({ initial: 1 });
    const cases = [
      dl.tensor([1]),
      dl.fromBuffer(new ArrayBuffer(8), { dtype: 'uint8' }),
      dl.wasm.view(memory, { ptr: 0, dtype: 'uint8', shape: [4] }),
      dl.fromBuffer(memory.buffer, { dtype: 'uint8', count: 4 }),
    ];
    for (const t of cases) {
      const { message } = throws(() => t.share(), /t\.toShared\(\) for a shared copy/);
      if (/t\.shareMemory\(\) to move it/.test(message)) t.shareMemory();
      else expect(() => t.shareMemory()).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_COPY_REQUIRED' }));
      expect(t.toShared().share().kind).toBe('shm');
    }
    throws(() => cases[2].share(), /non-shared WebAssembly memory.*shared WebAssembly\.Memory/);
  });

  row('T21', dl.DLPackError, 'ERR_DLPACK_COPY_REQUIRED', (throws) => {
    const mine = new Float32Array([1, 2]);
    const caller = dl.fromBuffer(mine, { dtype: 'float32' });
    throws(() => caller.shareMemory(), /buffer passed to fromBuffer\(\).*toShared\(\)/);
    expect(mine.length).toBe(2); // the caller's buffer is neither moved nor detached
    throws(() => dl.fromBuffer(new SharedArrayBuffer(4), { dtype: 'float32' }).shareMemory(), /SharedArrayBuffer/);
    throws(() => dl.wasm.view(new WebAssembly.Memory({ initial: 1 }), { ptr: 0, dtype: 'uint8', shape: [1] })
      .shareMemory(), /WebAssembly/);
    const imported = dl.fromDLPack(adopt(foreign()));
    throws(() => imported.shareMemory(), /DLPack import/);
    imported.dispose();
    const t = dl.tensor([1, 2]);
    const data = t.data;
    const ptr = t.__dlpack__().toPointer();
    throws(() => t.shareMemory(), /toPointer\(\)/);
    expect(data.length).toBe(2); // the memory the struct points at stays the tensor's, attached
    producer.releaseOnThread(ptr, true);
  });

  row('T17', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.tensor([1, 2]).item(), /one element for item\(\), received a tensor of shape \[2\]/);
    throws(() => dl.zeros([0]).item(), /shape \[0\]/);
    expect(dl.tensor([[7]], { dtype: 'int64' }).item()).toBe(7n);
    expect(dl.tensor(2.5).item()).toBe(2.5);
  });

  row('T18', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([1]);
    throws(() => t.to({ dtype: 'float8' }), /`dtype`/);
    throws(() => t.to({ dtype: 'float32', device: 'gpu' }), /`device`/);
  });
});
