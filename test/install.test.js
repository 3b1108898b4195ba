'use strict';
// The install script and the loader (README.md "Install"), on a copy of the
// package laid out as npm installs it (lib/, scripts/, prebuilds/, no .git,
// no build/): a prebuilt that loads, none, and a damaged one, on a PATH
// without a compiler. The source build itself runs in CI (.ci/run, phase
// "Install paths"): it takes minutes. The diagnoses for machines this is not
// (older glibc, musl, another architecture) run on the real binary with the
// machine's facts given.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { readElf, diagnose, noBinarySentence, compareVersions, target } = require('../lib/load');
const { floors, floorGcc, GCC_OF_GLIBCXX, aboveFloors } = require('../lib/floors');

const root = path.join(__dirname, '..');
const built = path.join(root, 'build', 'Release', 'dlpack.node');
const haveBuild = fs.existsSync(built);
if (!haveBuild) console.log(`install tests skipped: ${built} is missing (npm run build)`);
const withBuild = haveBuild ? test : test.skip;

let tmp;
let noCompilerPath; // a PATH holding node and nothing else
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dlpack-install-'));
  noCompilerPath = path.join(tmp, 'bin');
  fs.mkdirSync(noCompilerPath);
  fs.symlinkSync(process.execPath, path.join(noCompilerPath, 'node'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// A copy of the installed package; `prebuilt(file)` writes its binary.
function installedPackage(name, prebuilt) {
  const dir = path.join(tmp, name, 'node_modules', 'dlpack');
  fs.mkdirSync(dir, { recursive: true });
  for (const sub of ['lib', 'scripts']) fs.cpSync(path.join(root, sub), path.join(dir, sub), { recursive: true });
  fs.copyFileSync(path.join(root, 'package.json'), path.join(dir, 'package.json'));
  if (prebuilt !== null) {
    fs.mkdirSync(path.join(dir, 'prebuilds', target), { recursive: true });
    prebuilt(path.join(dir, 'prebuilds', target, 'dlpack.node'));
  }
  return dir;
}

// The children find the binary as an installed package does: an outer
// DLPACK_ADDON_PATH (the sanitizer phase's, relative to the repo) is not theirs.
function run(args, cwd, env = {}) {
  const { DLPACK_ADDON_PATH, ...outer } = process.env;
  const r = spawnSync(process.execPath, args,
    { cwd, encoding: 'utf8', timeout: 60000, env: { ...outer, ...env } });
  if (r.error) throw r.error;
  return r;
}

const installScript = (dir) => run(['scripts/install.js'], dir, { PATH: noCompilerPath, CXX: '' });
const requireIt = (dir) => run(['-e', `try {
    const dl = require(${JSON.stringify(dir)});
    console.log(JSON.stringify({ ok: dl.fromDLPack(dl.tensor([1, 2]).__dlpack__()).toArray() }));
  } catch (e) { console.log(JSON.stringify({ code: e.code, name: e.name, message: e.message })); }`], tmp);

const cpuOnly = process.arch === 'arm64' ? '; CUDA is off on linux-arm64' : '';

describe('install script and loader', () => {
  withBuild('a prebuilt that loads: one line, no compile, and require works', () => {
    const dir = installedPackage('good', (to) => fs.copyFileSync(built, to));
    const r = installScript(dir);
    expect({ status: r.status, stdout: r.stdout }).toEqual({
      status: 0,
      stdout: `dlpack: using the prebuilt binary prebuilds/${target}/dlpack.node (no compile needed${cpuOnly})\n`,
    });
    expect(fs.existsSync(path.join(dir, 'build'))).toBe(false);
    expect(JSON.parse(requireIt(dir).stdout)).toEqual({ ok: [1, 2] });
  });

  test('no prebuilt and no compiler: the install completes, and require throws the same sentence', () => {
    const dir = installedPackage('none', null);
    const r = installScript(dir);
    expect(r.status).toBe(0);
    const line = r.stdout.trim();
    expect(line).toMatch(new RegExp(`^dlpack has no native binary for ${target}`));
    expect(line).toMatch(/Nothing was built: no C\+\+ compiler, make(, python3)? on PATH/);
    const error = JSON.parse(requireIt(dir).stdout);
    expect(error).toMatchObject({ name: 'DLPackError', code: 'ERR_DLPACK_NO_BINARY' });
    expect(line.startsWith(error.message)).toBe(true);
    expect(error.message).toMatch(/npm rebuild dlpack --foreground-scripts/);
    expect(error.message).toMatch(/the package carries no prebuilt binaries/);
  });

  withBuild('a damaged prebuilt and no compiler: the install completes, require names the damage', () => {
    const dir = installedPackage('damaged', (to) => fs.writeFileSync(to, fs.readFileSync(built).subarray(0, 4096)));
    const r = installScript(dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^dlpack: prebuilds/${target}/dlpack.node is damaged \\(truncated ELF file`));
    const error = JSON.parse(requireIt(dir).stdout);
    expect(error).toMatchObject({ name: 'DLPackError', code: 'ERR_DLPACK_NO_BINARY' });
    expect(r.stdout.startsWith(error.message)).toBe(true);
    expect(error.message).toMatch(/is damaged .*; build it from source with `npm rebuild dlpack --foreground-scripts`/);
  });

  withBuild('a prebuilt for another architecture: require names both', () => {
    const dir = installedPackage('other-arch', (to) => {
      const bytes = fs.readFileSync(built);
      bytes.writeUInt16LE(process.arch === 'arm64' ? 62 : 183, 0x12); // e_machine
      fs.writeFileSync(to, bytes);
    });
    const other = process.arch === 'arm64' ? 'x64' : 'arm64';
    const error = JSON.parse(requireIt(dir).stdout);
    expect(error.code).toBe('ERR_DLPACK_NO_BINARY');
    expect(error.message).toContain(`dlpack.node is built for ${other}, and this machine is ${process.arch}`);
  });
});

describe('diagnoses', () => {
  withBuild('the ELF reader finds the architecture and the glibc and libstdc++ versions needed', () => {
    const elf = readElf(built);
    expect(elf.arch).toBe(process.arch);
    expect(elf.needs.GLIBC).toMatch(/^2\.\d+$/);
    expect(elf.needs.GLIBCXX).toMatch(/^3\.4\.\d+$/);
    const glibc = process.report.getReport().header.glibcVersionRuntime;
    expect(compareVersions(elf.needs.GLIBC, glibc)).toBeLessThanOrEqual(0); // it loads here
    expect(() => readElf(path.join(root, 'package.json'))).toThrow('not an ELF file');
  });

  withBuild('an older glibc, musl, a libstdc++ without the version: each named', () => {
    const needs = readElf(built).needs;
    expect(diagnose(built, 'x', { glibc: '2.17', arch: process.arch }))
      .toBe(`build/Release/dlpack.node needs glibc ${needs.GLIBC} or newer, and this system has glibc 2.17`);
    expect(diagnose(built, 'x', { musl: true, arch: process.arch }))
      .toBe(`build/Release/dlpack.node needs glibc ${needs.GLIBC} or newer, and this system's C library is musl`);
    const dlopen = "/lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by dlpack.node)";
    expect(diagnose(built, dlopen, { glibc: '99.0', arch: process.arch })).toMatch(
      /^build\/Release\/dlpack.node needs a libstdc\+\+ with GLIBCXX_3.4.30 .*which this system's libstdc\+\+.so.6 lacks$/,
    );
    expect(diagnose(built, 'some other failure\nmore', { glibc: '99.0', arch: process.arch }))
      .toBe('build/Release/dlpack.node could not be loaded (some other failure)');
  });

  test('one table of floors (lib/floors.js): the README and the loader say what it says', () => {
    const row = `glibc ${floors.GLIBC} or newer, libstdc++ from GCC ${floorGcc} or newer (\`GLIBCXX_${floors.GLIBCXX}\`)`;
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const platforms = readme.split('\n').filter((line) => /^\| linux-[a-z0-9]+ \|/.test(line));
    expect(platforms.map((line) => line.split(' | ')[0])).toEqual(['| linux-x64', '| linux-arm64']);
    for (const line of platforms) expect(line.split(' | ')[1]).toBe(row);
    expect(GCC_OF_GLIBCXX[floors.GLIBCXX]).toBe(floorGcc);
    expect(aboveFloors({ GLIBC: floors.GLIBC, GLIBCXX: '3.4.30', CXXABI: '1.3.9' }, compareVersions))
      .toEqual([`GLIBCXX_3.4.30 (floor ${floors.GLIBCXX})`]);
    expect(aboveFloors({ GLIBC: '2.35' }, compareVersions)).toEqual([`GLIBC_2.35 (floor ${floors.GLIBC})`]);
    expect(aboveFloors({ ...floors }, compareVersions)).toEqual([]);
  });

  test('the loader states the floors where the package carries binaries', () => {
    const dir = installedPackage('floors', (to) => fs.writeFileSync(to, 'not an ELF file'));
    const error = JSON.parse(requireIt(dir).stdout);
    expect(error.code).toBe('ERR_DLPACK_NO_BINARY');
    expect(error.message).toContain(`which needs glibc ${floors.GLIBC} or newer and libstdc++ from GCC ${floorGcc} ` +
      `or newer (GLIBCXX_${floors.GLIBCXX})`);
  });

  // The binary built here is what prebuild.js ships for this platform: built with
  // GCC 12, it must still not need GCC 12's libstdc++ (src/core/libstdcxx_floor.h).
  withBuild('the binary built here needs no symbol version above the floors', () => {
    expect(aboveFloors(readElf(built).needs, compareVersions)).toEqual([]);
  });

  test('the sentence names this platform, what is shipped and the rebuild command', () => {
    expect(noBinarySentence(null, { glibc: '2.31' })).toMatch(new RegExp(
      `^dlpack has no native binary for ${target} \\(glibc 2.31\\); the package carries .*; build it from source ` +
      'with `npm rebuild dlpack --foreground-scripts` \\(needs a C\\+\\+ compiler, make and python3\\)\\.$'));
    expect(noBinarySentence(null, { musl: true })).toContain(`for ${target} (musl libc);`);
    expect(compareVersions('2.34', '2.4')).toBeGreaterThan(0);
    expect(compareVersions('3.4.29', '3.4.29')).toBe(0);
  });
});
