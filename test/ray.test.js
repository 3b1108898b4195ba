'use strict';
// dl.ray (lib/ray.js, python/dlpack_node/ray_bridge.py, docs/arrow.md "Ray"): a real local
// Ray cluster, started and stopped in a child process (test/fixtures/ray-child.js) that
// fails the test as soon as it dies and is killed at a timeout; no Ray process may outlive
// it (each runs with this test's own RAY_TMPDIR in its command line, so they are found by
// that path and killed by pid if one is left). Ray comes from the peers venv
// (${DLPACK_PEERS_VENV:-~/.cache/dlpack-ci/peers-venv}); without it the cluster test skips
// with the reason printed.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const dl = require('../lib');

const VENV = process.env.DLPACK_PEERS_VENV || path.join(os.homedir(), '.cache', 'dlpack-ci', 'peers-venv');
const PYTHON = path.join(VENV, 'bin', 'python');
const SYSTEM_PYTHON = process.env.DLPACK_TEST_PYTHON || '/usr/bin/python3';

const imports = (python, modules) => fs.existsSync(python) &&
  spawnSync(python, ['-c', `import ${modules}`], { timeout: 60000 }).status === 0;
const raySkip = !fs.existsSync(PYTHON) ? `no peers venv at ${VENV} (DLPACK_PEERS_VENV)`
  : imports(PYTHON, 'ray, numpy, pyarrow') ? null : `${PYTHON} cannot import ray, numpy and pyarrow`;
const noRaySkip = !imports(SYSTEM_PYTHON, 'numpy') ? `${SYSTEM_PYTHON} cannot import numpy`
  : imports(SYSTEM_PYTHON, 'ray') ? `${SYSTEM_PYTHON} has Ray: no Python without it to try` : null;
if (raySkip !== null) console.log(`ray.test.js: the local cluster test skipped: ${raySkip}`);
if (noRaySkip !== null) console.log(`ray.test.js: the missing-Ray test skipped: ${noRaySkip}`);

// Processes whose command line names `dir` (Ray's temp dir for this test).
function rayProcesses(dir) {
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline;
    try {
      cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes(dir)) found.push({ pid: Number(entry), cmd: cmdline.replace(/\0/g, ' ').slice(0, 120) });
  }
  return found;
}

describe('dl.ray', () => {
  (raySkip === null ? test : test.skip)('a local cluster: put, a task on the batch, get back, Ray Data over ' +
    'toArrowIPCChunks output, release and collection, close; nothing of Ray left running', async () => {
    // Short: Ray's socket paths must fit in 107 bytes.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dlray-'));
    let out;
    try {
      const child = spawnSync(process.execPath, ['--expose-gc', path.join(__dirname, 'fixtures', 'ray-child.js'),
        PYTHON, dir], {
        encoding: 'utf8', timeout: 240000, killSignal: 'SIGKILL',
      });
      if (child.status !== 0) {
        throw new Error(`ray-child.js ${child.signal ? `was killed (${child.signal})` : `exited ${child.status}`}:\n` +
          `${child.stderr}`);
      }
      out = JSON.parse(child.stdout);
      // Ray's own processes go with ray.shutdown(); give them a moment.
      for (let i = 0; i < 50 && rayProcesses(dir).length !== 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(rayProcesses(dir)).toEqual([]);
    } finally {
      for (const { pid } of rayProcesses(dir)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(out.local).toBe(true);
    // put: one copy into the store, the batch's size and no more (Ray's object header aside).
    expect(out.storeGrowth).toBeGreaterThanOrEqual(out.nbytes);
    expect(out.storeGrowth).toBeLessThanOrEqual(out.nbytes + 4096);
    expect(out.refsHeld).toBe(1);
    // A task on this node reads the store: read-only, not its own copy, shared with a second ray.get.
    expect(out.task).toEqual({ sum: 2 * out.expectedSum, writeable: false, owndata: false });
    expect(out.shares).toEqual({ shares: true, writeable: false });
    expect(out.direct.sum).toBe(out.expectedSum / 2);
    // get: a tensor in a shared segment this process mapped, with the values.
    expect(out.doubled).toEqual({ shape: [8, 3, 64, 64], dtype: 'float32', kind: 'shm', equal: true });
    expect(out.back).toEqual({ kind: 'shm', equal: true });
    if (out.data.skip) console.log(`ray.test.js: the Ray Data step skipped: ${out.data.skip}`);
    else expect(out.data).toEqual({ rows: 8, sum: out.expectedSum });
    expect(out.released).toBe(1);
    expect(out.collected).toBe(1); // a RayRef collected without release() is released
    expect(out.errors).toEqual({
      notTensor: { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' },
      notShared: { code: 'ERR_INVALID_ARG_VALUE', name: 'TypeError' }, // as worker.call refuses it
      releasedRef: { code: 'ERR_DLPACK_PYTHON', name: 'DLPackError', pythonType: 'LookupError' },
      badFn: { code: 'ERR_DLPACK_PYTHON', name: 'DLPackError', pythonType: 'ValueError' },
      fnType: { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' },
    });
    expect(out.exitCode).toBe(0);
    expect(out.afterClose).toBe('ERR_DLPACK_WORKER_EXITED');
  }, 300000);

  (noRaySkip === null ? test : test.skip)('a Python without Ray: ERR_DLPACK_MISSING_PEER naming the install', async () => {
    const error = await dl.ray.connect({ python: SYSTEM_PYTHON }).catch((e) => e);
    expect(error).toBeInstanceOf(dl.DLPackError);
    expect(error.code).toBe('ERR_DLPACK_MISSING_PEER');
    expect(error.message).toMatch(/pip install 'ray\[default\]'/);
    expect(error.cause.pythonType).toBe('ImportError');
  });

  test('options are checked before anything starts', async () => {
    const rejects = async (options, code, pattern) => {
      const error = await dl.ray.connect(options).catch((e) => e);
      expect(error.code).toBe(code);
      expect(error.message).toMatch(pattern);
    };
    await rejects({ numCpus: -1 }, 'ERR_INVALID_ARG_TYPE', /`options.numCpus`/);
    await rejects({ objectStoreMemory: 1.5 }, 'ERR_INVALID_ARG_TYPE', /`options.objectStoreMemory`/);
    await rejects({ address: 6379 }, 'ERR_INVALID_ARG_TYPE', /`options.address`/);
    await rejects({ namespace: null }, 'ERR_INVALID_ARG_TYPE', /`options.namespace`/);
    await rejects({ num_cpus: 1 }, 'ERR_INVALID_ARG_VALUE', /`numCpus`/);
    await rejects('auto', 'ERR_INVALID_ARG_TYPE', /`options`/);
    expect(() => new dl.ray.RayClient()).toThrow(expect.objectContaining({ code: 'ERR_ILLEGAL_CONSTRUCTOR' }));
    expect(() => new dl.ray.RayRef()).toThrow(expect.objectContaining({ code: 'ERR_ILLEGAL_CONSTRUCTOR' }));
  });
});
