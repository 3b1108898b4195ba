'use strict';
// lib/ is a DAG (docs/development.md "Layout"): every require('./x') in lib/ is read, each
// must sit at a module's top level (no lazy require inside a function or
// block), and the graph they form must have no cycle.
const fs = require('fs');
const path = require('path');

const LIB = path.join(__dirname, '..', 'lib');

// The local requires of `source` with the brace depth at each: a small lexer
// that skips comments, strings, template literals and regex-free code (lib/
// has no regex literal holding a brace or a quote).
function localRequires(source) {
  const found = [];
  let depth = 0;
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i];
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      i = source.indexOf('\n', i);
      if (i === -1) break;
    } else if (c === '/' && next === '*') {
      i = source.indexOf('*/', i + 2) + 2;
    } else if (c === '\'' || c === '"' || c === '`') {
      let j = i + 1;
      while (j < n && source[j] !== c) j += source[j] === '\\' ? 2 : 1;
      i = j + 1;
    } else if (c === '{' || c === '(' || c === '[') {
      if (c === '{') depth++;
      i++;
    } else if (c === '}') {
      depth--;
      i++;
    } else if (source.startsWith('require(', i) && !/[\w$.]/.test(source[i - 1] || '')) {
      const m = /^require\(\s*'(\.\/[\w.-]+)'\s*\)/.exec(source.slice(i));
      if (m !== null) found.push({ target: m[1], depth, line: source.slice(0, i).split('\n').length });
      i += 'require('.length;
    } else {
      i++;
    }
  }
  return found;
}

const files = fs.readdirSync(LIB).filter((f) => f.endsWith('.js'));
const graph = new Map();
for (const file of files) {
  const name = file.slice(0, -3);
  graph.set(name, localRequires(fs.readFileSync(path.join(LIB, file), 'utf8')));
}

test('the lexer sees requires and their depth (a check that the check can fail)', () => {
  const sample = [
    "const { a } = require('./a'); // require('./comment')",
    "const s = 'require(\"./string\")';",
    "function f() { return require('./lazy'); }",
  ].join('\n');
  expect(localRequires(sample)).toEqual([
    { target: './a', depth: 0, line: 1 },
    { target: './lazy', depth: 1, line: 3 },
  ]);
});

test('every local require in lib/ is at the top level of its module', () => {
  const lazy = [];
  for (const [name, requires] of graph) {
    for (const r of requires) if (r.depth !== 0) lazy.push(`lib/${name}.js:${r.line} require('${r.target}')`);
  }
  expect(lazy).toEqual([]);
});

test('lib/ requires form a DAG', () => {
  const state = new Map(); // name -> 'visiting' | 'done'
  const cycles = [];
  const visit = (name, trail) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') {
      cycles.push([...trail.slice(trail.indexOf(name)), name].join(' -> '));
      return;
    }
    state.set(name, 'visiting');
    for (const r of graph.get(name) || []) {
      const target = r.target.slice(2).replace(/\.js$/, '');
      expect(graph.has(target)).toBe(true); // every ./x names a file in lib/
      visit(target, [...trail, name]);
    }
    state.set(name, 'done');
  };
  for (const name of graph.keys()) visit(name, []);
  expect(cycles).toEqual([]);
  expect(graph.size).toBeGreaterThan(10);
});

