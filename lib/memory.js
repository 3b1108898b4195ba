'use strict';
// Host memory for the tensors the library allocates, and the reuse of large
// blocks between a dispose() and the next copy. Two kinds, by size:
//
// Below NATIVE_MIN bytes, a JS ArrayBuffer made in this realm. From
// NATIVE_MIN on, a native block (src/core/host_block.h) behind a storage
// handle, V8 told of its bytes; an ArrayBuffer over it is made only when JS
// asks (t.buffer, t.data: external, of this realm, so `t.buffer instanceof
// ArrayBuffer` holds). A caller can transfer or detach a JS ArrayBuffer at
// any moment (structuredClone or postMessage with a transfer list,
// ArrayBuffer.prototype.transfer(), a BYOB read), and V8 then frees its
// memory; Node-API cannot hold a backing store against that. A native block
// outlives every buffer over it until its last reference goes, so an
// { async: true } op holds the block itself (src/addon/job_memory.h) and
// copies only what is small: an ArrayBuffer below NATIVE_MIN is staged
// (docs/API.md "Off the event loop"; issue 37, finding 1).
//
// NATIVE_MIN is 64 KiB, measured (bench/README.md "Host memory: ArrayBuffer
// or native block", bench/memory.js): per allocation a block costs what an
// ArrayBuffer does (0.84 to 1.07x zeroed, 0.43 to 0.74x unzeroed from 16 to
// 256 KiB), so what decides is the rest. An async job's staging copy of up to
// 64 KiB an operand costs about a microsecond, far under the job's own round
// trip (above 100 us on the loaded benchmark VM); at 256 KiB it would be as
// long as a quiet machine's job. And the first `data` of a block makes an
// external ArrayBuffer, 2.8 us more than reading an ArrayBuffer's (about
// three writes of 64 KiB): below 64 KiB that cost would outweigh the memory
// it is paid for. Where the runtime refuses external ArrayBuffers (a V8 sandbox:
// `externalBuffers` false) every allocation is an ArrayBuffer, as before.
//
// The one cost of a block: an ArrayBuffer made over it (t.buffer, t.data,
// toArray()) is freed by Node on a later turn of the event loop, not by
// garbage collection alone, so a tensor dropped without dispose() after its
// data was read keeps its block until the loop turns. A synchronous loop
// doing that would pile blocks up; once 64 MiB of them wait so within one
// turn (src/addon/memory.h kPiledMax), new allocations are ArrayBuffers
// until the loop has turned (bench/README.md "Host memory").
//
// Fresh memory: large blocks come from fresh zero pages (calloc maps them:
// zeroing costs nothing until the pages are written). From 4 MiB on they are
// advised as transparent huge pages before the first write
// (src/core/pages.h): a fresh 256 MiB block then faults in 128 times instead
// of 65,536. The faults still cost the kernel's zeroing of every page, and
// where the kernel has given free memory back to a hypervisor (free page
// reporting on the benchmark VM, bench/README.md "Where the allocating
// conversion spends its time", with the figures) a page freed a second ago
// costs a fault in the host as well: there a fresh block takes many times
// longer to fill than one mapped right after a free.
//
// Recycling: when the last holder of a block of 256 KiB or more
// (RECYCLE_MIN) lets go (Storage.release in lib/storage.js) and nothing else
// holds it natively (no export, share, other thread or job: the addon checks
// the count), the ArrayBuffer made over it (if any) is detached and the
// block kept here, behind its handle, for RECYCLE_MS; every typed view handed
// out is detached exactly as dispose() detaches it, and no view can reach the
// block again. A copy that writes every byte of its result (allocateForCopy:
// clone(), contiguous(), to(), copying reshape(), op results) takes a kept
// block of the same byte length instead of fresh pages; zeroed allocations
// (empty, zeros) never do. A kept block is freed by a timer RECYCLE_MS after
// it was kept, or earlier when more than RECYCLE_COUNT blocks or
// RECYCLE_MAX_BYTES would be kept (the oldest go first); the timer needs the
// event loop, so code that never yields keeps at most those bounds. A
// worker's blocks are freed with its environment (their handles' finalizers).
const {
  native, externalBuffers, hugePageAdviceMin: HUGE_PAGE_ADVICE_MIN, hugePageAdvice: HUGE_PAGE_ADVICE,
} = require('./binding');
const { outOfRange } = require('./errors');

const { Buffer, constants: { MAX_LENGTH: MAX_BYTES } } = require('buffer');
// The smallest allocation made natively (see above).
const NATIVE_MIN = 64 * 1024;
const RECYCLE_MS = 1000;
// The smallest allocation allocateUnzeroed() leaves unzeroed (below it, see there).
const UNZEROED_MIN = 4096;
// The smallest block kept for reuse: below it a fresh allocation is cheap
// (malloc's own free lists), above it each one costs page faults or a memset
// of memory the op overwrites anyway (a 1 MB softmax result: a third of the
// op's time on this VM, bench/README.md "Compute").
const RECYCLE_MIN = 256 * 1024;
const RECYCLE_COUNT = 4;
const RECYCLE_MAX_BYTES = 1024 * 1024 * 1024;

// Handles of the blocks allocate() made of at least RECYCLE_MIN bytes: the
// only ones recycle() takes.
const recyclable = new WeakSet();
// { handle, nbytes, since } kept for reuse, oldest first.
const kept = [];
let keptBytes = 0;
let timer = null;

