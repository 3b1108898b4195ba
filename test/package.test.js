'use strict';
// What `npm pack` ships (package.json "files"): the README, docs/, examples/ and
// LICENSE, and every relative link in every shipped Markdown file leads to a
// shipped file (and, with a #fragment, to a heading in it).
const fs = require('fs');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');

const root = path.join(__dirname, '..');

// The file list of the tarball, without running prepack (no build needed).
function packedFiles() {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60000 });
  return new Set(JSON.parse(out)[0].files.map((f) => f.path));
}

// GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens,
// repeated headings numbered -1, -2, ...
function anchors(markdown) {
  const seen = new Map();
  const result = new Set();
  for (const line of withoutCode(markdown).split('\n')) {
    const m = /^#{1,6} (.*)$/.exec(line);
    if (m === null) continue;
    const base = m[1].trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

// Fenced blocks and inline code hold no links.
function withoutCode(markdown) {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
}

// [text](target) links, and headings' text stays out of it.
function links(markdown) {
  const result = [];
  for (const m of withoutCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)) result.push(m[1]);
  return result;
}

// One broken link per entry: "FILE: TARGET (why)".
function brokenLinks(files, read) {
  const broken = [];
  for (const file of [...files].filter((f) => f.endsWith('.md'))) {
    for (const target of links(read(file))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [rawPath, fragment] = target.split('#');
      const resolved = rawPath === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), rawPath));
      const isDir = [...files].some((f) => f.startsWith(`${resolved.replace(/\/$/, '')}/`));
      if (!files.has(resolved) && !isDir) {
        broken.push(`${file}: ${target} (${resolved} is not in the package)`);
      } else if (fragment !== undefined && resolved.endsWith('.md') && !anchors(read(resolved)).has(fragment)) {
        broken.push(`${file}: ${target} (no heading #${fragment} in ${resolved})`);
      }
    }
  }
  return broken;
}

const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');

// `npm test` always has npm; a GPU machine running Jest with a carried Node
// binary alone (scripts/gpu-check.sh) has none, and the file list needs it.
const hasNpm = spawnSync('npm', ['--version'], { stdio: 'ignore', timeout: 60000 }).status === 0;
if (!hasNpm) console.log('npm package tests skipped: no npm on PATH to list what `npm pack` ships');

(hasNpm ? describe : describe.skip)('the npm package', () => {
  let files;
  beforeAll(() => {
    files = packedFiles();
  });

  // memfd_create and /proc/<pid>/fd are Linux's: npm refuses the package elsewhere,
  // and the README says so, with the two commands a clone needs.
  test('declares "os": ["linux"], and the README says so and names npm install and npm test', () => {
    expect(JSON.parse(read('package.json')).os).toEqual(['linux']);
    const readme = read('README.md');
    expect(readme).toMatch(/\*\*Linux only\.\*\*[^]*`"os": \["linux"\]`/);
    expect(readme).toMatch(/from a clone: `npm install` [^]*then `npm test`/);
  });

  // docs/onnxruntime.md: the example's model helper, from an installed package
  // (package.json "exports"; the package's own name resolves to itself here).
  test('the examples are importable: require(\'dlpack/examples/onnxruntime/make-model\')', () => {
    expect(files.has('examples/onnxruntime/make-model.js')).toBe(true);
    const out = execFileSync(process.execPath, ['-e', `
      const { makeModel, CLASSES } = require('dlpack/examples/onnxruntime/make-model');
      const same = require('dlpack/examples/onnxruntime/make-model.js').makeModel === makeModel;
      import('dlpack/examples/onnxruntime/make-model.js').then((m) => console.log(JSON.stringify({
        bytes: makeModel().model.length, CLASSES, same, esm: m.makeModel === makeModel })));`],
    { cwd: root, encoding: 'utf8', timeout: 30000 });
    expect(JSON.parse(out)).toEqual({ bytes: expect.any(Number), CLASSES: 10, same: true, esm: true });
    expect(JSON.parse(out).bytes).toBeGreaterThan(1000);
  });

  test('ships the README, LICENSE, docs/, examples/ and the Python half', () => {
    for (const file of ['README.md', 'LICENSE', 'package.json', 'docs/API.md', 'docs/errors.md', 'docs/onnxruntime.md',
      'docs/python.md', 'docs/development.md', 'examples/worker-pipeline.js',
      'examples/onnxruntime-pipeline.js', 'examples/onnxruntime/make-model.js', 'python/dlpack_node/worker.py', 'lib/index.js',
      'lib/index.d.ts', 'python/dlpack_node/__init__.py', 'python/FORMAT.md', 'scripts/install.js']) {
      expect({ file, shipped: files.has(file) }).toEqual({ file, shipped: true });
    }
    expect(read('LICENSE')).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    for (const file of files) expect(file).not.toMatch(/^(test|bench|build|\.ci)\//);
    // The developer's scripts stay in the repository: mutation testing, the peers venv.
    for (const file of ['scripts/mutate.js', 'scripts/peers-venv.sh', 'scripts/peers-requirements.txt']) {
      expect(fs.existsSync(path.join(root, file))).toBe(true);
      expect({ file, shipped: files.has(file) }).toEqual({ file, shipped: false });
    }
    // The Python half is the package, its format and its build files: not its tests, and
    // not the JSON worker the Node tests drive (test/fixtures/python/json_worker.py).
    const python = [...files].filter((file) => file.startsWith('python/'));
    expect(python.filter((file) => !/^python\/(dlpack_node\/\w+\.py|FORMAT\.md|pyproject\.toml|_build\/backend\.py)$/.test(file))).toEqual([]);
    expect(python).toContain('python/dlpack_node/__main__.py'); // python -m dlpack_node: the install report
    expect(read('python/dlpack_node/__main__.py')).not.toMatch(/"op"/);
    // An example's own dependencies (examples/onnxruntime) are installed there, never shipped.
    for (const file of files) expect(file).not.toMatch(/(^|\/)node_modules\//);
  });

  test('every relative link in every shipped .md resolves to a shipped file and heading', () => {
    const mdFiles = [...files].filter((f) => f.endsWith('.md'));
    expect(mdFiles.length).toBeGreaterThan(4);
    expect(mdFiles.reduce((n, f) => n + links(read(f)).length, 0)).toBeGreaterThan(10);
    expect(brokenLinks(files, read)).toEqual([]);
  });

  test('the link check finds a missing heading and a file not shipped, and skips code', () => {
    const docs = new Map([
      ['README.md', '# T\n\n## A b\n\n[x](docs/y.md) [z](docs/y.md#nope) [w](test/a.js) [ok](#a-b) `[c](no.md)`\n'],
      ['docs/y.md', '# Y\n'],
    ]);
    expect(brokenLinks(new Set(docs.keys()), (f) => docs.get(f) ?? '')).toEqual([
      'README.md: docs/y.md#nope (no heading #nope in docs/y.md)',
      'README.md: test/a.js (test/a.js is not in the package)',
    ]);
  });
});
