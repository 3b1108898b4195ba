'use strict';
// The addon's surface is declared once, in lib/native.d.ts (docs/development.md
// "The native surface"): a function added to src/addon/addon.cc's table without a
// declaration, or declared and gone, fails here; so does a call in lib/ to a
// function the declaration does not have, and an object the addon returns whose
// keys differ from its declared interface; and test/types/native-calls.js
// (which `npm run typecheck` runs too) finds the wrong calls planted here.
const fs = require('fs');
const path = require('path');
const { isMainThread } = require('worker_threads');
const { native } = require('../lib/binding');
const { makeError } = require('../lib/errors');
const { slabState } = require('../lib/struct_slab');
// The call check type-checks with TypeScript (a devDependency, which npm
// install brings); a copy without it (the GPU check carries node_modules
// without typescript) skips that one test and says so.
let checkNativeCalls = null;
try {
  require.resolve('typescript');
  ({ checkNativeCalls } = require('./types/native-calls'));
} catch (error) {
  if (error.code !== 'MODULE_NOT_FOUND') throw error;
  console.log('The native-call type check skipped: typescript is not installed');
}

const LIB = path.join(__dirname, '..', 'lib');
const TEXT = fs.readFileSync(path.join(LIB, 'native.d.ts'), 'utf8');

// The members of `export interface NAME ... {` in a declaration's text, each a
// line at the interface's own indentation: `  name(` (a function), `  name:` or
// `  name?:` (a property), plus those of the interface it extends.
function members(text, name) {
  const head = new RegExp(`^export interface ${name}(?: extends (\\w+))? \\{\\n`, 'm').exec(text);
  if (head === null) throw new Error(`lib/native.d.ts declares no \`export interface ${name}\``);
  const body = text.slice(head.index, text.indexOf('\n}\n', head.index));
  const own = [...body.matchAll(/^ {2}(\w+)(\(|\??:)/gm)]
    .map((m) => ({ name: m[1], function: m[2] === '(', optional: m[2] === '?:' }));
  return head[1] === undefined ? own : [...members(text, head[1]), ...own];
}

const sorted = (names) => [...names].sort();
const names = (list) => list.map((m) => m.name);
const declared = names(members(TEXT, 'Native'));

// The keys of `object` against interface `name`: every required member present,
// nothing undeclared.
function expectShape(object, name) {
  const list = members(TEXT, name);
  const keys = Object.keys(object);
  expect({
    interface: name,
    missing: list.filter((m) => !m.optional && !keys.includes(m.name)).map((m) => m.name),
    undeclared: keys.filter((k) => !list.some((m) => m.name === k)),
  }).toEqual({ interface: name, missing: [], undeclared: [] });
}

test('the declaration is read: one line per function, none twice', () => {
  expect(declared).toContain('init');
  expect(declared).toContain('cudaEmptyCache');
  expect(new Set(declared).size).toBe(declared.length);
});

test('the addon exports exactly the functions lib/native.d.ts declares', () => {
  const exported = Object.keys(native);
  for (const name of exported) expect({ name, type: typeof native[name] }).toEqual({ name, type: 'function' });
  const missing = exported.filter((name) => !declared.includes(name));
  const gone = declared.filter((name) => !exported.includes(name));
  expect({ exportedButNotDeclared: missing, declaredButNotExported: gone })
    .toEqual({ exportedButNotDeclared: [], declaredButNotExported: [] });
  expect(sorted(exported)).toEqual(sorted(declared));
});

test('every native call in lib/ names a declared function', () => {
  const undeclared = [];
  for (const file of fs.readdirSync(LIB).filter((f) => f.endsWith('.js'))) {
    const code = fs.readFileSync(path.join(LIB, file), 'utf8');
    for (const m of code.matchAll(/\bnative\.(\w+)\(/g)) {
      if (!declared.includes(m[1])) undeclared.push(`lib/${file}: native.${m[1]}()`);
    }
  }
  expect(undeclared).toEqual([]);
});

(checkNativeCalls === null ? test.skip : test)('every native call in lib/ matches its declaration, and a wrong one is ' +
  'reported (npm run typecheck)', () => {
  // A file that is not on disk, among lib/'s own: three wrong calls and a right one.
  const planted = path.join(LIB, 'planted-for-the-test.js');
  const text = ["'use strict';", "const { native } = require('./binding');",
    'native.localShare(native.cudaAlloc(0, 0, 8, false));', // the device string is missing
    'native.cudaStreamDone(1n, 0);', // device and stream swapped
    'native.noSuchFunction();',
    'native.stats();'].join('\n');
  const { calls, errors } = checkNativeCalls({ [planted]: text });
  const ours = 'lib/planted-for-the-test.js:';
  expect(errors.filter((e) => !e.startsWith(ours))).toEqual([]); // lib/'s own calls
  const found = errors.filter((e) => e.startsWith(ours)).map((e) => e.slice(ours.length));
  expect(found).toEqual([
    expect.stringMatching(/^3: Expected 2 arguments, but got 1/),
    expect.stringMatching(/^4: Argument of type 'bigint' is not assignable to parameter of type 'number'/),
    expect.stringMatching(/^5: Property 'noSuchFunction' does not exist/),
  ]);
  expect(calls).toBeGreaterThan(5);
});

test('the objects the addon returns have the keys their interfaces declare', () => {
  // init() again, as each load of lib/ calls it (the last call wins): the same
  // factory and the same kind of warning callback as lib/binding.js's.
  const warn = (message) => process.emitWarning(message, { code: 'DLPACK_THREAD_MEMORY' });
  expectShape(native.init(makeError, warn, isMainThread), 'InitResult');
  expectShape(native.stats(), 'NativeStats');
  expectShape(native.cudaInfo(), 'CudaInfo');
  expectShape(native.cudaIpcCounts(), 'CudaIpcCounts');
  // The slab object, opened by lib/struct_slab.js (with its sweep) first; null in a
  // runtime without external buffers, which the test environment is not.
  expect(slabState()).not.toBeNull();
  expectShape(native.structSlab(() => {}), 'StructSlab');
});

test('the reader finds each interface\'s members, and those it extends (the reader itself)', () => {
  const text = 'export interface Other {\n  a(): void;\n}\n' +
    'export interface Native extends Base {\n  /** doc */\n  b(x: number,\n    y: number): void;\n  c?: number;\n' +
    '  d: { e: number };\n}\n' +
    'export interface Base {\n  f: string;\n}\n';
  expect(members(text, 'Native')).toEqual([
    { name: 'f', function: false, optional: false },
    { name: 'b', function: true, optional: false },
    { name: 'c', function: false, optional: true },
    { name: 'd', function: false, optional: false },
  ]);
  expect(() => members('export interface Natives {\n}\n', 'Native')).toThrow(/declares no/);
});
