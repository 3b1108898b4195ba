'use strict';
// The package's install script. npm 11 does not run dependency install
// scripts by default, so a consumer's `npm install dlpack` relies on the
// prebuilt binary in prebuilds/ and never gets here. Where it does run (a
// checkout of this repository, or scripts allowed), keep a prebuilt binary
// that loads, and otherwise build from source with node-gyp.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.join(__dirname, '..');
const prebuilt = path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'dlpack.node');
const checkout = fs.existsSync(path.join(root, '.git'));

function loads(file) {
  if (!fs.existsSync(file)) return false;
  const probe = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(file)})`], { stdio: 'ignore' });
  return probe.status === 0;
}

if (!checkout && loads(prebuilt)) {
  console.log(`dlpack: using the prebuilt binary ${path.relative(root, prebuilt)}`);
  process.exit(0);
}
// npm puts its bundled node-gyp on PATH for lifecycle scripts.
const gyp = spawnSync('node-gyp', ['rebuild'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(gyp.status === null ? 1 : gyp.status);
