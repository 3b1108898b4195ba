'use strict';
// Finding the native addon, loading it, and saying in one sentence why it
// cannot be loaded (README.md "Install"): no binary for this platform, or a binary that
// needs a newer glibc or libstdc++, another C library (musl), another
// architecture, or that is damaged. scripts/install.js and scripts/prebuild.js
// use the same words and the same ELF reader.
const fs = require('fs');
const path = require('path');
const { DLPackError } = require('./errors');
const { floors, floorGcc, GCC_OF_GLIBCXX } = require('./floors');

const root = path.join(__dirname, '..');
const target = `${process.platform}-${process.arch}`;
const REBUILD = 'build it from source with `npm rebuild dlpack --foreground-scripts` ' +
  '(needs a C++ compiler, make and python3)';

// e_machine values of the architectures Node runs on.
const MACHINES = { 3: 'ia32', 8: 'mips', 20: 'ppc', 21: 'ppc64', 22: 's390x', 40: 'arm', 62: 'x64', 183: 'arm64',
  243: 'riscv64', 258: 'loong64' };

// Why `file` is not a whole 64-bit little-endian ELF file, or null. dlopen() of
// a truncated file maps pages past its end and dies of SIGBUS, so the loader
// asks this (a read of a few hundred bytes) before loading.
function elfDamage(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    const h = Buffer.alloc(64);
    if (fs.readSync(fd, h, 0, 64, 0) < 64 || h.readUInt32BE(0) !== 0x7f454c46) return 'not an ELF file';
    if (h[4] !== 2 || h[5] !== 1) return 'not a 64-bit little-endian ELF file';
    const phoff = Number(h.readBigUInt64LE(0x20));
    const phentsize = h.readUInt16LE(0x36);
    const phnum = h.readUInt16LE(0x38);
    const shend = Number(h.readBigUInt64LE(0x28)) + h.readUInt16LE(0x3a) * h.readUInt16LE(0x3c);
    if (phoff + phnum * phentsize > size || shend > size) return 'truncated ELF file';
    const ph = Buffer.alloc(phnum * phentsize);
    fs.readSync(fd, ph, 0, ph.length, phoff);
    for (let i = 0; i < phnum; i++) {
      const at = i * phentsize;
      const end = Number(ph.readBigUInt64LE(at + 8)) + Number(ph.readBigUInt64LE(at + 32)); // p_offset + p_filesz
      if (ph.readUInt32LE(at) === 1 && end > size) return 'truncated ELF file'; // PT_LOAD
    }
    return null;
  } catch (error) {
    return error.message;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

// The architecture of an ELF file and the newest symbol version it needs from
// each library version namespace (GLIBC, GLIBCXX, CXXABI, ...), read from its
// .gnu.version_r section. Throws on anything that is not a 64-bit
// little-endian ELF shared object with section headers.
function readElf(file) {
  const damage = elfDamage(file);
  if (damage !== null) throw new Error(damage);
  const b = fs.readFileSync(file);
  const machine = b.readUInt16LE(0x12);
  const shoff = Number(b.readBigUInt64LE(0x28));
  const shentsize = b.readUInt16LE(0x3a);
  const shnum = b.readUInt16LE(0x3c);
  const section = (i) => {
    const at = shoff + i * shentsize;
    return {
      type: b.readUInt32LE(at + 4), offset: Number(b.readBigUInt64LE(at + 24)),
      size: Number(b.readBigUInt64LE(at + 32)), link: b.readUInt32LE(at + 40), info: b.readUInt32LE(at + 44),
    };
  };
  const needs = {};
  for (let i = 0; i < shnum; i++) {
    const s = section(i);
    if (s.type !== 0x6ffffffe) continue; // SHT_GNU_verneed
    if (s.offset + s.size > b.length) throw new Error('truncated ELF file');
    const strtab = section(s.link);
    const name = (at) => {
      const start = strtab.offset + at;
      return b.toString('latin1', start, b.indexOf(0, start));
    };
    let vn = s.offset;
    for (let n = 0; n < s.info; n++) {
      let aux = vn + b.readUInt32LE(vn + 8);
      for (let k = b.readUInt16LE(vn + 2); k > 0; k--) {
        const m = /^([A-Z]+)_([0-9.]+)$/.exec(name(b.readUInt32LE(aux + 8)));
        if (m !== null && (needs[m[1]] === undefined || compareVersions(m[2], needs[m[1]]) > 0)) needs[m[1]] = m[2];
        aux += b.readUInt32LE(aux + 12);
      }
      vn += b.readUInt32LE(vn + 12);
    }
  }
  return { arch: MACHINES[machine] ?? `e_machine ${machine}`, needs };
}

function compareVersions(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  }
  return 0;
}

// The C library of this process: { glibc: '2.36' }, { musl: true } or {}.
function libc() {
  if (process.platform !== 'linux') return {};
  const header = process.report.getReport().header;
  if (header.glibcVersionRuntime) return { glibc: header.glibcVersionRuntime };
  return { musl: true };
}

