'use strict';
// Arrow peers no one here wrote (docs/arrow.md "Peers"): pyarrow reads what we write (IPC
// stream and file) and we read what it writes, DuckDB (Python and @duckdb/duckdb-wasm) sums a
// batch we wrote and hands back a result we read with { shape }, nodejs-polars reads
// extension: false output. The Python peers come from the peers venv
// (${DLPACK_PEERS_VENV:-~/.cache/dlpack-ci/peers-venv}); each group skips with the reason
// printed where its peer is missing.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const dl = require('../lib');

const VENV = process.env.DLPACK_PEERS_VENV || path.join(os.homedir(), '.cache', 'dlpack-ci', 'peers-venv');
const PYTHON = path.join(VENV, 'bin', 'python');
const SCRIPT = path.join(__dirname, 'fixtures', 'python', 'arrow_peers.py');

// Which Python modules import, in one child: { module: version | null }.
function probe(modules) {
  if (!fs.existsSync(PYTHON)) return null;
  const code = `import importlib, json\nout = {}\nfor m in ${JSON.stringify(modules)}:\n  try:\n` +
    '    out[m] = importlib.import_module(m).__version__\n  except Exception:\n    out[m] = None\nprint(json.dumps(out))';
  const run = spawnSync(PYTHON, ['-c', code], { encoding: 'utf8', timeout: 60000 });
  return run.status === 0 ? JSON.parse(run.stdout) : null;
}
const versions = probe(['pyarrow', 'duckdb', 'numpy']) || {};
const skipWhy = (module) => (!fs.existsSync(PYTHON) ? `no peers venv at ${VENV} (DLPACK_PEERS_VENV)`
  : versions[module] ? null : `${PYTHON} cannot import ${module}`);
const pyarrowSkip = skipWhy('pyarrow');
const duckdbSkip = pyarrowSkip || skipWhy('duckdb');

function requireOrWhy(name) {
  try {
    return { module: require(name), skip: null };
  } catch (error) {
    return { module: null, skip: `${name} cannot be loaded (${error.message.split('\n')[0]})` };
  }
}
const polars = requireOrWhy('nodejs-polars');
const duckdbWasm = requireOrWhy('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs');

for (const [what, why] of [['pyarrow', pyarrowSkip], ['DuckDB (Python)', duckdbSkip],
  ['duckdb-wasm', duckdbWasm.skip], ['nodejs-polars', polars.skip]]) {
  if (why !== null) console.log(`arrow-peers.test.js: ${what} tests skipped: ${why}`);
}

