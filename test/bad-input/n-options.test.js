'use strict';
// docs/errors.md, the N rows: named options (options objects), one rule for every function that
// takes one (lib/options.js). One test per row; test/bad-input/rows.js ties them
// to the table.
const fs = require('fs');
const dl = require('../../lib');
const { area } = require('./rows');

const { row } = area(__filename);

// This process's children, read from /proc (as in p-python-spawn.test.js).
const spawned = () => fs.readdirSync(`/proc/${process.pid}/task`)
  .map((tid) => fs.readFileSync(`/proc/${process.pid}/task/${tid}/children`, 'utf8').trim())
  .filter(Boolean).join(' ');

const hint = (key, near) => new RegExp(
  `for \`options\`, received the unknown key \`${key}\`${near === null ? '$' : ` \\(did you mean \`${near}\`\\?\\)$`}`);

describe('options objects', () => {
  row('N01', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = dl.tensor([1, 2], { dtype: 'float32' });
    const memory = new WebAssembly.Memory({ initial: 1 });
    const arrow = { vector: t.toArrow(), bytes: Buffer.concat(dl.toArrowIPCChunks(t)) };
    const before = spawned();
    // [function, call with one unknown key, the key, the key suggested (null: none is near)].
    const cases = [
      ['fromBuffer', () => dl.fromBuffer(new ArrayBuffer(8), { dtype: 'float32', shpae: [2] }), 'shpae', 'shape'],
      ['frombuffer', () => dl.frombuffer(new ArrayBuffer(8), { dtype: 'float32', cuont: 2 }), 'cuont', 'count'],
      ['fromBuffer (before dtype)', () => dl.fromBuffer(new ArrayBuffer(8), { dtyp: 'int8' }), 'dtyp', 'dtype'],
      ['empty', () => dl.empty([2, 3], { dytpe: 'int8' }), 'dytpe', 'dtype'],
      ['zeros', () => dl.zeros([2], { Shared: true }), 'Shared', 'shared'],
      ['tensor', () => dl.tensor([1], { dtyp: 'int8' }), 'dtyp', 'dtype'],
      ['tensor (far)', () => dl.tensor([1], { layout: 'strided' }), 'layout', null],
      ['cat', () => dl.cat([t, t], 0, { outt: dl.zeros([4]) }), 'outt', 'out'],
      ['stack', () => dl.stack([t, t], 0, { output: dl.zeros([2, 2]) }), 'output', null],
      ['toDLPack', () => dl.toDLPack(t, { max_version: [1, 0] }), 'max_version', 'maxVersion'],
      ['to_dlpack', () => dl.to_dlpack(t, { dl_device: [1, 0] }), 'dl_device', 'dlDevice'],
      ['__dlpack__', () => t.__dlpack__({ max_version: [1, 0] }), 'max_version', 'maxVersion'],
      ['fromDLPack', () => dl.fromDLPack(t, { devcie: 'cpu' }), 'devcie', 'device'],
      ['from_dlpack', () => dl.from_dlpack(t, { cpoy: false }), 'cpoy', 'copy'],
      ['DLPackCapsule.fromPointer', () => dl.DLPackCapsule.fromPointer(8n, { versoined: true }), 'versoined',
        'versioned'],
      ['wasm.view', () => dl.wasm.view(memory, { ptr: 0, dtype: 'uint8', shape: [4], shap: [4] }), 'shap', 'shape'],
      ['clone', () => t.clone({ strem: 1 }), 'strem', 'stream'],
      ['copyFrom', () => t.copyFrom(t, { Stream: 1 }), 'Stream', 'stream'],
      ['to(device, options)', () => t.to('cpu', { streams: 1 }), 'streams', 'stream'],
      ['to(options)', () => t.to({ dtpye: 'int8' }), 'dtpye', 'dtype'],
      ['python.spawn', () => dl.python.spawn('model.py', { std_err: 'pipe' }), 'std_err', 'stderr'],
      ['python.spawn (far)', () => dl.python.spawn('model.py', { interpreter: 'python3' }), 'interpreter', null],
      ['fromArrow', () => dl.fromArrow(arrow.vector, { colum: 'x' }), 'colum', 'column'],
      ['fromArrowIPC', () => dl.fromArrowIPC(arrow.bytes, { zero_copy: false }), 'zero_copy', null],
      ['t.toArrow', () => t.toArrow({ dim_names: ['x'] }), 'dim_names', 'dimNames'],
      ['toArrowTable', () => dl.toArrowTable({ t }, { extension: false }), 'extension', null],
      ['toArrowIPCChunks', () => dl.toArrowIPCChunks(t, { fromat: 'file' }), 'fromat', 'format'],
      ['add', () => dl.add(t, 1, { otu: t }), 'otu', 'out'],
      ['t.exp', () => dl.exp(t, { asycn: true }), 'asycn', 'async'],
      ['normalize', () => dl.normalize(dl.zeros([3, 1, 1]), [0], [1], { sacle: 2 }), 'sacle', 'scale'],
      ['sum', () => t.sum(0, { keep_dim: true }), 'keep_dim', 'keepdim'],
      ['softmax', () => dl.softmax(t, 0, { dtpye: 'float64' }), 'dtpye', 'dtype'],
      ['topk', () => t.topk(1, 0, { sortd: true }), 'sortd', 'sorted'],
    ];
    for (const [name, call, key, near] of cases) {
      const error = throws(call, hint(key, near));
      expect({ name, message: error.message }).toEqual({ name, message: expect.stringContaining(key) });
    }
    // Nothing was made, moved or started: the tensor, a capsule and the process are as before.
    expect(t.toArray()).toEqual([1, 2]);
    const c = t.__dlpack__();
    throws(() => dl.fromDLPack(c, { copy: true, dvice: 'cpu' }), hint('dvice', 'device'));
    const u = dl.fromDLPack(c); // not consumed by the refusal
    expect(u.toArray()).toEqual([1, 2]);
    expect(spawned()).toBe(before);
  });
});
