'use strict';
// docs/errors.md, the I rows: fromDLPack. One test per row;
// test/bad-input/rows.js ties them to the table.
const path = require('path');
const dl = require('../../lib');
const { area, leakFree, foreign, adopt, onlyNoDevice } = require('./rows');
const { consumer } = require('../helpers');
const { slabState } = require('../../lib/struct_slab');

const { row } = area(__filename);

describe('fromDLPack', () => {
  row('I01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const x of [null, undefined, 5, 'capsule', {}, { __dlpack__: 1 }, new ArrayBuffer(4)]) {
      throws(() => dl.fromDLPack(x), /for `x`/);
      throws(() => dl.from_dlpack(x), /for `x`/);
    }
  });

  row('I02', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await leakFree(() => {
      for (const result of [5, null, {}, dl.tensor([1])]) {
        throws(() => dl.fromDLPack({ __dlpack__: () => result }), /for `x.__dlpack__\(\)`/);
      }
    });
  });

  row('I03', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await leakFree(() => {
      const c = adopt(foreign());
      throws(() => dl.fromDLPack(c, 3), /for `options`/);
      throws(() => dl.fromDLPack(c, null), /for `options`/);
      throws(() => dl.fromDLPack(c, { copy: 1 }), /for `copy`/);
      throws(() => dl.fromDLPack(c, { copy: 'false' }), /for `copy`/);
      expect(c.consumed).toBe(false);
      dl.fromDLPack(c).dispose();
    });
  });

  row('I04', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const c = adopt(foreign());
      throws(() => dl.fromDLPack(c, { device: 'tpu' }), /for `device`/);
      throws(() => dl.fromDLPack(c, { device: 'gpu:0' }), /for `device`/);
      expect(c.consumed).toBe(false);
      dl.fromDLPack(c).dispose();
    });
  });

  // A capsule of each kind on `device`: ours (from __dlpack__) and a producer's.
  const capsules = (deviceType = 1) => {
    const ptr = foreign({ deviceType });
    const ours = dl.fromDLPack(adopt(foreign({ deviceType })));
    return [adopt(ptr), ours.__dlpack__({ stream: deviceType === 2 ? -1 : undefined }), ours];
  };

  row('I05', dl.DLPackError, 'ERR_DLPACK_COPY_REQUIRED', async (throws) => {
    await leakFree(() => {
      const [theirs, ours, source] = capsules(3); // pinned host memory
      for (const c of [theirs, ours]) {
        throws(() => dl.fromDLPack(c, { device: 'cpu', copy: false }), /cuda_host -> cpu needs one/);
        throws(() => dl.fromDLPack(c, { device: 'cuda:0', copy: false }), /cuda_host -> cuda:0/);
        expect(c.consumed).toBe(false);
        const t = dl.fromDLPack(c, { device: 'cuda_host', copy: false }); // where it is: fine
        expect(t.isCopy).toBe(false);
        t.dispose();
      }
      source.dispose();
      throws(() => dl.fromDLPack(dl.tensor([1]), { device: 'cuda_host', copy: false }), /cpu -> cuda_host/);
    });
  });

  row('I06', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', async (throws) => {
    await leakFree(() => {
      const [theirs, ours, source] = capsules(1);
      for (const c of [theirs, ours]) {
        throws(() => dl.fromDLPack(c, { device: 'cuda' }), /cpu to cuda:0/);
        throws(() => dl.fromDLPack(c, { device: 'cuda_managed', copy: true }), /cpu to cuda_managed/);
        expect(c.consumed).toBe(false);
        dl.fromDLPack(c, { device: 'cpu', copy: true }).dispose();
      }
      source.dispose();
      const [pinned, pinnedOurs, pinnedSource] = capsules(3);
      for (const c of [pinned, pinnedOurs]) {
        throws(() => dl.fromDLPack(c, { device: 'cuda_managed' }), /cuda_host to cuda_managed/);
        const host = dl.fromDLPack(c, { device: 'cpu' }); // host to host: no CUDA needed
        expect(host.isCopy).toBe(true);
        host.dispose();
      }
      pinnedSource.dispose();
    });
  }, onlyNoDevice);

  row('I07', dl.DLPackError, 'ERR_DLPACK_DISPOSED', (throws) => {
    const t = dl.tensor([1]);
    t.dispose();
    throws(() => dl.fromDLPack(t), /disposed/);
  });

  // A worker exports a tensor over its own JS memory with toPointer() and
  // either waits (until `release` is called) or exits at once.
  const workerStruct = async (wait) => {
    const { Worker } = require('worker_threads');
    const worker = new Worker(`
      const { parentPort, workerData } = require('worker_threads');
      const dl = require(workerData.lib);
      parentPort.postMessage(dl.tensor([1, 2, 3]).__dlpack__().toPointer());
      if (workerData.wait) parentPort.once('message', () => process.exit(0));`,
    { eval: true, workerData: { lib: path.join(__dirname, '..', '..', 'lib'), wait } });
    // Listen for 'exit' first: a worker that ends at once has its message drained and
    // 'exit' emitted in one turn, before an await on the message could add a listener.
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    const pointer = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    if (!wait) await exited;
    return { capsule: adopt(pointer), release: () => { worker.postMessage('exit'); return exited; } };
  };

  row('I08', dl.DLPackError, 'ERR_DLPACK_COPY_REQUIRED', async (throws) => {
    await leakFree(async () => {
      const { capsule, release } = await workerStruct(true);
      throws(() => dl.fromDLPack(capsule, { copy: false }), /another thread's JavaScript memory/);
      expect(capsule.consumed).toBe(false);
      const t = dl.fromDLPack(capsule); // copies allowed: a copy
      expect([t.isCopy, t.toArray()]).toEqual([true, [1, 2, 3]]);
      t.dispose();
      await release();
    });
  });

  // (The process warning the worker's end raises: threads.test.js, outside Jest's sandboxed `process`.)
  row('I09', dl.DLPackError, 'ERR_DLPACK_DETACHED', async (throws) => {
    await leakFree(async () => {
      const { capsule } = await workerStruct(false);
      throws(() => dl.fromDLPack(capsule), /thread that has ended/);
      expect(capsule.consumed).toBe(false);
      capsule.dispose(); // the deleter still runs, and touches nothing of the ended thread
    });
  });

  // Issue 20, MEDIUM 5: before, it became native memory over this thread's JS heap
  // (a zero-copy view that a 'local' share could hand to a thread outliving this one).
  row('I10', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', async (throws) => {
    await leakFree(() => {
      const p = dl.tensor([1, 2, 3]).__dlpack__().toPointer();
      consumer.poke(p, 24, 1); // the flags word: READ_ONLY, still a valid struct
      const capsule = adopt(p);
      throws(() => dl.fromDLPack(capsule), /changed since/);
      throws(() => dl.fromDLPack(capsule, { copy: false }), /changed since/);
      expect(capsule.consumed).toBe(false);
      capsule.dispose();
    });
  }, slabState() === null ? 'this runtime has no struct slab (lib/struct_slab.js)' : null);
});
