'use strict';
// The addon's surface is declared once, in lib/native.d.ts (docs/development.md
// "The native surface"): a function added to src/addon/addon.cc's table without a
// declaration, or declared and gone, fails here; so does a call in lib/ to a
// function the declaration does not have (`npm run typecheck` checks the
// arguments of lib/binding.js's calls).
const fs = require('fs');
const path = require('path');
const { native } = require('../lib/binding');

const LIB = path.join(__dirname, '..', 'lib');

// The members of `interface Native` in the declaration file's text: each
// function is a line `  name(...` at the interface's own indentation.
function declaredNames(text) {
  const start = text.indexOf('\nexport interface Native {\n');
  if (start === -1) throw new Error('lib/native.d.ts declares no `export interface Native {`');
  const end = text.indexOf('\n}\n', start);
  const body = text.slice(start, end);
  return [...body.matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1]);
}

const declared = declaredNames(fs.readFileSync(path.join(LIB, 'native.d.ts'), 'utf8'));
const sorted = (names) => [...names].sort();

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

test('a Native interface that lost a line or gained one is told apart (the reader itself)', () => {
  const text = 'export interface Other {\n  a(): void;\n}\n' +
    'export interface Native {\n  /** doc */\n  b(x: number,\n    y: number): void;\n  c(): number;\n}\n' +
    'export interface After {\n  d(): void;\n}\n';
  expect(declaredNames(text)).toEqual(['b', 'c']);
  expect(() => declaredNames('export interface Natives {\n}\n')).toThrow(/declares no/);
});
