'use strict';
// Python workers (docs/python.md "Workers"): a child process serving Python
// functions through python/dlpack_node/worker.py. Tensors travel as share()
// descriptors over shared memory, so neither side copies them; the worker
// keeps each result attached until this side has opened it and said so.
const path = require('path');
const { spawn: spawnChild } = require('child_process');
const { makeError, invalidType, invalidValue, outOfRange } = require('./errors');
const { checkOptions } = require('./options');
const { Tensor } = require('./tensor');
const { open } = require('./sharing');

const pythonPath = path.join(__dirname, '..', 'python');
const kToken = Symbol('PythonWorker');
const CROSS_PROCESS = new Set(['shm', 'cuda-ipc']);
const STDERR = ['inherit', 'pipe', 'ignore'];
const LIKE = new Set(['numpy', 'torch']);
// The longest protocol line, in bytes without its newline (python/FORMAT.md
// "Workers"; MAX_LINE in worker.py, which clips tracebacks to fit). A longer
// line from the worker is a protocol error.
const MAX_LINE = 16 * 1024 * 1024;

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const isString = (value) => typeof value === 'string';
const quote = (line) => JSON.stringify(line.length > 80 ? `${line.slice(0, 77)}...` : line);

// Calls onLine(text) for each line of `stream`, and onOverlong() instead for
// a line longer than MAX_LINE bytes, holding at most MAX_LINE bytes of it:
// readline builds any line, and one past V8's string limit threw RangeError
// out of its 'data' handler, which ended Node.
function readLines(stream, onLine, onOverlong) {
  let parts = [];
  let size = 0;
  stream.on('data', (chunk) => {
    for (let start = 0; start < chunk.length;) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      size += end - start;
      if (size > MAX_LINE) {
        stream.destroy();
        onOverlong();
        return;
      }
      parts.push(chunk.subarray(start, end));
      if (newline === -1) return;
      const line = Buffer.concat(parts, size).toString('utf8');
      parts = [];
      size = 0;
      onLine(line);
      start = newline + 1;
    }
  });
}

// The promise `closed` is: its then() (and so await, catch and finally)
// keeps Node running until the worker has exited. Awaiting a plain promise
// holds nothing, so `kill()` then `await closed` on an idle worker let Node
// exit before the await returned.
class Closed extends Promise {
  #onThen;

  constructor(executor, onThen) {
    super(executor);
    this.#onThen = onThen;
  }

  static get [Symbol.species]() {
    return Promise;
  }

