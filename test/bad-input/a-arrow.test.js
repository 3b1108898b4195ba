'use strict';
// docs/errors.md, the A rows: tensors as Apache Arrow (lib/arrow.js). One test per row;
// test/bad-input/rows.js ties them to the table.
const path = require('path');
const { spawnSync } = require('child_process');
const A = require('apache-arrow');
const dl = require('../../lib');
const { makeError } = require('../../lib/errors');
const { area, leakFree, cudaTensor, onlyCompiled } = require('./rows');
const { bigEndian, variableShape } = require('../fixtures/arrow-columns');

const { row } = area(__filename);

const batch = () => dl.arange(0, 24, { dtype: 'float32' }).reshape([2, 3, 4]);
const ipc = (t) => Buffer.concat(dl.toArrowIPCChunks(t));

describe('Arrow', () => {
  row('A01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const t = batch();
    const v = t.toArrow();
    for (const bad of [null, 'table', [1, 2], { data: [1] }, new Float32Array(4)]) {
      throws(() => dl.fromArrow(bad), /`source`/);
    }
    throws(() => dl.fromArrowIPC('bytes'), /`bytes`/);
    throws(() => dl.fromArrowIPC([1, 2]), /`bytes`/);
    throws(() => dl.fromArrow(v, 'copy'), /`options`/);
    throws(() => dl.fromArrow(v, { copy: 1 }), /`options.copy`/);
    throws(() => dl.fromArrow(dl.toArrowTable({ x: t }), { column: {} }), /`options.column`/);
    throws(() => dl.fromArrow(v, { shape: '3,4' }), /`options.shape`/);
    throws(() => t.toArrow({ name: 3 }), /`options.name`/);
    throws(() => t.toArrow({ extension: 'no' }), /`options.extension`/);
    throws(() => t.toArrow({ dimNames: ['H'] }), /`options.dimNames`/);
    throws(() => t.toArrow({ dimNames: ['H', 4] }), /`options.dimNames`/);
    throws(() => dl.toArrowTable(t), /`columns`/);
    throws(() => dl.toArrowTable({ x: [1, 2] }), /`columns.x`/);
    throws(() => dl.toArrowTable({ x: t }, { copy: 'yes' }), /`options.copy`/);
    throws(() => dl.toArrowIPCChunks({ rows: 2 }), /`source`/);
    throws(() => dl.Tensor.prototype.toArrow.call({}), /`this`/);
    t.dispose();
  });

  row('A02', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    const t = batch();
    const labels = dl.tensor([1, 2], { dtype: 'int64' });
    const table = dl.toArrowTable({ x: t, y: labels });
    throws(() => dl.fromArrow(table), /\(x, y\).*`options.column`/);
    throws(() => dl.fromArrow(table, { column: 'z' }), /`options.column`/);
    throws(() => dl.fromArrow(table, { column: 2 }), /`options.column`/);
    throws(() => dl.fromArrow(t.toArrow(), { column: 0 }), /`options.column`/);
    throws(() => dl.tensor(5).toArrow(), /`tensor`/);
    throws(() => dl.toArrowTable({ x: t, y: dl.tensor([1, 2, 3]) }), /2 rows.*`columns.y`/);
    throws(() => dl.toArrowTable({}), /`columns`/);
    const chunked = new A.Vector([...t.toArrow().data, ...t.toArrow().data]);
    throws(() => dl.toArrowTable({ x: chunked }), /one chunk.*`columns.x`/);
    throws(() => dl.fromArrow(t.toArrow({ extension: false }), { shape: [5, 5] }), /`options.shape`/);
    throws(() => dl.fromArrow(table, { column: 'x', shape: [4, 3] }), /\[3, 4\] for `options.shape`/);
    throws(() => dl.toArrowIPCChunks(t, { format: 'feather' }), /`options.format`/);
    throws(() => dl.fromArrowIPC(Buffer.from('ARROW1\0\0 and then no schema at all')), /`bytes`/);
    throws(() => dl.fromArrowIPC(new Uint8Array(64)), /a table with no columns/);
    // Extension metadata that does not describe the rows.
    const relabel = (text) => {
      const f = table.schema.fields[0];
      const field = f.clone({ metadata: new Map([['ARROW:extension:name', 'arrow.fixed_shape_tensor'],
        ['ARROW:extension:metadata', text]]) });
      const schema = new A.Schema([field]);
      return new A.Table(schema, [new A.RecordBatch(schema, A.makeData({
        type: new A.Struct(schema.fields), length: 2, nullCount: 0, children: [table.batches[0].data.children[0]],
      }))]);
    };
    throws(() => dl.fromArrow(relabel('{"shape": [5, 5]}')), /`source`/);
    throws(() => dl.fromArrow(relabel('[3, 4]')), /`source`/);
    throws(() => dl.fromArrow(relabel('not json')), /`source`/);
    throws(() => dl.fromArrow(relabel('{"shape": [3, 4], "permutation": [0, 0]}')), /`source`/);
    throws(() => dl.fromArrow(relabel('{"shape": [3, 4], "permutation": [0]}')), /`source`/);
    labels.dispose();
    t.dispose();
  });

  row('A03', dl.DLPackError, 'ERR_DLPACK_COPY_REQUIRED', (throws) => leakFree(() => {
    // Reading: nulls, bit-packed booleans, several record batches, big-endian or compressed bytes.
    throws(() => dl.fromArrow(A.vectorFromArray([1, null, 3], new A.Float32())), /null.*copy: true/);
    throws(() => dl.fromArrow(A.vectorFromArray([true, false], new A.Bool())), /bit-packed.*copy: true/);
    const t = batch();
    const twice = new A.Table([t.toArrow().data[0], t.toArrow().data[0]].map((d) => new A.RecordBatch({ x: d })));
    throws(() => dl.fromArrow(twice), /2 batches/);
    throws(() => dl.fromArrowIPC(bigEndian(t)), /big-endian/);
    t.dispose();
    // Writing: a dtype Arrow holds another way, or a layout no extension describes.
    const u = dl.zeros([2, 3, 4]);
    for (const dtype of ['bool', 'bfloat16', 'complex64', 'complex128']) {
      throws(() => dl.zeros([2, 3], { dtype }).toArrow(), new RegExp(`${dtype}.*copy: true`));
    }
    const views = [u.slice(2, 0, 4, 2), u.expand([2, 3, 4]), u.permute(0, 2, 1)];
    views.push(views[1].transpose(0, 1), views[2].slice(1, 0, 4, 2));
    throws(() => views[0].toArrow(), /strides \[12, 4, 2\]/);
    throws(() => views[3].toArrow(), /strides/);
    throws(() => views[2].toArrow({ extension: false }), /extension: false/);
    throws(() => dl.toArrowTable({ x: views[4] }), /strides/);
    for (const view of views) view.dispose();
    const flipped = dl.fromBuffer(new Float32Array(24), { dtype: 'float32', shape: [2, 3, 4], strides: [12, -4, 1],
      offset: 32 });
    throws(() => flipped.toArrow(), /strides \[12, -4, 1\]/);
    throws(() => dl.toArrowIPCChunks(dl.zeros([2, 2], { dtype: 'bool' })), /bool/);
    // Nothing holds u's memory: dispose() detaches it as ever.
    const buffer = u.buffer;
    u.dispose();
    expect(buffer.byteLength).toBe(0);
  }));

  row('A04', RangeError, 'ERR_DLPACK_MISALIGNED', (throws) => {
    const t = batch();
    const bytes = ipc(t);
    const shifted = new Uint8Array(bytes.length + 4);
    shifted.set(bytes, 4);
    throws(() => dl.fromArrowIPC(shifted.subarray(4)), /multiple of 8.*copy: true/);
    throws(() => dl.fromArrowIPC(Buffer.from(shifted.buffer, 4, bytes.length)), /byte offset 4/);
    t.dispose();
  });

  row('A05', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    throws(() => dl.fromArrow(A.vectorFromArray(['a', 'b'])), /Utf8/);
    throws(() => dl.fromArrow(A.vectorFromArray([new Date(0)])), /no dtype/);
    throws(() => dl.fromArrow(A.vectorFromArray([[1, 2], [3]], new A.List(new A.Field('item', new A.Int32())))),
      /no dtype/);
    throws(() => dl.fromArrow(variableShape([[2, 3], [3, 2]], [0, 6, 12])), /one shape/);
    throws(() => dl.fromArrow(variableShape([[2, 3], [2, 3]], [0, 6, 13])), /back to back/);
  });

  row('A06', dl.DLPackError, 'ERR_DLPACK_DISPOSED', (throws) => {
    const t = batch();
    t.dispose();
    throws(() => t.toArrow(), /disposed/);
    throws(() => dl.toArrowTable({ x: t }), /disposed/);
    throws(() => dl.toArrowIPCChunks(t), /disposed/);
  });

  row('A07', dl.DLPackError, 'ERR_DLPACK_WRONG_DEVICE', async (throws) => {
    await leakFree(() => {
      const { t } = cudaTensor();
      throws(() => t.toArrow(), /on cuda:0/);
      throws(() => dl.toArrowTable({ x: t }), /on cuda:0/);
      throws(() => dl.toArrowIPCChunks(t), /on cuda:0/);
      t.dispose();
    });
  }, onlyCompiled);

  row('A08', dl.DLPackError, 'ERR_DLPACK_MISSING_PEER', (throws) => {
    // A copy of lib/ where no apache-arrow can be found, in a real child: the addon
    // through DLPACK_ADDON_PATH, nothing else on its resolution path.
    // Each error is rebuilt here from the child's { name, code, message }.
    const errors = withoutArrow();
    expect(errors).toHaveLength(5);
    for (const { name, code, message } of errors) {
      expect(name).toBe('DLPackError');
      throws(() => { throw makeError(code, message); }, /npm install apache-arrow/);
    }
  });
});

