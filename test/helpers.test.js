'use strict';
// The test helpers' own behaviour: jsonLines (test/helpers.js) must fail a
// test at once when its child process dies, never leave it to Jest's timeout.
const { spawn } = require('child_process');
const { caseSubset, jsonLines } = require('./helpers');

// A Node child running `source`, with stdin and stdout as pipes.
const child = (source) => jsonLines(spawn(process.execPath, ['-e', source], { stdio: ['pipe', 'pipe', 'inherit'] }));

// Far below Jest's 120 s: a promise left waiting on a dead child fails these tests.
const QUICK = 10000;

describe('jsonLines', () => {
  test('a reply that was waiting when the child died rejects at once', async () => {
    const c = child('setTimeout(() => process.exit(3), 50)');
    await expect(c.next()).rejects.toThrow(/exited \(code 3, signal null\) before answering/);
    expect(await c.exited).toBe(3);
  }, QUICK);

  test('lines written before the child exits are still read; the next one rejects', async () => {
    const c = child('console.log(JSON.stringify([1])); console.log(JSON.stringify({ a: 2 })); process.exit(0)');
    const waiting = [c.next(), c.next(), c.next()];
    await expect(waiting[0]).resolves.toEqual([1]);
    await expect(waiting[1]).resolves.toEqual({ a: 2 });
    await expect(waiting[2]).rejects.toThrow(/before answering/);
    await expect(c.next()).rejects.toThrow(/before answering/);
  }, QUICK);

  test('send() to a child that died, or that exits instead of answering, rejects', async () => {
    const c = child(`require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
      if (line === 'ping') console.log('"pong"'); else process.exit(5);
    })`);
    expect(await c.send('ping')).toBe('pong');
    await expect(c.send('exit')).rejects.toThrow(/code 5/);
    await expect(c.send('ping')).rejects.toThrow(/code 5/); // writing to a dead child is no uncaught EPIPE
  }, QUICK);

  test('a child killed by a signal rejects with the signal; stop() resolves with the exit code', async () => {
    const killed = child('setInterval(() => {}, 1000)');
    const waiting = killed.next();
    killed.child.kill('SIGKILL');
    await expect(waiting).rejects.toThrow(/signal SIGKILL/);
    const stopped = child('process.stdin.on("data", () => {}).on("end", () => process.exit(4))');
    expect(await stopped.stop()).toBe(4);
  }, QUICK);
});

describe('caseSubset (DLPACK_TEST_CASE_STRIDE)', () => {
  const cases = Array.from({ length: 10 }, (_, i) => i);
  test('every case without the variable, or with a stride of 1 or not an integer', () => {
    for (const env of [{}, { DLPACK_TEST_CASE_STRIDE: '1' }, { DLPACK_TEST_CASE_STRIDE: '2.5' },
      { DLPACK_TEST_CASE_STRIDE: 'x' }, { DLPACK_TEST_CASE_STRIDE: '-3' }]) {
      expect(caseSubset(cases, env)).toEqual(cases);
    }
  });
  test('every stride-th case, the first kept, the same each time', () => {
    expect(caseSubset(cases, { DLPACK_TEST_CASE_STRIDE: '4' })).toEqual([0, 4, 8]);
    expect(caseSubset(cases, { DLPACK_TEST_CASE_STRIDE: '20' })).toEqual([0]);
  });
});
