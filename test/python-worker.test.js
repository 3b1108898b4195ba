'use strict';
// dl.python.spawn() and python/dlpack_node/worker.py (docs/python.md "Workers"):
// a real Python serves functions; tensors go both ways over shared memory.
const path = require('path');
const { spawnSync, execFileSync } = require('child_process');
const dl = require('../lib');
const { PYTHON, heldSegments, collect } = require('./helpers');
const { MAX_LINE } = require('../lib/python');
const { VENV_PYTHON } = require('./peers/embed');

// The data path runs on two interpreters: Debian's (NumPy 1.24 and PyTorch 1.13, the
// legacy peers; DLPACK_TEST_PYTHON names another) and the peers venv's (NumPy 2,
// PyTorch 2.13, JAX, Paddle: scripts/peers-venv.sh). The venv is skipped with the
// reason where it is missing, and must be there with DLPACK_PEERS_REQUIRED=1 (CI).
const REQUIRED = process.env.DLPACK_PEERS_REQUIRED === '1';
function interpreter(label, python, modules) {
  const found = spawnSync(python, ['-c', `import json, importlib.util
out = {}
for m in ('numpy', 'torch', 'jax', 'paddle'):
    if importlib.util.find_spec(m) is not None:
        out[m] = __import__(m).__version__
print(json.dumps(out))`], { encoding: 'utf8', timeout: 120000 });
  const versions = found.status === 0 ? JSON.parse(found.stdout.trim().split('\n').pop()) : {};
  const skip = (what) => {
    const reason = found.error ? `${python} does not run (${found.error.code})` : found.status !== 0 ?
      `${python} failed to list its modules: ${found.stderr.trim().split('\n').pop()}` : `${python} cannot import ${what}`;
    console.log(`Python worker tests ${REQUIRED && label === 'venv' ? 'fail' : 'skipped'} (${label}): ${reason}`);
    return REQUIRED && label === 'venv' ? (title) => test(title, () => { throw new Error(reason); }) : test.skip;
  };
  const it = {};
  for (const m of modules) it[m] = versions[m] && (m === 'numpy' || versions.numpy) ? test : skip(m);
  return {
    label, python, versions,
    // NumPy's dimension limit (32 before NumPy 2, 64 since), as dlpack_node reads it.
    numpyDims: versions.numpy ? (Number(versions.numpy.split('.')[0]) >= 2 ? 64 : 32) : 0,
    itPython: it.numpy, itTorch: it.torch, itJax: it.jax, itPaddle: it.paddle,
    toString: () => `${label} Python (${python}: ${Object.entries(versions).map((e) => e.join(' ')).join(', ')})`,
  };
}
const SYSTEM = interpreter('system', PYTHON, ['numpy', 'torch']);
const VENV = interpreter('venv', VENV_PYTHON, ['numpy', 'torch', 'jax', 'paddle']);
const { itPython } = SYSTEM;

const SERVED = path.join(__dirname, 'fixtures', 'python', 'served.py');
// Whether process `pid` is gone within 10 s (it is killed if not).
const gone = (pid) => {
  const deadline = Date.now() + 10000;
  for (;;) {
    try { process.kill(pid, 0); } catch { return true; }
    if (Date.now() > deadline) break;
    spawnSync('sleep', ['0.05']);
  }
  process.kill(pid, 'SIGKILL');
  return false;
};
const start = (args = [], python = PYTHON) => dl.python.spawn(SERVED, { python, args, stderr: 'ignore' });
const shared = (values, dtype = 'float32') => {
  const t = dl.empty([values.length], { dtype, shared: true });
  t.copyFrom(values);
  return t;
};