// The calling convention with the addon lives in lib/binding.js alone
// (src/addon/convention.h): no other lib file indexes the scratch block or
// names its slots, and none hard-codes a number the addon hands over.
test('only lib/binding.js touches the scratch block and the slot numbers', () => {
  const offenders = [];
  for (const file of files) {
    if (file === 'binding.js') continue;
    const source = fs.readFileSync(path.join(LIB, file), 'utf8');
    const code = source.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    if (/\bscratch\b|\bslot\b|\bwriteShape\b/.test(code)) offenders.push(`lib/${file}`);
  }
  expect(offenders).toEqual([]);
  const binding = fs.readFileSync(path.join(LIB, 'binding.js'), 'utf8');
  expect(binding).toMatch(/\bscratch\[[A-Z_]+/); // the check above reads the right words
});

// Facts the addon hands over at load (src/addon/convention.h Convention()):
// lib/ reads them from lib/binding.js and writes no copy. A copy is
// recognised two ways, in code with comments and strings blanked:
// - by name, anywhere in lib/ but binding.js: a constant whose name is one of
//   the convention's names in CONSTANT_CASE (FREE, OUT, the struct fields as
//   W_DATA or DATA, the slab layout as ENTRY_SIZE, MAX_DIMS, ...; prefixes W_,
//   K_ and FLAG_ are ignored) bound to a number literal or an expression of
//   literals (`4 * 1024 * 1024`), or a `{ major: N, minor: M }` version
//   literal other than the legacy 0.0;
// - by value, in lib/struct_slab.js (the one file that writes the slab): every
//   number literal other than 0, 1 and 2 (a 64-bit field is two words) must
//   sit in a top-level named constant's initialiser, and no state word (an
//   `i32[...]` element, a variable named word or state, an Atomics call) is
//   compared with, written as or exchanged for a number literal (states go
//   by name).
const binding = require('../lib/binding');

const constantCase = (key) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

function conventionNames() {
  const names = new Set(['MAX_DIMS', 'HUGE_PAGE_ADVICE_MIN', 'STRUCT_WORDS', 'STRUCT_SIZE', 'DLPACK_VERSION']);
  const { states, fields, layout } = binding.slabConvention;
  for (const table of [states, fields, layout, binding.dlpackFlags]) {
    for (const key of Object.keys(table)) names.add(constantCase(key));
  }
  return names;
}

// `source` with comments, strings and template literals blanked (lengths and
// line breaks kept).
function blankText(source) {
  let out = '';
  let i = 0;
  const n = source.length;
  const blank = (text) => text.replace(/[^\n]/g, ' ');
  while (i < n) {
    const c = source[i];
    const next = source[i + 1];
    let end = -1;
    if (c === '/' && next === '/') {
      end = source.indexOf('\n', i);
      if (end === -1) end = n;
    } else if (c === '/' && next === '*') {
      end = source.indexOf('*/', i + 2) + 2;
    } else if (c === '\'' || c === '"' || c === '`') {
      let j = i + 1;
      while (j < n && source[j] !== c) j += source[j] === '\\' ? 2 : 1;
      end = j + 1;
    }
    if (end === -1) {
      out += c;
      i++;
    } else {
      out += blank(source.slice(i, end));
      i = end;
    }
  }
  return out;
}

const NUMBER = String.raw`(?:0[xX][0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?)n?`;
const LITERAL_EXPRESSION = new RegExp(String.raw`^[-+*/%()<>\s]*${NUMBER}(?:[-+*/%()<>\s]+${NUMBER})*[)\s]*$`);

function conventionCopies(source, names, writesSlab) {
  const code = blankText(source);
  const found = [];
  const lineOf = (at) => code.slice(0, at).split('\n').length;
  const declaration = /\b(?:const|let|var)\s+([A-Z][A-Z0-9_]*)\s*=\s*([^;,\n]+)/g;
  for (let m; (m = declaration.exec(code)) !== null;) {
    const bare = m[1].replace(/^(?:W_|K_|FLAG_)/, '');
    if ((names.has(m[1]) || names.has(bare)) && LITERAL_EXPRESSION.test(m[2])) {
      found.push(`${lineOf(m.index)}: ${m[1]} = ${m[2].trim()}`);
    }
  }
  const version = /\bmajor\s*:\s*(\d+)\s*,\s*minor\s*:\s*(\d+)/g;
  for (let m; (m = version.exec(code)) !== null;) {
    if (m[1] !== '0' || m[2] !== '0') found.push(`${lineOf(m.index)}: version ${m[1]}.${m[2]}`);
  }
  if (writesSlab) {
    const literal = new RegExp(String.raw`(?<![\w$.])${NUMBER}(?![\w$])`, 'g');
    for (let m; (m = literal.exec(code)) !== null;) {
      if (['0', '1', '2'].includes(m[0])) continue;
      const line = code.slice(code.lastIndexOf('\n', m.index) + 1, code.indexOf('\n', m.index));
      if (!/^const\s+[A-Z][A-Z0-9_]*\s*=\s*[^;]*;$/.test(line.trim())) found.push(`${lineOf(m.index)}: ${m[0]}`);
    }
    const stateWord = String.raw`(?:\bi32\[[^\]]*\]|\b(?:word|state)\b)`;
    const compared = new RegExp(String.raw`${stateWord}\s*(?:[!=]==?|=(?!=))\s*-?${NUMBER}(?![\w$])`, 'g');
    for (let m; (m = compared.exec(code)) !== null;) found.push(`${lineOf(m.index)}: state ${m[0].trim()}`);
    const atomics = /\bAtomics\.\w+\(([^)]*)\)/g;
    const argument = new RegExp(String.raw`(?:^|,)\s*-?${NUMBER}\s*(?=,|$)`);
    for (let m; (m = atomics.exec(code)) !== null;) {
      if (argument.test(m[1])) found.push(`${lineOf(m.index)}: ${m[0]}`);
    }
  }
  return found;
}