// Platforms the package carries a prebuilt binary for.
function shippedTargets() {
  try {
    return fs.readdirSync(path.join(root, 'prebuilds'))
      .filter((d) => fs.existsSync(path.join(root, 'prebuilds', d, 'dlpack.node'))).sort();
  } catch {
    return [];
  }
}

// linux-arm64 is built without CUDA (the x86-64 toolkit cannot target it).
const label = (t) => (t.endsWith('-arm64') ? `${t} (CPU only, no CUDA)` : t);

function thisPlatform(system = libc()) {
  if (system.glibc) return `${target} (glibc ${system.glibc})`;
  if (system.musl) return `${target} (musl libc)`;
  return target;
}

// Why `file` did not load (`message`: the loader's error), as a clause:
// "prebuilds/linux-x64/dlpack.node needs glibc 2.34 or newer, and this is 2.31".
// `system` is this machine's C library and architecture (tests pass others).
function diagnose(file, message, system = { ...libc(), arch: process.arch }) {
  const name = path.relative(root, file) || file;
  let elf;
  try {
    elf = readElf(file);
  } catch (error) {
    return `${name} is damaged (${error.message}, ${fs.existsSync(file) ? fs.statSync(file).size : 0} bytes)`;
  }
  if (elf.arch !== system.arch) return `${name} is built for ${elf.arch}, and this machine is ${system.arch}`;
  if (system.musl && elf.needs.GLIBC) {
    return `${name} needs glibc ${elf.needs.GLIBC} or newer, and this system's C library is musl`;
  }
  if (system.glibc && elf.needs.GLIBC && compareVersions(elf.needs.GLIBC, system.glibc) > 0) {
    return `${name} needs glibc ${elf.needs.GLIBC} or newer, and this system has glibc ${system.glibc}`;
  }
  const missing = /(GLIBCXX|CXXABI)_[0-9.]+/.exec(message);
  if (missing !== null) {
    const gcc = GCC_OF_GLIBCXX[elf.needs.GLIBCXX];
    return `${name} needs a libstdc++ with ${missing[0]} (it asks for up to GLIBCXX_${elf.needs.GLIBCXX}` +
      `${gcc === undefined ? '' : `, GCC ${gcc}'s`}), which this system's libstdc++.so.6 lacks`;
  }
  return `${name} could not be loaded (${message.split('\n')[0]})`;
}

// The one sentence for "no usable binary": `why` is a clause from diagnose()
// or null when there is no binary at all.
function noBinarySentence(why, system = libc()) {
  const shipped = shippedTargets();
  // The documented floors (lib/floors.js), which CI holds every shipped binary to.
  const needs = `, which need${shipped.length === 1 ? 's' : ''} glibc ${floors.GLIBC} or newer and libstdc++ ` +
    `from GCC ${floorGcc} or newer (GLIBCXX_${floors.GLIBCXX})`;
  const ships = shipped.length === 0
    ? 'the package carries no prebuilt binaries'
    : `the package carries prebuilt binaries for ${shipped.map(label).join(' and ')}${needs}`;
  const found = why === null ? `dlpack has no native binary for ${thisPlatform(system)}` : `dlpack: ${why}`;
  return `${found}; ${ships}; ${REBUILD}.`;
}

// The addon: DLPACK_ADDON_PATH if set, else a local build, else the prebuilt
// binary. A file that is there but does not load is not skipped: the error
// says what it needs. Throws DLPackError ERR_DLPACK_NO_BINARY.
/** @returns {import('./native').Native} */
function load() {
  const candidates = process.env.DLPACK_ADDON_PATH
    ? [path.resolve(process.env.DLPACK_ADDON_PATH)]
    : ['build/Release', `prebuilds/${target}`, 'build/Debug'].map((d) => path.join(root, d, 'dlpack.node'));
  if (process.env.DLPACK_ADDON_PATH && !fs.existsSync(candidates[0])) {
    throw new DLPackError(`dlpack: DLPACK_ADDON_PATH names ${candidates[0]}, which does not exist`,
      'ERR_DLPACK_NO_BINARY');
  }
  for (const file of candidates) {
    if (!fs.existsSync(file)) continue;
    if (elfDamage(file) !== null) {
      throw new DLPackError(noBinarySentence(diagnose(file, '')), 'ERR_DLPACK_NO_BINARY');
    }
    try {
      return require(file);
    } catch (error) {
      throw Object.assign(new DLPackError(noBinarySentence(diagnose(file, error.message)), 'ERR_DLPACK_NO_BINARY'),
        { cause: error });
    }
  }
  throw new DLPackError(noBinarySentence(null), 'ERR_DLPACK_NO_BINARY');
}

module.exports = { load, readElf, diagnose, noBinarySentence, compareVersions, target };