describe.each([SYSTEM, VENV])('Python workers on the %s', (py) => {
  const { python, numpyDims, itPython, itTorch } = py;
  let worker;
  beforeAll(async () => {
    if (!py.versions.numpy) return;
    worker = start([], python);
    await worker.ready;
  });
  afterAll(async () => { if (worker) expect(await worker.close()).toBe(0); });

  itPython('the worker says which functions it serves', () => {
    expect(worker.methods).toEqual(
      ['add', 'big', 'chatty', 'describe', 'die', 'double', 'every_other', 'fail', 'made_here', 'many_dims', 'power',
        'shout', 'slow', 'torch_kind', 'unprintable']);
    expect(worker.pid).toBe(worker.child.pid);
  });

  itPython('an input written in place comes back as the same memory, with no copy', async () => {
    const x = shared([1, 2, 3, 4]);
    const y = await worker.call('double', x);
    expect(x.toArray()).toEqual([2, 4, 6, 8]);
    expect(y.share().name).toBe(x.share().name); // the same segment, opened again
    y.data[0] = -1; // and the same bytes
    expect(x.data[0]).toBe(-1);
    y.dispose();
    x.dispose();
  });

  itPython('views of the input stay views; JSON values travel as they are', async () => {
    const x = shared([1, 2, 3, 4, 5]);
    const [view, sum] = await worker.call('every_other', x);
    expect(view.toArray()).toEqual([1, 3, 5]);
    expect(view.strides).toEqual([2]);
    expect(view.share().name).toBe(x.share().name);
    expect(sum).toBe(15);
    expect(await worker.call('describe', x, { k: [1, 'two'] }))
      .toEqual({ dtype: 'float32', shape: [5], extra: { k: [1, 'two'] } });
    view.dispose();
    x.dispose();
  });

  itPython('a result in private Python memory is copied once, and the worker lets go once Node has it', async () => {
    const x = shared([1, 2, 3]);
    const z = await worker.call('add', x, x);
    expect(z.toArray()).toEqual([2, 4, 6]);
    const copy = z.share().name;
    expect(copy).not.toBe(x.share().name);
    // A round trip after the release message, so the worker has read it.
    expect((await worker.call('fail', 'sync').catch((e) => e)).code).toBe('ERR_DLPACK_PYTHON');
    expect(heldSegments(worker.pid)).toEqual([]); // neither x nor the copy: Node holds the copy now
    expect(heldSegments()).toContain(copy);
    z.dispose();
    x.dispose();
    expect(heldSegments()).not.toContain(copy); // the last holder let go: the kernel frees it
  });

  itPython('an array Python allocated in shared memory comes back without a copy', async () => {
    const r = await worker.call('made_here', 5);
    expect(r.dtype).toBe('int32');
    expect(r.toArray()).toEqual([0, 1, 2, 3, 4]);
    r.dispose();
  });

  itPython('tensors passed only to the call stay alive until the worker has answered', async () => {
    const busy = worker.call('slow', 0.5); // the worker reads the next call only after this one
    const pending = worker.call('describe', shared([1, 2]), 7); // no other reference to the tensor
    await collect(); // garbage collection and finalizers run while the call waits
    expect(await pending).toMatchObject({ shape: [2], extra: 7 });
    await busy;
  });

  itPython('a Python exception rejects with ERR_DLPACK_PYTHON and the worker goes on', async () => {
    const error = await worker.call('fail', 'no such image').catch((e) => e);
    expect(error).toBeInstanceOf(dl.DLPackError);
    expect(error.code).toBe('ERR_DLPACK_PYTHON');
    expect(error.message).toBe('Python raised ValueError in fail(): no such image');
    expect(error.pythonType).toBe('ValueError');
    expect(error.pythonTraceback).toMatch(/served\.py.*in fail/s);
    expect(await worker.call('describe', shared([0]), null)).toMatchObject({ shape: [1] });
  });

  itPython('an exception whose __str__ raises is still ERR_DLPACK_PYTHON, and the worker goes on', async () => {
    const error = await worker.call('unprintable').catch((e) => e);
    expect(error.code).toBe('ERR_DLPACK_PYTHON');
    expect(error.pythonType).toBe('_Unprintable');
    expect(error.message).toMatch(/unprintable\(\): <str\(\) of the _Unprintable raised RuntimeError>/);
    expect(error.pythonTraceback).toMatch(/served\.py.*in unprintable/s);
    expect(await worker.call('describe', shared([0]), 1)).toMatchObject({ extra: 1 });
  });

  itPython('an error longer than a protocol line arrives clipped; a result that long is refused', async () => {
    const n = MAX_LINE + 1000;
    const error = await worker.call('shout', n).catch((e) => e);
    expect(error.code).toBe('ERR_DLPACK_PYTHON');
    expect(error.message.length).toBeLessThan(70000);
    expect(error.message).toMatch(new RegExp(`\\(${n - 65536} characters left out\\)`));
    expect(error.pythonTraceback.length).toBeLessThan(200000);
    const big = await worker.call('big', n).catch((e) => e);
    expect(big.code).toBe('ERR_DLPACK_PYTHON');
    expect(big.message).toMatch(/more than the \d+ one protocol line carries/);
    expect(await worker.call('big', 3)).toBe('xxx');
  });

  itTorch('a result with more dimensions than a descriptor or NumPy takes is ValueError, not an abort', async () => {
    // 70: more than the descriptor format's 64 and any NumPy's limit; 40:
    // more than NumPy 1.x takes, fine for NumPy 2 (found with NumPy 2.5).
    for (const n of [70, 40]) {
      const result = await worker.call('many_dims', n).catch((e) => e);
      if (n <= numpyDims) {
        expect(result.shape).toEqual(new Array(n).fill(1));
        result.dispose();
        continue;
      }
      expect(result.code).toBe('ERR_DLPACK_PYTHON');
      expect(result.message).toMatch(/ValueError.*at most (64|32) dimensions/);
    }
    expect(await worker.call('many_dims', 2)).toBeInstanceOf(dl.Tensor);
  });

  itPython('a storm of calls holds few results at once: releases overtake queued calls', async () => {
    // 300 results copied into segments, each an open descriptor in the worker
    // until released; with 128 descriptors, before, most calls failed with EMFILE.
    const w = dl.python.spawn('-c', { python: '/bin/sh', stderr: 'ignore',
      args: ['ulimit -n 128; exec "$0" "$@"', python, SERVED] });
    const x = shared([1, 2, 3]);
    const outcomes = await Promise.all(Array.from({ length: 300 }, () => w.call('add', x, x).then((t) => {
      t.dispose();
      return 'ok';
    }, (e) => e.message)));
    expect(outcomes.filter((o) => o !== 'ok')).toEqual([]);
    x.dispose();
    expect(await w.close()).toBe(0);
  });

  itPython('an int JavaScript would round is refused, not rounded', async () => {
    expect(await worker.call('power', 52)).toEqual({ n: [2 ** 52] });
    const error = await worker.call('power', 60).catch((e) => e); // before: 1152921504606846976 rounded silently
    expect(error.code).toBe('ERR_DLPACK_PYTHON');
    expect(error.message).toMatch(/ValueError.*received 1152921504606846976, which JavaScript would round/);
  });

  itPython('bad calls reject with coded errors and send nothing', async () => {
    const reject = async (promise, Class, code, pattern) => {
      const e = await promise.catch((x) => x);
      expect(e).toBeInstanceOf(Class);
      expect(e.code).toBe(code);
      expect(e.message).toMatch(pattern);
    };
    await reject(worker.call(3), TypeError, 'ERR_INVALID_ARG_TYPE', /`name`/);
    await reject(worker.call('nope'), TypeError, 'ERR_INVALID_ARG_VALUE', /served methods \(add, .*\) for `name`/);
    await reject(worker.call('describe', dl.tensor([1]), 0), TypeError, 'ERR_INVALID_ARG_VALUE',
      /another process can open for `args\[0\]`.*plain ArrayBuffer/);
    await reject(worker.call('describe', dl.fromBuffer(new SharedArrayBuffer(4), { dtype: 'float32' }), 0),
      TypeError, 'ERR_INVALID_ARG_VALUE', /kind is 'sab'/);
    await reject(worker.call('describe', shared([1]), 10n), TypeError, 'ERR_INVALID_ARG_TYPE', /`args\[1\]`/);
    await reject(worker.call('describe', shared([1]), () => 1), TypeError, 'ERR_INVALID_ARG_TYPE', /`args\[1\]`/);
    // A call longer than one protocol line (python/FORMAT.md "Workers").
    await reject(worker.call('describe', shared([1]), 'x'.repeat(MAX_LINE)), RangeError, 'ERR_OUT_OF_RANGE',
      /at most 16777216 bytes .* for `args`/);
  });

  itTorch("serve(like='torch') hands torch tensors to the functions, over Node's memory", async () => {
    const w = start(['torch'], python);
    expect(await w.call('torch_kind', shared([1]))).toBe('torch');
    const y = await w.call('add', shared([1, 2]), shared([3, 4]));
    expect(y.toArray()).toEqual([4, 6]);
    const x = shared([1, 2, 3], 'bfloat16'); // bfloat16 reaches Python only as a torch tensor
    const same = await w.call('double', x);
    expect(x.toArray()).toEqual([2, 4, 6]); // written in place by torch
    expect(same.share().name).toBe(x.share().name);
    for (const t of [y, x, same]) t.dispose();
    expect(await w.close()).toBe(0);
  });
});