test('the convention-copy check finds the copies lib/struct_slab.js used to hold (a check that it can fail)', () => {
  const names = conventionNames();
  const sample = [
    'const FREE = 0;',
    'const W_DATA = 8;',
    'const STRUCT_WORDS = 20; // the struct',
    'const HUGE_PAGE_ADVICE_MIN = 4 * 1024 * 1024;',
    "const MAX_DIMS = require('./binding').MAX_DIMS;",
    'const dlpackVersion = Object.freeze({ major: 1, minor: 3 });',
    'const LEGACY = { major: 0, minor: 0 };',
    "put32(s, base + 10, shadow, info.code | (info.bits << 8) | (1 << 16)); // 'W_DATA = 8'",
    'if (s.i32[at] === 2) return;',
    'if (s.i32[at] !== OUT || ndim === 0) return;',
    'if (Atomics.compareExchange(s.i32, at, 1, FREE) !== OUT) s.i32[at] = 0;',
  ].join('\n');
  expect(conventionCopies(sample, names, false)).toEqual([
    '1: FREE = 0', '2: W_DATA = 8', '3: STRUCT_WORDS = 20', '4: HUGE_PAGE_ADVICE_MIN = 4 * 1024 * 1024',
    '6: version 1.3',
  ]);
  expect(conventionCopies(sample, names, true)).toEqual([
    '1: FREE = 0', '2: W_DATA = 8', '3: STRUCT_WORDS = 20', '4: HUGE_PAGE_ADVICE_MIN = 4 * 1024 * 1024',
    '6: version 1.3', '6: 3', '8: 10', '8: 8', '8: 16', '9: state i32[at] === 2', '11: state i32[at] = 0',
    '11: Atomics.compareExchange(s.i32, at, 1, FREE)',
  ]);
});

test('lib/ holds no copy of a fact the addon hands over (slab states, struct offsets, limits, version)', () => {
  const names = conventionNames();
  expect(names).toContain('RELEASED'); // the names come from the addon's tables
  expect(names).toContain('BYTE_OFFSET');
  const offenders = [];
  for (const file of files) {
    if (file === 'binding.js') continue;
    const source = fs.readFileSync(path.join(LIB, file), 'utf8');
    for (const copy of conventionCopies(source, names, file === 'struct_slab.js')) offenders.push(`lib/${file}:${copy}`);
  }
  expect(offenders).toEqual([]);
});

// The dtype facts live in the dtype table (lib/dtypes.js, checked against
// src/core/dtype.h at load): a dtype's kind (which are floats, which signed)
// and an integer dtype's range are read from its info, never listed again.
// A list is recognised in code with comments blanked (strings kept): three
// or more dtype names in a row, each separated from the next by a comma,
// optionally after a `key: value` of at most 40 characters (an object keyed
// by dtype, an array or Set of names, a message listing them), outside
// lib/dtypes.js.
const dtypeNames = require('../lib/dtypes').byIndex.map((i) => i.name);

