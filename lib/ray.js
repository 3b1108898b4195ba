'use strict';
// Ray through the Python worker (docs/arrow.md "Ray"): dl.ray.connect()
// starts `python -m dlpack_node.ray_bridge` (python/dlpack_node/ray_bridge.py)
// as a dl.python worker, which calls ray.init() and then puts, gets and runs
// tasks for this process. Tensors cross to the worker through shared memory
// (no copy); ray.put copies once into Ray's object store; a task on the same
// node reads the store without a copy; ray.get comes back through one copy
// into a segment this process opens. Ray is the worker's Python's business:
// nothing of it is in this package's dependencies.
const { makeError, invalidType, invalidValue } = require('./errors');
const { checkOptions } = require('./options');
const { Tensor } = require('./tensor');
const { spawn } = require('./python');

// The JSON form of a reference (REF in ray_bridge.py).
const REF = '__dlpack_ray_ref__';
const CONNECT_KEYS = ['address', 'namespace', 'numCpus', 'objectStoreMemory', 'python', 'env', 'stderr'];
const kToken = Symbol('RayClient');

// A reference collected without release() is released by its client.
const collected = new FinalizationRegistry(({ client, id }) => client.forget(id));

class RayRef {
  #client;
  #id;

  constructor(token, client, id) {
    if (token !== kToken) throw makeError('ERR_ILLEGAL_CONSTRUCTOR', 'Ray references come from a RayClient');
    this.#client = client;
    this.#id = id;
  }

  // The ObjectRef's hex id.
  get id() { return this.#id; }
  get client() { return this.#client; }

  // Lets go of the object (Ray frees what nothing refers to).
  release() { return this.#client.release(this); }

  toJSON() { return { [REF]: this.#id }; }
}

class RayClient {
  #worker;
  #released = new Set(); // ids released or collected, not yet sent
  #flush = null;
  #closed = false;

  constructor(token, worker, info) {
    if (token !== kToken) throw makeError('ERR_ILLEGAL_CONSTRUCTOR', 'Ray clients are made by dl.ray.connect()');
    this.#worker = worker;
    this.address = info.address; // the cluster's GCS address
    this.nodeId = info.nodeId; // the node the worker runs on
    this.version = info.version; // Ray's
    this.local = info.local; // a cluster connect() started, stopped by close()
  }

  get pid() { return this.#worker.pid; }
  get closed() { return this.#closed; }

  // ray.put(tensor): one copy into the object store. The tensor must be in
  // memory the worker can open (dl.empty(shape, { shared: true }), ...), as
  // for worker.call().
  async put(tensor) {
    if (!(tensor instanceof Tensor)) throw invalidType('tensor', 'a Tensor', tensor);
    return this.#ref(await this.#call('put', tensor));
  }

  // fn.remote(...args) for fn 'package.module:function', importable in the
  // cluster's Python; a RayRef argument is resolved by Ray, a tensor is put
  // by Ray (a copy), anything else goes as JSON. Resolves with the result's
  // reference.
  async call(fn, ...args) {
    if (typeof fn !== 'string') throw invalidType('fn', "a 'package.module:function' string", fn);
    return this.#ref(await this.#call('call', fn, ...args.map((a, i) => this.#arg(a, `args[${i}]`))));
  }

  // ray.get(ref): a Tensor in memory this process maps (or the JSON value
  // the object is).
  async get(ref) {
    return this.#call('get', this.#arg(ref, 'ref', true));
  }

  // Releases references now (collection releases the rest).
  async release(...refs) {
    const ids = refs.map((ref, i) => this.#arg(ref, `refs[${i}]`, true)[REF]);
    for (const id of ids) this.#released.delete(id);
    if (this.#closed) return undefined;
    return this.#call('release', ...ids);
  }

  // { refs, objectStoreBytes }: the references the worker holds for this
  // client, and the bytes in use in its node's object store.
  async stats() {
    return this.#call('stats');
  }

  // Drops every reference, disconnects (stopping a cluster connect()
  // started) and ends the worker; resolves with its exit code.
  async close() {
    if (this.#closed) return this.#worker.closed;
    this.#closed = true;
    try {
      await this.#worker.call('shutdown');
    } finally {
      await this.#worker.close();
    }
    return this.#worker.closed;
  }

  // A collected reference: released with the next call, or on its own soon.
  forget(id) {
    if (this.#closed) return;
    this.#released.add(id);
    if (this.#flush === null) {
      this.#flush = setImmediate(() => {
        this.#flush = null;
        const ids = [...this.#released];
        this.#released.clear();
        if (ids.length !== 0 && !this.#closed) this.#worker.call('release', ...ids).catch(() => {});
      });
      this.#flush.unref();
    }
  }

  #call(name, ...args) {
    if (this.#closed) {
      return Promise.reject(makeError('ERR_DLPACK_WORKER_EXITED', `The Ray client (worker pid ${this.pid}) was closed`));
    }
    return this.#worker.call(name, ...args);
  }

  #ref(answer) {
    const ref = new RayRef(kToken, this, answer[REF]);
    collected.register(ref, { client: this, id: ref.id }, ref);
    return ref;
  }

  #arg(value, name, refOnly = false) {
    if (value instanceof RayRef) {
      if (value.client !== this) throw invalidValue(name, 'a reference of this client', value);
      return value.toJSON();
    }
    if (refOnly) throw invalidType(name, 'a RayRef', value);
    return value;
  }
}

// dl.ray.connect({ address, namespace, numCpus, objectStoreMemory, python,
// env, stderr }): a RayClient once ray.init() has run in the worker.
// Without `address` the worker starts a local cluster of numCpus CPUs and
// an object store of objectStoreMemory bytes, which close() stops.
async function connect(options = {}) {
  const opts = checkOptions(options, CONNECT_KEYS);
  const { address, namespace, numCpus, objectStoreMemory, python, env, stderr } = opts;
  if (address !== undefined && typeof address !== 'string') throw invalidType('options.address', 'a string', address);
  if (namespace !== undefined && typeof namespace !== 'string') {
    throw invalidType('options.namespace', 'a string', namespace);
  }
  for (const [name, value] of [['numCpus', numCpus], ['objectStoreMemory', objectStoreMemory]]) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value <= 0)) {
      throw invalidType(`options.${name}`, 'a positive integer', value);
    }
  }
  const worker = spawn('-m', { args: ['dlpack_node.ray_bridge'], python, env, stderr });
  let info;
  try {
    info = await worker.call('connect', { address, namespace, numCpus, objectStoreMemory });
  } catch (error) {
    // ray.init() may have started part of a cluster before it failed.
    await worker.call('shutdown').catch(() => {});
    await worker.close();
    if (error.pythonType === 'ImportError' && /dl\.ray needs Ray/.test(error.message)) {
      const missing = makeError('ERR_DLPACK_MISSING_PEER', `dl.ray.connect() needs Ray in the worker's Python ` +
        `(${worker.python}): ${error.message.replace(/^Python raised ImportError in connect\(\): /, '')}`);
      missing.cause = error;
      throw missing;
    }
    throw error;
  }
  return new RayClient(kToken, worker, info);
}

module.exports = { connect, RayClient, RayRef };