// JAX and Paddle in a worker: the served functions take Node's segment with the
// peer's own from_dlpack (test/fixtures/python/peers_served.py).
describe('Python workers that hand Node\'s memory to JAX and Paddle (the peers venv)', () => {
  const PEERS_SERVED = path.join(__dirname, 'fixtures', 'python', 'peers_served.py');
  let worker;
  beforeAll(async () => {
    if (!VENV.versions.jax && !VENV.versions.paddle) return;
    worker = dl.python.spawn(PEERS_SERVED, { python: VENV.python, stderr: 'ignore' });
    await worker.ready;
  });
  afterAll(async () => { if (worker) expect(await worker.close()).toBe(0); });

  VENV.itJax('jax.dlpack.from_dlpack reads the segment in place; its result comes back copied once', async () => {
    const x = shared([1, 2, 3], 'float64');
    const [y, inPlace] = await worker.call('jax_scale', x, 3);
    expect(inPlace).toBe(true);
    expect([y.dtype, y.toArray()]).toEqual(['float64', [3, 6, 9]]);
    expect(y.share().name).not.toBe(x.share().name);
    expect(x.toArray()).toEqual([1, 2, 3]);
    y.dispose();
    x.dispose();
  });

  VENV.itPaddle('paddle.utils.dlpack.from_dlpack reads the segment in place; its in-place write is Node\'s', async () => {
    const x = shared([1, 2, 3, 4]);
    expect(await worker.call('paddle_scale_', x, 0.5)).toBe(true);
    expect(x.toArray()).toEqual([0.5, 1, 1.5, 2]);
    x.dispose();
  });
});

