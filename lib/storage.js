'use strict';
// What a tensor's bytes live in. Tensors, views and capsules share one
// Storage and hold it through retain()/release(); when the last lets go,
// memory the library owns is released at once (docs/API.md "dispose").
//
// A Storage is the identity every holder shares; its `memory` is one of the
// kinds below, all with one interface (kind, isNative, buffer(), handle,
// byteLength(), free()). shareMemory() swaps the memory of a live Storage
// (docs/API.md "Sharing"), so every view over it sees the move.
//
//   HeapMemory     an ArrayBuffer or SharedArrayBuffer. `owned` buffers
//                  (empty, zeros, clone... below lib/memory.js's NATIVE_MIN
//                  bytes) are detached on release unless a DLPack struct
//                  pinned them; a caller's buffer never is.
//   WasmMemory     a WebAssembly.Memory; the buffer is re-read from it on
//                  every use, so views survive memory.grow().
//   NativeMemory   a native handle (host_storage.cc) owning a DLPack
//                  producer's tensor or memory another thread shared; the
//                  ArrayBuffer over it is made only when JS asks for one.
//   BlockMemory    native memory the library allocated for a CPU tensor
//                  from lib/memory.js's NATIVE_MIN bytes on (kind 'native',
//                  owned): freed or kept for reuse (lib/memory.js recycle)
//                  on release.
//   SegmentMemory  native memory in a shared-memory segment (`segment`
//                  names it: { name, fd, dataSize }, python/FORMAT.md).
//   CudaMemory     native memory this library allocated with cudaMalloc and
//                  friends (freed stream-ordered, src/core/stream_order.h) or
//                  opened from a 'cuda-ipc' share; `shareable` when other
//                  processes can map it.
//
// The holder count lives with the memory, not with whichever call made a
// tensor over it: once a buffer the library owns has been handed out (t.buffer,
// t.data), `holderOf` finds its Storage again, so dl.fromBuffer(t.buffer) and
// dl.open() of it are holders of that memory like t and its views, and an
// export from any of them pins it (docs/API.md "Lifetimes").
const { native, threadShared } = require('./binding');
const { makeError } = require('./errors');
const { CPU } = require('./device');
const { kStorage } = require('./symbols');
const { allocate, allocateForCopy, recycle } = require('./memory');
const { isArrayBuffer, isSharedArrayBuffer } = require('util').types;

class HeapMemory {
  // The buffer and its address are private: a slab struct's data pointer is
  // this address (lib/struct_slab.js), so no code outside may change either
  // (issue 20: a forged address pointed a struct at other memory).
  #buf;
  #address = null; // read once, when a slab struct first needs it

  constructor(buffer, owned) {
    this.#buf = buffer;
    this.owned = owned;
    this.pinned = false; // a heap struct points at it: never detached
    this.structs = 0; // slab structs out over it (lib/struct_slab.js), each holding the Storage
  }

