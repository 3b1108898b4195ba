'use strict';
// The DLPack exchange proven against the real peers, in process (issue 42):
// NumPy 2, PyTorch 2.13, JAX and Paddle from the venv scripts/peers-venv.sh
// makes, and Debian's NumPy 1.24 and PyTorch 1.13 (the legacy peers), each
// read our structs with their own from_dlpack and hand us theirs. Each peer
// runs in a child Node process of its own with its Python embedded
// (test/peers/child.js, test/native/embed_python.cc), so peers never share a
// process and one that takes its process down fails only its own checks;
// what each check proves is in test/peers/checks.js, what each peer is
// pinned to do in test/peers/table.js.
//
// A peer whose interpreter cannot be embedded, or that is not installed, is
// skipped with the reason printed; with DLPACK_PEERS_REQUIRED=1 (.ci/run,
// once it has made the venv) every peer must run, and a skip is a failure.
const path = require('path');
const fs = require('fs');
const { spawn, spawnSync } = require('child_process');
const { PEERS } = require('./peers/table');
const { checksFor } = require('./peers/checks');
const embed = require('./peers/embed');

const REQUIRED = process.env.DLPACK_PEERS_REQUIRED === '1';
const CHILD_MS = 300000; // a peer's whole run; its import alone took up to 15 s on this loaded 2-core VM
const CHILD = path.join(__dirname, 'peers', 'child.js');

const VERSIONS = `
import importlib.metadata, importlib.util, json, sys
dist = {'paddle': 'paddlepaddle'}
found = {}
for m in sys.argv[1:]:
    if importlib.util.find_spec(m) is None:
        found[m] = None
        continue
    try:
        found[m] = importlib.metadata.version(dist.get(m, m))
    except importlib.metadata.PackageNotFoundError:
        found[m] = ''
print(json.dumps(found))`;
// 'major.minor' of a version string.
const minor = (version) => version.split('.').slice(0, 2).join('.');

// Per interpreter: what embedding it needs and the helper built for it, or why not.
const interpreters = {};
for (const [kind, python] of [['venv', embed.VENV_PYTHON], ['system', embed.SYSTEM_PYTHON]]) {
  const facts = embed.interpreter(python);
  if (facts.skip) {
    interpreters[kind] = { skip: facts.skip };
    continue;
  }
  // Which peers are installed (find_spec imports nothing); one that is
  // installed but fails to import fails its checks in the child.
  const modules = Object.values(PEERS).filter((p) => p.python === kind).map((p) => p.adapter);
  // The version of each installed one, from its distribution's metadata (null:
  // not installed; '' installed with no metadata).
  const found = spawnSync(python, ['-c', VERSIONS, ...modules], { encoding: 'utf8', timeout: 60000 });
  interpreters[kind] = { facts, helper: embed.build(facts), installed: JSON.parse(found.stdout) };
}

function skipReason(peer) {
  const i = interpreters[peer.python];
  if (i.skip) return i.skip;
  const version = i.installed[peer.adapter];
  if (version === null || version === undefined) return `${peer.label} is not installed in ${i.facts.python}`;
  // Another release than the table's (a GPU machine's python3, a user's own)
  // behaves in ways the table does not pin: skipped, not failed, unless
  // DLPACK_PEERS_REQUIRED=1, where the check 'is <label> <version>' says what to update.
  if (!REQUIRED && version !== '' && minor(version) !== minor(peer.version)) {
    return `${peer.label} ${version} is installed in ${i.facts.python}; the table pins ${peer.version} ` +
      '(DLPACK_PEERS_REQUIRED=1 runs its checks anyway)';
  }
  return null;
}

// Runs the child for `peer` (only `check` when given): resolves with its
// results by check name, how it ended, and the end of what it printed.
function runChild(peer, check) {
  const { facts, helper } = interpreters[peer.python];
  const args = ['--expose-gc', CHILD, helper, facts.python, facts.libpython, peer.name];
  if (check !== undefined) args.push(check);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => { output = (output + chunk).slice(-8000); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const results = new Map();
  let ready = null;
  let skip = null;
  let done = false;
  let pending = '';
  child.stdio[3].on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop();
    for (const line of lines) {
      const message = JSON.parse(line);
      if (message.ready) ready = message.ready;
      else if (message.skip) skip = message.skip;
      else if (message.done) done = true;
      else results.set(message.check, message);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_MS);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const how = signal === 'SIGKILL' && !done ? `was killed after ${CHILD_MS / 1000} s` :
        signal ? `was killed by ${signal}` : `exited with code ${code}`;
      resolve({ results, ready, skip, done, code, signal, ended: `the ${peer.name} child (pid ${child.pid}) ${how}`,
        output });
    });
  });
}