describe('Python workers that die or misbehave', () => {
  itPython('death mid-call rejects at once with ERR_DLPACK_WORKER_EXITED; inputs stay usable', async () => {
    // Segments an earlier test let go of may still be mapped here until their owners are collected:
    // the test checks that nothing it made is left, not that the process holds exactly what it held.
    const before = heldSegments();
    const w = start();
    const x = shared([1, 2]);
    const segment = x.share().name;
    const error = await w.call('die', x).catch((e) => e);
    expect(error.code).toBe('ERR_DLPACK_WORKER_EXITED');
    expect(error.message).toMatch(/was killed by SIGKILL while a call was in flight/);
    const later = await w.call('describe', x, 0).catch((e) => e);
    expect(later.code).toBe('ERR_DLPACK_WORKER_EXITED');
    expect(later.message).toMatch(/was killed by SIGKILL before this call$/);
    expect(x.toArray()).toEqual([1, 2]);
    x.dispose();
    const after = heldSegments();
    expect(after).not.toContain(segment);
    expect(after.filter((name) => !before.includes(name))).toEqual([]);
  });

  itPython('a script that fails before serving rejects its calls with the exit code', async () => {
    const w = dl.python.spawn('-c', { python: PYTHON, args: ['import sys; sys.exit(3)'] });
    const error = await w.call('anything').catch((e) => e);
    expect(error.code).toBe('ERR_DLPACK_WORKER_EXITED');
    expect(error.message).toMatch(/exited with code 3 before it was ready/);
    await expect(w.ready).rejects.toBe(error);
  });

  test('a worker that dies before it is ready names its interpreter and the end of its standard error', async () => {
    const script = 'import sys; sys.stderr.write("line one\\nModuleNotFoundError: no numpy here\\n"); sys.exit(3)';
    const w = dl.python.spawn('-c', { python: PYTHON, args: [script], stderr: 'pipe' });
    const error = await w.ready.catch((e) => e);
    expect(error.code).toBe('ERR_DLPACK_WORKER_EXITED');
    expect(error.message).toContain(`(pid ${w.pid}, ${PYTHON}) exited with code 3 before it was ready`);
    expect(error.message).toMatch(/standard error:\nline one\nModuleNotFoundError: no numpy here$/);
  });

  itPython("stderr: 'pipe' is read as the worker writes, and exposed as a stream", async () => {
    const w = dl.python.spawn(SERVED, { python: PYTHON, stderr: 'pipe' });
    let seen = 0;
    w.stderr.on('data', (chunk) => { seen += chunk.length; });
    expect(await w.call('chatty', 1 << 20)).toBe(1 << 20); // before: the worker blocked on a full pipe
    expect(await w.close()).toBe(0);
    expect(seen).toBeGreaterThan(1 << 20);
  });

  test('a worker whose own child holds its pipes open still reports its exit', async () => {
    // The grandchild inherits stdout and stderr and outlives the worker by 20 s.
    const script = 'import subprocess, sys; subprocess.Popen(["sleep", "20"]); sys.exit(4)';
    const w = dl.python.spawn('-c', { python: PYTHON, args: [script], stderr: 'pipe' });
    const error = await w.ready.catch((e) => e);
    expect(error.message).toMatch(/exited with code 4 before it was ready/);
    expect(await w.closed).toBe(4);
  });

  itPython('a script that writes into the protocol is stopped with ERR_DLPACK_WORKER_PROTOCOL', async () => {
    const script = 'print("hello"); from dlpack_node import worker; worker.serve(print)';
    const w = dl.python.spawn('-c', { python: PYTHON, args: [script] });
    const error = await w.call('print').catch((e) => e);
    expect(error.code).toBe('ERR_DLPACK_WORKER_PROTOCOL');
    expect(error.message).toMatch(/a line that is not JSON: "hello"/);
    await w.closed;
  });

  test('a Python that cannot be started rejects with the system error', async () => {
    const w = dl.python.spawn('worker.py', { python: '/nonexistent/python3' });
    const error = await w.call('x').catch((e) => e);
    expect(error.code).toBe('ENOENT');
  });

  itPython('an idle worker does not keep Node running, and ends when Node does', () => {
    const script = `
      const dl = require(${JSON.stringify(path.join(__dirname, '..', 'lib'))});
      const w = dl.python.spawn(${JSON.stringify(SERVED)}, { python: ${JSON.stringify(PYTHON)} });
      w.call('made_here', 2).then((t) => console.log(w.pid, t.toArray().join(',')));`;
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30000 });
    const [pid, values] = out.trim().split(' ');
    expect(values).toBe('0,1');
    expect(gone(Number(pid))).toBe(true);
  });
});

