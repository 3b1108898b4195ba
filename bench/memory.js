'use strict';
// Host memory and what an { async: true } job does with it (bench/README.md
// "Host memory: ArrayBuffer or native block"; lib/memory.js, issue 37):
//  - the per-allocation cost of a native block (allocate, wrap, release)
//    against the ArrayBuffer the library made before, at sizes around
//    NATIVE_MIN, zeroed and not, beside the cost of writing those bytes once;
//  - an async op over the library's small ArrayBuffers (its operands staged:
//    copied in at the call, the result copied back when it settles) against
//    the same op over SharedArrayBuffers (used in place), and the job's own
//    cost (an async op of 4 elements);
//  - a tiny synchronous op's per-call cost, against a JS loop over the same
//    four elements.
// Run by `npm run bench` after the views and conversion rows, or alone:
// node --expose-gc bench/memory.js
const dl = require('../lib');
const { native } = require('../lib/binding');
const { Storage } = require('../lib/storage');
const { NATIVE_MIN, releaseRecycled } = require('../lib/memory');

async function memoryCases(record, { compare, median }) {
  const KiB = 1024;
  // A turn of the event loop first: the rows before these (npm run bench) may
  // have piled native memory up in this turn, and then hostAlloc hands back
  // null (lib/memory.js block) for the library to make an ArrayBuffer instead.
  await new Promise((resolve) => { setImmediate(resolve); });
  const row = (id, name, r, baselineName, extra = {}) => {
    const value = median(r.candidate);
    const base = median(r.baseline);
    record({ id, name, unit: 'ns', value, baseline: base, baselineName, ratio: value / base, batches: r.candidate,
      ...extra });
  };

  // --- allocation: a native block against an ArrayBuffer, each wrapped as the
  // library wraps its memory and released as dispose() releases it.
  for (const bytes of [16 * KiB, NATIVE_MIN, 256 * KiB]) {
    for (const zeroed of [true, false]) {
      const block = (ops) => {
        let s = 0;
        for (let i = 0; i < ops; i++) {
          const st = Storage.owned(native.hostAlloc(bytes, zeroed));
          s += st.byteLength();
          st.discard();
        }
        releaseRecycled();
        return s;
      };
      const make = zeroed ? (n) => new ArrayBuffer(n) : (n) => Buffer.allocUnsafeSlow(n).buffer;
      const arrayBuffer = (ops) => {
        let s = 0;
        for (let i = 0; i < ops; i++) {
          const st = Storage.owned(make(bytes));
          s += st.byteLength();
          st.discard();
        }
        return s;
      };
      const kind = zeroed ? 'zeroed' : 'unzeroed';
      row(`alloc:${kind}:${bytes / KiB}K`, `a ${bytes / KiB} KiB native block, ${kind}: allocate + release`,
        compare(block, arrayBuffer, { ops: 2000, batches: 15, collect: true }),
        `${zeroed ? 'new ArrayBuffer' : 'Buffer.allocUnsafeSlow'} + detach`);
    }
    // What writing the bytes once costs, for scale.
    const u8 = new Uint8Array(bytes);
    const fill = (ops) => {
      for (let i = 0; i < ops; i++) u8.fill(i & 255);
      return u8[bytes - 1];
    };
    const nothing = (ops) => ops;
    const r = compare(fill, nothing, { ops: 2000, batches: 15 });
    record({ id: `fill:${bytes / KiB}K`, name: `writing ${bytes / KiB} KiB once (Uint8Array.fill)`, unit: 'ns',
      value: median(r.candidate), baseline: median(r.baseline), baselineName: 'an empty loop',
      ratio: median(r.candidate) / Math.max(median(r.baseline), 1), batches: r.candidate });
  }

  // --- a whole tensor either side of NATIVE_MIN: the last ArrayBuffer size
  // against the first block size, made and disposed; with its `data` read
  // (an external ArrayBuffer made over a block, detached at dispose); cloned.
  const below = NATIVE_MIN / 4 - 1;
  const at = NATIVE_MIN / 4;
  const tensorLoop = (make) => (ops) => {
    let s = 0;
    for (let i = 0; i < ops; i++) s += make();
    return s;
  };
  const plain = (n) => () => {
    const t = dl.empty([n]);
    t.dispose();
    return 1;
  };
  const withData = (n) => () => {
    const t = dl.empty([n]);
    const k = t.data.length;
    t.dispose();
    return k;
  };
  const source = (n) => dl.full([n], 1);
  const [srcBelow, srcAt] = [source(below), source(at)];
  const cloned = (x) => () => {
    const c = x.clone();
    c.dispose();
    return 1;
  };
  for (const [id, name, candidate, baseline] of [
    ['tensor:empty', 'dl.empty + dispose', plain(at), plain(below)],
    ['tensor:data', 'dl.empty + data + dispose', withData(at), withData(below)],
    ['tensor:clone', 'clone() + dispose', cloned(srcAt), cloned(srcBelow)],
  ]) {
    row(id, `${name}, ${NATIVE_MIN / KiB} KiB (a block)`,
      compare(tensorLoop(candidate), tensorLoop(baseline), { ops: 2000, batches: 15 }),
      `the same, ${NATIVE_MIN / KiB} KiB - 4 B (an ArrayBuffer)`);
  }
  srcBelow.dispose();
  srcAt.dispose();

  // --- an async op: staged (the library's ArrayBuffers) against in place
  // (SharedArrayBuffers); the job's own cost from an op of 4 elements.
  const sharedTensor = (n) => dl.fromBuffer(new SharedArrayBuffer(n * 4), { dtype: 'float32' });
  const asyncLoop = (x, y) => async (ops) => {
    for (let i = 0; i < ops; i++) await dl.add(x, 1, { out: y, async: true });
    return y.size;
  };
  const asyncCompare = async (candidate, baseline, { ops, batches }) => {
    const a = [];
    const b = [];
    for (let i = 0; i < batches + 2; i++) {
      for (const [fn, out] of i % 2 === 0 ? [[candidate, a], [baseline, b]] : [[baseline, b], [candidate, a]]) {
        const start = process.hrtime.bigint();
        await fn(ops);
        if (i >= 2) out.push(Number(process.hrtime.bigint() - start) / ops);
      }
    }
    return { candidate: a, baseline: b };
  };
  for (const n of [4, 4 * KiB, NATIVE_MIN / 4 - 1024]) {
    const staged = asyncLoop(dl.zeros([n]), dl.zeros([n]));
    const inPlace = asyncLoop(sharedTensor(n), sharedTensor(n));
    row(`async:staged:${n * 4}B`, `await dl.add(x, 1, { out, async: true }), ${n * 4} B library ArrayBuffers ` +
      '(staged)', await asyncCompare(staged, inPlace, { ops: 200, batches: 11 }),
    'the same over SharedArrayBuffers (in place)');
  }

  // --- a tiny synchronous op's per-call cost.
  const a = dl.tensor([1, 2, 3, 4]);
  const b = dl.tensor([5, 6, 7, 8]);
  const out = dl.zeros([4]);
  const [ja, jb, jc] = [a.data, b.data, out.data];
  const tiny = (ops) => {
    for (let i = 0; i < ops; i++) dl.add(a, b, { out });
    return jc[3];
  };
  const jsLoop = (ops) => {
    for (let i = 0; i < ops; i++) for (let k = 0; k < 4; k++) jc[k] = ja[k] + jb[k];
    return jc[3];
  };
  row('sync:tiny', 'dl.add(a, b, { out }) of 4 float32 (library ArrayBuffers)',
    compare(tiny, jsLoop, { ops: 20000, batches: 15 }), 'a JS loop over the 4 elements');
  const fresh = (ops) => {
    let s = 0;
    for (let i = 0; i < ops; i++) {
      const c = dl.add(a, b);
      s += c.size;
      c.dispose();
    }
    return s;
  };
  row('sync:tiny:fresh', 'dl.add(a, b) of 4 float32, a new result disposed',
    compare(fresh, jsLoop, { ops: 20000, batches: 15 }), 'a JS loop over the 4 elements');
}

