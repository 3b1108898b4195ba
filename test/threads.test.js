'use strict';
// Threads that end mid-call (docs/API.md "Lifetimes"): no native entry point may take the
// process down when worker.terminate() or process.exit() ends its
// environment (a C++ exception escaping a Node-API callback is
// std::terminate, exit 134).
const path = require('path');
const { spawnSync } = require('child_process');
const { EXIT_SAFE_FLAGS } = require('./helpers');

const STORM = path.join(__dirname, 'fixtures', 'terminate-storm.js');

// The storm runs in a child process: an abort there is a failed test here.
function storm(mode, arg) {
  // The limit is for a hang only: a sanitizer build on a busy machine is slow.
  return spawnSync(process.execPath, [...EXIT_SAFE_FLAGS, STORM, mode, String(arg)],
    { encoding: 'utf8', timeout: 100000 });
}

function expectClean(result) {
  expect(result.stderr).not.toMatch(/terminate called|FATAL ERROR|Aborted/);
  expect(result.signal).toBeNull();
}

describe('terminate storm over every native entry point', () => {
  test('worker.terminate() at 40 random moments: the process lives on', () => {
    const result = storm('terminate', 40);
    expectClean(result);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('ok 40\n');
  });

  test('process.exit() while a worker is mid-call: the exit status is the one asked for (12 seeds)', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const result = storm('exit', seed);
      expectClean(result);
      expect({ seed, status: result.status }).toEqual({ seed, status: 7 });
    }
  });
});

// Memory on a thread's JS heap lives as long as that thread; memory the
// library allocates natively crosses threads zero-copy (docs/API.md "Lifetimes").
describe('a toPointer() struct imported on another thread (a child process each)', () => {
  const CROSS = path.join(__dirname, 'fixtures', 'cross-thread.js');
  const run = (scenario) => {
    const result = spawnSync(process.execPath, [...EXIT_SAFE_FLAGS, '--expose-gc', CROSS, scenario],
      { encoding: 'utf8', timeout: 60000 });
    expectClean(result);
    expect(result.status).toBe(0);
    // A child that exits 0 with nothing (or half a line) on stdout is a failure to
    // report as such, not as a JSON syntax error.
    try {
      return JSON.parse(result.stdout);
    } catch {
      throw new Error(`cross-thread.js ${scenario} exited 0 without its JSON result; ` +
        `stdout ${JSON.stringify(result.stdout.slice(0, 200))}, stderr ${JSON.stringify(result.stderr.slice(-400))}`);
    }
  };

  test('the parent\'s JS memory in a worker: copied; copy: false refused with a code, capsule unconsumed', () => {
    const out = run('parent-to-worker');
    expect(out.copied).toEqual({ values: [1, 2, 3, 4], isCopy: true });
    expect(out.refused).toMatchObject({ code: 'ERR_DLPACK_COPY_REQUIRED', consumed: false });
    expect(out.after).toEqual([9, 2, 3, 4]);
    expect(out.keepalivesBack).toBe(true); // both deleters released the parent's buffer
  });

  test('a live worker\'s JS memory in the parent: copied', () => {
    const out = run('worker-alive');
    expect(out).toMatchObject({ imported: { values: [5, 6, 7], isCopy: true }, consumed: true, keepalivesBack: true });
  });

  test('an exited worker\'s JS memory: ERR_DLPACK_DETACHED, capsule unconsumed, and a process warning', () => {
    const out = run('worker-exited');
    expect(out.imported.code).toBe('ERR_DLPACK_DETACHED');
    expect(out.consumed).toBe(false);
    expect(out.keepalivesBack).toBe(true);
    expect(out.warnings).toEqual(['DLPACK_THREAD_MEMORY']);
  });

  // Issue 20, HIGH 1: an ended worker's slab goes back to the pool and the next thread
  // that fills a struct takes it; the dead worker's entry must not look like its own.
  test('an exited worker\'s struct, its slab now this thread\'s: ERR_DLPACK_DETACHED, no zero-copy view', () => {
    const out = run('pooled-next-thread');
    expect(out.sameSlab).toBe(true); // the premise: this thread took the dead worker's slab
    expect(out.imported.code).toBe('ERR_DLPACK_DETACHED');
    expect(out.consumed).toBe(false);
    expect(out.keepalivesBack).toBe(true);
  });

  // Issue 20, HIGH 2: the liveness asked of the thread that filled the entry, not of the
  // live worker that holds its slab now: no copy out of a freed heap, on either thread.
  test('an exited worker\'s struct, its slab now a live worker\'s: ERR_DLPACK_DETACHED on both, no copy', () => {
    const out = run('pooled-live-worker');
    expect(out.sameSlab).toBe(true);
    expect(out.imported.code).toBe('ERR_DLPACK_DETACHED');
    expect(out.consumed).toBe(false);
    expect(out.worker.imported.code).toBe('ERR_DLPACK_DETACHED');
    expect(out.worker.consumed).toBe(false);
    expect(out.workerLive).toEqual({ imported: { values: [1], isCopy: true }, consumed: true });
    expect(out.keepalivesBack).toBe(true);
  });

  test('shared memory an exited worker allocated: zero-copy', () => {
    const out = run('shared-after-exit');
    expect(out).toMatchObject({ imported: { values: [5, 6, 7], isCopy: false }, consumed: true, keepalivesBack: true });
    expect(out.warnings).toEqual([]);
  });
});
