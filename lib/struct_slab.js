'use strict';
// DLManagedTensorVersioned structs filled in place from JavaScript, for
// toPointer() and fromPointer() of tensors over JS memory (docs/API.md "FFI
// hand-off"): the environment's struct slab (src/core/struct_slab.h) is
// native memory this file writes through typed arrays, so a struct is handed
// out and taken back without a Node-API call, where a heap struct
// (src/addon/export.cc) costs three.
//
// An entry holds the capsule's hold on the Storage while it is out (so the
// memory is neither detached nor reused nor moved by shareMemory()), and a
// copy of the words written (`shadow`): a struct taken back whose words all
// match is the one this file wrote, so the layout it carries is already
// known and checked. Anything else (another environment's entry, a struct
// native code changed, a full slab) takes the native path and its checklist.
// A deleter frees the entry from any thread; the hold is dropped here, when a
// sweep sees it (on the next fill, or when the addon wakes this thread).
//
// Every load of lib/ in an environment (Jest loads it once per test file)
// shares one slab and the bookkeeping below, kept on the object the addon
// returns; any of them takes back a struct another filled (its Storage and
// Layout are then another load's objects, used through their methods).
const { native, slabConvention, dlpackVersion } = require('./binding');
const { CPU } = require('./device');
const { DLPackError, makeError } = require('./errors');
const { Layout } = require('./layout');
const { HeapMemory } = require('./storage');

// Every number below comes from the addon (src/core/struct_slab.h, handed
// over by Convention()): the entry states, the slab's layout and the
// DLManagedTensorVersioned fields' byte offsets (offsetof). This file writes
// no copy of them (test/architecture.test.js fails on one).
const { states, fields, layout: slabLayout } = slabConvention;
const { free: FREE, out: OUT, adopted: ADOPTED, released: RELEASED } = states;

function mismatch(what) {
  return new DLPackError(`dlpack: the native addon's struct slab does not match this package's JavaScript ` +
    `(${what}); rebuild it with \`npm rebuild dlpack --foreground-scripts\``, 'ERR_DLPACK_NO_BINARY');
}

// The 32-bit word where field `name` starts, checked to be as wide as this
// file writes it (put32: 4 bytes, put64: 8) and to start on a word.
const WORD = Int32Array.BYTES_PER_ELEMENT;
const BITS_PER_BYTE = 8;
// A struct's shadow: its words, then its shape's and its strides' (two words a dimension each).
const DIM_WORDS = 2 * 2;
function wordOf(name, bytes) {
  const [offset, size] = fields[name];
  if (size !== bytes || offset % WORD !== 0) throw mismatch(`field ${name}: ${size} bytes at ${offset}`);
  return offset / WORD;
}
// The bit where dtype subfield `name` starts within the dtype word.
function shiftOf(name, bytes) {
  const [offset, size] = fields[name];
  const at = offset - fields.dtype[0];
  if (size !== bytes || at < 0 || at + size > WORD) throw mismatch(`field ${name}: ${size} bytes at ${offset}`);
  return at * BITS_PER_BYTE;
}
const W_MAJOR = wordOf('major', 4);
const W_MINOR = wordOf('minor', 4);
const W_CONTEXT = wordOf('context', 8);
const W_DELETER = wordOf('deleter', 8);
const W_FLAGS = wordOf('flags', 8);
const W_DATA = wordOf('data', 8);
const W_DEVICE_TYPE = wordOf('deviceType', 4);
const W_DEVICE_ID = wordOf('deviceId', 4);
const W_NDIM = wordOf('ndim', 4);
const W_DTYPE = wordOf('dtype', 4);
const DTYPE_CODE_SHIFT = shiftOf('dtypeCode', 1);
const DTYPE_BITS_SHIFT = shiftOf('dtypeBits', 1);
const DTYPE_LANES_SHIFT = shiftOf('dtypeLanes', 2);
const W_SHAPE = wordOf('shape', 8);
const W_STRIDES = wordOf('strides', 8);
const W_BYTE_OFFSET = wordOf('byteOffset', 8);
const STRUCT_WORDS = wordOf('end', 0);
const KDL_CPU = CPU.code;
const TWO_NEG_32 = 2 ** -32; // a multiplication, exact for integers below 2^53, where a division costs more

