'use strict';
// Every row of docs/errors.md belongs to exactly one test/bad-input/<letter>-<area>.test.js,
// the file of its id's letter; that file's own last test checks each of its rows has one
// test with the row's class and code. Here: no letter of the table is left without a file
// (a deleted or misnamed file cannot pass silently), and no file is outside the scheme.
const fs = require('fs');
const path = require('path');
const { table, AREA_FILE, letterOf } = require('./rows');

test('each letter of the docs/errors.md table has exactly one area file, and each area file ties itself to the table', () => {
  const files = fs.readdirSync(__dirname).filter((name) => name.endsWith('.test.js') && name !== path.basename(__filename));
  const strays = files.filter((name) => !AREA_FILE.test(name));
  expect(strays).toEqual([]);
  const byLetter = new Map();
  for (const name of files) {
    const letter = letterOf(name);
    byLetter.set(letter, [...(byLetter.get(letter) || []), name]);
    // area(__filename) declares the file's rows and the test that checks them.
    expect({ name, callsArea: /\barea\(__filename\)/.test(fs.readFileSync(path.join(__dirname, name), 'utf8')) })
      .toEqual({ name, callsArea: true });
  }
  const letters = [...new Set([...table.keys()].map((id) => id[0]))].sort();
  expect(letters.length).toBeGreaterThan(0);
  const withoutFile = letters.filter((letter) => !byLetter.has(letter));
  const fileWithoutRows = [...byLetter.keys()].filter((letter) => !letters.includes(letter));
  const twoFiles = [...byLetter].filter(([, names]) => names.length > 1).map(([, names]) => names);
  expect({ withoutFile, fileWithoutRows, twoFiles }).toEqual({ withoutFile: [], fileWithoutRows: [], twoFiles: [] });
});
