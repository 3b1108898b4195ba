'use strict';
// Behaviours a hand mutation audit of main found no test for (issue 25, item 8):
// each test names the one-line bug it catches. The C++ one (the adoption record's
// backward-shift delete) is ManagedTensorAdopt.RandomAdoptionsAndHandBacksMatchASetModel
// in test/cpp/managed_test.cc.
const { spawnSync } = require('child_process');
const path = require('path');
const dl = require('../lib');
const half = require('../lib/half');
const { producer, PYTHON } = require('./helpers');

describe('float16 rounding at the edges (native conversion and lib/half.js)', () => {
  // 2^-25 is half the smallest subnormal (2^-24): ties go to the even neighbour,
  // so 2^-25 -> 0, 3*2^-25 -> 2*2^-24 (bits 2), 5*2^-25 -> 2*2^-24 (bits 2, even).
  // Mutant caught: ties rounded up (or away from even) in the subnormal branch.
  const ties = [2 ** -25, 3 * 2 ** -25, 5 * 2 ** -25];

  test('subnormal ties go to even on the native path', () => {
    for (const dtype of ['float32', 'float64']) {
      expect(dl.tensor(ties, { dtype }).to('float16').view('uint16').toArray()).toEqual([0, 2, 2]);
      expect(dl.tensor(ties.map((v) => -v), { dtype }).to('float16').view('uint16').toArray())
        .toEqual([0x8000, 0x8002, 0x8002]);
    }
  });

  test('subnormal ties go to even in lib/half.js', () => {
    expect(ties.map(half.float16Bits)).toEqual([0, 2, 2]);
    expect(ties.map((v) => half.float16Bits(-v))).toEqual([0x8000, 0x8002, 0x8002]);
  });

  // Mutant caught: an overflow test on the exponent that lets 2^16 <= |v| < 2^17
  // wrap into a finite (or NaN) pattern. 65520 is the first value that rounds to
  // Infinity; the band above it is where a wrong exponent bound shows.
  test('the native conversion overflows to ±Infinity for 65536 <= |v| < 131072', () => {
    const big = [65536, 70000, 100000, 131071, 131072];
    for (const dtype of ['float32', 'float64']) {
      expect(dl.tensor(big, { dtype }).to('float16').toArray()).toEqual(big.map(() => Infinity));
      expect(dl.tensor(big.map((v) => -v), { dtype }).to('float16').toArray())
        .toEqual(big.map(() => -Infinity));
    }
    expect(big.map(half.float16Bits)).toEqual(big.map(() => 0x7c00));
  });
});

describe('slice() with a negative step from the end', () => {
  // NumPy's a[n::-1] is the oracle (torch has no negative steps): a start at or past
  // the size clamps to the last element. Mutant caught: the clamp to size - 1
  // dropped, so slice(0, size, null, -1) read one element past the end or lost one.
  const numpy = spawnSync(PYTHON, ['-c', `
import json, numpy as np
a = np.arange(6)
print(json.dumps({str(n): a[n::-1].tolist() for n in range(0, 9)}))`], { encoding: 'utf8', timeout: 30000 });
  const oracle = numpy.status === 0 ? JSON.parse(numpy.stdout) : null;
  if (!oracle) console.log(`audit.test.js: NumPy oracle unavailable (${PYTHON} cannot import numpy): a[n::-1] computed by its rule`);
  const expected = (n) => oracle ? oracle[String(n)]
    : Array.from({ length: Math.min(n, 5) + 1 }, (_, i) => Math.min(n, 5) - i);

  test('slice(dim, n, null, -1) for every start up to past the end', () => {
    const a = dl.tensor([0, 1, 2, 3, 4, 5], { dtype: 'int32' });
    for (let n = 0; n <= 8; n++) {
      expect([n, a.slice(0, n, null, -1).toArray()]).toEqual([n, expected(n)]);
    }
    expect(a.slice(0, 6, null, -1).shape).toEqual([6]);
  });
});

describe('read-only survives our own round trip', () => {
  // Mutant caught: the in-process fast path of fromDLPack(t.__dlpack__()) dropping
  // the READ_ONLY flag, so a read-only import became writable after one re-export.
  test('fromDLPack(ro.__dlpack__()) stays read-only and copyFrom is refused', () => {
    const ptr = producer.make({ shape: [3], strides: [1], code: 2, bits: 32, flags: 1 /* READ_ONLY */ });
    const ro = dl.fromDLPack(dl.DLPackCapsule.fromPointer(ptr, { versioned: true }));
    expect(ro.readOnly).toBe(true);
    const again = dl.fromDLPack(ro.__dlpack__());
    expect(again.readOnly).toBe(true);
    expect(() => again.copyFrom(dl.zeros([3]))).toThrow(expect.objectContaining({ code: 'ERR_DLPACK_READ_ONLY' }));
    const twice = dl.fromDLPack(again.__dlpack__({ maxVersion: [1, 3] }));
    expect(twice.readOnly).toBe(true);
    twice.dispose();
    again.dispose();
    ro.dispose();
  });
});

describe('fromPointer(0n) is refused, not crashed on', () => {
  // Mutant caught: the NULL check removed. In the Jest process that showed only as a
  // segfault of the whole run; in a child, the assertion is the refusal itself.
  test.each([[{ versioned: true }], [{ versioned: false }]])('options %j', (options) => {
    const script = `
const dl = require(${JSON.stringify(path.join(__dirname, '..', 'lib'))});
try { dl.DLPackCapsule.fromPointer(0n, ${JSON.stringify(options)}); console.log('accepted'); }
catch (e) { console.log(e.code); }`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30000 });
    expect({ signal: r.signal, status: r.status, out: r.stdout.trim() })
      .toEqual({ signal: null, status: 0, out: 'ERR_OUT_OF_RANGE' });
  });
});
