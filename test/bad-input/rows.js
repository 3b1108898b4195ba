'use strict';
// Shared by the bad-input suites: each test/bad-input/<letter>-<area>.test.js holds the
// rows of docs/errors.md ("Bad input: what each misuse throws") whose id starts with
// its letter, one test per row. area(__filename) gives a file its row(); the file's
// last test checks that every row of its letter has exactly one test there, with the
// row's error class and code. test/bad-input/table.test.js checks that every letter
// of the table belongs to exactly one file, so a row whose file is missing fails too.
const fs = require('fs');
const path = require('path');
const dl = require('../../lib');
const { producer, native, collect, expectError, nativeStats, heldSegments } = require('../helpers');
const { releaseRecycled, RECYCLE_MS } = require('../../lib/memory');

// A block an earlier test file in this worker kept for reuse is freed by that
// file's own lib/memory.js (each file has its own module registry) RECYCLE_MS
// after it was kept: waited out once, so that no row sees it freed mid-row.
beforeAll(() => new Promise((resolve) => setTimeout(resolve, RECYCLE_MS + 100)));

const caps = dl.capabilities().cuda;

// --- the table ---------------------------------------------------------------

// id -> { text, error: { name, code } } for every row of docs/errors.md.
function readTable() {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'errors.md'), 'utf8');
  if (!doc.startsWith('# Bad input')) throw new Error('docs/errors.md does not start with "# Bad input"');
  const table = new Map();
  for (const line of doc.split('\n')) {
    const m = /^\| ([A-Z]\d\d) \| (.*) \|$/.exec(line);
    if (m === null) continue;
    const cells = m[2].split(' | ');
    const outcome = cells[cells.length - 1];
    const error = /^(TypeError|RangeError|DLPackError|CudaError) `(ERR_[A-Z_]+)`$/.exec(outcome);
    if (table.has(m[1])) throw new Error(`docs/errors.md row ${m[1]} appears twice`);
    table.set(m[1], { text: cells.slice(0, -1).join(': '), error: error && { name: error[1], code: error[2] } });
  }
  return table;
}

const table = readTable();

// The area files are named <letter>-<area>.test.js; the letter is the rows' id letter.
const AREA_FILE = /^([a-z])-[a-z0-9-]+\.test\.js$/;

function letterOf(file) {
  const m = AREA_FILE.exec(path.basename(file));
  if (m === null) throw new Error(`${path.basename(file)} is not named <letter>-<area>.test.js`);
  return m[1].toUpperCase();
}

// area(__filename) -> { row, lieRow } for the rows of this file's letter, and the
// test that ties them to the table (declared here, it runs after Jest has collected
// every row of the file).
function area(file) {
  const letter = letterOf(file);
  const tested = new Map(); // id -> { name, code } the test expects

  // row(id, Class, code, body, skipReason): the test of one row. `body(throws)` calls
  // `throws(fn, pattern)` for each misuse of the row; `throws` checks the class,
  // the code and (where given) that the message names the argument. `skipReason`
  // says why the row cannot run here (the test is then skipped, the reason in its title).
  function row(id, Class, code, body, skipReason = null) {
    if (id[0] !== letter) throw new Error(`row ${id} is not a ${letter} row: its test belongs in the ${id[0]} file`);
    if (tested.has(id)) throw new Error(`two tests for row ${id}`);
    tested.set(id, { name: Class.name, code });
    const title = `${id} ${table.has(id) ? table.get(id).text : '(no row in docs/errors.md)'}: ${Class.name} ${code}`;
    (skipReason === null ? test : test.skip)(skipReason === null ? title : `${title} [skipped: ${skipReason}]`,
      async () => {
        let calls = 0;
        const throws = (fn, pattern) => {
          calls++;
          return expectError(fn, Class, code, pattern);
        };
        await body(throws);
        expect(calls).toBeGreaterThan(0);
      });
  }

  // A row of capsules the import checklist must refuse, [options, pattern] each,
  // versioned and legacy unless the options say which.
  function lieRow(id, cases, { Class = dl.DLPackError, code = 'ERR_DLPACK_UNSUPPORTED', skip = null } = {}) {
    row(id, Class, code, (throws) => leakFree(() => {
      for (const [options, pattern] of cases) {
        for (const versioned of options.versioned === undefined ? [true, false] : [options.versioned]) {
          refuse(throws, { ...options, versioned }, pattern);
        }
      }
    }), skip);
  }

  describe(`docs/errors.md rows ${letter}`, () => {
    test(`every ${letter} row has one test here, every test here a row, with the same error class and code`, () => {
      const rows = [...table.keys()].filter((id) => id[0] === letter);
      expect(rows.length).toBeGreaterThan(0);
      const rowsWithoutTest = rows.filter((id) => !tested.has(id));
      const testsWithoutRow = [...tested.keys()].filter((id) => !table.has(id));
      expect({ rowsWithoutTest, testsWithoutRow }).toEqual({ rowsWithoutTest: [], testsWithoutRow: [] });
      for (const [id, expected] of tested) {
        expect({ id, error: table.get(id).error }).toEqual({ id, error: expected });
      }
    });
  });

  return { row, lieRow };
}