function dtypeLists(source, names = dtypeNames) {
  const code = source.replace(/\/\/.*$/gm, (c) => ' '.repeat(c.length))
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
  const name = new RegExp(String.raw`(?<![\w$])(?:${names.join('|')})(?![\w$])`, 'g');
  const hits = [];
  for (let m; (m = name.exec(code)) !== null;) hits.push({ at: m.index, end: m.index + m[0].length });
  const separator = /^['"]?\s*(?::[^;?\n]{0,40}?)?\s*(?:,|\bor\b|\band\b)\s*['"]?$/;
  const found = [];
  let run = 1;
  for (let i = 1; i <= hits.length; i++) {
    if (i < hits.length && separator.test(code.slice(hits[i - 1].end, hits[i].at))) {
      run++;
      continue;
    }
    if (run >= 3) {
      const first = hits[i - run];
      found.push(`${code.slice(0, first.at).split('\n').length}: ${code.slice(first.at, hits[i - 1].end)}`);
    }
    run = 1;
  }
  return found;
}

// Copies and ops are routed by lib/route.js alone (issue 23 item 6): no other
// lib file (lib/binding.js defines the wrappers) calls the binding's copy and
// op wrappers or the native functions behind them. The check reads each
// file's code (comments dropped): the names it destructures from
// require('./binding'), every `native.NAME` / `native['NAME']` it touches, and
// any other way of holding the module (`= require('./binding')` not
// destructured), which would hide the calls from the first two checks.
const COPY_AND_OP_WRAPPERS = [
  'copyStrided', 'cudaStridedCopy', 'cudaConvert', 'elementwise', 'elementwiseDense', 'normalize', 'reduce',
  // the compute families (src/addon/linalg.h)
  'matmul', 'statistics', 'norms',
  // issue 40's host families
  'sortLanes', 'scanLanes', 'indexGather', 'indexNonzero', 'randomFill', 'randomMultinomial', 'boxesIou', 'boxesNms',
  'interpolateNchw',
];
const COPY_AND_OP_NATIVES = [
  'copyStrided', 'copyStridedAsync', 'cudaCopy', 'cudaStridedCopy', 'cudaConvert', 'elementwise', 'elementwiseDense',
  'elementwiseAsync', 'normalize', 'normalizeAsync', 'reduce', 'reduceAsync',
  'matmul', 'matmulAsync', 'statistics', 'statisticsAsync', 'norms', 'normsAsync',
  // issue 40's host families
  'sortLanes', 'scanLanes', 'indexGather', 'indexNonzero', 'randomFill', 'randomMultinomial', 'boxesIou', 'boxesNms',
  'interpolateNchw',
];
const ROUTERS = new Set(['binding.js', 'route.js']);

const withoutComments = (source) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

function copyAndOpCalls(source) {
  const code = withoutComments(source);
  const found = [];
  for (const m of code.matchAll(/(?:const|let|var)\s+(\{[^}]*\}|[\w$]+)\s*=\s*require\('\.\/binding'\)/g)) {
    if (!m[1].startsWith('{')) {
      found.push(`the whole module as ${m[1]}`);
      continue;
    }
    for (const part of m[1].slice(1, -1).split(',')) {
      const name = part.split(':')[0].trim();
      if (COPY_AND_OP_WRAPPERS.includes(name)) found.push(name);
    }
  }
  for (const m of code.matchAll(/\bnative\s*(?:\.\s*([\w$]+)|\[\s*'([\w$]+)'\s*\])/g)) {
    const name = m[1] || m[2];
    if (COPY_AND_OP_NATIVES.includes(name)) found.push(`native.${name}`);
  }
  return found;
}

test('the dtype-list check finds lists of dtype names (a check that it can fail)', () => {
  const sample = [
    "const FLOATS = new Set(['float16', 'bfloat16', 'float32', 'float64']);",
    'const CATEGORY = { bool: BOOL, int8: INT, int16: INT, uint8: INT };',
    'const RANGES = { int8: [-128n, 127n], int16: [-32768n, 32767n], uint8: [0n, 255n] };',
    "throw fail('a float16, bfloat16, float32 or float64 tensor');",
    "return higher === 'float64' ? 'complex128' : 'complex64';",
    "const info = infos.float32; // float16, bfloat16, float32",
  ].join('\n');
  expect(dtypeLists(sample)).toEqual([
    "1: float16', 'bfloat16', 'float32', 'float64",
    '2: bool: BOOL, int8: INT, int16: INT, uint8',
    '3: int8: [-128n, 127n], int16: [-32768n, 32767n], uint8',
    '4: float16, bfloat16, float32 or float64',
  ]);
});