// Runs every Arrow function in a copy of lib/ that cannot find apache-arrow;
// the child prints each error's { name, code, message }.
function withoutArrow() {
  const fs = require('fs');
  const os = require('os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dlpack-no-arrow-'));
  try {
    fs.cpSync(path.join(__dirname, '..', '..', 'lib'), path.join(dir, 'lib'), { recursive: true });
    const addon = process.env.DLPACK_ADDON_PATH ||
      path.join(__dirname, '..', '..', 'build', 'Release', 'dlpack.node');
    const script = `
      const dl = require(${JSON.stringify(path.join(dir, 'lib'))});
      const t = dl.zeros([2, 3]);
      const out = [];
      for (const f of [() => dl.fromArrow({}), () => dl.fromArrowIPC(new Uint8Array(8)), () => t.toArrow(),
        () => dl.toArrowTable({ t }), () => dl.toArrowIPCChunks(t)]) {
        try { f(); out.push(null); } catch (e) { out.push({ name: e.name, code: e.code, message: e.message }); }
      }
      process.stdout.write(JSON.stringify(out));`;
    const child = spawnSync(process.execPath, ['-e', script], {
      cwd: dir, env: { ...process.env, DLPACK_ADDON_PATH: path.resolve(addon), NODE_PATH: '' }, encoding: 'utf8',
      timeout: 60000,
    });
    if (child.status !== 0) throw new Error(`the child failed: ${child.stderr}`);
    return JSON.parse(child.stdout);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