describe('Python workers that write anything but the protocol', () => {
  const FORGER = path.join(__dirname, 'fixtures', 'python', 'forger.py');
  const READY = '{"ready": {"methods": ["f"], "pid": {pid}, "like": "numpy"}}';
  // Each line is refused with ERR_DLPACK_WORKER_PROTOCOL, the worker is
  // stopped, and this process goes on (before, 6 of the 7 first lines threw
  // TypeError out of an event handler).
  const expectProtocolError = async (args, call, pattern) => {
    const w = dl.python.spawn(FORGER, { python: PYTHON, args, stderr: 'ignore' });
    const error = await (call ? w.ready.then(() => w.call('f')) : w.ready).catch((e) => e);
    expect(error.code).toBe('ERR_DLPACK_WORKER_PROTOCOL');
    expect(error.message).toMatch(pattern);
    expect(await w.closed).toBe(null); // SIGKILL
    expect((await w.call('f').catch((e) => e)).code).toBe('ERR_DLPACK_WORKER_PROTOCOL');
  };

  itPython('both sides hold the same line limit', () => {
    const out = execFileSync(PYTHON, ['-c', 'from dlpack_node import worker; print(worker.MAX_LINE)'],
      { encoding: 'utf8', timeout: 30000, env: { ...process.env, PYTHONPATH: dl.pythonPath } });
    expect(Number(out)).toBe(MAX_LINE);
  });

  test.each(['null', '0', 'false', '""', '[]', '{"ready":1}', '{"ready":{"methods":null}}',
    '{"ready":{"methods":["f"],"pid":1.5,"like":"numpy"}}', '{"id":1,"results":[],"many":false}'])(
    'a line %s where the ready message belongs', (line) => expectProtocolError([line], false, /ready message/));

  test('a line longer than MAX_LINE bytes is refused without being read whole', async () => {
    await expectProtocolError([`overlong:${MAX_LINE + 1}`], false, new RegExp(`longer than ${MAX_LINE} bytes`));
  });

  test.each([
    ['null', /not an answer/],
    ['{"id":2,"results":[{"value":1}],"many":false}', /no call in flight/],
    ['{"id":"1","results":[{"value":1}],"many":false}', /no call in flight/],
    ['{"id":1}', /malformed answer/],
    ['{"id":1,"results":[],"many":false}', /malformed answer/],
    ['{"id":1,"results":[{"value":1}],"many":"no"}', /malformed answer/],
    ['{"id":1,"error":null}', /malformed error answer/],
    ['{"id":1,"error":{"type":"E","message":1,"traceback":""}}', /malformed error answer/],
    ['{"id":1,"results":[5],"many":false}', /not \{tensor\} or \{value\}/],
    ['{"id":1,"results":[{"value":1,"tensor":{}}],"many":true}', /not \{tensor\} or \{value\}/],
    // A 'local' descriptor names memory of this process, not of the worker.
    ['{"id":1,"results":[{"tensor":{"kind":"local","id":1,"pid":{pid}}}],"many":false}', /of kind "local"/],
  ])('an answer %s', (answer, pattern) => expectProtocolError([READY, answer], true, pattern));

  test("a 'shm' answer naming this process's memory, not the worker's", async () => {
    const mine = dl.empty([4], { shared: true });
    const answer = JSON.stringify({ id: 1, results: [{ tensor: mine.share() }], many: false });
    await expectProtocolError([READY, answer], true, new RegExp(`in the memory of pid ${process.pid}`));
    mine.dispose();
  });

  test('a well-formed forged answer resolves (the forger itself is a fair peer)', async () => {
    const w = dl.python.spawn(FORGER, { python: PYTHON, args: [READY, '{"id":1,"results":[{"value":[1]}],"many":false}'] });
    expect(await w.call('f')).toEqual([1]);
    expect(await w.close()).toBe(0);
  });
});