module.exports = { memoryCases };

if (require.main === module) {
  const now = process.hrtime.bigint;
  const median = (xs) => {
    const s = [...xs].sort((x, y) => x - y);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  const compare = (candidate, baseline, { ops, batches, warmup = 3, collect = false }) => {
    const timeBatch = (fn) => {
      const start = now();
      fn(ops);
      return Number(now() - start) / ops;
    };
    for (let i = 0; i < warmup; i++) {
      timeBatch(candidate);
      timeBatch(baseline);
    }
    const c = [];
    const b = [];
    for (let i = 0; i < batches; i++) {
      for (const [fn, out] of i % 2 === 0 ? [[candidate, c], [baseline, b]] : [[baseline, b], [candidate, c]]) {
        if (collect && global.gc) global.gc();
        out.push(timeBatch(fn));
      }
    }
    return { candidate: c, baseline: b };
  };
  const rows = [];
  memoryCases((r) => rows.push(r), { compare, median }).then(() => {
    for (const r of rows) {
      const us = (ns) => (ns / 1000).toFixed(ns < 10000 ? 2 : 1);
      console.log(`${r.name.padEnd(78)} ${us(r.value).padStart(8)} us  ${r.baselineName}: ${us(r.baseline)} us  ` +
        `ratio ${r.ratio.toFixed(2)}`);
    }
  });
}
