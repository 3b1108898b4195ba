// Stryker (mutation testing) over lib/: `npm run mutate -- lib/x.js [...]`
// (scripts/mutate.js), docs/development.md "Mutation testing". The files to
// mutate come from the command line; DLPACK_MUTATE_TESTS (comma-separated
// test files, set by scripts/mutate.js --tests) narrows the Jest run to the
// tests that exercise them, else Jest's related tests are run.
const tests = (process.env.DLPACK_MUTATE_TESTS || '').split(',').filter(Boolean);

export default {
  testRunner: 'jest',
  // The tests force GC to count deleter calls (test/README.md).
  testRunnerNodeArgs: ['--expose-gc'],
  jest: {
    projectType: 'custom',
    config: {
      testEnvironment: 'node',
      testTimeout: 120000,
      testMatch: tests.length > 0 ? tests.map((t) => `<rootDir>/${t}`) : ['<rootDir>/test/**/*.test.js'],
    },
    enableFindRelatedTests: tests.length === 0,
  },
  coverageAnalysis: 'perTest',
  concurrency: 1,
  timeoutMS: 60000,
  reporters: ['clear-text', 'progress'],
  // The sandbox is a copy of the tree with the built addons (the library's
  // and the tests' producer and consumer, build/Release/*.node) and without
  // the other build outputs.
  ignorePatterns: ['build/*', '!build/Release', 'build/Release/*', '!build/Release/*.node', 'build-*', 'prebuilds',
    'python/build', '.gpu', '*.tgz'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
