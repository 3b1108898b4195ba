'use strict';
// Loaded after each test file's environment under compute-sanitizer
// (scripts/gpu-check.sh memcheck, jest --setupFilesAfterEnv): the block cache
// keeps freed device blocks (up to 64 MiB a device) until the process exits,
// which the leak check would report as leaks. Each file hands them back.
const dl = require('../lib');

afterAll(() => {
  if (!dl.cuda.isAvailable()) return;
  for (let device = 0; device < dl.cuda.deviceCount(); device++) dl.cuda.emptyCache(device);
});
