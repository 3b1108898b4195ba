'use strict';
// docs/errors.md, the O rows: elementwise ops, normalize and the thread count.
// One test per row; test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { area, readOnly, cudaTensor, onlyCompiled, onlyCompiledNoDevice } = require('./rows');

const { row } = area(__filename);

describe('ops', () => {
  const m = () => dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'float32' });

  row('O01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.add(m(), '1'), /`other`/);
    throws(() => dl.add(m(), 1n), /`other`/);
    throws(() => m().mul([1]), /`other`/);
    throws(() => dl.add(1, 2), /`input`/);
    throws(() => dl.add(m(), 1, 'out'), /`options`/);
    throws(() => dl.add(m(), 1, { out: [0] }), /`options.out`/);
    throws(() => dl.exp(m(), { async: 1 }), /`options.async`/);
    throws(() => dl.exp(m(), { stream: 'x' }), /`stream`/);
    throws(() => dl.normalize(dl.zeros([3, 2, 2]), 0, 1, { stream: 1.5 }), /`stream`/);
    throws(() => dl.where(m().gt(1), m(), 'x'), /`other`/);
    throws(() => dl.normalize(m().reshape(1, 2, 3), 'a', [1]), /`mean`/);
    throws(() => dl.normalize(m().reshape(2, 1, 3), [0, 0], [1, 1], { scale: '1' }), /`options.scale`/);
    throws(() => dl.normalize(m().reshape(2, 1, 3), [0, 0], [1, 1], { async: 'yes' }), /`options.async`/);
  });

  row('O02', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.add(m(), dl.zeros([3, 2])), /broadcast/);
    const row1 = dl.tensor([1, 2, 3], { dtype: 'float32' });
    throws(() => row1.add_(m()), /cannot grow/);
    expect(row1.toArray()).toEqual([1, 2, 3]);
    throws(() => dl.add(m(), 1, { out: dl.zeros([3]) }), /`options.out`/);
    const ints = dl.tensor([1, 2, 3], { dtype: 'int32' });
    throws(() => ints.add_(0.5), /can be cast/);
    throws(() => ints.div_(2), /can be cast/);
    expect(ints.toArray()).toEqual([1, 2, 3]);
    throws(() => dl.add(m(), 1, { outt: m() }), /unknown key `outt` \(did you mean `out`\?\)/); // N01's rule
    throws(() => dl.add(m(), 1, { stream: 0 }), /`stream`/);
    throws(() => dl.where(m(), m(), m()), /`condition`/);
    throws(() => m().clamp(), /`min`/);
    throws(() => dl.normalize(m(), [0], [1]), /`input`/);
    throws(() => dl.normalize(m().reshape(2, 1, 3), [0, 0, 0], [1]), /`mean`/);
    throws(() => dl.normalize(m().reshape(2, 1, 3), [0], [1], { out: dl.zeros([2, 1, 3], { dtype: 'int32' }) }),
      /`options.out`/);
  });

  row('O03', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    const b = dl.tensor([true, false], { dtype: 'bool' });
    throws(() => b.sub(b), /bool/);
    throws(() => b.neg(), /bool/);
    throws(() => dl.add(dl.zeros([2], { dtype: 'complex64' }), 1), /complex64/);
  });

  row('O04', dl.DLPackError, 'ERR_DLPACK_READ_ONLY', (throws) => {
    const out = readOnly([0, 0, 0]);
    throws(() => dl.add(dl.tensor([1, 2, 3], { dtype: 'float32' }), 1, { out }), /writable/);
    throws(() => out.add_(1), /writable/);
    throws(() => out.exp_(), /writable/);
    expect(out.toArray()).toEqual([0, 0, 0]);
  });

  row('O05', dl.DLPackError, 'ERR_DLPACK_DISPOSED', (throws) => {
    const gone = m();
    gone.dispose();
    throws(() => dl.add(m(), gone));
    throws(() => gone.add(1));
    throws(() => dl.exp(gone));
    throws(() => dl.normalize(gone, [0], [1]));
  });

  // Mixed devices are refused before any CUDA call, so this runs with a GPU too
  // (the tensor's memory is host memory no kernel may touch).
  row('O06', dl.DLPackError, 'ERR_DLPACK_WRONG_DEVICE', (throws) => {
    const { t } = cudaTensor();
    throws(() => dl.add(m(), t), /cuda:0 and cpu/);
    throws(() => dl.add(t, m()), /cuda:0 and cpu/);
    throws(() => dl.exp(t, { out: dl.zeros([2, 3]) }), /cuda:0 and cpu/);
    throws(() => dl.where(dl.tensor([true, false, true]), t, 0), /cuda:0 and cpu/);
    t.dispose();
  }, onlyCompiled);

  row('O09', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', (throws) => {
    const { t } = cudaTensor();
    throws(() => dl.add(t, 1), /cuda:0/);
    throws(() => t.exp_(), /cuda:0/);
    throws(() => dl.normalize(t.reshape([1, 2, 3]), 0, 1), /cuda:0/);
    t.dispose();
  }, onlyCompiledNoDevice);

  row('O10', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    const base = dl.zeros([1, 3]);
    const wide = base.expand(2, 3);
    throws(() => wide.add_(1), /destination for add_\(\) whose elements do not share memory/);
    throws(() => wide.sigmoid_(), /sigmoid_\(\)/);
    throws(() => wide.clamp_(0, 1), /clamp_\(\)/);
    throws(() => dl.mul(m(), 2, { out: wide }), /`options.out` of mul\(\)/);
    throws(() => dl.gt(m(), 2, { out: dl.zeros([1, 3], { dtype: 'bool' }).expand(2, 3) }), /gt\(\)/);
    throws(() => dl.normalize(m().reshape(2, 1, 3), 0, 1, { out: dl.zeros([1, 1, 3]).expand(2, 1, 3) }),
      /normalize\(\)/);
    // Overlapping strides (rows one element apart), and on a CUDA tensor before any CUDA call.
    throws(() => dl.add(m(), 1, { out: dl.zeros([4]).asStrided([2, 3], [1, 1]) }), /reach one element twice/);
    expect(base.toArray()).toEqual([[0, 0, 0]]);
  });

  row('O11', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const u8 = dl.tensor([1, 2, 250], { dtype: 'uint8' });
    throws(() => u8.clamp(0, 300), /value cannot be converted to type uint8 without overflow.*`max`/);
    throws(() => dl.clamp(u8, -256), /`min`/);
    throws(() => dl.where(dl.tensor([true, false, true]), u8, 300), /`other`/);
    throws(() => dl.where(dl.tensor([true, false, true]), 1e39, dl.zeros([3])), /float32 without overflow.*`input`/);
    throws(() => dl.clamp(dl.zeros([2], { dtype: 'float16' }), null, 1e5), /float16/);
    throws(() => u8.add(2 ** 70), /-2\^63 to 2\^64 - 1.*`other`/);
    throws(() => dl.sub(2 ** 64, dl.tensor([1], { dtype: 'int64' })), /`input`/);
    throws(() => u8.clamp_(0, 300), /`max`/);
    expect(u8.toArray()).toEqual([1, 2, 250]);
  });

  row('O12', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.pow(dl.tensor([2, 3, 1], { dtype: 'uint8' }), -1),
      /Integers to negative integer powers are not allowed.*`other`/);
    throws(() => dl.tensor([2], { dtype: 'int64' }).pow(-3), /`other`/);
    throws(() => dl.pow(dl.tensor([true, false]), -1), /`other`/);
  });

  row('O13', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    throws(() => dl.normalize(dl.ones([2, 2, 2]), 0, 0), /std evaluated to zero after conversion to float32.*`std`/);
    throws(() => dl.normalize(dl.ones([2, 2, 2]), 0, [1, 1e-50]), /`std\[1\]`/);
    throws(() => dl.normalize(dl.ones([2, 2, 2]), 0, -0, { out: dl.zeros([2, 2, 2], { dtype: 'float64' }) }),
      /conversion to float64/);
  });

  // One rule for every async form (lib/storage.js Storage#jobStages; each
  // form in test/async-memory.test.js).
  row('O14', dl.DLPackError, 'ERR_DLPACK_DETACHABLE', (throws) => {
    const caller = (options) => {
      const ab = new ArrayBuffer(24, options);
      new Float32Array(ab).fill(2);
      return dl.fromBuffer(ab, { dtype: 'float32', shape: [2, 3] });
    };
    const t = caller();
    const grows = caller({ maxByteLength: 48 });
    const mine = m();
    throws(() => dl.add(t, 1, { async: true }), /fromBuffer\(\).*SharedArrayBuffer/);
    throws(() => dl.add(mine, 1, { out: t, async: true }));
    throws(() => dl.exp(grows, { async: true }));
    throws(() => dl.normalize(t.reshape([1, 2, 3]), 0, 1, { async: true }));
    throws(() => t.sum(undefined, { async: true }));
    throws(() => t.topk(1, 1, { async: true }));
    throws(() => t.to({ dtype: 'float64', async: true }));
    throws(() => t.clone({ async: true }));
    throws(() => mine.copyFrom(t, { async: true }));
    throws(() => t.fill_(0, { async: true }));
    expect(t.toArray()).toEqual([[2, 2, 2], [2, 2, 2]]);
    expect(mine.toArray()).toEqual([[1, 2, 3], [4, 5, 6]]);
  });

  row('O07', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const before = dl.getNumThreads();
    throws(() => dl.setNumThreads('2'), /`n`/);
    throws(() => dl.setNumThreads(null), /`n`/);
    expect(dl.getNumThreads()).toBe(before);
  });

  row('O08', RangeError, 'ERR_OUT_OF_RANGE', (throws) => {
    const before = dl.getNumThreads();
    throws(() => dl.setNumThreads(0), /`n`/);
    throws(() => dl.setNumThreads(1.5), /`n`/);
    throws(() => dl.setNumThreads(257), /`n`/);
    expect(dl.getNumThreads()).toBe(before);
  });
});
