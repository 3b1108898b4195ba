'use strict';
// What test/peers.test.js checks of each peer (test/peers/table.js), run by
// test/peers/child.js in a process of the peer's own, with its Python embedded.
// checksFor(peer) is a list of { name, fn(ctx), alone }: the names are what
// Jest shows, so they are known without Python; `alone` runs in a process of
// its own (it ends the process). ctx is child.js's.
//
// Both ways, each check proves what the issue asks (issue 42): the memory is
// the same (the addresses agree, and a write on one side is read on the
// other), the deleter runs exactly once on the side that owns it (counted by
// test/native/embed_python.cc's counting deleter, and where the peer shows
// one, by its own reference count), flags and dtypes arrive as they left, and
// where a peer differs from the DLPack Python specification its behaviour is
// pinned with its version.
const { expect } = require('expect');
const { KEYWORDS } = require('./table');

// The values peers.values() makes, as tensor.toArray() gives them.
function valuesOf(dtype, count) {
  return Array.from({ length: count }, (_, i) => {
    if (dtype === 'bool') return i % 3 === 0;
    const v = dtype.startsWith('uint') ? (i * 5) % 13 : (i * 5) % 13 - 6;
    if (dtype.startsWith('complex')) return [v, v / 2];
    return dtype.endsWith('int64') ? BigInt(v) : v;
  });
}

const q = JSON.stringify; // a Python str literal of a JS string
const first = (message) => message.split('\n')[0];

// A tensor of ours over `shape` with peers.values(): in a shared segment
// (page-aligned) when `aligned`, else in JavaScript memory.
function ourTensor(dl, dtype, shape, aligned = false) {
  const n = shape.reduce((a, b) => a * b, 1);
  const t = aligned ? dl.empty(shape, { dtype, shared: true }) : dl.empty(shape, { dtype });
  if (n > 0) t.copyFrom(dl.tensor(valuesOf(dtype, n), { dtype }).reshape(shape));
  return t;
}

// The check that `statement` raises in Python, with a message matching `pattern`.
function raises(py, statement, pattern) {
  let error = null;
  try {
    py.exec(statement);
  } catch (e) {
    error = e;
  }
  expect(error).not.toBeNull();
  expect(`${error.pythonType}: ${error.message}`).toMatch(pattern);
  return error;
}

// Every struct of ours the Ours object `x` handed out has had its deleter called once.
function deletedOnce(ctx, x) {
  const pointers = ctx.py.eval(`${x}.pointers`);
  expect(pointers.map((p) => ctx.calls(p))).toEqual(pointers.map(() => 1));
}

