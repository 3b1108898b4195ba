'use strict';
// Loaded after each test file's environment under compute-sanitizer
// (scripts/gpu-check.sh memcheck, jest --setupFilesAfterEnv): the block cache
// keeps freed device blocks (up to 64 MiB a device) until the process exits,
// which the leak check would report as leaks. Each file hands them back.
// Tensors a test dropped without dispose() go back to the cache when GC
// collects them: collected first, or their blocks would read as leaks.
const dl = require('../lib');
const { collect } = require('./helpers');

afterAll(async () => {
  if (!dl.cuda.isAvailable()) return;
  await collect();
  for (let device = 0; device < dl.cuda.deviceCount(); device++) dl.cuda.emptyCache(device);
});