  // For a slab struct over `layout` (lib/struct_slab.js): the address of the
  // buffer's first byte, or -1 where the addon must make the struct (and
  // check it natively). `memory` must be a HeapMemory (a brand check: an
  // object swapped in for a tensor's state never passes) whose buffer holds
  // every byte of `layout` now.
  //
  // The address is read once per buffer: the one JS buffer address the
  // library keeps across calls (docs/development.md "The native surface": re-read
  // it on every call). V8 never moves the
  // memory of an attached fixed-length ArrayBuffer or SharedArrayBuffer, and
  // the length check here sees a detached one (length 0); WebAssembly memory
  // is another class. A resizable or growable buffer gets -1. A native read
  // costs more than the rest of a struct's fill (bench/README.md "FFI
  // hand-off").
  static structAddress(memory, layout) {
    if (typeof memory !== 'object' || memory === null || !(#buf in memory)) return -1;
    const buffer = memory.#buf;
    if (buffer === null || !layout.inside(buffer.byteLength)) return -1;
    if (memory.#address === null) {
      memory.#address = buffer.resizable === true || buffer.growable === true ? -1
        : native.bytesAddress(new Uint8Array(buffer));
    }
    return memory.#address;
  }

  get kind() { return 'heap'; }
  get isNative() { return false; }
  get handle() { return null; }
  get owns() { return this.owned; }
  get shared() { return isSharedArrayBuffer(this.#buf); }
  buffer() { return this.#buf; }
  byteLength() { return this.#buf.byteLength; }

  free() {
    const buffer = this.#buf;
    this.#buf = null;
    if (this.owned && !this.pinned && isArrayBuffer(buffer) && buffer.byteLength !== 0) {
      native.detachBuffer(buffer);
    }
  }
}

class WasmMemory {
  constructor(memory) {
    this.memory = memory;
  }

  get kind() { return 'wasm'; }
  get isNative() { return false; }
  get handle() { return null; }
  get owns() { return false; }
  get shared() { return isSharedArrayBuffer(this.memory.buffer); }
  buffer() { return this.memory.buffer; }
  byteLength() { return this.memory.buffer.byteLength; }
  free() {} // the WebAssembly instance owns it
}

class NativeMemory {
  constructor(handle, owned) {
    this.handle = handle;
    this.owned = owned;
    this.buf = null; // the ArrayBuffer over it, made on first use
    this.addr = undefined; // address(), once asked
    this.length = -1; // bytes, read once (native memory never changes size)
  }

  get kind() { return 'native'; }
  get isNative() { return true; }
  get owns() { return this.owned; }
  get shared() { return false; }

  buffer() {
    if (this.buf === null) this.buf = native.storageBuffer(this.handle);
    return this.buf;
  }

  // Whether the caller detached the ArrayBuffer made over this memory
  // (transferred it away): the tensor's bytes went with it, as they go with a
  // JS buffer, although the memory itself lives on for the buffer's new owner
  // and any job in flight (src/addon/host_storage.cc).
  get detached() { return this.buf !== null && this.buf.byteLength === 0 && this.byteLength() !== 0; }

  // What a host op's native call takes: the handle, whose base the addon
  // reads (src/addon/job_memory.h).
  hostHandle() { return this.handle; }

  byteLength() {
    if (this.length < 0) this.length = native.storageLength(this.handle);
    return this.length;
  }

  // The address of its first byte (-1 when it cannot be a number), read
  // once: native memory never moves while its handle holds it. Which memory
  // this is, for lib/route.js's overlap rule.
  address() {
    if (this.addr === undefined) this.addr = native.storageAddress(this.handle);
    return this.addr;
  }

  free() {
    native.storageRelease(this.handle, this.buf === null ? undefined : this.buf);
    this.handle = null; // its finalizer frees nothing more
    this.buf = null;
  }
}

// A native block lib/memory.js allocated (src/core/host_block.h).
class BlockMemory extends NativeMemory {
  constructor(handle) {
    super(handle, true);
  }

  // Whether nothing but this memory's owner holds the block (no DLPack
  // export, share, other thread or job in flight; src/addon/host_storage.cc).
  get sole() { return native.storageSole(this.handle, this.buf === null ? undefined : this.buf); }

  free() {
    const { handle, buf } = this;
    this.handle = null;
    this.buf = null;
    // Kept a moment for the next copy of its size, when nothing else holds it.
    if (!recycle(handle, buf)) native.storageRelease(handle, buf === null ? undefined : buf);
  }
}

class SegmentMemory extends NativeMemory {
  constructor(handle, owned, segment) {
    super(handle, owned);
    this.segment = segment;
  }

  get kind() { return 'shm'; }
}

class CudaMemory extends NativeMemory {
  // `allocated`: by this library (cudaAlloc), so its free is stream-ordered
  // and copies between two such memories may be enqueued on a stream.
  // `hostVisible`: pinned or managed, which the host reads and writes.
  constructor(handle, owned, { shareable, allocated, hostVisible = false }) {
    super(handle, owned);
    this.shareable = shareable;
    this.allocated = allocated;
    this.fenced = allocated && hostVisible;
  }

  get kind() { return 'cuda'; }

  // Host access first waits for copies on a stream that still read or write
  // this memory (src/core/stream_order.h HostFence; at once when none is
  // pending). Asked natively every time: another thread may have enqueued one.
  buffer() {
    if (this.fenced) native.cudaHostWait(this.handle);
    return super.buffer();
  }

  hostHandle() {
    if (this.fenced) native.cudaHostWait(this.handle);
    return this.handle;
  }
}

class Storage {
  constructor(memory, device = CPU) {
    this.memory = memory;
    this.device = device;
    this.holders = 0;
    this.released = false;
    this.bytes = null;
    // The buffer `bytes` views: compared instead of bytes.buffer, a getter
    // that costs a runtime call on every read (about 4x a .length).
    this.bytesOf = null;
    this.known = false; // registered in `owners` (its buffer was handed out)
    this.inFlight = 0; // asynchronous ops using it now (lib/ops.js): it cannot move
  }

  static heap(buffer, owned) { return new Storage(new HeapMemory(buffer, owned)); }
  // Memory the library allocates for a CPU tensor (lib/memory.js): zeroed, or
  // for a copy that writes every byte (perhaps a recycled block).
  static allocate(nbytes) { return Storage.owned(allocate(nbytes)); }
  static allocateForCopy(nbytes) { return Storage.owned(allocateForCopy(nbytes)); }
  static owned(memory) {
    return new Storage(isArrayBuffer(memory) ? new HeapMemory(memory, true) : new BlockMemory(memory));
  }
  static wasm(memory) { return new Storage(new WasmMemory(memory)); }
  // Natively owned memory behind `handle` (host_storage.cc).
  static native(handle, owned, device = CPU) { return new Storage(new NativeMemory(handle, owned), device); }
  static segment(handle, owned, segment) { return new Storage(new SegmentMemory(handle, owned, segment)); }
  static cuda(handle, owned, device, options) {
    return new Storage(new CudaMemory(handle, owned, { ...options, hostVisible: device.type !== 'cuda' }), device);
  }

  get kind() { return this.memory.kind; }
  get isNative() { return this.memory.isNative; }
  // Memory the library allocated (and frees or detaches on release).
  get owned() { return this.memory.owns; }
  // The library's own CPU memory (lib/memory.js): an ArrayBuffer, or a
  // native block from NATIVE_MIN bytes on; one thread's, whatever its size.
  get ownHostMemory() { return this.memory.owns && (this.memory.kind === 'heap' || this.memory.kind === 'native'); }
  // The shared-memory segment it lives in, or null.
  get segment() { return this.memory.kind === 'shm' ? this.memory.segment : null; }
  // JS memory other threads already see (a SharedArrayBuffer, shared wasm memory).
  get sharedBuffer() { return this.memory.shared; }
  get streamOrdered() { return this.memory.kind === 'cuda' && this.memory.allocated; }
  get ipcShareable() { return this.memory.kind === 'cuda' && this.memory.shareable; }

  retain() {
    this.holders++;
  }

  release() {
    if (--this.holders > 0 || this.released) return;
    this.released = true;
    this.memory.free();
    this.bytes = null;
    this.bytesOf = null;
  }

  // Held by an asynchronous op until it settles: retained (the memory lives
  // past dispose()) and counted (shareMemory() refuses to move it).
  holdInFlight() {
    this.retain();
    this.inFlight++;
  }

  releaseInFlight() {
    this.inFlight--;
    this.release();
  }

  // `work` (a Promise) with each distinct storage of `storages` held in
  // flight (holdInFlight) from now until it settles, then let go: the one
  // form of "hold these until the promise settles" every asynchronous op
  // uses. Returns the Promise of work's outcome after the release.
  static holdUntilSettled(storages, work) {
    const held = [...new Set(storages)];
    for (const storage of held) storage.holdInFlight();
    return work.finally(() => {
      for (const storage of held) storage.releaseInFlight();
    });
  }

  // Frees memory no holder ever took (a copy into it failed).
  discard() {
    if (this.holders !== 0 || this.released) return;
    this.released = true;
    this.memory.free();
  }

  // A DLPack struct now points at this memory (capsule.toPointer): releasing
  // must never detach it.
  pin() {
    if (this.memory.kind === 'heap') this.memory.pinned = true;
  }

  // Whether a DLPack struct may point at this memory: pinned by a heap
  // struct for good, or held by slab structs now out.
  get pinned() { return this.memory.kind === 'heap' && (this.memory.pinned || this.memory.structs > 0); }

  buffer() {
    if (this.released) throw makeError('ERR_DLPACK_DISPOSED', 'The tensor\'s memory was released');
    const buffer = this.memory.buffer();
    if (!this.known) this.register(buffer);
    return buffer;
  }

  // Memory the library owns becomes findable from its buffer when the buffer
  // is first handed out (creation stays a plain allocation).
  register(buffer) {
    this.known = true;
    if (this.memory.owns || this.memory.isNative) owners.set(buffer, this);
  }

  // A Uint8Array over the whole buffer, for native calls; it points back at
  // this Storage so that importing our own capsule finds it again.
  getBytes() {
    return this.bytesOver(this.buffer());
  }

  // getBytes() over `buffer`, this memory's (the caller has checked it live).
  bytesOver(buffer) {
    let bytes = this.bytes;
    if (bytes === null || this.bytesOf !== buffer || (bytes.length === 0 && buffer.byteLength !== 0)) {
      if (buffer.byteLength === 0 && isDetached(buffer)) {
        throw detachedError(this);
      }
      bytes = new Uint8Array(buffer);
      bytes[kStorage] = this;
      this.bytes = bytes;
      this.bytesOf = buffer;
    }
    return bytes;
  }

  // What native calls take for this memory: the native handle, or the bytes.
  nativeArg() {
    return this.memory.isNative ? this.memory.handle : this.getBytes();
  }

  // What a host op's native call takes for this memory (src/addon/
  // job_memory.h): the native handle, from which the addon reads the base
  // (never from a JS view, and no ArrayBuffer is made for it), else a
  // Uint8Array over the whole buffer. Throws ERR_DLPACK_DETACHED where the
  // buffer was detached or shrunk; for native memory, where the ArrayBuffer
  // made over it was transferred away: the tensor's bytes went with it, as
  // with a JS buffer.
  hostArg() {
    const memory = this.memory;
    if (!memory.isNative) {
      // The bytes go to the addon only, not to a caller: the buffer is not
      // handed out, so not registered (buffer()), which costs a WeakMap entry
      // per new result of an op.
      if (this.released) throw makeError('ERR_DLPACK_DISPOSED', 'The tensor\'s memory was released');
      return this.bytesOver(memory.buffer());
    }
    if (this.released) throw makeError('ERR_DLPACK_DISPOSED', 'The tensor\'s memory was released');
    if (memory.detached) throw detachedError(this);
    return memory.hostHandle();
  }

  // Whether an { async: true } job stages this memory rather than using it
  // where it is, while JavaScript runs on: the one rule every asynchronous
  // form goes through (lib/route.js jobMask; src/addon/job_memory.h acts on
  // it; docs/API.md "Off the event loop"). Used in place: native memory (the
  // job holds a reference: no buffer over it can free it), a
  // SharedArrayBuffer (never detached; a growable one only grows) and
  // WebAssembly memory (held here; memory.grow() keeps its address on 64-bit
  // targets). Staged: the library's own ArrayBuffers (below lib/memory.js's
  // NATIVE_MIN bytes, where the copy costs less than the job), which the
  // caller could detach through t.buffer. Refused with ERR_DLPACK_DETACHABLE:
  // a caller's own ArrayBuffer (fromBuffer), which it can detach, transfer
  // or shrink while the op runs and V8 then frees.
  jobStages() {
    const memory = this.memory;
    if (memory.isNative || memory.kind === 'wasm' || memory.shared) return false;
    if (memory.owns) return true;
    throw makeError('ERR_DLPACK_DETACHABLE', 'Expected memory an asynchronous op ({ async: true }) can hold, ' +
      'received a tensor over an ArrayBuffer passed to fromBuffer(), which can be detached (transferred, ' +
      'posted, read into by a BYOB reader) or shrunk while the op runs; pass a tensor over a SharedArrayBuffer ' +
      'or library memory (t.clone(), dl.empty()), or call the synchronous form');
  }

  // Bytes the storage holds (what asStrided may address).
  byteLength() {
    return this.memory.isNative ? this.memory.byteLength() : this.buffer().byteLength;
  }

  // shareMemory(): the memory of `fresh` (a Storage nobody holds yet, into
  // which the caller copied this one's bytes) replaces this one's, which is
  // freed: a heap buffer the library owns is detached, so typed arrays over
  // it read nothing rather than bytes that no longer alias the tensor.
  replaceMemory(fresh) {
    const old = this.memory;
    if (this.known && !old.isNative) owners.delete(old.buffer());
    this.memory = fresh.memory;
    this.bytes = null;
    this.bytesOf = null;
    this.known = false; // the new buffer is registered to this Storage when handed out
    fresh.memory = null;
    fresh.released = true;
    old.free();
  }
}

// buffer -> the Storage of memory the library owns (see register()). One map
// per thread, not per load of lib/ (Jest loads it once per test file, and
// jest.isolateModules() again): it is kept on the addon's exports, which every
// load in a thread shares, so that one load's fromBuffer(t.buffer) holds the
// memory another load owns, and that load's dispose() neither detaches nor
// reuses it while a struct points at it (issue 20). A Storage found here may
// be another load's: only its methods are used, never its class.
const owners = threadShared(Symbol.for('dlpack.owners'), () => new WeakMap());

// The live Storage that owns `buffer`, or null for memory the library does not
// own (the caller's buffers: they are never detached, so any Storage will do).
function holderOf(buffer) {
  const storage = owners.get(buffer);
  return storage === undefined || storage.released ? null : storage;
}

// A detached ArrayBuffer reports length 0 and refuses new views.
function isDetached(buffer) {
  if (buffer.byteLength !== 0) return false;
  if (typeof buffer.detached === 'boolean') return buffer.detached;
  try {
    new Uint8Array(buffer); // eslint-disable-line no-new
    return false;
  } catch {
    return true;
  }
}

// The tensor's bytes are gone from its buffer (detached, or a resizable one
// shrunk). A caller's plain ArrayBuffer may be a WebAssembly.Memory's, which
// memory.grow() detaches: wasm.view() is the tensor that survives that.
function detachedError(storage) {
  const hint = storage.kind === 'heap' && !storage.owned && !storage.sharedBuffer ?
    '; if it was a WebAssembly.Memory\'s buffer, memory.grow() detached it: ' +
    'dl.wasm.view(memory, { ptr, dtype, shape }) makes a tensor that follows the memory as it grows' : '';
  return makeError('ERR_DLPACK_DETACHED',
    `Expected the tensor's buffer to still hold its bytes, but it was detached or shrunk${hint}`);
}

module.exports = { Storage, HeapMemory, isDetached, holderOf, detachedError };
