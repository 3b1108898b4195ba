'use strict';
// Host memory for the tensors the library allocates: JS ArrayBuffers, made
// in this realm so that `t.buffer instanceof ArrayBuffer` holds for the
// caller, and the reuse of large ones between a dispose() and the next copy.
//
// Fresh memory: large buffers come from fresh zero pages, so zeroing costs
// nothing until the pages are written. From 4 MiB on they are advised as
// transparent huge pages before the first write (src/core/pages.h): a fresh
// 256 MiB buffer then faults in 128 times instead of 65,536. The faults still
// cost the kernel's zeroing of every page, and where the kernel has given
// free memory back to a hypervisor (free page reporting on the benchmark VM,
// bench/README.md "Where the allocating conversion spends its time", with
// the figures) a page freed a second ago costs a fault in the host as well:
// there a fresh buffer takes many times longer to fill than one mapped right
// after a free.
//
// Recycling: when the last holder of a buffer of 256 KiB or more (RECYCLE_MIN)
// lets go (Storage.release in lib/storage.js) and nothing pinned it natively,
// its memory is moved to a new ArrayBuffer object (structuredClone with `transfer`: no copy) and kept
// here for RECYCLE_MS. Moving detaches the old object, so every typed view
// handed out is detached exactly as dispose() did before, and no view can
// reach the memory again. A copy that writes every byte of its result
// (allocateForCopy: clone(), contiguous(), to(), copying reshape()) takes a
// kept buffer of the same byte length instead of fresh pages; zeroed
// allocations (empty, zeros) never do. A kept buffer is detached (freed by
// V8 at once) by a timer RECYCLE_MS after it was kept, or earlier when more
// than RECYCLE_COUNT buffers or RECYCLE_MAX_BYTES would be kept (the oldest
// go first); the timer needs the event loop, so code that never yields keeps
// at most those bounds. A worker's buffers go with its heap when it ends.
const { native, hugePageAdviceMin: HUGE_PAGE_ADVICE_MIN, hugePageAdvice: HUGE_PAGE_ADVICE } = require('./binding');
const { outOfRange } = require('./errors');

const { Buffer, constants: { MAX_LENGTH: MAX_BYTES } } = require('buffer');
const RECYCLE_MS = 1000;
// The smallest buffer kept for reuse: below it a fresh allocation is cheap
// (malloc's own free lists), above it each one costs page faults or a memset
// of memory the op overwrites anyway (a 1 MB softmax result: a third of the
// op's time on this VM, bench/README.md "Compute").
const RECYCLE_MIN = 256 * 1024;
const RECYCLE_COUNT = 4;
const RECYCLE_MAX_BYTES = 1024 * 1024 * 1024;

// Buffers allocate() made of at least RECYCLE_MIN bytes, and the objects
// their memory moved to: the only ones recycle() takes.
const recyclable = new WeakSet();
// { buffer, since } kept for reuse, oldest first.
const kept = [];
let keptBytes = 0;
let timer = null;

// Fresh zeroed memory.
function allocate(nbytes) {
  return adopt(nbytes, (n) => new ArrayBuffer(n));
}

// Memory whose every byte the caller writes before anyone can read it: a
// kept buffer of exactly `nbytes`, else memory nobody zeroed. Its old
// contents are never visible (a throwing copy drops its result unseen).
function allocateForCopy(nbytes) {
  for (let i = kept.length - 1; i >= 0; i--) {
    if (kept[i].buffer.byteLength === nbytes) {
      const { buffer } = kept[i];
      kept.splice(i, 1);
      keptBytes -= nbytes;
      return buffer;
    }
  }
  return allocateUnzeroed(nbytes);
}

// An ArrayBuffer of this realm whose memory Node's allocator took with
// malloc rather than calloc: Buffer.allocUnsafeSlow turns the zero fill off
// for its one allocation (node --zero-fill-buffers turns it back on). Below
// glibc's mmap threshold (up to 32 MiB once large blocks have been freed) a
// zeroed buffer costs a memset of memory the op overwrites anyway: a 1 MiB
// softmax result took 139 us zeroed and 15 us not, on the benchmark VM.
function allocateUnzeroed(nbytes) {
  return adopt(nbytes, (n) => Buffer.allocUnsafeSlow(n).buffer);
}

// make(nbytes) checked against the largest tensor, advised as huge pages
// from HUGE_PAGE_ADVICE_MIN (unless DLPACK_HUGE_PAGES or the machine says
// not to: src/core/pages.h), and open to recycle() from RECYCLE_MIN.
function adopt(nbytes, make) {
  if (nbytes > MAX_BYTES) throw outOfRange('shape', `a tensor of at most ${MAX_BYTES} bytes`, `${nbytes} bytes`);
  const buffer = make(nbytes);
  if (HUGE_PAGE_ADVICE && nbytes >= HUGE_PAGE_ADVICE_MIN) native.adviseHugePages(buffer);
  if (nbytes >= RECYCLE_MIN) recyclable.add(buffer);
  return buffer;
}

// Takes `buffer` (one adopt() made, no longer held by anything) for reuse:
// detaches it and keeps its memory under a new object. Returns false when the
// caller must detach it instead.
function recycle(buffer) {
  const nbytes = buffer.byteLength;
  if (!recyclable.has(buffer) || nbytes > RECYCLE_MAX_BYTES) return false;
  let moved;
  try {
    moved = structuredClone(buffer, { transfer: [buffer] });
  } catch {
    return false;
  }
  recyclable.add(moved);
  while (kept.length >= RECYCLE_COUNT || (kept.length !== 0 && keptBytes + nbytes > RECYCLE_MAX_BYTES)) {
    drop(0);
  }
  kept.push({ buffer: moved, since: Date.now() });
  keptBytes += nbytes;
  if (timer === null) schedule(RECYCLE_MS);
  return true;
}

function drop(i) {
  const [{ buffer }] = kept.splice(i, 1);
  keptBytes -= buffer.byteLength;
  native.detachBuffer(buffer);
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

module.exports = { allocate, allocateForCopy, recycle, recycledBytes, releaseRecycled, RECYCLE_MS };