test('lib/ lists dtype facts only in the dtype table (float kinds, integer ranges)', () => {
  const offenders = [];
  for (const file of files) {
    if (file === 'dtypes.js') continue;
    const source = fs.readFileSync(path.join(LIB, file), 'utf8');
    for (const list of dtypeLists(source)) offenders.push(`lib/${file}:${list}`);
  }
  expect(offenders).toEqual([]);
});

// The C++ side of the same facts: each is defined once in src/ (the two
// dimension limits have two names: layout.h kMaxDims, a tensor's, and
// StructSlab::kEntryDims, a slab entry's).
test('src/ defines each shared fact once', () => {
  const SRC = path.join(__dirname, '..', 'src');
  const sources = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(h|cc|cu)$/.test(entry.name)) sources.push(fs.readFileSync(full, 'utf8'));
    }
  };
  walk(SRC);
  const definitions = (pattern) => sources.reduce((n, s) => n + (s.match(pattern) || []).length, 0);
  expect({
    kMaxDims: definitions(/\bconstexpr\s+\w+\s+kMaxDims\s*=/g),
    kEntryDims: definitions(/\bconstexpr\s+\w+\s+kEntryDims\s*=/g),
    kHugePageAdviceMin: definitions(/\bconstexpr\s+[\w:]+\s+kHugePageAdviceMin\s*=/g),
    DLPACK_MAJOR_VERSION: definitions(/#define\s+DLPACK_MAJOR_VERSION\b/g),
    DLPACK_MINOR_VERSION: definitions(/#define\s+DLPACK_MINOR_VERSION\b/g),
    slabStates: definitions(/#define\s+DLNODE_SLAB_STATES\b/g),
    structFields: definitions(/#define\s+DLNODE_STRUCT_FIELDS\b/g),
  }).toEqual({
    kMaxDims: 1, kEntryDims: 1, kHugePageAdviceMin: 1, DLPACK_MAJOR_VERSION: 1, DLPACK_MINOR_VERSION: 1,
    slabStates: 1, structFields: 1,
  });
});

test('the call finder sees the wrappers and the natives (a check that the check can fail)', () => {
  const sample = [
    "const { native, copyStrided: copy, opCodes } = require('./binding');",
    "native.cudaCopy(a); native['elementwise'](b); native.setNumThreads(2); // native.normalize()",
    "const b = require('./binding');",
  ].join('\n');
  expect(copyAndOpCalls(sample)).toEqual(['copyStrided', 'the whole module as b', 'native.cudaCopy',
    'native.elementwise']);
});

test('only lib/route.js (and lib/binding.js) call the binding\'s copy and op wrappers', () => {
  const offenders = [];
  for (const file of files) {
    if (ROUTERS.has(file)) continue;
    for (const call of copyAndOpCalls(fs.readFileSync(path.join(LIB, file), 'utf8'))) {
      offenders.push(`lib/${file}: ${call}`);
    }
  }
  expect(offenders).toEqual([]);
  // The lists name what the binding really has: each wrapper is exported by
  // lib/binding.js, each native is called there or in lib/route.js, and
  // lib/route.js reaches lib/tensor.js through no chain of requires.
  const binding = withoutComments(fs.readFileSync(path.join(LIB, 'binding.js'), 'utf8'));
  const exported = /module\.exports\s*=\s*\{([^}]*)\}/.exec(binding)[1].split(',').map((s) => s.trim());
  expect(exported).toEqual(expect.arrayContaining(COPY_AND_OP_WRAPPERS));
  const route = withoutComments(fs.readFileSync(path.join(LIB, 'route.js'), 'utf8'));
  for (const name of COPY_AND_OP_NATIVES) expect(`${binding}${route}`).toMatch(new RegExp(`native\\.${name}\\(`));
  const reached = new Set();
  const reach = (name) => {
    if (reached.has(name)) return;
    reached.add(name);
    for (const r of graph.get(name)) reach(r.target.slice(2).replace(/\.js$/, ''));
  };
  reach('route');
  expect(reached.has('tensor')).toBe(false);
  expect(reached.has('binding')).toBe(true);
});

// DLPack's device type codes come from the addon (convention deviceCodes,
// src/core/dlpack_abi.h): lib/device.js used to hold its own table.
const DEVICE_CODE_TABLE = /\b(?:cpu|cuda|cuda_host|cuda_managed)\s*:\s*\d+|\b\d+\s*:\s*'(?:cpu|cuda|cuda_host|cuda_managed)'/;

test('lib/ holds no table of DLPack device codes (and the check can fail)', () => {
  expect("const codeOf = { cpu: 1, cuda: 2, cuda_host: 3, cuda_managed: 13 };").toMatch(DEVICE_CODE_TABLE);
  expect("const typeOf = { 1: 'cpu', 2: 'cuda' };").toMatch(DEVICE_CODE_TABLE);
  for (const file of files) {
    const code = fs.readFileSync(path.join(LIB, file), 'utf8').replace(/\/\/.*$/gm, '');
    expect({ file, table: DEVICE_CODE_TABLE.test(code) }).toEqual({ file, table: false });
  }
});

// The descriptor format's version is written in each language that reads it
// (python/FORMAT.md): lib/sharing.js for Node, dlpack_node for Python. They
// must agree, with each other and with the document.
test('the share descriptor versions agree across lib/, python/ and python/FORMAT.md', () => {
  const read = (file) => fs.readFileSync(path.join(__dirname, '..', file), 'utf8');
  const one = (source, re, what) => {
    const m = re.exec(source);
    expect({ what, found: m !== null }).toEqual({ what, found: true });
    return Number(m[1]);
  };
  const sharing = read('lib/sharing.js');
  const format = read('python/FORMAT.md');
  const shm = one(sharing, /^const SHM_VERSION = (\d+);/m, 'SHM_VERSION');
  const ipc = one(sharing, /^const CUDA_IPC_VERSION = (\d+);/m, 'CUDA_IPC_VERSION');
  expect(one(read('python/dlpack_node/__init__.py'), /^VERSION = (\d+)$/m, 'dlpack_node VERSION')).toBe(shm);
  expect(one(read('python/dlpack_node/_cuda_ipc.py'), /^VERSION = (\d+)$/m, '_cuda_ipc VERSION')).toBe(ipc);
  expect(one(format, /^# Shared-memory segments \(`kind: 'shm'`, version (\d+)\)/m, 'FORMAT.md shm')).toBe(shm);
  expect(one(format, /^A `'cuda-ipc'` descriptor \(version (\d+)\)/m, 'FORMAT.md cuda-ipc')).toBe(ipc);
});

// Native failures (docs/development.md "Native failures"): every src/core failure is a
// Result<Failure> whose table row carries its code, and src/addon/errors.h's ErrorOf /
// ThrowIfFailed is the one place that turns one into a coded error. A translator is code
// in the addon that picks a code from a failure or a CUDA status, or builds an Error from
// a result's words: a `case X::kY` over a failure enum, a code chosen by a condition, a
// status's `unavailable` flag read, or an `Error{...}` made of a result's fields.
const SOURCES = path.join(__dirname, '..', 'src');
const TRANSLATOR_PATTERNS = [
  /\bcase\s+[\w:]*(?:Failure|Status)::k\w+/,
  /\?\s*code::k\w+/,
  /\bcode::k\w+\s*:(?!:)/,
  /\.\s*unavailable\b/,
  /\bError\s*\{[^}]*\b\w+\s*\.\s*(?:message|detail|name)\b/,
];

function translators(source) {
  const lines = withoutComments(source).split('\n');
  const found = [];
  lines.forEach((line, i) => {
    if (TRANSLATOR_PATTERNS.some((p) => p.test(line))) found.push(`${i + 1}: ${line.trim()}`);
  });
  return found;
}

test('the translator finder sees the per-type translators the addon used to hold (a check that it can fail)', () => {
  const sample = [
    'switch (r.failure) {',
    '  case ShmFailure::kGone:',
    '    throw Error{code::kDisposed, r.message};',
    '}',
    'return Error{s.unavailable ? code::kCudaUnavailable : code::kCuda, what, s.name};',
    'throw Error{code::kUnsupported, "Expected a dtype"};  // a refusal the addon words: allowed',
    'ThrowIfFailed(result);',
  ].join('\n');
  expect(translators(sample)).toEqual([
    '2: case ShmFailure::kGone:',
    '3: throw Error{code::kDisposed, r.message};',
    '5: return Error{s.unavailable ? code::kCudaUnavailable : code::kCuda, what, s.name};',
  ]);
});

test('src/addon turns native failures into errors in one place (errors.h), with no per-type translator', () => {
  const found = [];
  for (const name of fs.readdirSync(path.join(SOURCES, 'addon'))) {
    if (!/\.(h|cc)$/.test(name) || name === 'errors.h') continue;
    for (const hit of translators(fs.readFileSync(path.join(SOURCES, 'addon', name), 'utf8'))) {
      found.push(`src/addon/${name}:${hit}`);
    }
  }
  expect(found).toEqual([]);
});

test('every failure table row names a documented code; no result type but Result<Failure>', () => {
  const codes = new Map();
  const codesHeader = fs.readFileSync(path.join(SOURCES, 'core', 'error_codes.h'), 'utf8');
  for (const m of codesHeader.matchAll(/constexpr const char\* (k\w+) = "(ERR_\w+)";/g)) codes.set(m[1], m[2]);
  // docs/errors.md lists the misuse rows, docs/API.md "Errors" every code.
  const documented = ['errors.md', 'API.md'].map((f) => fs.readFileSync(path.join(__dirname, '..', 'docs', f), 'utf8'))
    .join('\n');
  const tables = [];
  const problems = [];
  // src/core and its folders (the compute engine's, src/core/compute).
  const coreFiles = [];
  const walkCore = (dir) => {
    for (const entry of fs.readdirSync(path.join(SOURCES, 'core', dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walkCore(rel);
      else if (/\.(h|cc)$/.test(entry.name)) coreFiles.push(rel);
    }
  };
  walkCore('');
  for (const name of coreFiles) {
    const source = fs.readFileSync(path.join(SOURCES, 'core', name), 'utf8');
    // A struct of its own for a failure (a `failure` member outside Result) is a second shape.
    if (name !== 'result.h' && /^\s+\w*Failure\s+failure\s*=/m.test(source)) problems.push(`${name}: own result struct`);
    for (const m of source.matchAll(/#define\s+(DLNODE_\w+_FAILURES)\(X\)((?:[^\n]*\\\n)*[^\n]*)/g)) {
      const rows = [...withoutComments(m[2].replace(/\\\n/g, '\n')).matchAll(/X\(\s*(k\w+)\s*,\s*([\w:]+)/g)];
      tables.push(m[1]);
      if (rows.length < 2 || rows[0][1] !== 'kNone' || rows[0][2] !== 'nullptr') {
        problems.push(`${m[1]}: the first row must be X(kNone, nullptr)`);
      }
      for (const [, constant, code] of rows.slice(1)) {
        const text = codes.get(code.replace(/^code::/, ''));
        if (text === undefined) problems.push(`${m[1]} ${constant}: ${code} is not an error_codes.h code`);
        else if (!documented.includes(`\`${text}\``)) problems.push(`${m[1]} ${constant}: ${text} not in docs/errors.md or docs/API.md`);
      }
    }
  }
  expect(problems).toEqual([]);
  expect(tables.sort()).toEqual(['DLNODE_CHECK_FAILURES', 'DLNODE_COMPUTE_FAILURES', 'DLNODE_CUDA_FAILURES',
    'DLNODE_ELEMENTWISE_FAILURES', 'DLNODE_IPC_FAILURES', 'DLNODE_NORMALIZE_FAILURES', 'DLNODE_REDUCE_FAILURES',
    'DLNODE_SHM_FAILURES', 'DLNODE_VIEW_FAILURES']);
});

// `import { normalize } from 'dlpack'` must work as require('dlpack').normalize
// does: lib/index.mjs names each export (ESM needs the names written out), so a
// name added to lib/index.js and not there would be missing for ESM users (the
// ops and setNumThreads were, until 2026-11-27).
test('the ESM entry exports every name the CommonJS entry has, and no other', () => {
  const { spawnSync } = require('child_process');
  const code = `import * as ns from ${JSON.stringify(path.join(LIB, 'index.mjs'))};
    console.log(JSON.stringify(Object.keys(ns).filter((k) => k !== 'default').sort()));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60000 });
  if (run.status !== 0) throw new Error(`the ESM import failed (${run.status} ${run.signal}): ${run.stderr}`);
  expect(JSON.parse(run.stdout)).toEqual(Object.keys(require('../lib')).sort());
});
