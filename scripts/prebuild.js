'use strict';
// Copies the node-gyp build into prebuilds/<platform>-<arch>/dlpack.node,
// stripped, for the npm package (run by `npm pack` through "prepack").
// Node-API is ABI-stable: one binary serves every Node version from 20 on, and
// the CUDA-enabled build loads without a CUDA driver.
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const root = path.join(__dirname, '..');
const built = path.join(root, 'build', 'Release', 'dlpack.node');
const dir = path.join(root, 'prebuilds', `${process.platform}-${process.arch}`);
const target = path.join(dir, 'dlpack.node');

if (!fs.existsSync(built)) {
  console.error(`prebuild: ${built} is missing; run \`npm run build\` first`);
  process.exit(1);
}
fs.mkdirSync(dir, { recursive: true });
try {
  execFileSync('strip', ['--strip-unneeded', '-o', target, built]);
} catch {
  fs.copyFileSync(built, target); // no strip: ship it as built
}
console.log(`prebuild: ${path.relative(root, target)} (${fs.statSync(target).size} bytes)`);