// The fixture's answer (one JSON line); a child that dies fails the test at once.
function peer(...args) {
  const run = spawnSync(PYTHON, [SCRIPT, ...args], {
    encoding: 'utf8', timeout: 120000,
    // pyarrow and DuckDB are not ours to check: the sanitizer phase's preload stays with Node.
    env: { ...process.env, LD_PRELOAD: undefined, ASAN_OPTIONS: undefined, UBSAN_OPTIONS: undefined,
      PYTHONPATH: dl.pythonPath },
  });
  if (run.status !== 0) throw new Error(`${SCRIPT} ${args[0]} failed (${run.status ?? run.signal}):\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

const range = (shape) => {
  const flat = dl.arange(0, shape.reduce((a, b) => a * b, 1), { dtype: 'float32' });
  const t = flat.reshape(shape);
  flat.dispose();
  return t;
};
const flat = (t) => t.contiguous().toArray().flat(Infinity);
// A tensor's own bytes, row-major.
const bytesOf = (t) => {
  const c = t.contiguous();
  return Buffer.from(c.buffer, c.byteOffset, c.nbytes);
};
// Float64 sum of float32 values, the same order-free total every peer computes exactly (integers < 2^24).
const total = (t) => flat(t).reduce((a, b) => a + b, 0);

let dir;
beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dlpack-arrow-peers-')); });
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const itPyarrow = pyarrowSkip === null ? test : test.skip;
const itDuckdb = duckdbSkip === null ? test : test.skip;

describe(`pyarrow ${versions.pyarrow || ''}`, () => {
  itPyarrow.each(['stream', 'file'])('reads our %s as FixedShapeTensorType with our shape and values', (format) => {
    const nhwc = range([2, 4, 5, 3]);
    const columns = {
      plain: range([2, 3, 4, 5]),
      transposed: nhwc.permute(0, 2, 1, 3), // [2, 5, 4, 3]: a permutation that is its own inverse
      nchw: nhwc.permute(0, 3, 1, 2), // [2, 3, 4, 5] over NHWC bytes: permutation [2, 0, 1]
      label: dl.tensor([3, 4], { dtype: 'int64' }),
    };
    const file = path.join(dir, `ours.${format}`);
    fs.writeFileSync(file, Buffer.concat(dl.toArrowIPCChunks(dl.toArrowTable(columns), { format })));
    const seen = peer('read', file, format);
    for (const name of ['plain', 'transposed', 'nchw']) {
      const t = columns[name];
      expect(seen[name].extension).toBe(true);
      expect(seen[name].shape).toEqual(t.shape);
      expect(seen[name].values).toEqual(flat(t));
      expect(seen[name].sharesMemory).toBe(true);
      expect(seen[name].pyarrowShape).toEqual(t.shape);
    }
    expect(seen.nchw.physical).toEqual([4, 5, 3]);
    expect(seen.nchw.permutation).toEqual([2, 0, 1]);
    // pyarrow's to_numpy_ndarray() agrees wherever its permutation rule is the specification's:
    // no permutation, or one that is its own inverse.
    expect(seen.plain.pyarrowValues).toEqual(flat(columns.plain));
    expect(seen.transposed.pyarrowValues).toEqual(flat(columns.transposed));
    expect(seen.label.values).toEqual([3, 4]);
  });

  itPyarrow('we read what FixedShapeTensorArray.from_numpy_ndarray writes, plain and permuted', () => {
    const written = peer('write', dir);
    expect(written.plainType).toMatch(/dim_names=\[C,H,W\]/);
    const expected = range([2, 3, 4, 5]);
    const stream = fs.readFileSync(path.join(dir, 'plain.arrows'));
    // fs.readFileSync may hand back a pooled, unaligned view: only then is a copy asked for.
    const copy = stream.byteOffset % 8 !== 0;
    const plain = dl.fromArrowIPC(stream, { column: 'x', copy });
    expect(plain.shape).toEqual([2, 3, 4, 5]);
    expect(flat(plain)).toEqual(flat(expected));
    if (!copy) expect(plain.buffer).toBe(stream.buffer);
    expect(dl.fromArrowIPC(stream, { column: 'label', copy }).toArray()).toEqual([0n, 1n]);
    const permutedBytes = fs.readFileSync(path.join(dir, 'permuted.arrow'));
    const permuted = dl.fromArrowIPC(permutedBytes, { copy: permutedBytes.byteOffset % 8 !== 0 });
    const transposed = expected.transpose(2, 3);
    expect(permuted.shape).toEqual([2, 3, 5, 4]);
    expect(permuted.strides).toEqual([60, 20, 1, 5]);
    expect(flat(permuted)).toEqual(flat(transposed));
  });
});

describe('DuckDB', () => {
  // A [8, 3, 128, 128] batch whose float32 values sum exactly (integers below 2^24, float64 totals).
  const batch = () => {
    const t = dl.empty([8, 3, 128, 128]);
    const data = t.data;
    for (let i = 0; i < data.length; i++) data[i] = i % 1000;
    return t;
  };

  itDuckdb(`Python ${versions.duckdb || ''} sums our batch to the same value; its result reads back with { shape }`,
    () => {
      const t = batch();
      const file = path.join(dir, 'duck.arrow');
      fs.writeFileSync(file, Buffer.concat(dl.toArrowIPCChunks(t, { format: 'file' })));
      const out = path.join(dir, 'duck-result.arrows');
      const answer = peer('duckdb', file, out);
      expect(answer.type).toBe('FLOAT[49152]');
      expect(answer.sum).toBe(total(t));
      // DuckDB leaves the extension out: a plain FixedSizeList, read with the cell shape.
      expect(answer.resultMetadata).toEqual({});
      const bytes = fs.readFileSync(out);
      const back = dl.fromArrowIPC(bytes, { shape: [3, 128, 128], copy: bytes.byteOffset % 8 !== 0 });
      expect(back.shape).toEqual([8, 3, 128, 128]);
      expect(Buffer.compare(bytesOf(back), bytesOf(t))).toBe(0);
    });

  (duckdbWasm.skip === null ? test : test.skip)('@duckdb/duckdb-wasm sums our batch; its result table reads ' +
    'back with { shape }', async () => {
    const duckdb = duckdbWasm.module;
    const dist = path.dirname(require.resolve('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs'));
    const db = await duckdb.createDuckDB({
      mvp: { mainModule: path.join(dist, 'duckdb-mvp.wasm'), mainWorker: path.join(dist, 'duckdb-node-mvp.worker.cjs') },
      eh: { mainModule: path.join(dist, 'duckdb-eh.wasm'), mainWorker: path.join(dist, 'duckdb-node-eh.worker.cjs') },
    }, new duckdb.VoidLogger(), duckdb.NODE_RUNTIME);
    await db.instantiate();
    const conn = db.connect();
    try {
      const t = batch();
      const chunks = dl.toArrowIPCChunks(t);
      conn.insertArrowFromIPCStream(new Uint8Array(Buffer.concat(chunks)), { name: 'batch' });
      const [{ s }] = conn.query('SELECT sum(v) AS s FROM (SELECT unnest(tensor) AS v FROM batch)').toArray()
        .map((row) => row.toJSON());
      expect(Number(s)).toBe(total(t));
      // The result is a table of duckdb-wasm's own apache-arrow (17): read by its structure.
      const result = conn.query('SELECT tensor FROM batch');
      expect(result.schema.fields[0].metadata.size).toBe(0);
      const back = dl.fromArrow(result, { shape: [3, 128, 128] });
      expect(back.shape).toEqual([8, 3, 128, 128]);
      expect(Buffer.compare(bytesOf(back), bytesOf(t))).toBe(0);
    } finally {
      conn.close();
      db.reset();
    }
  });
});

describe('nodejs-polars', () => {
  (polars.skip === null ? test : test.skip)('reads extension: false output with the same sums', () => {
    const pl = polars.module;
    const t = dl.empty([8, 3, 32, 32]);
    const data = t.data;
    for (let i = 0; i < data.length; i++) data[i] = (i * 7) % 1000;
    // Polars refuses (panics on) the extension; extension: false writes the plain FixedSizeList.
    const bytes = Buffer.concat(dl.toArrowIPCChunks(t.toArrow({ name: 'x', extension: false })));
    const df = pl.readIPCStream(bytes);
    expect(df.shape).toEqual({ height: 8, width: 1 });
    expect(String(df.getColumn('x').dtype)).toMatch(/FixedSizeList\(DataType\(Float32\),3072\)/);
    expect(df.getColumn('x').explode().sum()).toBe(total(t));
    const row3 = t.select(0, 3);
    expect(pl.Series(df.getColumn('x').toArray()[3]).sum()).toBe(total(row3));
  });
});
