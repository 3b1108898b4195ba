#!/usr/bin/env node
'use strict';
// npm run mutate -- lib/x.js [lib/y.js ...] [--tests test/a.test.js,test/b.test.js]
// Mutation testing (Stryker, stryker.config.mjs) over the lib/ files a change
// touches, each mutant run against the Jest tests that cover it: those given
// with --tests, else the ones Jest finds related to the files. The addon is
// this tree's build (build/Release, or DLPACK_ADDON_PATH). The score and the
// surviving mutants are printed; docs/development.md "Mutation testing".
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const args = process.argv.slice(2);
const files = [];
let tests = '';
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--tests') tests = args[++i] || '';
  else files.push(args[i]);
}
const usage = 'usage: npm run mutate -- lib/x.js [lib/y.js ...] [--tests test/a.test.js,...]';
if (files.length === 0) {
  console.error(usage);
  process.exit(2);
}
for (const file of [...files, ...tests.split(',').filter(Boolean)]) {
  if (!fs.existsSync(path.join(root, file))) {
    console.error(`mutate: no file ${file}\n${usage}`);
    process.exit(2);
  }
}
for (const file of files) {
  if (!/^lib\/[\w.-]+\.js$/.test(file)) {
    console.error(`mutate: ${file} is not a lib/ JavaScript file\n${usage}`);
    process.exit(2);
  }
}
const addon = path.join(root, 'build', 'Release', 'dlpack.node');
if (!fs.existsSync(addon)) {
  console.error(`mutate: no addon at ${addon}; build it first (npm run build)`);
  process.exit(2);
}
const stryker = path.join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
const result = spawnSync(process.execPath, [stryker, 'run', '--mutate', files.join(',')], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, DLPACK_MUTATE_TESTS: tests },
});
process.exit(result.status === null ? 1 : result.status);
