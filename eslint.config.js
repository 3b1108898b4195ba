'use strict';
// ESLint (flat config) for every JavaScript file in the tree; `bash scripts/lint.sh`
// runs it with clang-format and pyflakes, and CI fails on any finding.
const js = require('@eslint/js');
const globals = require('globals');

module.exports = [
  {
    ignores: ['node_modules/**', 'build/**', 'build-*/**', 'prebuilds/**', '.gpu/**',
      'examples/**/node_modules/**', 'python/build/**'],
  },
  js.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'commonjs',
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_',
        caughtErrors: 'none', ignoreRestSiblings: true }],
      'no-var': 'error',
      'prefer-const': ['error', { destructuring: 'all' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      strict: ['error', 'global'],
      'no-new': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } },
  },
  {
    files: ['test/**/*.js'],
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    // `t = null` before a forced collection is how a lifetime test drops its last reference.
    rules: { 'no-useless-assignment': 'off' },
  },
];