function checksFor(peer) {
  const list = [];
  const add = (name, fn, options = {}) => list.push({ name, fn, ...options });
  const aligned = peer.align > 1; // memory the peer imports without a copy
  const request = (kw) => Object.keys(kw).length === 0 ? 'no keywords' : JSON.stringify(kw).replace(/"/g, '');
  const exportName = Object.keys(peer.exports).find((e) => peer.exports[e] === 'versioned') ||
    Object.keys(peer.exports)[0];

  add(`is ${peer.label} ${peer.version}`, ({ py }) => {
    expect(py.eval('peer.version')).toBe(peer.version);
  });

  // --- our structs, read by the peer -------------------------------------------------

  const struct = peer.request.max_version ? 'versioned' : 'legacy';
  add(`${peer.consumer} reads our tensor: it asks with ${request(peer.request)}, gets a ${struct} struct over ` +
    'the same memory, ' +
    (peer.importsWritable ? 'and a write on either side is read on the other' :
      `read-only to it (${peer.label} ${peer.version}), and our writes are read there`), async (ctx) => {
    const { py, dl } = ctx;
    const t = ourTensor(dl, 'float32', [2, 3], true);
    const x = ctx.ours(t);
    py.exec(`y = peer.consume(${x})`);
    expect(py.eval(`${x}.requests`)).toEqual([peer.request]);
    expect(py.eval(`${x}.structs`)).toEqual([struct]);
    expect(py.eval('peer.address(y)')).toBe(ctx.address(t));
    expect(py.eval('peer.tolist(y)')).toEqual(t.toArray());
    t.data[1] = 42;
    expect(py.eval('peer.tolist(y)')[0][1]).toBe(42);
    expect(py.eval('peer.read_only(y)')).toBe(!peer.importsWritable);
    if (peer.importsWritable) {
      py.exec('peer.write(y, [1, 2], -7)');
      expect(t.toArray()[1][2]).toBe(-7);
    }
    expect(ctx.calls(py.eval(`${x}.pointers[0]`))).toBe(0);
  });

  for (const kind of ['versioned', 'legacy']) {
    const takes = peer.capsule[kind] === true;
    add(`${peer.consumer} ${takes ? 'takes' : 'refuses'} a bare ${kind} capsule of ours, ` +
      'and our deleter runs once', async (ctx) => {
      const { py, dl } = ctx;
      const t = ourTensor(dl, 'float32', [4], aligned);
      const p = t.__dlpack__({ maxVersion: kind === 'versioned' ? [1, 0] : [0, 0] }).toPointer();
      py.exec(`cap = peers.capsule(${p}, ${kind === 'versioned' ? 'True' : 'False'})`);
      if (takes) {
        py.exec('y = peer.consume(cap)');
        expect(py.eval('repr(cap)')).toMatch(kind === 'versioned' ? /"used_dltensor_versioned"/ : /"used_dltensor"/);
        expect(py.eval('peer.tolist(y)')).toEqual(t.toArray());
        expect(ctx.calls(p)).toBe(0);
        py.exec('del y');
      } else {
        raises(py, 'peer.consume(cap)', peer.capsule[kind]);
        expect(py.eval('repr(cap)')).toMatch(kind === 'versioned' ? /"dltensor_versioned"/ : /"dltensor"/);
      }
      py.exec('del cap\ngc.collect()');
      expect(ctx.calls(p)).toBe(1);
    });
  }

  for (const dtype of peer.consumes) {
    add(`${peer.consumer} reads our ${dtype} byte for byte, without a copy`, async (ctx) => {
      const { py, dl } = ctx;
      const t = ourTensor(dl, dtype, [2, 3], true);
      const x = ctx.ours(t);
      py.exec(`y = peer.consume(${x})`);
      expect(py.eval('peer.dtype(y)')).toBe(dtype);
      expect(py.eval('peer.raw(y)')).toEqual(ctx.bytes(t));
      expect(py.eval('peer.address(y)')).toBe(ctx.address(t));
      py.exec('del y');
      await ctx.collect();
      deletedOnce(ctx, x);
    });
  }
  for (const [dtype, what] of Object.entries(peer.consumeOther)) {
    const as = what instanceof RegExp ? null : what.as;
    add(`${peer.consumer} ${as ? `reads our ${dtype} as its ${as} (${peer.label} ${peer.version})` :
      `refuses our ${dtype} (${what.source})`}, and our deleter runs once`, async (ctx) => {
      const { py, dl } = ctx;
      const t = ourTensor(dl, dtype, [3], true);
      const x = ctx.ours(t);
      if (as) {
        py.exec(`y = peer.consume(${x})`);
        expect(py.eval('peer.dtype(y)')).toBe(as);
        expect(py.eval('peer.raw(y)')).toEqual(ctx.bytes(t)); // the same bits, read as another type
        py.exec('del y');
      } else {
        raises(py, `peer.consume(${x})`, what);
      }
      await ctx.collect();
      deletedOnce(ctx, x);
    });
  }

  add(`${peer.consumer} reads our 0-d and empty tensors` + (peer.emptyDeleted ? '' :
    `, and never calls the deleter of the empty one, whose data is NULL (${peer.label} ${peer.version})`),
  async (ctx) => {
    const { py, dl } = ctx;
    const scalar = dl.tensor(-5, { dtype: 'float64' });
    const empty = dl.empty([0, 3], { dtype: 'int32' });
    const [s, e] = [ctx.ours(scalar), ctx.ours(empty)];
    py.exec(`ys = peer.consume(${s})\nye = peer.consume(${e})`);
    expect([py.eval('peer.shape(ys)'), py.eval('peer.tolist(ys)')]).toEqual([[], -5]);
    expect([py.eval('peer.shape(ye)'), py.eval('peer.dtype(ye)')]).toEqual([[0, 3], 'int32']);
    py.exec('del ys, ye');
    await ctx.collect();
    deletedOnce(ctx, s);
    if (peer.emptyDeleted) deletedOnce(ctx, e);
    else expect(ctx.calls(py.eval(`${e}.pointers[0]`))).toBe(0);
  });

  const views = {
    transposed: (t) => t.permute([1, 0]),
    stepped: (t) => t.slice(1, null, null, 2),
    reversed: (t) => t.slice(0, null, null, -1),
  };
  for (const [how, does] of Object.entries(peer.views)) {
    if (does === 'misreads') continue; // reads other memory: docs/python.md says so, nothing runs it
    const run = async (ctx) => {
      const { py, dl } = ctx;
      const base = ourTensor(dl, 'float32', [2, 3], true);
      const view = views[how](base);
      const x = ctx.ours(view);
      if (does === 'reads') {
        py.exec(`y = peer.consume(${x})`);
        expect(py.eval('peer.shape(y)')).toEqual([...view.shape]);
        expect(py.eval('peer.tolist(y)')).toEqual(view.toArray());
        expect(py.eval('peer.address(y)')).toBe(ctx.address(base) + view.byteOffset);
        py.exec('del y');
      } else if (does === 'aborts') {
        py.exec(`peer.consume(${x})`); // never returns
      } else {
        raises(py, `peer.consume(${x})`, does);
      }
      await ctx.collect();
      deletedOnce(ctx, x);
    };
    const strides = { transposed: 'transposed', stepped: 'a step of 2', reversed: 'a negative stride' }[how];
    if (does === 'aborts') {
      add(`${peer.consumer} aborts the process on our view with ${strides} (${peer.label} ${peer.version})`, run,
        { alone: true, aborts: /Storage size calculation overflowed/ });
    } else {
      add(`${peer.consumer} ${does === 'reads' ? 'reads' : `refuses (${does.source})`} our view with ${strides}` +
        (does === 'reads' ? ' in place' : ''), run);
    }
  }

  add(`${peer.consumer} reads our tensor of ${peer.maxDims} dimensions` +
    (peer.maxDims < 64 ? ` and refuses one of ${peer.maxDims + 1} (${peer.overDims.source})` : ''), async (ctx) => {
    const { py, dl } = ctx;
    const x = ctx.ours(ourTensor(dl, 'int16', new Array(peer.maxDims).fill(1), aligned));
    py.exec(`y = peer.consume(${x})`);
    expect(py.eval('peer.shape(y)')).toEqual(new Array(peer.maxDims).fill(1));
    py.exec('del y');
    if (peer.maxDims < 64) {
      const over = ctx.ours(ourTensor(dl, 'int16', new Array(peer.maxDims + 1).fill(1), aligned));
      raises(py, `peer.consume(${over})`, peer.overDims);
      await ctx.collect();
      deletedOnce(ctx, over);
    }
    await ctx.collect();
    deletedOnce(ctx, x);
  });

  const readOnlyName = {
    'read-only': 'reads our read-only tensor as read-only',
    writable: `takes our read-only tensor as writable: the READ_ONLY flag is dropped (${peer.label} ${peer.version})`,
    refused: 'cannot take our read-only tensor: it asks for a legacy struct, which cannot say read-only, ' +
      'and our export refuses (BufferError)',
  }[peer.readOnly];
  add(`${peer.consumer} ${readOnlyName}`, async (ctx) => {
    const { py, dl } = ctx;
    // Read-only memory of ours: an import of a NumPy-like producer's READ_ONLY struct.
    const { producer } = require('../helpers');
    const pointer = producer.make({ shape: [3], strides: [1], code: 2, bits: 32, flags: 1, fill: true });
    const t = dl.fromDLPack(dl.DLPackCapsule.fromPointer(pointer, { versioned: true }));
    expect(t.readOnly).toBe(true);
    const x = ctx.ours(t);
    if (peer.readOnly === 'refused') {
      raises(py, `peer.consume(${x})`, /BufferError: ERR_DLPACK_UNSUPPORTED: Expected a writable tensor for a legacy/);
      expect(py.eval(`${x}.pointers`)).toEqual([]); // refused before any struct was made
      return;
    }
    py.exec(`y = peer.consume(${x})`);
    expect(py.eval('peer.read_only(y)')).toBe(peer.readOnly === 'read-only');
    expect(py.eval('peer.address(y)')).toBe(ctx.address(t));
    py.exec('del y');
    await ctx.collect();
    deletedOnce(ctx, x);
  });

  if (peer.device !== null) {
    add(`${peer.consumer}(x, device=cpu) ${peer.deviceAsks ? 'asks with dl_device=(1, 0)' :
      `passes no dl_device (${peer.label} ${peer.version})`}, and reads the same memory`, async (ctx) => {
      const { py, dl } = ctx;
      const t = ourTensor(dl, 'float32', [4], true);
      const x = ctx.ours(t);
      py.exec(`y = peer.consume(${x}, device=${peer.device})`);
      expect(py.eval(`${x}.requests`)).toEqual([peer.deviceAsks ? { ...peer.request, dl_device: [1, 0] } : peer.request]);
      expect(py.eval('peer.address(y)')).toBe(ctx.address(t));
      py.exec('del y');
      await ctx.collect();
      deletedOnce(ctx, x);
    });
  }

  if (!peer.copyKeyword) {
    add(`${peer.consumer} has no copy keyword`, (ctx) => {
      const x = ctx.ours(ourTensor(ctx.dl, 'float32', [2]));
      raises(ctx.py, `peer.consume(${x}, copy=True)`, /TypeError: .*(keyword|argument)/);
      expect(ctx.py.eval(`${x}.pointers`)).toEqual([]);
    });
  } else if (peer.copy === 'asks') {
    add(`${peer.consumer}(x, copy=True) asks us for a copy: other memory, marked IS_COPIED`, async (ctx) => {
      const { py, dl } = ctx;
      const t = ourTensor(dl, 'float32', [4], aligned);
      const x = ctx.ours(t);
      py.exec(`y = peer.consume(${x}, copy=True)`);
      expect(py.eval(`${x}.requests`)).toEqual([{ ...peer.request, copy: true }]);
      expect(py.eval('peer.address(y)')).not.toBe(ctx.address(t));
      expect(py.eval('peer.tolist(y)')).toEqual(t.toArray());
      t.data[0] = 99;
      expect(py.eval('peer.tolist(y)')[0]).not.toBe(99);
      py.exec('del y');
      await ctx.collect();
      deletedOnce(ctx, x);
    });
  } else {
    add(`${peer.consumer}(x, copy=True) shares our aligned memory, passing no copy keyword ` +
      `(${peer.label} ${peer.version})`, async (ctx) => {
      const { py, dl } = ctx;
      const t = ourTensor(dl, 'float32', [4], true);
      const x = ctx.ours(t);
      py.exec(`y = peer.consume(${x}, copy=True)`);
      expect(py.eval(`${x}.requests`)).toEqual([peer.request]);
      expect(py.eval('peer.address(y)')).toBe(ctx.address(t));
      py.exec('del y');
      await ctx.collect();
      deletedOnce(ctx, x);
    });
  }

  if (peer.adapter === 'jax') {
    // The other checks run with jax_enable_x64 (peers.py); JAX's default is without.
    add(`${peer.consumer} without jax_enable_x64 (JAX's default) reads our float64 and int64 as 32-bit ` +
      'copies', async (ctx) => {
      const { py, dl } = ctx;
      const tensors = [ourTensor(dl, 'float64', [4], true), ourTensor(dl, 'int64', [4], true)];
      const names = tensors.map((t) => ctx.ours(t));
      py.exec('peer.x64(False)');
      try {
        for (const [i, t] of tensors.entries()) {
          py.exec(`y = peer.consume(${names[i]})`);
          expect(py.eval('peer.dtype(y)')).toBe(t.dtype.replace('64', '32'));
          expect(py.eval('peer.address(y)')).not.toBe(ctx.address(t));
          expect(py.eval('peer.tolist(y)')).toEqual(t.toArray().map(Number));
          py.exec('del y');
        }
      } finally {
        py.exec('peer.x64(True)');
      }
      await ctx.collect();
      for (const x of names) deletedOnce(ctx, x);
    });
  }

  if (aligned) {
    add(`${peer.consumer} copies our memory below ${peer.align}-byte alignment, and refuses it with copy=False`,
      async (ctx) => {
        const { py, dl } = ctx;
        const base = ourTensor(dl, 'float32', [32]);
        const t = base.narrow(0, 1, 8); // 4 bytes past the start: never 64-byte aligned
        expect(ctx.address(t) % peer.align).not.toBe(0);
        const x = ctx.ours(t);
        py.exec(`y = peer.consume(${x})`);
        expect(py.eval('peer.address(y)')).not.toBe(ctx.address(t));
        expect(py.eval('peer.tolist(y)')).toEqual(t.toArray());
        raises(py, `peer.consume(${x}, copy=False)`, new RegExp(`not aligned to ${peer.align} bytes`));
        py.exec('del y');
        await ctx.collect();
        deletedOnce(ctx, x);
      });
  }

  add(`our deleter runs once, when ${peer.label} drops what it read, not before`, async (ctx) => {
    const { py, dl } = ctx;
    const t = ourTensor(dl, 'float64', [5], aligned);
    const x = ctx.ours(t);
    py.exec(`y = peer.consume(${x})`);
    const p = py.eval(`${x}.pointers[0]`);
    await ctx.collect();
    expect(ctx.calls(p)).toBe(0);
    py.exec('del y');
    py.exec('gc.collect()');
    expect(ctx.calls(p)).toBe(1);
  });

  add(`Node's GC first: our memory lives on in ${peer.label} until it drops it, then our deleter runs once`,
    async (ctx) => {
      const { py, dl } = ctx;
      let x = null;
      (() => {
        x = ctx.ours(ourTensor(dl, 'float64', [5], aligned));
        py.exec(`y = peer.consume(${x})`);
        ctx.forget(x); // the struct is all that holds the memory now
      })();
      const p = py.eval(`${x}.pointers[0]`);
      for (let i = 0; i < 3; i++) await ctx.collect();
      expect(ctx.calls(p)).toBe(0);
      expect(py.eval('peer.tolist(y)')).toEqual(valuesOf('float64', 5));
      py.exec('del y\ngc.collect()');
      expect(ctx.calls(p)).toBe(1);
    });

  add(`in a reference cycle, our deleter runs at Python's gc.collect(), once`, async (ctx) => {
    const { py, dl } = ctx;
    const x = ctx.ours(ourTensor(dl, 'int32', [5], aligned));
    py.exec(`gc.disable()\ny = peer.consume(${x})\ncycle = [y]\ncycle.append(cycle)\ndel y, cycle`);
    const p = py.eval(`${x}.pointers[0]`);
    try {
      expect(ctx.calls(p)).toBe(0);
      py.exec('gc.collect()');
      expect(ctx.calls(p)).toBe(1);
    } finally {
      py.exec('gc.enable()');
    }
  });

  // --- the peer's structs, read by us ------------------------------------------------

  for (const [how, kind] of Object.entries(peer.exports)) {
    add(`${how} gives us a ${kind} struct over the same memory; a write on either side is read on the other, ` +
      'and its deleter runs once, when our tensor is collected', async (ctx) => {
      const { py, dl } = ctx;
      py.exec('x = peer.make("float32", [2, 3])');
      const refs = py.eval('peer.refs(x)');
      let { capsule, pointer } = ctx.adopt(`peer.export(${q(how)}, x)`);
      expect(capsule.versioned).toBe(kind === 'versioned');
      let t = dl.fromDLPack(capsule);
      capsule = null;
      expect([t.readOnly, t.isCopy]).toEqual([false, false]);
      expect(ctx.address(t)).toBe(py.eval('peer.address(x)'));
      expect(t.toArray()).toEqual(py.eval('peer.tolist(x)'));
      t.data[0] = 42;
      expect(py.eval('peer.tolist(x)')[0][0]).toBe(42);
      if (peer.writable) {
        py.exec('peer.write(x, [1, 1], -9)');
        expect(t.toArray()[1][1]).toBe(-9);
      }
      if (refs !== null) expect(py.eval('peer.refs(x)')).toBe(refs + 1);
      expect(ctx.calls(pointer)).toBe(0);
      t = null;
      await ctx.collect();
      expect(ctx.calls(pointer)).toBe(1);
      if (refs !== null) expect(py.eval('peer.refs(x)')).toBe(refs);
    });
  }

  for (const dtype of peer.produces) {
    add(`we read its ${dtype} byte for byte, without a copy`, async (ctx) => {
      const { py, dl } = ctx;
      py.exec(`x = peer.make(${q(dtype)}, [2, 3])`);
      const { capsule, pointer } = ctx.adopt(`peer.export(${q(exportName)}, x)`);
      const t = dl.fromDLPack(capsule);
      expect(t.dtype).toBe(dtype);
      expect(t.shape).toEqual([2, 3]);
      expect(ctx.bytes(t)).toEqual(py.eval('peer.raw(x)'));
      expect(ctx.address(t)).toBe(py.eval('peer.address(x)'));
      t.dispose();
      expect(ctx.calls(pointer)).toBe(1);
    });
  }

  for (const [dtype, pattern] of Object.entries(peer.produceOther || {})) {
    add(`its export refuses its ${dtype} (${pattern.source})`, ({ py }) => {
      py.exec(`x = peer.make(${q(dtype)}, [3])`);
      raises(py, `peer.export(${q(exportName)}, x)`, pattern);
    });
  }

  add(`we read its 0-d, empty and ${peer.exportDims}-dimensional tensors` +
    (peer.exportViews.length ? `, and its views (${peer.exportViews.join(', ')})` : ''), async (ctx) => {
    const { py, dl } = ctx;
    const read = (expression) => {
      const { capsule, pointer } = ctx.adopt(`peer.export(${q(exportName)}, ${expression})`);
      const t = dl.fromDLPack(capsule);
      return { t, pointer };
    };
    py.exec('s = peer.make("float64", [])\ne = peer.make("int32", [0, 3])\nx = peer.make("float32", [2, 3])');
    const scalar = read('s');
    expect([scalar.t.shape, scalar.t.toArray()]).toEqual([[], -6]);
    const empty = read('e');
    expect([empty.t.shape, empty.t.dtype]).toEqual([[0, 3], 'int32']);
    const many = read(`peer.make("uint8", [1] * ${peer.exportDims})`);
    expect(many.t.shape).toEqual(new Array(peer.exportDims).fill(1));
    for (const how of peer.exportViews) {
      const view = read(`peer.view(x, ${q(how)})`);
      expect({ how, values: view.t.toArray() }).toEqual({ how, values: py.eval(`peer.tolist(peer.view(x, ${q(how)}))`) });
      view.t.dispose();
      expect(ctx.calls(view.pointer)).toBe(1);
    }
    for (const r of [scalar, empty, many]) {
      r.t.dispose();
      expect(ctx.calls(r.pointer)).toBe(1);
    }
  });

  if (peer.adapter === 'torch' && peer.modern) {
    add('a struct we refuse (65 dimensions) is not consumed: dispose() calls its deleter once', async (ctx) => {
      const { py, dl } = ctx;
      py.exec('x = peer.torch.zeros([1] * 65)');
      const refs = py.eval('peer.refs(x)');
      const { capsule, pointer } = ctx.adopt('x.__dlpack__(max_version=(1, 0))');
      let error = null;
      try {
        dl.fromDLPack(capsule);
      } catch (e) {
        error = e;
      }
      expect(error).not.toBeNull();
      expect(error.code).toBe('ERR_DLPACK_UNSUPPORTED');
      expect([capsule.consumed, ctx.calls(pointer), py.eval('peer.refs(x)')]).toEqual([false, 0, refs + 1]);
      capsule.dispose();
      expect([capsule.consumed, ctx.calls(pointer), py.eval('peer.refs(x)')]).toEqual([true, 1, refs]);
    });
  }

  if (peer.readOnlyExport) {
    add('its read-only array arrives read-only; its legacy export of one is refused (BufferError)', async (ctx) => {
      const { py, dl } = ctx;
      py.exec('x = peer.make("int32", [4])\nx.flags.writeable = False');
      const { capsule, pointer } = ctx.adopt('x.__dlpack__(max_version=(1, 0))');
      const t = dl.fromDLPack(capsule);
      expect([t.readOnly, t.isCopy]).toEqual([true, false]);
      expect(ctx.address(t)).toBe(py.eval('peer.address(x)'));
      t.dispose();
      expect(ctx.calls(pointer)).toBe(1);
      raises(py, 'x.__dlpack__()', /BufferError: Cannot export readonly array/);
    });
  } else if (peer.adapter === 'jax') {
    add(`its arrays, immutable in JAX, arrive writable: its legacy structs cannot say read-only (${peer.label} ` +
      `${peer.version})`, async (ctx) => {
      const { py, dl } = ctx;
      py.exec('x = peer.make("int32", [4])');
      const { capsule, pointer } = ctx.adopt('x.__dlpack__(max_version=(1, 0))');
      expect(capsule.versioned).toBe(false);
      const t = dl.fromDLPack(capsule);
      expect([t.readOnly, t.isCopy]).toEqual([false, false]);
      t.dispose();
      expect(ctx.calls(pointer)).toBe(1);
    });
  }

  if (peer.keywords.includes('copy')) {
    const what = peer.exports['__dlpack__(max_version=(1, 0))'] === 'legacy' ? 'in a legacy struct, with no flags' :
      peer.copiedFlag ? 'marked IS_COPIED' : `but leaves IS_COPIED unset (${peer.label} ${peer.version})`;
    add(`its __dlpack__(max_version=(1, 0), copy=True) copies, ${what}`, async (ctx) => {
      const { py, dl } = ctx;
      py.exec('x = peer.make("float32", [4])');
      const { capsule, pointer } = ctx.adopt('x.__dlpack__(max_version=(1, 0), copy=True)');
      const t = dl.fromDLPack(capsule);
      expect(t.isCopy).toBe(peer.copiedFlag);
      expect(ctx.address(t)).not.toBe(py.eval('peer.address(x)'));
      expect(t.toArray()).toEqual(py.eval('peer.tolist(x)'));
      t.dispose();
      expect(ctx.calls(pointer)).toBe(1);
    });
  }

  add(`${peer.label} drops its tensor first: the memory lives until our tensor is collected, ` +
    'then its deleter runs once', async (ctx) => {
    const { py, dl } = ctx;
    py.exec('x = peer.make("int64", [6])');
    const expected = py.eval('peer.tolist(x)').map(BigInt);
    let { capsule, pointer } = ctx.adopt(`peer.export(${q(exportName)}, x)`);
    let t = dl.fromDLPack(capsule);
    capsule = null;
    py.exec('del x\ngc.collect()');
    expect(ctx.calls(pointer)).toBe(0);
    expect(t.toArray()).toEqual(expected);
    t = null;
    await ctx.collect();
    expect(ctx.calls(pointer)).toBe(1);
  });

  add('a capsule of its we adopt but never import: dispose() calls its deleter once, and so does Node\'s GC',
    async (ctx) => {
      const { py } = ctx;
      py.exec('x = peer.make("float32", [3])');
      const refs = py.eval('peer.refs(x)');
      const disposed = ctx.adopt(`peer.export(${q(exportName)}, x)`);
      disposed.capsule.dispose();
      expect(ctx.calls(disposed.pointer)).toBe(1);
      let pointer = null;
      (() => {
        pointer = ctx.adopt(`peer.export(${q(exportName)}, x)`).pointer;
      })();
      expect(ctx.calls(pointer)).toBe(0);
      await ctx.collect();
      expect(ctx.calls(pointer)).toBe(1);
      if (refs !== null) expect(py.eval('peer.refs(x)')).toBe(refs);
    });

  add(`its __dlpack__ takes ${peer.keywords.join(', ')}`, ({ py }) => {
    py.exec('x = peer.make("float32", [3])');
    const sample = { stream: 'None', max_version: '(1, 0)', dl_device: '(1, 0)', copy: 'False' };
    const taken = KEYWORDS.filter((k) => {
      try {
        py.exec(`x.__dlpack__(${k}=${sample[k]})`);
        return true;
      } catch (error) {
        expect(first(error.message)).toMatch(/TypeError: .*unexpected keyword argument/);
        return false;
      }
    });
    expect(taken).toEqual(peer.keywords);
  });

  if (peer.adapter === 'paddle') {
    // docs of paddle.utils.dlpack.to_dlpack / from_dlpack: a [2, 4] float32
    // tensor through to_dlpack, then back, written in place on both sides.
    add('Paddle\'s documented example: a [2, 4] float32 tensor through to_dlpack into Node and back through ' +
      'from_dlpack, an in-place write seen on every side', async (ctx) => {
      const { py, dl } = ctx;
      py.exec('x = peer.paddle.to_tensor([[0.2, 0.3, 0.5, 0.9], [0.1, 0.2, 0.6, 0.7]], place="cpu")');
      const { capsule } = ctx.adopt('peer.paddle.utils.dlpack.to_dlpack(x)');
      const t = dl.fromDLPack(capsule);
      expect([t.dtype, t.shape]).toEqual(['float32', [2, 4]]);
      expect(t.toArray()[1]).toEqual([0.1, 0.2, 0.6, 0.7].map(Math.fround));
      t.data[0] = 10;
      expect(py.eval('x.tolist()')[0][0]).toBe(10);
      const back = ctx.ours(t);
      py.exec(`y = peer.paddle.utils.dlpack.from_dlpack(${back})\ny[0, 1] = 20.0`);
      expect(py.eval('peer.address(y)')).toBe(py.eval('peer.address(x)'));
      expect(t.toArray()[0].slice(0, 2)).toEqual([10, 20]);
      expect(py.eval('x.tolist()')[0].slice(0, 2)).toEqual([10, 20]);
    });
  }

  return list;
}

module.exports = { checksFor, valuesOf };
