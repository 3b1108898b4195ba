'use strict';
// The package's install script. Every path ends with the install complete:
// - the prebuilt binary for this platform loads: one line, no compile;
// - it is missing or does not load: say why, and build from source with
//   node-gyp when this machine has a C++ compiler, make and python3;
// - no compiler (or the build fails): one sentence (platform found, platforms
//   shipped, how to build) and exit 0; require('dlpack') then throws
//   ERR_DLPACK_NO_BINARY with the same sentence.
// npm 11.19 runs dependency install scripts by default, with the warning
// "install scripts not yet covered by allowScripts"; with --ignore-scripts (and
// in a later npm, which blocks them) this script does not run and the loader
// alone decides. In a checkout of the repository, or with DLPACK_FROM_SOURCE=1, it
// always builds. (`npm install-scripts ls` shows this script as "node-gyp rebuild":
// it reads the hidden lockfile, which keeps no script bodies, and infers that from
// binding.gyp; npm install runs this script.)
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { diagnose, noBinarySentence, target } = require('../lib/load');

const root = path.join(__dirname, '..');
const prebuilt = path.join(root, 'prebuilds', target, 'dlpack.node');

// null when `file` loads in a fresh Node process, else the loader's message.
function loadError(file) {
  const probe = spawnSync(process.execPath,
    ['-e', 'try { require(process.argv[1]); } catch (e) { process.stderr.write(e.message); process.exit(1); }', file],
    { encoding: 'utf8', timeout: 60000 });
  return probe.status === 0 ? null : (probe.stderr || `exit ${probe.status ?? probe.signal}`);
}

// The build tools node-gyp needs that are not on PATH.
function missingTools() {
  const dirs = (process.env.PATH || '').split(path.delimiter).filter(Boolean);
  const found = (name) => dirs.some((d) => {
    try {
      fs.accessSync(path.join(d, name), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  const compilers = [process.env.CXX, 'g++', 'c++', 'clang++'].filter(Boolean);
  const missing = [];
  if (!compilers.some((c) => (path.isAbsolute(c) ? fs.existsSync(c) : found(c)))) missing.push('C++ compiler');
  if (!found('make')) missing.push('make');
  if (!found('python3') && !process.env.PYTHON) missing.push('python3');
  return missing;
}

// node-gyp: the one npm runs scripts with (npm_config_node_gyp), else PATH's.
function buildFromSource() {
  const gyp = process.env.npm_config_node_gyp;
  const run = gyp && fs.existsSync(gyp)
    ? spawnSync(process.execPath, [gyp, 'rebuild'], { cwd: root, stdio: 'inherit' })
    : spawnSync('node-gyp', ['rebuild'], { cwd: root, stdio: 'inherit' });
  return run.status === 0;
}

const AFTER = 'The install completes; require(\'dlpack\') throws ERR_DLPACK_NO_BINARY with this message ' +
  'until a binary is built.)';

function main() {
  // A checkout, or DLPACK_FROM_SOURCE=1 (npm rebuild dlpack with a loadable prebuilt): build.
  if (fs.existsSync(path.join(root, '.git')) || process.env.DLPACK_FROM_SOURCE === '1') {
    process.exitCode = buildFromSource() ? 0 : 1;
    return;
  }
  let why = null;
  if (fs.existsSync(prebuilt)) {
    const error = loadError(prebuilt);
    if (error === null) {
      const cpuOnly = process.arch === 'arm64' ? '; CUDA is off on linux-arm64' : '';
      console.log(`dlpack: using the prebuilt binary prebuilds/${target}/dlpack.node (no compile needed${cpuOnly})`);
      return;
    }
    why = diagnose(prebuilt, error);
  }
  const missing = missingTools();
  if (missing.length > 0) {
    console.log(`${noBinarySentence(why)} (Nothing was built: no ${missing.join(', ')} on PATH. ` +
      AFTER);
    return;
  }
  console.log(`dlpack: ${why ?? `no prebuilt binary for ${target}`}; building from source with node-gyp`);
  if (buildFromSource() && loadError(path.join(root, 'build', 'Release', 'dlpack.node')) === null) {
    console.log('dlpack: built build/Release/dlpack.node from source');
    return;
  }
  console.log(`${noBinarySentence(why)} (The source build failed: its output is above. ` +
    AFTER);
}

main();
