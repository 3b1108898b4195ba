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

// Copies and ops are routed by lib/route.js alone (issue 23 item 6): no other
// lib file (lib/binding.js defines the wrappers) calls the binding's copy and
// op wrappers or the native functions behind them. The check reads each
// file's code (comments dropped): the names it destructures from
// require('./binding'), every `native.NAME` / `native['NAME']` it touches, and
// any other way of holding the module (`= require('./binding')` not
// destructured), which would hide the calls from the first two checks.
const COPY_AND_OP_WRAPPERS = [
  'copyStrided', 'cudaStridedCopy', 'cudaConvert', 'elementwise', 'normalize', 'reduceDims', 'reduceLanes',
];
const COPY_AND_OP_NATIVES = [
  'copyStrided', 'cudaCopy', 'cudaStridedCopy', 'cudaConvert', 'elementwise', 'elementwiseAsync', 'normalize',
  'reduceDims', 'reduceLanes',
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
