'use strict';
// Threads that end mid-call (issue 15): no native entry point may take the
// process down when worker.terminate() or process.exit() ends its
// environment (a C++ exception escaping a Node-API callback is
// std::terminate, exit 134).
const path = require('path');
const { spawnSync } = require('child_process');

const STORM = path.join(__dirname, 'fixtures', 'terminate-storm.js');

// The storm runs in a child process: an abort there is a failed test here.
function storm(mode, arg) {
  return spawnSync(process.execPath, [STORM, mode, String(arg)], { encoding: 'utf8', timeout: 60000 });
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
