'use strict';
// Python workers (docs/python.md "Workers"): a child process serving Python
// functions through python/dlpack_node/worker.py. Tensors travel as share()
// descriptors over shared memory, so neither side copies them; the worker
// keeps each result attached until this side has opened it and said so.
const path = require('path');
const readline = require('readline');
const { spawn: spawnChild } = require('child_process');
const { makeError, invalidType, invalidValue } = require('./errors');
const { checkOptions } = require('./options');
const { Tensor } = require('./tensor');
const { open } = require('./sharing');

const pythonPath = path.join(__dirname, '..', 'python');
const kToken = Symbol('PythonWorker');
const CROSS_PROCESS = new Set(['shm', 'cuda-ipc']);
const STDERR = ['inherit', 'pipe', 'ignore'];

function encodeArg(value, i) {
  if (value instanceof Tensor) {
    let descriptor;
    let received;
    try {
      descriptor = value.share();
      received = `one whose share() kind is '${descriptor.kind}', which stays in this process`;
    } catch (error) {
      if (error.code !== 'ERR_DLPACK_UNSUPPORTED') throw error; // disposed, ...
      received = 'one over a plain ArrayBuffer';
    }
    if (descriptor === undefined || !CROSS_PROCESS.has(descriptor.kind)) {
      throw makeError('ERR_INVALID_ARG_VALUE', `Expected a tensor another process can open for \`args[${i}]\` ` +
        '(dl.empty(shape, { shared: true }), dl.open() of a \'shm\' descriptor, or CUDA memory allocated with ' +
        `shared: true), received ${received}; t.shareMemory() moves it there in place, t.toShared() copies it`);
    }
    return { tensor: descriptor };
  }
  let text;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw invalidType(`args[${i}]`, 'a Tensor or a JSON value', value);
  }
  if (text === undefined) throw invalidType(`args[${i}]`, 'a Tensor or a JSON value', value);
  return { value: JSON.parse(text) };
}

function workerExited(worker, what) {
  const how = worker.signal !== null ? `was killed by ${worker.signal}` : `exited with code ${worker.exitCode}`;
  return makeError('ERR_DLPACK_WORKER_EXITED', `The Python worker (pid ${worker.pid}) ${how} ${what}`);
}

