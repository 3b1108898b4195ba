'use strict';
// `npm test`: the GoogleTest suite of src/core (test/cpp, built with CMake into
// build-cmake/ and run by ctest), then the Jest suite; arguments after
// `npm test --` go to Jest. Both run whatever the other's outcome, and the exit
// status is 1 when either failed or the native suite could not run: a machine
// without cmake or GoogleTest gets a failed run that says what to install and
// how to run Jest alone, never a pass that left a suite out.
//
//   node test/run.js            npm test: ctest, then Jest
//   node test/run.js --native   npm run test:native: ctest alone
//   npm run test:js [-- ...]    Jest alone (node --expose-gc node_modules/jest/bin/jest.js)
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.join(__dirname, '..');
const tree = path.join(root, 'build-cmake');
// CMakeLists.txt's cmake_minimum_required.
const CMAKE_MIN = [3, 25];

const INSTALL = [
  '  Debian, Ubuntu:  sudo apt-get install cmake libgtest-dev',
  '  Fedora:          sudo dnf install cmake gtest-devel',
  '  Arch:            sudo pacman -S cmake gtest',
  'or run the Jest suite alone: npm run test:js',
];

// Runs a command in the repository; its output is shown as it comes (`show`)
// or returned for the caller to show.
function run(command, args, show) {
  const r = spawnSync(command, args, { cwd: root, encoding: 'utf8', stdio: show ? 'inherit' : 'pipe',
    maxBuffer: 64 << 20 });
  return { missing: r.error?.code === 'ENOENT', status: r.status, signal: r.signal,
    output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

// Why the GoogleTest suite cannot run here (what to install), or null.
function missingTools() {
  const cmake = run('cmake', ['--version'], false);
  if (cmake.missing) return 'cmake is not installed';
  const [major, minor] = (/(\d+)\.(\d+)/.exec(cmake.output) ?? ['', '0', '0']).slice(1).map(Number);
  if (major < CMAKE_MIN[0] || (major === CMAKE_MIN[0] && minor < CMAKE_MIN[1])) {
    return `cmake ${major}.${minor} is older than the ${CMAKE_MIN.join('.')} CMakeLists.txt needs`;
  }
  return null;
}

// The GoogleTest suite: configure (a tree configured before keeps its cache:
// CI's Release build with the addon), build, ctest. Returns a sentence saying
// why it could not run, or the exit status.
function nativeSuite() {
  const missing = missingTools();
  if (missing !== null) return missing;
  console.log(`npm test: the GoogleTest suite (test/cpp) in ${path.relative(root, tree)}/`);
  const configure = run('cmake', ['-S', '.', '-B', tree], false);
  if (configure.status !== 0) {
    // find_package(GTest REQUIRED) is the one dependency a configure can lack here.
    if (/Could NOT find GTest|GTestConfig\.cmake/.test(configure.output)) return 'GoogleTest is not installed';
    process.stdout.write(configure.output);
    return 'the CMake configure step failed (above)';
  }
  const jobs = String(os.availableParallelism());
  if (run('cmake', ['--build', tree, '--parallel', jobs], true).status !== 0) return 1;
  // A tree that registers no test is a broken suite, not a pass. One line per
  // test is a lot of output: all of it only when something failed.
  const ctest = run('ctest', ['--test-dir', tree, '--output-on-failure', '--no-tests=error'], false);
  if (ctest.status !== 0) {
    process.stdout.write(ctest.output);
    return ctest.status ?? 1;
  }
  const summary = /^\d+% tests passed[^]*/m.exec(ctest.output);
  process.stdout.write(summary === null ? ctest.output : summary[0]);
  return 0;
}

function jest(args) {
  // The path package.json's test:js names (jest's "exports" do not list bin/jest.js).
  const bin = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
  const r = spawnSync(process.execPath, ['--expose-gc', bin, ...args], { cwd: root, stdio: 'inherit' });
  return r.status ?? 1;
}

function main(argv) {
  const nativeOnly = argv[0] === '--native';
  const native = nativeSuite();
  const unavailable = typeof native === 'string';
  if (unavailable) {
    console.error(`npm test: the GoogleTest suite (test/cpp) cannot run: ${native}. Install cmake ` +
      `(${CMAKE_MIN.join('.')} or later) and GoogleTest:\n${INSTALL.join('\n')}`);
  }
  const js = nativeOnly ? 0 : jest(argv);
  // Said again after Jest's output, where it would otherwise scroll away.
  if (unavailable && !nativeOnly) console.error(`npm test: FAILED: the GoogleTest suite did not run (${native}).`);
  else if (native !== 0 && !nativeOnly) console.error('npm test: FAILED: the GoogleTest suite (ctest, above).');
  return native === 0 && js === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
