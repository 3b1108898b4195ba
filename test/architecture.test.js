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