class PythonWorker {
  constructor(token, child) {
    if (token !== kToken) {
      throw makeError('ERR_ILLEGAL_CONSTRUCTOR', 'Python workers are made by dl.python.spawn(), not by `new`');
    }
    this.child = child;
    this.pid = child.pid;
    this.methods = null; // the served names, once the worker said it is ready
    this.exitCode = null;
    this.signal = null;
    this.exited = false;
    this.nextId = 1;
    this.pending = new Map(); // call id -> { name, resolve, reject }
    this.failure = null; // the error every later call gets, once the worker is gone or broke the protocol
    this.ready = new Promise((resolve, reject) => { this.readyState = { resolve, reject }; });
    this.ready.catch(() => {}); // the error also reaches every call; an unawaited ready is not unhandled
    this.closed = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.exited = true;
        this.exitCode = code;
        this.signal = signal;
        this.fail(workerExited(this, this.methods === null ? 'before it was ready' : 'while a call was in flight'));
        resolve(code);
      });
    });
    child.on('error', (error) => this.fail(error)); // e.g. ENOENT: no such Python
    readline.createInterface({ input: child.stdout }).on('line', (line) => this.receive(line));
    child.stdin.on('error', () => {}); // EPIPE after the worker died: 'exit' reports that
    this.idle();
  }

  receive(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.protocolError(`a line that is not JSON: ${JSON.stringify(line.slice(0, 80))}`);
      return;
    }
    if (message !== null && typeof message === 'object' && message.ready) {
      this.methods = Object.freeze([...message.ready.methods]);
      this.readyState.resolve(this);
      this.idle();
      return;
    }
    const call = message && this.pending.get(message.id);
    if (call === undefined) {
      this.protocolError(`an answer to no call in flight (id ${JSON.stringify(message && message.id)})`);
      return;
    }
    this.pending.delete(message.id);
    this.idle();
    if (message.error) {
      const { type, message: text, traceback } = message.error;
      const error = makeError('ERR_DLPACK_PYTHON', `Python raised ${type} in ${call.name}(): ${text}`);
      error.pythonType = type;
      error.pythonTraceback = traceback;
      call.reject(error);
      return;
    }
    let results;
    try {
      results = this.decode(message.results);
    } catch (error) {
      call.reject(error);
      return;
    } finally {
      this.send({ release: message.id }); // opened or given up: the worker may let go
    }
    call.resolve(message.many ? results : results[0]);
  }

  decode(encoded) {
    const opened = [];
    try {
      for (const result of encoded) opened.push('tensor' in result ? open(result.tensor) : result.value);
    } catch (error) {
      for (const t of opened) if (t instanceof Tensor) t.dispose();
      throw error;
    }
    return opened;
  }

  protocolError(what) {
    this.fail(makeError('ERR_DLPACK_WORKER_PROTOCOL', `The Python worker (pid ${this.pid}) wrote ${what}; ` +
      'it is stopped (print to standard error from served functions, or use dlpack_node.worker.serve)'));
    this.child.kill('SIGKILL');
  }

  fail(error) {
    if (this.failure === null) this.failure = error;
    this.readyState.reject(this.failure);
    for (const call of this.pending.values()) call.reject(this.failure);
    this.pending.clear();
    this.idle();
  }

  send(message) {
    if (!this.exited && this.child.stdin.writable) this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  // A worker starting up or with calls in flight keeps this process running; an idle one does not.
  idle() {
    const starting = this.methods === null && this.failure === null;
    const method = this.pending.size === 0 && !starting ? 'unref' : 'ref';
    this.child[method]();
    for (const stream of [this.child.stdin, this.child.stdout]) {
      if (stream && typeof stream[method] === 'function') stream[method]();
    }
  }

  call(name, ...args) {
    if (typeof name !== 'string') return Promise.reject(invalidType('name', 'a string', name));
    if (this.failure !== null) return Promise.reject(this.failure);
    let encoded;
    try {
      encoded = args.map(encodeArg);
    } catch (error) {
      return Promise.reject(error);
    }
    const id = this.nextId++;
    // The pending entry keeps the argument tensors alive until the answer: a
    // descriptor names memory that the last tensor over it would release.
    const done = new Promise((resolve, reject) => this.pending.set(id, { name, resolve, reject, args }));
    this.idle();
    this.ready.then(() => {
      if (!this.pending.has(id)) return;
      if (!this.methods.includes(name)) {
        this.pending.get(id).reject(invalidValue('name', `one of the served methods (${this.methods.join(', ')})`,
          name));
        this.pending.delete(id);
        this.idle();
        return;
      }
      this.send({ id, call: name, args: encoded });
    }, () => {});
    return done;
  }

  // Ends the worker's input, so it returns from serve() and exits; resolves
  // with its exit code. Calls still in flight are answered first.
  close() {
    if (!this.exited) this.child.stdin.end();
    this.child.ref();
    return this.closed;
  }

  kill(signal = 'SIGTERM') {
    return this.child.kill(signal);
  }
}

const SPAWN_KEYS = ['python', 'args', 'env', 'cwd', 'stderr'];

// Starts `script` (a Python file calling dlpack_node.worker.serve) with this
// package's python/ directory on PYTHONPATH.
function spawn(script, options = {}) {
  if (typeof script !== 'string') throw invalidType('script', 'a path string', script);
  checkOptions(options, SPAWN_KEYS);
  const { python = process.env.DLPACK_PYTHON || 'python3', args = [], env = process.env, cwd,
    stderr = 'inherit' } = options;
  if (typeof python !== 'string') throw invalidType('options.python', 'a string', python);
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    throw invalidType('options.args', 'an array of strings', args);
  }
  if (env === null || typeof env !== 'object') throw invalidType('options.env', 'an object', env);
  if (!STDERR.includes(stderr)) throw invalidValue('options.stderr', `one of ${STDERR.join(', ')}`, stderr);
  const pythonPathEnv = env.PYTHONPATH ? `${pythonPath}${path.delimiter}${env.PYTHONPATH}` : pythonPath;
  const child = spawnChild(python, [script, ...args], {
    cwd, env: { ...env, PYTHONPATH: pythonPathEnv, PYTHONUNBUFFERED: '1' }, stdio: ['pipe', 'pipe', stderr],
  });
  return new PythonWorker(kToken, child);
}

module.exports = { spawn, PythonWorker, pythonPath };