describe('Python workers and the Node process', () => {
  const LIB = JSON.stringify(path.join(__dirname, '..', 'lib'));
  const node = (script, shell = null) => spawnSync(shell ? '/bin/sh' : process.execPath,
    shell ? ['-c', `${shell}; exec "$0" -e "$1"`, process.execPath, script] : ['-e', script],
    { encoding: 'utf8', timeout: 30000 });

  itPython('kill() then await closed runs the rest of the function', () => {
    const result = node(`
      const dl = require(${LIB});
      (async () => {
        const w = dl.python.spawn(${JSON.stringify(SERVED)}, { python: ${JSON.stringify(PYTHON)} });
        await w.ready;
        w.kill();
        console.log('closed', await w.closed, w.signal);
      })();`);
    expect(result.stdout.trim()).toBe('closed null SIGTERM');
  });

  // Before, the worker ran on under init, with the call's segments mapped.
  itPython.each([
    ['process.exit()', 'process.exit(0)'],
    ['an uncaught exception', 'throw new Error("boom")'],
    ['SIGTERM', 'process.kill(process.pid, "SIGTERM")'],
    ['SIGKILL', 'process.kill(process.pid, "SIGKILL")'],
  ])('a worker mid-call dies with its Node: %s', (how, end) => {
    const result = node(`
      const dl = require(${LIB});
      const w = dl.python.spawn(${JSON.stringify(SERVED)}, { python: ${JSON.stringify(PYTHON)} });
      w.ready.then(() => {
        w.call('slow', 60);
        setTimeout(() => { console.log(w.pid); ${end}; }, 300);
      });`);
    const pid = Number(result.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    expect(gone(pid)).toBe(true);
  });

  test('spawn with the descriptor table full rejects with EMFILE, and closed settles', () => {
    const result = node(`
      const fs = require('fs');
      const dl = require(${LIB});
      const fds = [];
      try { for (;;) fds.push(fs.openSync('/dev/null', 'r')); } catch (e) { if (e.code !== 'EMFILE') throw e; }
      const w = dl.python.spawn('worker.py', { python: ${JSON.stringify(PYTHON)} });
      w.ready.catch(async (e) => {
        for (const fd of fds) fs.closeSync(fd);
        console.log(e.code, (await w.call('f').catch((x) => x)).code, await w.closed);
      });`, 'ulimit -n 64');
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('EMFILE EMFILE null');
  });
});