describe.each(Object.keys(PEERS))('%s', (name) => {
  const peer = PEERS[name];
  const reason = skipReason(peer);
  if (reason !== null) console.log(`peers.test.js: ${name} ${REQUIRED ? 'fails' : 'skipped'}: ${reason}`);
  const it = reason === null ? test : REQUIRED ? (title, _fn) => test(title, () => {
    throw new Error(`DLPACK_PEERS_REQUIRED=1 and ${name} cannot run: ${reason}`);
  }) : test.skip;

  let run = null;
  beforeAll(async () => {
    if (reason === null) run = await runChild(peer);
  }, CHILD_MS + 10000);

  // Why a check has no result: the child skipped, died or stopped early.
  const missing = (r) => r.skip ? `${r.ended} after skipping the peer: ${r.skip}` :
    `${r.ended} before this check's result${r.ready ? '' : ' (the peer never became ready)'}; its last output:\n${r.output}`;

  for (const check of checksFor(peer)) {
    if (check.alone) {
      it(check.name, async () => {
        const r = await runChild(peer, check.name);
        // Pinned: the peer ends the process. If it raises instead, the check ran to its end.
        const result = r.results.get(check.name);
        expect({ signal: r.signal, result: result && (result.ok ? 'finished' : result.error) })
          .toEqual({ signal: 'SIGABRT', result: undefined });
        expect(r.output).toMatch(check.aborts);
      }, CHILD_MS + 10000);
      continue;
    }
    it(check.name, () => {
      const result = run.results.get(check.name);
      if (result === undefined) throw new Error(missing(run));
      if (!result.ok) throw new Error(result.error);
    });
  }

  it('the child ran every check and exited cleanly', () => {
    expect({ ended: run.ended, done: run.done, skip: run.skip }).toEqual({
      ended: expect.stringMatching(/exited with code 0$/), done: true, skip: null,
    });
  });
});

// The peer tables of docs/python.md "Peers" and docs/API.md "Peers" are
// test/peers/table.js: what CI runs is what they say.
describe('the peer tables in the docs', () => {
  const python = (value) => value === null ? 'None' : Array.isArray(value) ? `(${value.join(', ')})` : String(value);
  const asks = (peer) => Object.keys(peer.request).length === 0 ? 'no keywords' :
    `\`${Object.entries(peer.request).map(([k, v]) => `${k}=${python(v)}`).join(', ')}\``;
  const takes = (peer) => peer.keywords.map((k) => `\`${k}\``).join(', ');
  const name = (peer) => peer.modern ? peer.label : `${peer.label} (Debian 12)`;
  // The rows of the first table after `heading`, as arrays of cells.
  function rows(file, heading) {
    const text = fs.readFileSync(path.join(__dirname, '..', 'docs', file), 'utf8');
    const lines = text.slice(text.indexOf(`\n${heading}\n`)).split('\n');
    const start = lines.findIndex((l) => l.startsWith('| peer |'));
    const table = [];
    for (const line of lines.slice(start + 2)) {
      if (!line.startsWith('|')) break;
      table.push(line.slice(2, -2).split(' | '));
    }
    return table;
  }

  test.each([['python.md', '## Peers'], ['API.md', '### Peers']])('%s %s', (file, heading) => {
    const table = rows(file, heading);
    expect(table.map((r) => r[0])).toEqual(Object.values(PEERS).map(name));
    for (const peer of Object.values(PEERS)) {
      const row = table.find((r) => r[0] === name(peer));
      // peer | version | in process | across processes | asks with | takes
      expect({ peer: peer.name, version: row[1], asks: row[4], takes: row[5] })
        .toEqual({ peer: peer.name, version: peer.version, asks: asks(peer), takes: takes(peer) });
      if (file === 'python.md') {
        for (const entry of [peer.consumer, ...Object.keys(peer.exports)]) {
          expect({ peer: peer.name, entry, listed: row[2].includes(`\`${entry.replace(/\(x\)$/, '')}\``) })
            .toEqual({ peer: peer.name, entry, listed: true });
        }
      }
    }
  });

  test('the modern peers\' versions are the ones scripts/peers-requirements.txt pins', () => {
    const pins = Object.fromEntries(fs.readFileSync(path.join(__dirname, '..', 'scripts', 'peers-requirements.txt'),
      'utf8').split('\n').map((l) => l.split('#')[0].trim()).filter(Boolean).map((l) => l.split('==')));
    const pip = { numpy: 'numpy', torch: 'torch', jax: 'jax', paddle: 'paddlepaddle' };
    for (const peer of Object.values(PEERS).filter((p) => p.modern)) {
      expect({ peer: peer.name, version: pins[pip[peer.name]] }).toEqual({ peer: peer.name, version: peer.version });
    }
  });
});
