'use strict';
// docs/errors.md, the P rows: python.spawn. One test per row;
// test/bad-input/rows.js ties them to the table.
const fs = require('fs');
const dl = require('../../lib');
const { area } = require('./rows');

const { row } = area(__filename);

describe('python.spawn', () => {
  // Each refusal comes before any process is started.
  // This process's children, read from /proc (no helper process: under the
  // sanitizer phase's LD_PRELOAD, pgrep hangs).
  const spawned = () => fs.readdirSync(`/proc/${process.pid}/task`)
    .map((tid) => fs.readFileSync(`/proc/${process.pid}/task/${tid}/children`, 'utf8').trim())
    .filter(Boolean).join(' ');

  row('P01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const before = spawned();
    throws(() => dl.python.spawn(['model.py']), /`script`/);
    throws(() => dl.python.spawn(undefined), /`script`/);
    throws(() => dl.python.spawn('model.py', 'python3'), /`options`/);
    throws(() => dl.python.spawn('model.py', null), /`options`/);
    expect(spawned()).toBe(before);
  });

  row('P03', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    throws(() => dl.python.spawn('model.py', { python: 3 }), /`options.python`/);
    throws(() => dl.python.spawn('model.py', { args: 'a b' }), /`options.args`/);
    throws(() => dl.python.spawn('model.py', { args: [1] }), /`options.args`/);
    throws(() => dl.python.spawn('model.py', { env: null }), /`options.env`/);
  });

  row('P04', TypeError, 'ERR_INVALID_ARG_VALUE', (throws) => {
    throws(() => dl.python.spawn('model.py', { stderr: 'stdout' }), /`options.stderr`/);
  });
});
