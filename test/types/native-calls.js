'use strict';
// Checks every `native.x(...)` call in lib/ against lib/native.d.ts, in the files
// that are not `// @ts-check` too (docs/development.md "The native surface").
// TypeScript checks all of lib/ as JavaScript, and only the errors it finds
// inside a native call are reported: its other findings in lib/ are about
// inferred types the code does not rely on. `npm run typecheck` runs it; exits
// 1 and lists the calls when one is wrong.
const fs = require('fs');
const path = require('path');
const ts = require('typescript');

const ROOT = path.join(__dirname, '..', '..');
const LIB = path.join(ROOT, 'lib');

const OPTIONS = {
  allowJs: true,
  checkJs: true,
  noEmit: true,
  // Loose, so that what is reported is the calls' arity and argument types.
  strict: false,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.Node16,
  moduleResolution: ts.ModuleResolutionKind.Node16,
  lib: ['lib.es2022.d.ts'],
  types: ['node'],
  typeRoots: [path.join(ROOT, 'node_modules', '@types')],
};

// Whether `node` is a call `native.name(...)`.
function isNativeCall(node) {
  return ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) &&
    ts.isIdentifier(node.expression.expression) && node.expression.expression.text === 'native';
}

// The native calls in lib/ (and in `extra`, { absolute path: source text } of
// files that are not on disk, for the tests) and the errors inside them, as
// `lib/x.js:LINE: message`.
function checkNativeCalls(extra = {}) {
  const files = fs.readdirSync(LIB).filter((f) => f.endsWith('.js')).map((f) => path.join(LIB, f));
  const roots = [...files, ...Object.keys(extra)];
  const host = ts.createCompilerHost(OPTIONS);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => Object.hasOwn(extra, path.resolve(file)) || fileExists.call(host, file);
  host.readFile = (file) => extra[path.resolve(file)] ?? readFile.call(host, file);
  host.getSourceFile = (file, version, ...rest) => {
    const text = extra[path.resolve(file)];
    return text === undefined ? getSourceFile.call(host, file, version, ...rest)
      : ts.createSourceFile(file, text, version);
  };
  const program = ts.createProgram(roots, OPTIONS, host);
  let calls = 0;
  const errors = [];
  for (const file of roots) {
    const source = program.getSourceFile(file);
    const spans = [];
    const visit = (node) => {
      if (isNativeCall(node)) spans.push([node.getStart(source), node.end]);
      ts.forEachChild(node, visit);
    };
    visit(source);
    calls += spans.length;
    for (const d of program.getSemanticDiagnostics(source)) {
      if (!spans.some(([start, end]) => d.start >= start && d.start < end)) continue;
      const line = source.getLineAndCharacterOfPosition(d.start).line + 1;
      errors.push(`${path.relative(ROOT, file)}:${line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    }
  }
  return { calls, errors };
}

module.exports = { checkNativeCalls };

if (require.main === module) {
  const { calls, errors } = checkNativeCalls();
  for (const e of errors) console.error(e);
  if (errors.length > 0 || calls === 0) {
    console.error(`native calls: ${errors.length} errors in the ${calls} in lib/ (lib/native.d.ts declares them)`);
    process.exit(1);
  }
  console.log(`native calls: the ${calls} in lib/ match lib/native.d.ts`);
}
