'use strict';
// dl.python.spawn() and python/dlpack_node/worker.py (docs/python.md "Workers"):
// a real Python serves functions; tensors go both ways over shared memory.
const path = require('path');
const { spawnSync, execFileSync } = require('child_process');
const dl = require('../lib');
const { PYTHON, heldSegments, collect } = require('./helpers');

const probe = (code) => spawnSync(PYTHON, ['-c', code], { encoding: 'utf8' }).status === 0;
const hasNumpy = probe('import numpy');
const hasTorch = hasNumpy && probe('import torch');
if (!hasNumpy) console.log(`Python worker tests skipped: ${PYTHON} cannot import numpy`);
if (hasNumpy && !hasTorch) console.log(`Python worker torch test skipped: ${PYTHON} cannot import torch`);
const itPython = hasNumpy ? test : test.skip;
const itTorch = hasTorch ? test : test.skip;

const SERVED = path.join(__dirname, 'fixtures', 'python', 'served.py');
const start = (args = []) => dl.python.spawn(SERVED, { python: PYTHON, args, stderr: 'ignore' });
const shared = (values, dtype = 'float32') => {
  const t = dl.empty([values.length], { dtype, shared: true });
  t.copyFrom(values);
  return t;
};

describe('Python workers', () => {
  let worker;
  beforeAll(async () => {
    if (!hasNumpy) return;
    worker = start();
    await worker.ready;
  });
  afterAll(async () => { if (worker) expect(await worker.close()).toBe(0); });

  itPython('the worker says which functions it serves', () => {
    expect(worker.methods).toEqual(
      ['add', 'describe', 'die', 'double', 'every_other', 'fail', 'made_here', 'slow', 'torch_kind']);
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
  });

  itTorch("serve(like='torch') hands torch tensors to the functions", async () => {
    const w = start(['torch']);
    expect(await w.call('torch_kind', shared([1]))).toBe('torch');
    const y = await w.call('add', shared([1, 2]), shared([3, 4]));
    expect(y.toArray()).toEqual([4, 6]);
    y.dispose();
    expect(await w.close()).toBe(0);
  });
});

describe('Python workers that die or misbehave', () => {
  itPython('death mid-call rejects at once with ERR_DLPACK_WORKER_EXITED; inputs stay usable', async () => {
    const before = heldSegments();
    const w = start();
    const x = shared([1, 2]);
    const error = await w.call('die', x).catch((e) => e);
    expect(error.code).toBe('ERR_DLPACK_WORKER_EXITED');
    expect(error.message).toMatch(/was killed by SIGKILL while a call was in flight/);
    expect((await w.call('describe', x, 0).catch((e) => e)).code).toBe('ERR_DLPACK_WORKER_EXITED');
    expect(x.toArray()).toEqual([1, 2]);
    x.dispose();
    expect(heldSegments()).toEqual(before);
  });

  itPython('a script that fails before serving rejects its calls with the exit code', async () => {
    const w = dl.python.spawn('-c', { python: PYTHON, args: ['import sys; sys.exit(3)'] });
    const error = await w.call('anything').catch((e) => e);
    expect(error.code).toBe('ERR_DLPACK_WORKER_EXITED');
    expect(error.message).toMatch(/exited with code 3 before it was ready/);
    await expect(w.ready).rejects.toBe(error);
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
    const deadline = Date.now() + 10000;
    let alive = true;
    while (alive && Date.now() < deadline) {
      try { process.kill(Number(pid), 0); spawnSync('sleep', ['0.05']); } catch { alive = false; }
    }
    expect(alive).toBe(false);
  });
});
