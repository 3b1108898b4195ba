'use strict';
// Options objects (docs/errors.md row N01): one rule for every function that
// takes one. A key the function does not read is refused, naming the key and
// the nearest key it does read, so that a typo (`dytpe`) or another library's
// spelling (Python's `max_version`) is not silently ignored.
const { fail, invalidType } = require('./errors');

const EMPTY = Object.freeze({});

// `options` itself when it is an object whose own enumerable string keys are
// all in `allowedKeys`; an empty object for undefined (callers that require
// options check for undefined first).
//
// Each caller reads the keys it takes once, by destructuring what this
// returns, and never reads `options` again: a getter cannot then hand one
// value to a check and another to the work (normalize read `options.out`
// again after its read-only check, so a getter could hand the write a
// read-only tensor: issue 37, finding 7). A snapshot made here would say the
// same, but a new object with keys set one by one cost 0.2-0.3 us a call,
// a destructuring nothing measurable.
//
// The keys are walked with an index and compared with ===, not with for-of
// and Array#includes: the same keys in the same order (Object.keys), the
// same answer (they are all strings, where === is includes' SameValueZero),
// and less time (three keys: 45 -> 31 ns in a loop on the bench VM;
// bench/README.md "The per-call path"). A for-in loop would also skip the
// Object.keys array, but it asks a Proxy other traps (has, getPrototypeOf).
function checkOptions(options, allowedKeys, name = 'options') {
  if (options === undefined) return EMPTY;
  if (options === null || typeof options !== 'object') throw invalidType(name, 'an object', options);
  const keys = Object.keys(options);
  for (let i = 0; i < keys.length; i++) {
    if (!isAllowed(keys[i], allowedKeys)) throw unknownKey(keys[i], allowedKeys, name);
  }
  return options;
}

function isAllowed(key, allowedKeys) {
  for (let i = 0; i < allowedKeys.length; i++) {
    if (allowedKeys[i] === key) return true;
  }
  return false;
}

function unknownKey(key, allowedKeys, name) {
  const near = nearestKey(key, allowedKeys);
  const hint = near === undefined ? '' : ` (did you mean \`${near}\`?)`;
  return fail('ERR_INVALID_ARG_VALUE', name, `only the keys ${allowedKeys.join(', ')}`,
    `the unknown key \`${key}\`${hint}`);
}

// Case, `_` and `-` do not count: `max_version` and `MaxVersion` are `maxVersion`.
const fold = (key) => key.toLowerCase().replace(/[_-]/g, '');

// The allowed key closest to `key` by edit distance (a swap of neighbours
// counts one, as in `dytpe`), if it is close enough to be a typo of it: at
// most one edit per three characters, and never more than two.
function nearestKey(key, allowedKeys) {
  const folded = fold(key);
  let best;
  let bestDistance = Infinity;
  for (const candidate of allowedKeys) {
    const d = editDistance(folded, fold(candidate));
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const limit = Math.min(2, Math.max(1, Math.floor(folded.length / 3)));
  return bestDistance <= limit ? best : undefined;
}

// Optimal string alignment distance: insertions, deletions, substitutions and
// transpositions of adjacent characters, each costing one.
function editDistance(a, b) {
  const rows = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push(new Array(b.length + 1));
    rows[i][0] = i;
  }
  for (let j = 0; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1);
      rows[i][j] = d;
    }
  }
  return rows[a.length][b.length];
}

module.exports = { checkOptions, nearestKey };