  then(onFulfilled, onRejected) {
    if (this.#onThen !== undefined) this.#onThen();
    return super.then(onFulfilled, onRejected);
  }
}

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

// The last bytes of the worker's standard error kept for errors (stderr: 'pipe').
const STDERR_TAIL = 2048;

function workerExited(worker, what) {
  const how = worker.signal !== null ? `was killed by ${worker.signal}` : `exited with code ${worker.exitCode}`;
  let message = `The Python worker (pid ${worker.pid}, ${worker.python}) ${how} ${what}`;
  if (worker.methods === null) {
    const tail = worker.stderrTail.toString('utf8').trimEnd();
    message += tail === '' ? '' : `; the end of its standard error:\n${tail.split('\n').slice(-10).join('\n')}`;
  }
  return makeError('ERR_DLPACK_WORKER_EXITED', message);
}

// Why `result` (one entry of an answer's results) is not one, or undefined.
function badResult(result, servingPid) {
  if (!isObject(result) || Object.keys(result).length !== 1) return 'a result that is not {tensor} or {value}';
  if ('value' in result) return undefined;
  const { tensor } = result;
  if (!isObject(tensor)) return 'a result that is not {tensor} or {value}';
  // Only a descriptor of this worker's own memory: a 'local' one (or one
  // naming another pid) would open memory of this process or a third one.
  if (!CROSS_PROCESS.has(tensor.kind)) return `a result of kind ${JSON.stringify(tensor.kind)}`;
  if (tensor.pid !== servingPid) return `a result in the memory of pid ${JSON.stringify(tensor.pid)}`;
  return undefined;
}

class PythonWorker {
  constructor(token, child, python) {
    if (token !== kToken) {
      throw makeError('ERR_ILLEGAL_CONSTRUCTOR', 'Python workers are made by dl.python.spawn(), not by `new`');
    }
    this.child = child;
    this.pid = child.pid;
    this.python = python;
    // stderr: 'pipe': the stream, read here always (an unread pipe filled
    // at 64 KiB and the worker blocked mid-print), its tail kept for errors.
    this.stderr = child.stderr || null;
    this.stderrTail = Buffer.alloc(0);
    this.methods = null; // the served names, once the worker said it is ready
    this.servingPid = null; // the pid the worker's results are shared from (its ready message)
    this.exitCode = null;
    this.signal = null;
    this.exited = false;
    this.awaited = false; // close() or `closed` awaited: keep Node running until the exit
    this.lateExit = undefined; // the timer that ends the wait for pipes a child of the worker holds
    this.nextId = 1;
    this.pending = new Map(); // call id -> { name, resolve, reject, args, sent }
    this.failure = null; // the error every later call gets, once the worker is gone or broke the protocol
    this.ready = new Promise((resolve, reject) => { this.readyState = { resolve, reject }; });
    this.ready.catch(() => {}); // the error also reaches every call; an unawaited ready is not unhandled
    this.closed = new Closed((resolve) => { this.resolveClosed = resolve; }, () => this.keepAlive());
    // The exit is acted on once the pipes are read to their end: answers
    // written just before it, and its last words on standard error, count.
    const streams = [child.stdout, child.stderr].filter((stream) => stream && !stream.destroyed);
    let open = streams.length + 1;
    const closed = () => { if (--open === 0) this.ended(); };
    for (const stream of streams) stream.once('close', closed);
    child.on('exit', (code, signal) => {
      this.exitCode = code;
      this.signal = signal;
      closed();
      // A process the worker started may hold the pipes open after it exits:
      // wait a moment for them, not forever.
      if (!this.exited) this.lateExit = setTimeout(() => this.ended(), 1000);
    });
    if (this.stderr !== null) {
      this.stderr.on('data', (chunk) => {
        const kept = Buffer.concat([this.stderrTail, chunk]);
        this.stderrTail = kept.subarray(Math.max(0, kept.length - STDERR_TAIL));
      });
    }
    child.on('error', (error) => {
      this.fail(error); // e.g. ENOENT: no such Python; EMFILE: no descriptor left for the pipes
      if (child.pid === undefined) this.ended(); // never started: there will be no 'exit'
    });
    // Absent when the spawn failed before making the pipes (EMFILE): 'error' follows.
    if (child.stdout) {
      readLines(child.stdout, (line) => this.receive(line),
        () => this.protocolError(`a line longer than ${MAX_LINE} bytes`));
    }
    if (child.stdin) child.stdin.on('error', () => {}); // EPIPE after the worker died: 'exit' says so
    this.idle();
  }

  ended() {
    if (this.exited) return;
    this.exited = true;
    clearTimeout(this.lateExit);
    if (this.pid !== undefined) {
      const when = this.methods === null ? 'before it was ready' : 'while a call was in flight';
      this.fail(workerExited(this, this.pending.size === 0 && this.methods !== null ? 'while idle' : when));
    }
    this.idle();
    this.resolveClosed(this.exitCode);
  }

  keepAlive() {
    this.awaited = true;
    this.idle();
  }

  // One line from the worker: its ready message first, then answers to calls
  // in flight. Anything else stops the worker.
  receive(line) {
    if (this.failure !== null) return; // stopped, or gone: nothing more is read
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.protocolError(`a line that is not JSON: ${quote(line)}`);
      return;
    }
    const problem = this.methods === null ? this.readReady(message) : this.readAnswer(message);
    if (problem !== undefined) this.protocolError(`${problem}: ${quote(line)}`);
  }

  readReady(message) {
    const ready = isObject(message) ? message.ready : undefined;
    if (!isObject(ready)) return 'a line that is not its ready message';
    const { methods, pid, like } = ready;
    if (!Array.isArray(methods) || !methods.every(isString) || !Number.isSafeInteger(pid) || pid <= 0 ||
        pid === process.pid || !LIKE.has(like)) {
      return 'a malformed ready message';
    }
    this.methods = Object.freeze([...methods]);
    this.servingPid = pid;
    this.readyState.resolve(this);
    this.idle();
    return undefined;
  }

