'use strict';
// The prebuilt binaries of the npm package (run by `npm pack` through
// "prepack", after `npm run build`), stripped, in prebuilds/<platform>-<arch>/:
// - this machine's: the node-gyp build in build/Release;
// - linux-arm64 from linux-x64: cross-compiled with CMake and
//   cmake/aarch64-linux-gnu.cmake (Debian's g++-aarch64-linux-gnu), CUDA off.
// Node-API is ABI-stable: one binary serves every Node version from 20 on, and
// the CUDA-enabled x64 build loads without a CUDA driver. Each binary's glibc
// and libstdc++ needs are printed, and one above lib/floors.js (the README's
// table) fails the pack.
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { readElf, target, compareVersions } = require('../lib/load');
const { aboveFloors } = require('../lib/floors');

const root = path.join(__dirname, '..');
const jobs = process.env.npm_package_config_node_gyp_jobs || '2';

function place(built, to, strip) {
  const dir = path.join(root, 'prebuilds', to);
  const file = path.join(dir, 'dlpack.node');
  fs.mkdirSync(dir, { recursive: true });
  try {
    execFileSync(strip, ['--strip-unneeded', '-o', file, built]);
  } catch {
    fs.copyFileSync(built, file); // no strip: ship it as built
  }
  const { arch, needs } = readElf(file);
  console.log(`prebuild: ${path.relative(root, file)} (${arch}, ${fs.statSync(file).size} bytes, ` +
    `needs glibc ${needs.GLIBC}, libstdc++ GLIBCXX_${needs.GLIBCXX})`);
  const above = aboveFloors(needs, compareVersions);
  if (above.length !== 0) {
    console.error(`prebuild: ${path.relative(root, file)} needs ${above.join(', ')}, above the documented ` +
      'floors in lib/floors.js (README "Install"); see src/core/libstdcxx_floor.h');
    process.exit(1);
  }
}

function crossArm64() {
  const build = path.join(root, 'build-arm64');
  const cmake = (args) => execFileSync('cmake', args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    execFileSync('aarch64-linux-gnu-g++', ['--version'], { stdio: 'ignore' });
  } catch {
    console.error('prebuild: aarch64-linux-gnu-g++ is missing (Debian: apt-get install g++-aarch64-linux-gnu); ' +
      'the package must carry linux-arm64 too');
    process.exit(1);
  }
  cmake(['--no-warn-unused-cli', '-S', '.', '-B', build, '-DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake',
    '-DCMAKE_BUILD_TYPE=Release', '-DDLPACK_BUILD_ADDON=ON', '-DDLPACK_BUILD_TESTS=OFF', '-DDLPACK_CUDA=OFF']);
  cmake(['--build', build, '--target', 'dlpack_addon', '-j', jobs]);
  place(path.join(build, 'dlpack.node'), 'linux-arm64', 'aarch64-linux-gnu-strip');
}

const built = path.join(root, 'build', 'Release', 'dlpack.node');
if (!fs.existsSync(built)) {
  console.error(`prebuild: ${built} is missing; run \`npm run build\` first`);
  process.exit(1);
}
place(built, target, 'strip');
if (target === 'linux-x64') crossArm64();
