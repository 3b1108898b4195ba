'use strict';
// The one table of what the prebuilt binaries may need of a system (README.md
// "Install"): the newest symbol version of each library namespace that any
// binary in prebuilds/ may reference, and the oldest GCC whose libstdc++ has
// them. Read by lib/load.js (its messages), scripts/prebuild.js (which refuses
// to place a binary above it), .ci/run "Package" (objdump -T of every shipped
// binary) and test/install.test.js (the README's table says the same).
// Raising a floor drops systems: RHEL 9 and Amazon Linux 2023 have glibc 2.34
// and GCC 11's libstdc++.
// CXXABI: at or below GCC 11's (the binaries need 1.3.9 today).
const floors = Object.freeze({ GLIBC: '2.34', GLIBCXX: '3.4.29', CXXABI: '1.3.12' });
const floorGcc = '11';

// The GCC release whose libstdc++ first exports a GLIBCXX version (libstdc++
// manual, "ABI Policy and Guidelines"), to name what a binary needs.
const GCC_OF_GLIBCXX = Object.freeze({
  '3.4.29': '11', '3.4.30': '12', '3.4.31': '13.1', '3.4.32': '13.2', '3.4.33': '14',
});

// The versions in `needs` ({ GLIBC: '2.34', GLIBCXX: '3.4.30', ... }, as
// readElf() gives them) above the floors, as 'GLIBCXX_3.4.30 (floor 3.4.29)'.
function aboveFloors(needs, compare) {
  return Object.keys(floors).filter((ns) => needs[ns] !== undefined && compare(needs[ns], floors[ns]) > 0)
    .map((ns) => `${ns}_${needs[ns]} (floor ${floors[ns]})`);
}

module.exports = { floors, floorGcc, GCC_OF_GLIBCXX, aboveFloors };
