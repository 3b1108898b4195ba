'use strict';
// docs/errors.md, the L rows: foreign capsules that lie. One test per row;
// test/bad-input/rows.js ties them to the table.
const dl = require('../../lib');
const { producer } = require('../helpers');
const { area, leakFree, foreign, adopt, onlyCompiled } = require('./rows');

const { row, lieRow } = area(__filename);

describe('foreign capsules that lie', () => {
  row('L01', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', async (throws) => {
    await leakFree(() => {
      const ptr = foreign({ major: 2, minor: 0, garbageAfterVersion: true });
      const c = adopt(ptr);
      expect(c.version).toEqual({ major: 2, minor: 0 });
      throws(() => dl.fromDLPack(c), /major version 0 or 1, received 2/);
      expect(producer.calls(ptr)).toBe(1); // the spec: call the deleter, read nothing else
      expect(c.consumed).toBe(true);
      c.dispose();
      expect(producer.calls(ptr)).toBe(1);
    });
  });

  lieRow('L02', [
    [{ shape: new Array(65).fill(1) }, /ndim between 0 and 64.*65/],
    [{ shape: [], ndim: -1 }, /ndim.*-1/],
  ]);

  lieRow('L03', [[{ shape: [1], ndim: 2 ** 31 - 1 }, /received 2147483647/]]);

  lieRow('L04', [4, 7, 8, 9, 10, 14, 0, 99].map((deviceType) =>
    [{ deviceType }, new RegExp(`device type ${deviceType}\\b`)]));

  lieRow('L05', [[{ lanes: 4 }, /lanes 1.*received 4/], [{ lanes: 0 }, /received 0/]]);

  lieRow('L06', [[3, 32], [2, 8], [6, 16], [2, 0], [5, 32], [0, 7], [200, 32]].map(([code, bits]) =>
    [{ code, bits }, new RegExp(`code ${code} bits ${bits}`)]));

  lieRow('L07', [[{ shape: [2, 2], nullShape: true }, /shape.*NULL/]]);

  lieRow('L08', [[{ shape: [2, -3], strides: [1, 1], bytes: 8 }, /shape\[1\].*-3/]]);

  lieRow('L09', [
    [{ shape: [2 ** 40, 2 ** 40], strides: [1, 1], bytes: 4 }, /element count/],
    [{ shape: new Array(64).fill(2), strides: new Array(64).fill(1), bytes: 4 }, /element count/],
  ]);

  lieRow('L10', [[{ shape: [0, 2 ** 62], strides: [1, 1], nullData: true }, /below 2\^53/]]);

  lieRow('L11', [
    [{ shape: [2, 2], strides: null, minor: 2, versioned: true }, /strides.*NULL/],
    [{ shape: [2, 2], strides: null, minor: 3, versioned: true }, /strides.*NULL/],
  ]);

  lieRow('L12', [
    [{ shape: [2, 2], strides: [2 ** 62, 1] }, /stride/],
    [{ shape: [3], strides: [2 ** 52] }, /stride/],
    [{ shape: [2], strides: [-(2 ** 63)] }, /stride/],
  ]);

  // Element 1 sits 2^48 bytes below data: below address 0 for any user-space pointer.
  lieRow('L13', [[{ shape: [2], strides: [-(2 ** 46)] }, /inside the address space/]]);

  lieRow('L14', [[{ byteOffset: 2n ** 64n - 8n }, /byte_offset/]]);

  lieRow('L15', [[{ nullData: true }, /non-NULL data/]]);

  lieRow('L16', [[{ deviceType: 2, deviceId: -1 }, /non-negative device_id.*received -1/]], { skip: onlyCompiled });
});