  readAnswer(message) {
    if (!isObject(message)) return 'a line that is not an answer';
    const call = Number.isSafeInteger(message.id) ? this.pending.get(message.id) : undefined;
    if (call === undefined || !call.sent) return 'an answer to no call in flight';
    if ('error' in message) {
      const { error: raised } = message;
      if (!isObject(raised) || !isString(raised.type) || !isString(raised.message) ||
          !isString(raised.traceback)) {
        return 'a malformed error answer';
      }
      this.settle(message.id);
      const error = makeError('ERR_DLPACK_PYTHON', `Python raised ${raised.type} in ${call.name}(): ${raised.message}`);
      error.pythonType = raised.type;
      error.pythonTraceback = raised.traceback;
      call.reject(error);
      return undefined;
    }
    const { results, many } = message;
    if (!Array.isArray(results) || typeof many !== 'boolean' || (!many && results.length !== 1)) {
      return 'a malformed answer';
    }
    for (const result of results) {
      const problem = badResult(result, this.servingPid);
      if (problem !== undefined) return problem;
    }
    this.settle(message.id);
    let opened;
    try {
      opened = this.decode(results);
    } catch (error) {
      call.reject(error);
      return undefined;
    } finally {
      this.send({ release: message.id }); // opened or given up: the worker may let go
    }
    call.resolve(many ? opened : opened[0]);
    return undefined;
  }

  settle(id) {
    this.pending.delete(id);
    this.idle();
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
    const { stdin } = this.child;
    if (!this.exited && stdin && stdin.writable) stdin.write(`${JSON.stringify(message)}\n`);
  }

  // A worker starting up, with calls in flight, or whose exit is awaited
  // keeps this process running; an idle one does not.
  idle() {
    const starting = this.methods === null && this.failure === null;
    const busy = this.pending.size !== 0 || (this.awaited && !this.exited);
    const method = busy || starting ? 'ref' : 'unref';
    this.child[method]();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) {
      if (stream && typeof stream[method] === 'function') stream[method]();
    }
  }

  call(name, ...args) {
    if (typeof name !== 'string') return Promise.reject(invalidType('name', 'a string', name));
    if (this.failure !== null) {
      const gone = this.exited && this.methods !== null && this.failure.code === 'ERR_DLPACK_WORKER_EXITED';
      return Promise.reject(gone ? workerExited(this, 'before this call') : this.failure);
    }
    let encoded;
    try {
      encoded = args.map(encodeArg);
    } catch (error) {
      return Promise.reject(error);
    }
    // The call's line is bounded like the worker's (python/FORMAT.md "Workers"); the
    // rest of the line ({"id": n, "call": name}) is counted with a margin.
    const bytes = Buffer.byteLength(JSON.stringify(encoded)) + Buffer.byteLength(JSON.stringify(name)) + 64;
    if (bytes > MAX_LINE) {
      return Promise.reject(outOfRange('args', `JSON of at most ${MAX_LINE} bytes in all (one protocol line; ` +
        'large data travels as shared tensors)', `${bytes} bytes`));
    }
    const id = this.nextId++;
    // The pending entry keeps the argument tensors alive until the answer: a
    // descriptor names memory that the last tensor over it would release.
    const done = new Promise((resolve, reject) => this.pending.set(id, { name, resolve, reject, args, sent: false }));
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
      this.pending.get(id).sent = true;
      this.send({ id, call: name, args: encoded });
    }, () => {});
    return done;
  }

  // Ends the worker's input, so it returns from serve() and exits; resolves
  // with its exit code. Calls still in flight are answered first.
  close() {
    // Without the close message, the end of its input tells the worker that
    // this process is gone, and it exits at once, mid-call or not.
    this.send({ close: true });
    if (!this.exited && this.child.stdin) this.child.stdin.end();
    this.keepAlive();
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
  const { python = process.env.DLPACK_PYTHON || 'python3', args = [], env = process.env, cwd,
    stderr = 'inherit' } = checkOptions(options, SPAWN_KEYS);
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
  return new PythonWorker(kToken, child, python);
}

module.exports = { spawn, PythonWorker, pythonPath, MAX_LINE };