// Whether `nbytes` of library memory are a native block.
const isNativeSize = (nbytes) => externalBuffers && nbytes >= NATIVE_MIN;

// Fresh zeroed memory: an ArrayBuffer, or a native block's storage handle.
function allocate(nbytes) {
  checkSize(nbytes);
  const handle = isNativeSize(nbytes) ? block(nbytes, true) : null;
  return handle !== null ? handle : advised(new ArrayBuffer(nbytes));
}

// Memory whose every byte the caller writes before anyone can read it: a
// kept block of exactly `nbytes`, else memory nobody zeroed. Its old
// contents are never visible (a throwing copy drops its result unseen).
function allocateForCopy(nbytes) {
  checkSize(nbytes);
  if (!isNativeSize(nbytes)) return advised(allocateUnzeroed(nbytes));
  for (let i = kept.length - 1; i >= 0; i--) {
    if (kept[i].nbytes === nbytes) {
      const { handle } = kept[i];
      kept.splice(i, 1);
      keptBytes -= nbytes;
      return handle;
    }
  }
  const handle = block(nbytes, false);
  return handle !== null ? handle : advised(allocateUnzeroed(nbytes));
}

function checkSize(nbytes) {
  if (nbytes > MAX_BYTES) throw outOfRange('shape', `a tensor of at most ${MAX_BYTES} bytes`, `${nbytes} bytes`);
}

// A new native block (its huge-page advice decided natively, by the same
// rule), or null where too much native memory piled up this turn of the
// event loop (src/addon/memory.h kPiledMax): the caller makes an ArrayBuffer
// instead. The first block of a turn asks to hear of the next turn, which
// starts the count again.
function block(nbytes, zeroed) {
  if (!turnAwaited) {
    turnAwaited = true;
    setImmediate(loopTurned);
  }
  const handle = native.hostAlloc(nbytes, zeroed);
  if (handle !== null && nbytes >= RECYCLE_MIN) recyclable.add(handle);
  return handle;
}

let turnAwaited = false;
function loopTurned() {
  turnAwaited = false;
  native.hostLoopTurned();
}

// An ArrayBuffer of this realm whose memory Node's allocator took with
// malloc rather than calloc: Buffer.allocUnsafeSlow turns the zero fill off
// for its one allocation (node --zero-fill-buffers turns it back on). Below
// glibc's mmap threshold (up to 32 MiB once large blocks have been freed) a
// zeroed buffer costs a memset of memory the op overwrites anyway: a 1 MiB
// softmax result took 139 us zeroed and 15 us not, on the benchmark VM.
// Below UNZEROED_MIN bytes a plain ArrayBuffer is cheaper: the memset is a few
// stores, and no Buffer view is made to be dropped (a new 32-byte op result:
// bench/README.md "A tiny op per call").
function allocateUnzeroed(nbytes) {
  return nbytes < UNZEROED_MIN ? new ArrayBuffer(nbytes) : Buffer.allocUnsafeSlow(nbytes).buffer;
}

// A large ArrayBuffer (made only where native blocks are not: no external
// buffers, or too many blocks awaiting the event loop) advised as huge pages
// as a block would be.
function advised(buffer) {
  if (HUGE_PAGE_ADVICE && buffer.byteLength >= HUGE_PAGE_ADVICE_MIN) native.adviseHugePages(buffer);
  return buffer;
}

// Takes the block behind `handle` (one allocate() made, its JS holders gone;
// `buffer` the ArrayBuffer made over it, or null) for reuse: the addon
// detaches the buffer and keeps the block when nothing else holds it.
// Returns false when the caller must release it instead.
function recycle(handle, buffer) {
  if (!recyclable.has(handle)) return false;
  const nbytes = native.storageLength(handle);
  if (nbytes > RECYCLE_MAX_BYTES || !native.storageRecycle(handle, buffer === null ? undefined : buffer)) {
    return false;
  }
  while (kept.length >= RECYCLE_COUNT || (kept.length !== 0 && keptBytes + nbytes > RECYCLE_MAX_BYTES)) {
    drop(0);
  }
  kept.push({ handle, nbytes, since: Date.now() });
  keptBytes += nbytes;
  if (timer === null) schedule(RECYCLE_MS);
  return true;
}

function drop(i) {
  const [{ handle, nbytes }] = kept.splice(i, 1);
  keptBytes -= nbytes;
  native.storageRelease(handle, undefined);
}

// Frees what was kept RECYCLE_MS ago; unref'd, so it never keeps the process
// or a worker alive.
function schedule(delay) {
  timer = setTimeout(expire, delay);
  timer.unref();
}

function expire() {
  timer = null;
  const now = Date.now();
  while (kept.length !== 0 && now - kept[0].since >= RECYCLE_MS) drop(0);
  if (kept.length !== 0) schedule(kept[0].since + RECYCLE_MS - now);
}

// What is kept now (tests and the bench read it).
function recycledBytes() {
  return keptBytes;
}

// Frees everything kept now (tests, and a bench row that measures fresh memory).
function releaseRecycled() {
  while (kept.length !== 0) drop(0);
}

module.exports = {
  allocate, allocateForCopy, recycle, recycledBytes, releaseRecycled, RECYCLE_MS, NATIVE_MIN, isNativeSize,
};
