'use strict';
// The interpreters the peer tests embed, and the helper that embeds them
// (test/native/embed_python.cc), built here for each one: test-only, never
// shipped, never built by npm install. docs/development.md "Peers".
//
// interpreter(python): what an interpreter needs for embedding, read from its
// own sysconfig (the values `python3-config --embed --cflags --ldflags` prints:
// the include directory, LIBDIR and libpython's name), or { skip: reason } when
// it cannot be embedded (no shared libpython, no Python.h).
// build(facts): the helper's path, compiled with g++ on first use into
// build/peers/ under a name that hashes the sources and the flags, so a later
// run (and every child process) loads it without compiling; a compiler failure
// throws with the compiler's output.
const fs = require('fs');
const os = require('os');
const path = require('path');
const crypto = require('crypto');
const { spawnSync } = require('child_process');

const ROOT = path.join(__dirname, '..', '..');
const SOURCE = path.join(ROOT, 'test', 'native', 'embed_python.cc');
const HEADERS = [path.join(ROOT, 'src', 'core', 'dlpack_abi.h')];
const OUT_DIR = path.join(ROOT, 'build', 'peers');

// The modern peers' venv (scripts/peers-venv.sh makes it) and Debian's Python.
const VENV = process.env.DLPACK_PEERS_VENV || path.join(os.homedir(), '.cache', 'dlpack-ci', 'peers-venv');
const VENV_PYTHON = path.join(VENV, 'bin', 'python');
const SYSTEM_PYTHON = '/usr/bin/python3';

const FACTS = `
import json, os, sys, sysconfig
v = sysconfig.get_config_var
lib = os.path.join(v('LIBDIR') or '', v('INSTSONAME') or '')
print(json.dumps({'version': sys.version.split()[0], 'prefix': sys.prefix,
                  'include': sysconfig.get_paths()['include'], 'libdir': v('LIBDIR'),
                  'ldversion': v('LDVERSION'), 'shared': bool(v('Py_ENABLE_SHARED')), 'libpython': lib}))`;

function interpreter(python) {
  if (!fs.existsSync(python)) {
    return { skip: `${python} does not exist` + (python === VENV_PYTHON ?
      ' (make the venv with `bash scripts/peers-venv.sh`, or name one with DLPACK_PEERS_VENV)' : '') };
  }
  const r = spawnSync(python, ['-c', FACTS], { encoding: 'utf8', timeout: 60000 });
  if (r.status !== 0) return { skip: `${python} did not run: ${(r.stderr || String(r.error)).trim()}` };
  const facts = { python, ...JSON.parse(r.stdout) };
  if (!facts.shared || !fs.existsSync(facts.libpython)) {
    return { skip: `${python} has no shared libpython to embed (${facts.libpython || 'Py_ENABLE_SHARED is 0'})` };
  }
  if (!fs.existsSync(path.join(facts.include, 'Python.h'))) {
    return { skip: `${python} has no ${path.join(facts.include, 'Python.h')} (Debian: apt-get install python3-dev)` };
  }
  if (nodeHeaders() === null) {
    return { skip: `no node_api.h beside ${process.execPath} or in /usr/include/node: the embedding helper ` +
      'needs Node\'s headers (a Node from nodejs.org or Debian\'s nodejs has them; npm\'s node-linux-* binary has not)' };
  }
  if (spawnSync('g++', ['--version'], { timeout: 60000 }).status !== 0) {
    return { skip: 'no g++ to build the embedding helper with (Debian: apt-get install g++)' };
  }
  return facts;
}

// Node-API's headers: beside this Node, else Debian's; null where neither has them.
function nodeHeaders() {
  for (const dir of [path.resolve(process.execPath, '..', '..', 'include', 'node'), '/usr/include/node']) {
    if (fs.existsSync(path.join(dir, 'node_api.h'))) return dir;
  }
  return null;
}

function build(facts) {
  const addonApi = require('node-addon-api').include_dir.replace(/^"|"$/g, '');
  const args = ['-std=c++17', '-shared', '-fPIC', '-O1', '-g0', '-Wall', '-Wextra', '-Wno-unused-parameter',
    '-Wno-missing-field-initializers', '-fvisibility=hidden', '-DNAPI_CPP_EXCEPTIONS', '-DNAPI_VERSION=8',
    `-I${nodeHeaders()}`, `-I${path.resolve(ROOT, addonApi)}`, `-I${facts.include}`, SOURCE,
    `-L${facts.libdir}`, `-lpython${facts.ldversion}`, `-Wl,-rpath,${facts.libdir}`, '-ldl'];
  const hash = crypto.createHash('sha256');
  for (const file of [SOURCE, ...HEADERS]) hash.update(fs.readFileSync(file));
  hash.update(JSON.stringify(args));
  const out = path.join(OUT_DIR, `embed-python${facts.ldversion}-${hash.digest('hex').slice(0, 16)}.node`);
  if (fs.existsSync(out)) return out;
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  const r = spawnSync('g++', [...args, '-o', tmp], { encoding: 'utf8', timeout: 300000 });
  if (r.status !== 0) {
    fs.rmSync(tmp, { force: true });
    throw new Error(`cannot build the embedding helper for ${facts.python} ` +
      `(g++ ${r.error ? r.error.message : `exited ${r.status}`}):\n${r.stderr}`);
  }
  fs.renameSync(tmp, out); // whole or absent: another process never loads half a file
  return out;
}

module.exports = { interpreter, build, VENV, VENV_PYTHON, SYSTEM_PYTHON, ROOT };