const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

// The shared bookkeeping; null: every struct is made natively; undefined
// until the first fill, so that a thread that never hands out a struct takes
// no slab (a process has at most 64).
let slab;

function openSlab() {
  slab = null;
  if (!littleEndian) return null;
  const shared = native.structSlab(sweep);
  if (shared !== null) slab = shared.state || (shared.state = attach(shared));
  return slab;
}

function peekSlab() {
  if (!littleEndian) return null;
  const shared = native.structSlab(sweep, true);
  if (shared === null) return undefined; // none yet: a later fill may still open one
  slab = shared.state || (shared.state = attach(shared));
  return slab;
}

// `s` is this environment's slab ({ buffer, base, context, deleter, epoch },
// src/addon/struct_slab.h); its layout is every slab's.
function attach(s) {
  const L = slabLayout;
  const state = {
    entries: L.entries,
    entryDims: L.entryDims, // a layout with more dimensions gets a heap struct
    entryWords: L.entrySize / WORD,
    firstWord: L.headerSize / WORD,
    shapeWord: L.shapeOffset / WORD,
    stridesWord: L.stridesOffset / WORD,
    stateWord: L.stateOffset / WORD,
    epochWord: L.epochOffset / WORD,
    epoch: s.epoch,
    deletedWord: L.deletedOffset / WORD,
    filledIndex: L.filledOffset / Float64Array.BYTES_PER_ELEMENT,
    takenIndex: L.takenOffset / Float64Array.BYTES_PER_ELEMENT,
    major: dlpackVersion.major,
    minor: dlpackVersion.minor,
    first: s.base + L.headerSize, // the address of entry 0
    entrySize: L.entrySize,
    context: s.context,
    deleter: s.deleter,
    i32: new Int32Array(s.buffer),
    f64: new Float64Array(s.buffer),
    shadow: new Int32Array(L.entries * (STRUCT_WORDS + DIM_WORDS * L.entryDims)),
    pointers: new Array(L.entries).fill(null), // each entry's address as a BigInt, made once
    storages: new Array(L.entries).fill(null),
    layouts: new Array(L.entries).fill(null),
    dlFlags: new Array(L.entries).fill(0),
    free: [],
    out: [], // entries not free: filled here, or still out from an environment that used the slab before
    outAt: new Int32Array(L.entries).fill(-1), // each entry's index in `out`
    seen: 0, // the deletion count at the last sweep
  };
  state.seen = state.i32[state.deletedWord];
  for (let entry = state.entries - 1; entry >= 0; entry--) {
    const at = stateIndex(state, entry);
    if (state.i32[at] === RELEASED) state.i32[at] = FREE;
    if (state.i32[at] === FREE) state.free.push(entry);
    else addOut(state, entry);
  }
  return state;
}

function addOut(s, entry) {
  s.outAt[entry] = s.out.length;
  s.out.push(entry);
}

function stateIndex(s, entry) {
  return s.firstWord + entry * s.entryWords + s.stateWord;
}

function pointerOf(s, entry) {
  let pointer = s.pointers[entry];
  if (pointer === null) pointer = s.pointers[entry] = BigInt(s.first + entry * s.entrySize);
  return pointer;
}

// Two words of a 64-bit field, into the slab and the shadow. Words are
// written and compared as int32 (always small integers in V8, where a uint32
// above 2^31 is a heap number outside optimized code).
// They take the two arrays, not the slab: fillStruct calls them 15 times,
// and the optimizing compiler inlines callees into it only up to a total
// bytecode size, which the two property loads each made it pass (five
// put64 calls stayed calls; bench/README.md "The per-call path").
function put64(words, copy, word, shadow, value) {
  const low = value >>> 0; // ToUint32 is modular: negative strides wrap as int64 does
  const high = (value - low) * TWO_NEG_32;
  words[word] = copy[shadow] = low | 0;
  words[word + 1] = copy[shadow + 1] = high | 0;
}

function put32(words, copy, word, shadow, value) {
  words[word] = copy[shadow] = value;
}

