'use strict';
// One peer's checks (test/peers/checks.js), run in this process with the
// peer's Python embedded (test/native/embed_python.cc). test/peers.test.js
// starts one of these per peer, so that peers never share a process and a
// peer that takes its process down takes only its own checks with it:
//
//   node --expose-gc test/peers/child.js HELPER PYTHON LIBPYTHON PEER [CHECK]
//
// Results are JSON lines on file descriptor 3 (Python libraries write to 1
// and 2): {ready: {python}} once the peer imported (or {skip: reason} when it
// does not, and nothing more), then {check, ok, error, ms} per check, in
// order (ms: the check and the cleanup after it), then {done}.
// With CHECK, only that check runs (one that ends the process runs alone).
const fs = require('fs');
const dl = require('../../lib');
const { producer, collect } = require('../helpers');
const { PEERS } = require('./table');
const { checksFor } = require('./checks');

const [helper, python, libpython, name, only] = process.argv.slice(2);
const peer = PEERS[name];
const report = (message) => fs.writeSync(3, `${JSON.stringify(message)}\n`);

const started = Date.now();
const py = require(helper);
const pythonVersion = py.init(python, libpython);
// No __pycache__ written into the source tree.
py.exec(`import gc, sys\nsys.dont_write_bytecode = True\nsys.path.insert(0, ${JSON.stringify(__dirname)})\nimport peers`);
try {
  py.exec(`peer = peers.load(${JSON.stringify(peer.adapter)})`);
  // What the imports made lives on: gc.collect() after each check then walks
  // only what the checks made (with torch loaded, a full walk took 0.5 s).
  py.exec('gc.collect()\ngc.freeze()');
} catch (error) {
  report({ skip: `${peer.label} does not import in ${python}: ${error.message.split('\n')[0]}` });
  process.exit(0);
}

// Our tensors as Python producers (peers.Ours): Python asks for a struct by
// the tensor's id; the keywords map to __dlpack__'s options, a missing
// max_version meaning a legacy consumer (the DLPack Python specification).
const tensors = new Map();
let nextId = 1;
py.expose('export', (id, stream, maxVersion, dlDevice, copy) => {
  const options = { maxVersion: maxVersion === null ? [0, 0] : maxVersion };
  if (stream !== null) options.stream = stream;
  if (dlDevice !== null) options.dlDevice = dlDevice;
  if (copy !== null) options.copy = copy;
  const capsule = tensors.get(id).__dlpack__(options);
  return [capsule.toPointer(), capsule.versioned];
});
py.expose('device', (id) => tensors.get(id).__dlpack_device__());

const ctx = {
  py, dl, peer,
  // A Python variable holding peers.Ours over t; forget(it) drops Node's own reference.
  ours(t) {
    const id = nextId++;
    tensors.set(id, t);
    py.exec(`ours_${id} = peers.Ours(${id})`);
    return `ours_${id}`;
  },
  forget(variable) { tensors.delete(Number(variable.slice('ours_'.length))); },
  // The capsule `expression` makes, taken from Python and adopted.
  adopt(expression) {
    const [address, versioned] = py.eval(`peers.take(${expression})`);
    const pointer = BigInt(address);
    return { capsule: dl.DLPackCapsule.fromPointer(pointer, { versioned }), pointer, versioned };
  },
  calls: (pointer) => py.eval(`peers.calls(${pointer})`),
  address: (t) => Number(producer.address(t.data)),
  // A copy of the bytes of t's elements in row-major order. (Not through
  // contiguous(), whose result is one more holder of t's memory.)
  bytes(t) {
    const c = t.isContiguous ? t : t.clone();
    const data = c.data;
    const bytes = Buffer.from(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    if (c !== t) c.dispose();
    return bytes;
  },
  // Node's GC with its finalizers run, then Python's.
  async collect() {
    await collect();
    py.exec('gc.collect()');
  },
};

async function main() {
  report({ ready: { python: pythonVersion.split(' ')[0], ms: Date.now() - started } });
  const baseline = new Set(py.eval('list(globals())'));
  for (const check of checksFor(peer)) {
    if (only !== undefined ? check.name !== only : check.alone) continue;
    let result;
    const start = Date.now();
    try {
      await check.fn(ctx);
      result = { check: check.name, ok: true };
    } catch (error) {
      result = { check: check.name, ok: false, error: String(error.stack || error) };
    }
    // What the check left in Python and Node goes before the next one.
    tensors.clear();
    for (const variable of py.eval('list(globals())')) {
      if (!baseline.has(variable)) py.exec(`del ${variable}`);
    }
    await ctx.collect();
    report({ ...result, ms: Date.now() - start });
  }
  report({ done: true });
}

main().catch((error) => {
  report({ check: 'the child', ok: false, error: String(error.stack || error) });
  process.exitCode = 1;
});
