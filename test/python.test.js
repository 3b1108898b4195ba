'use strict';
// Node <-> Python through shared memory (docs/API.md "Sharing", python/FORMAT.md):
// a real /usr/bin/python3 with Debian's NumPy and PyTorch opens what Node
// shares and shares back; each side writes what the other reads.
const { spawnSync } = require('child_process');
const dl = require('../lib');

const { PYTHON, startPython, segmentHolders } = require('./helpers');
const probe = (code) => spawnSync(PYTHON, ['-c', code], { encoding: 'utf8' }).status === 0;
const hasNumpy = probe('import numpy');
const hasTorch = hasNumpy && probe('import torch');
if (!hasNumpy) console.log(`Python interop tests skipped: ${PYTHON} cannot import numpy`);
if (hasNumpy && !hasTorch) console.log(`PyTorch interop tests skipped: ${PYTHON} cannot import torch`);
const itPython = hasNumpy ? test : test.skip;
const itTorch = hasTorch ? test : test.skip;


describe('Python worker process', () => {
  let py;
  beforeAll(() => { if (hasNumpy) py = startPython(); });
  afterAll(async () => { if (py) await py.stop(); });

  itPython('NumPy opens a Node tensor zero-copy; writes go both ways', async () => {
    const t = dl.empty([2, 3], { dtype: 'float64', shared: true });
    t.copyFrom([[1, 2, 3], [4, 5, 6]]);
    const opened = await py.ask({ op: 'open', descriptor: t.share() });
    expect(opened).toMatchObject({ dtype: 'float64', shape: [2, 3], sum: 21 });
    await py.ask({ op: 'fill', id: opened.id, values: [10, 20, 30, 40, 50, 60] });
    expect(t.toArray()).toEqual([[10, 20, 30], [40, 50, 60]]);
    t.data[0] = -1;
    expect((await py.ask({ op: 'read', id: opened.id })).values[0]).toBe(-1);
    expect(await py.ask({ op: 'stats' })).toMatchObject({ arrays: 1, mappings: 0, deferred: 0, holders: [] });
    await py.ask({ op: 'release', id: opened.id });
    expect(await py.ask({ op: 'stats' })).toMatchObject({ arrays: 0 });
    t.dispose();
  });

  itPython('dtypes, shapes, strides and offsets survive the trip both ways', async () => {
    const cases = [
      ['int8', [2, 2]], ['uint16', [3]], ['int32', [2, 1, 2]], ['int64', [2]], ['uint64', [1]],
      ['float16', [4]], ['float32', [2, 2]], ['bool', [3]], ['complex64', [2]], ['complex128', [1, 2]],
    ];
    for (const [dtype, shape] of cases) {
      const made = await py.ask({ op: 'empty', shape, dtype });
      const t = dl.open(made.descriptor);
      expect([t.dtype, t.shape]).toEqual([dtype, shape]);
      expect(t.strides).toEqual(made.descriptor.strides);
      const n = t.size;
      const values = Array.from({ length: n }, (_, i) => (dtype === 'bool' ? i % 2 === 1
        : dtype.startsWith('complex') ? [i, -i] : i + 1));
      t.copyFrom(dl.tensor(values, { dtype, shape }));
      const read = await py.ask({ op: 'read', id: made.id });
      const expected = values.map((v) => (Array.isArray(v) ? v : typeof v === 'boolean' ? v : Number(v)));
      expect(read.values).toEqual(expected);
      t.dispose();
      await py.ask({ op: 'release', id: made.id });
    }
  });

  itPython('a strided view with a negative stride and an offset opens as the same view', async () => {
    const t = dl.empty([8], { dtype: 'int32', shared: true });
    t.copyFrom([0, 1, 2, 3, 4, 5, 6, 7]);
    const d = { ...t.share(), byteOffset: 28, shape: [4], strides: [-2] }; // [7, 5, 3, 1]
    const opened = await py.ask({ op: 'open', descriptor: d });
    expect(opened).toMatchObject({ shape: [4], strides: [-2], sum: 16 });
    expect((await py.ask({ op: 'read', id: opened.id })).values).toEqual([7, 5, 3, 1]);
    const back = await py.ask({ op: 'share', id: opened.id });
    expect(back.descriptor).toMatchObject({ name: d.name, pid: py.child.pid, byteOffset: 28, shape: [4],
      strides: [-2] });
    expect(dl.open(back.descriptor).toArray()).toEqual([7, 5, 3, 1]);
    await py.ask({ op: 'release', id: opened.id });
    t.dispose();
  });

  itPython('a tensor moved by shareMemory(), and views of a shared tensor, open as the same memory', async () => {
    const t = dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'float64' }).shareMemory();
    const views = [[t, [1, 2, 3, 4, 5, 6]], [t.permute(1, 0), [1, 4, 2, 5, 3, 6]], [t.slice(1, 0, 3, 2), [1, 3, 4, 6]],
      [t.select(0, 1), [4, 5, 6]], [dl.fromBuffer(t.buffer, { dtype: 'float64', offset: 8, count: 2 }), [2, 3]]];
    for (const [view, values] of views) {
      const opened = await py.ask({ op: 'open', descriptor: view.share() });
      expect((await py.ask({ op: 'read', id: opened.id })).values.flat()).toEqual(values);
      await py.ask({ op: 'release', id: opened.id });
    }
    const opened = await py.ask({ op: 'open', descriptor: t.share() });
    await py.ask({ op: 'fill', id: opened.id, values: [6, 5, 4, 3, 2, 1] });
    expect(t.permute(1, 0).toArray()).toEqual([[6, 3], [5, 2], [4, 1]]);
    await py.ask({ op: 'release', id: opened.id });
    t.dispose();
  });

  itTorch('PyTorch opens the same memory as a torch tensor', async () => {
    const t = dl.empty([4], { dtype: 'float32', shared: true });
    t.copyFrom([1, 2, 3, 4]);
    const opened = await py.ask({ op: 'open', descriptor: t.share(), like: 'torch' });
    expect(opened).toMatchObject({ dtype: 'float32', shape: [4], sum: 10 });
    await py.ask({ op: 'fill', id: opened.id, value: 2.5 });
    expect(Array.from(t.data)).toEqual([2.5, 2.5, 2.5, 2.5]);
    const made = await py.ask({ op: 'empty', shape: [2], dtype: 'bfloat16', like: 'torch' });
    const b = dl.open(made.descriptor);
    b.copyFrom([1.5, -2]);
    expect((await py.ask({ op: 'read', id: made.id })).values).toEqual([1.5, -2]);
    b.dispose();
    await py.ask({ op: 'release', id: made.id });
    await py.ask({ op: 'release', id: opened.id });
    t.dispose();
  });

  itPython('a segment Python made outlives Python, and goes when Node lets go', async () => {
    const other = startPython();
    const made = await other.ask({ op: 'empty', shape: [3], dtype: 'int16' });
    await other.ask({ op: 'fill', id: made.id, values: [7, 8, 9] });
    const t = dl.open(made.descriptor);
    await other.stop();
    expect(segmentHolders(made.descriptor.name)).toEqual([process.pid]);
    expect(t.toArray()).toEqual([7, 8, 9]);
    t.dispose();
    expect(segmentHolders(made.descriptor.name)).toEqual([]);
  });

  itPython('a Python process killed while attached does not keep the segment', async () => {
    const other = startPython();
    const t = dl.empty([2], { dtype: 'float32', shared: true });
    const name = t.share().name;
    await other.ask({ op: 'open', descriptor: t.share() });
    expect(segmentHolders(name)).toContain(other.child.pid);
    other.child.kill('SIGKILL');
    await new Promise((resolve) => other.child.on('exit', resolve));
    t.dispose();
    expect(segmentHolders(name)).toEqual([]);
  });
});