// --- helpers -------------------------------------------------------------------

// Runs `body`, then checks after GC that every producer tensor made in it was
// deleted exactly once and that no native struct, pin, share or segment is left.
// Blocks this file kept for reuse (lib/memory.js recycling) are freed first
// on both sides: they are no leak, and their timer would free one mid-row (a
// block kept earlier counted live before a row and not after it, in CI's
// Node 22 run on a loaded 2-core VM).
async function leakFree(body) {
  releaseRecycled();
  await collect();
  const before = { made: producer.stats(), live: nativeStats(), shares: native.localShares(), segs: heldSegments() };
  await body();
  releaseRecycled();
  await collect();
  const made = producer.stats();
  expect(made.deleterCalls - before.made.deleterCalls).toBe(made.made - before.made.made);
  expect(made.doubleDeletes).toBe(before.made.doubleDeletes);
  const after = nativeStats();
  for (const kind of ['managed', 'foreign']) { // each made in `body` was freed once
    expect(after[`${kind}Made`] - before.live[`${kind}Made`]).toBe(after[`${kind}Freed`] - before.live[`${kind}Freed`]);
  }
  const live = (stats) => Object.fromEntries(Object.entries(stats).filter(([key]) => key.endsWith('Live')));
  expect(live(after)).toEqual(live(before.live));
  expect(native.localShares()).toBe(before.shares);
  expect(heldSegments()).toEqual(before.segs);
}

function rowMajor(shape) {
  const strides = [];
  let step = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = step;
    step *= Math.max(shape[i], 1);
  }
  return strides;
}

// A producer tensor (float32 [4], row-major, unless `options` says otherwise).
function foreign(options = {}) {
  const merged = { code: 2, bits: 32, shape: [4], ...options };
  if (merged.strides === undefined) merged.strides = rowMajor(merged.shape);
  return producer.make(merged);
}
const adopt = (ptr, versioned = true) => dl.DLPackCapsule.fromPointer(ptr, { versioned });

// A foreign capsule the import checklist must refuse: refused twice (nothing
// consumed), deleter untouched until dispose() calls it once.
function refuse(throws, options, pattern) {
  const versioned = options.versioned !== false;
  const ptr = foreign(options);
  const capsule = adopt(ptr, versioned);
  throws(() => dl.fromDLPack(capsule), pattern);
  throws(() => dl.fromDLPack(capsule, { copy: true }), pattern);
  expect(capsule.consumed).toBe(false);
  expect(producer.calls(ptr)).toBe(0);
  capsule.dispose();
  expect(producer.calls(ptr)).toBe(1);
}

// A float32 [2, 2] view with strides [1, 2] (a transpose) over a SharedArrayBuffer.
function strided() {
  const buffer = new SharedArrayBuffer(16);
  new Float32Array(buffer).set([1, 2, 3, 4]);
  return dl.open({ kind: 'sab', buffer, dtype: 'float32', shape: [2, 2], strides: [1, 2], byteOffset: 0,
    readOnly: false });
}

function readOnly(values = [1, 2, 3]) {
  const buffer = new SharedArrayBuffer(values.length * 4);
  new Float32Array(buffer).set(values);
  return dl.open({ kind: 'sab', buffer, dtype: 'float32', shape: [values.length], strides: [1], byteOffset: 0,
    readOnly: true });
}

// A kDLCUDA tensor; its "device" memory is the producer's host memory, which
// nothing may read (the point of these rows).
function cudaTensor(options = {}) {
  const ptr = foreign({ shape: [2, 3], deviceType: 2, deviceId: 0, ...options });
  return { ptr, t: dl.fromDLPack(adopt(ptr)) };
}

// Skip reasons for rows that need CUDA compiled in, or no usable device.
const onlyCompiled = caps.compiled ? null : 'built without CUDA';
const onlyNoDevice = caps.available ? 'a CUDA device is present' : null;
const onlyCompiledNoDevice = onlyCompiled || onlyNoDevice;

module.exports = {
  table, AREA_FILE, letterOf, area,
  leakFree, foreign, adopt, strided, readOnly, cudaTensor,
  caps, onlyCompiled, onlyNoDevice, onlyCompiledNoDevice,
};