// Fills a struct for `layout` over `storage` (a host Storage over JS memory
// whose buffer the caller has just checked) and hands it out: the capsule's
// hold on the storage moves to the entry. The pointer as a BigInt, or null
// where a heap struct must be made (no slab, a full one, a layout it cannot
// hold).
function fillStruct(storage, layout, dlFlags) {
  const s = slab === undefined ? openSlab() : slab;
  // Neither the layout nor the memory is taken on trust (issue 20): both are
  // brand-checked, so state swapped in through a tensor's symbols goes to the
  // native export and its checks.
  if (s === null || !Layout.isLayout(layout) || layout.ndim > s.entryDims) return null;
  const address = HeapMemory.structAddress(storage.memory, layout);
  if (address < 0) return null;
  if (s.i32[s.deletedWord] !== s.seen) sweep();
  const entry = s.free.pop();
  if (entry === undefined) return null;

  const ndim = layout.ndim;
  const at = s.first + entry * s.entrySize;
  const data = layout.size === 0 ? 0 : address + layout.byteOffset;
  const base = s.firstWord + entry * s.entryWords;
  const shadow = entry * (STRUCT_WORDS + DIM_WORDS * s.entryDims);
  const info = layout.info;
  const words = s.i32;
  const copy = s.shadow;
  put32(words, copy, base + W_MAJOR, shadow + W_MAJOR, s.major);
  put32(words, copy, base + W_MINOR, shadow + W_MINOR, s.minor);
  put64(words, copy, base + W_CONTEXT, shadow + W_CONTEXT, s.context);
  put64(words, copy, base + W_DELETER, shadow + W_DELETER, s.deleter);
  put64(words, copy, base + W_FLAGS, shadow + W_FLAGS, dlFlags);
  put64(words, copy, base + W_DATA, shadow + W_DATA, data);
  put32(words, copy, base + W_DEVICE_TYPE, shadow + W_DEVICE_TYPE, KDL_CPU);
  put32(words, copy, base + W_DEVICE_ID, shadow + W_DEVICE_ID, 0);
  put32(words, copy, base + W_NDIM, shadow + W_NDIM, ndim);
  put32(words, copy, base + W_DTYPE, shadow + W_DTYPE, (info.code << DTYPE_CODE_SHIFT) | (info.bits << DTYPE_BITS_SHIFT) | (1 << DTYPE_LANES_SHIFT));
  // DLPack 1.3 allows NULL shape and strides for ndim 0, as the native export writes them.
  put64(words, copy, base + W_SHAPE, shadow + W_SHAPE, ndim === 0 ? 0 : at + s.shapeWord * WORD);
  put64(words, copy, base + W_STRIDES, shadow + W_STRIDES, ndim === 0 ? 0 : at + s.stridesWord * WORD);
  put64(words, copy, base + W_BYTE_OFFSET, shadow + W_BYTE_OFFSET, 0);
  const shape = layout.shape;
  const strides = layout.strides;
  for (let i = 0; i < ndim; i++) {
    put64(words, copy, base + s.shapeWord + 2 * i, shadow + STRUCT_WORDS + 2 * i, shape[i]);
    put64(words, copy, base + s.stridesWord + 2 * i, shadow + STRUCT_WORDS + 2 * s.entryDims + 2 * i, strides[i]);
  }

  s.storages[entry] = storage;
  s.layouts[entry] = layout;
  s.dlFlags[entry] = dlFlags;
  storage.memory.structs++;
  addOut(s, entry);
  s.i32[base + s.epochWord] = s.epoch; // which environment's warning counts it (struct_slab.h)
  s.f64[s.filledIndex]++;
  s.i32[stateIndex(s, entry)] = OUT; // last: from here on the pointer's holder owns it
  return pointerOf(s, entry);
}

// Whether every word of the struct in `entry` is still the one written.
function unchanged(s, entry) {
  const base = s.firstWord + entry * s.entryWords;
  const shadow = entry * (STRUCT_WORDS + DIM_WORDS * s.entryDims);
  const words = s.i32;
  const copy = s.shadow;
  for (let i = 0; i < STRUCT_WORDS; i++) {
    if (words[base + i] !== copy[shadow + i]) return false;
  }
  const dims = 2 * copy[shadow + W_NDIM];
  for (let i = 0; i < dims; i++) {
    if (words[base + s.shapeWord + i] !== copy[shadow + STRUCT_WORDS + i]) return false;
    if (words[base + s.stridesWord + i] !== copy[shadow + STRUCT_WORDS + 2 * s.entryDims + i]) return false;
  }
  return true;
}

// fromPointer(pointer, { versioned: true }) of a struct this load filled and
// nobody changed, given `address`, Number(pointer): exact for every address
// in the slab (the addon hands out none at or above 2^53), so no BigInt is
// compared. The entry is freed and its hold comes back on `state` (the new
// capsule's: storage, layout, dlFlags); false: not such a struct (the
// native path adopts it). An entry of this slab that is not out throws: that
// struct was already deleted, taken back or adopted.
function takeStruct(address, state) {
  // A load that never filled a struct looks for the thread's slab (another
  // load's fills are taken back here too) without taking one.
  const s = slab === undefined ? peekSlab() : slab;
  if (s === undefined || s === null) return false;
  const from = address - s.first;
  if (!(from >= 0 && from < s.entries * s.entrySize)) return false;
  // An integer (both addresses are) below the slab's size, so exact as an
  // int32: `%` on it is an integer remainder, where on the double it is a
  // call to fmod (about 5 ns a take-back).
  const offset = from | 0;
  if (offset % s.entrySize !== 0) return false;
  const entry = offset / s.entrySize;
  const at = stateIndex(s, entry);
  const word = s.i32[at];
  if (word !== OUT) {
    throw makeError('ERR_DLPACK_CONSUMED', 'Expected a pointer no DLPackCapsule or tensor holds, received one ' +
      'that was already adopted with fromPointer() and not yet handed back' +
      (word === ADOPTED ? '' : ', or whose struct was already deleted'));
  }
  // Any load of lib/ in this thread takes it back (the slab and the holders
  // are per thread): JS memory stays JS memory (issue 20). A changed struct
  // goes native, where it is refused.
  if (!unchanged(s, entry)) return false;
  // The one atomic step: a deleter or an adoption on another thread (the
  // pointer's holder handing it to two owners) leaves the entry to them.
  if (Atomics.compareExchange(s.i32, at, OUT, FREE) !== OUT) return false;
  const storage = s.storages[entry];
  state.storage = storage;
  state.layout = s.layouts[entry];
  state.dlFlags = s.dlFlags[entry];
  clearSlot(s, entry);
  storage.memory.structs--;
  s.f64[s.takenIndex]++;
  return true;
}

function clearSlot(s, entry) {
  s.storages[entry] = null;
  s.layouts[entry] = null;
  const i = s.outAt[entry];
  const last = s.out.pop();
  if (last !== entry) {
    s.out[i] = last;
    s.outAt[last] = i;
  }
  s.outAt[entry] = -1;
  s.free.push(entry);
}

// Frees the entries whose deleters ran and drops their holds. Called by the
// addon when a deleter wakes this thread (src/addon/env_state.h EnvLink), and
// before a fill once the deletion count has moved.
function sweep() {
  const s = slab;
  if (s === undefined || s === null) return;
  s.seen = s.i32[s.deletedWord]; // read first: a deletion after it is seen next time
  const out = s.out;
  for (let i = out.length - 1; i >= 0; i--) {
    const entry = out[i];
    const at = stateIndex(s, entry);
    if (Atomics.load(s.i32, at) !== RELEASED) continue;
    const storage = s.storages[entry];
    Atomics.store(s.i32, at, FREE);
    clearSlot(s, entry);
    if (storage !== null) {
      storage.memory.structs--;
      storage.release();
    }
  }
}

// For tests: how many entries are free and out after a sweep, or null
// without a slab.
function slabState() {
  if (slab === undefined) openSlab();
  sweep();
  return slab === null ? null : { entries: slab.entries, free: slab.free.length, out: slab.out.length };
}

module.exports = { fillStruct, takeStruct, sweep, slabState };
