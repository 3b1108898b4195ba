'use strict';
// What a tensor's bytes live in. Tensors and views share one Storage and
// count themselves in `holders`; when the last lets go, memory the library
// owns is released at once (docs/API.md "dispose").
//
//   JS memory:      buffer is an ArrayBuffer or SharedArrayBuffer. `owned`
//                   buffers (empty, zeros, clone...) are detached on release
//                   unless a capsule pinned them; a caller's buffer never is.
//   native memory:  `handle` is a native handle (host_storage.cc) owning a
//                   DLPack producer's tensor, a shared-memory segment (`shm`
//                   names it) or memory another thread shared; the
//                   ArrayBuffer over it is made only when JS asks for one.
//   WebAssembly:    `memory` is a WebAssembly.Memory; the buffer is re-read
//                   from it on every use, so views survive memory.grow().
//
// The holder count lives with the memory, not with whichever call made a
// tensor over it: once a buffer the library owns has been handed out (t.buffer,
// t.data), `holderOf` finds its Storage again, so dl.fromBuffer(t.buffer) and
// dl.open() of it are holders of that memory like t and its views, and an
// export from any of them pins it (docs/API.md "Lifetimes").
const { native } = require('./binding');
const { makeError } = require('./errors');
const { CPU } = require('./device');
const { kStorage } = require('./symbols');
const { recycle } = require('./memory');
const { isArrayBuffer } = require('util').types;

class Storage {
  constructor(buffer, owned, device = CPU) {
    this.buffer = buffer;
    this.bytes = null;
    this.owned = owned;
    this.device = device;
    this.handle = null; // native handle of foreign memory
    this.foreign = false;
    this.shm = null;    // { name, fd, dataSize } of a shared-memory segment
    this.cudaIpc = false; // CUDA memory other processes can map ('cuda-ipc')
    this.memory = null; // a WebAssembly.Memory
    this.exported = false;
    this.released = false;
    this.holders = 0;
    this.known = false; // registered in `owners` (its buffer was handed out)
  }

  // Natively owned memory behind `handle` (host_storage.cc).
  static adopt(handle, owned, device = CPU) {
    const storage = new Storage(null, owned, device);
    storage.handle = handle;
    storage.foreign = true;
    return storage;
  }

  getBuffer() {
    if (this.memory !== null) return this.memory.buffer;
    if (this.buffer === null) {
      if (this.released) throw makeError('ERR_DLPACK_DISPOSED', 'The tensor\'s memory was released');
      this.buffer = native.storageBuffer(this.handle);
    }
    if (!this.known) this.register();
    return this.buffer;
  }

  // Memory the library owns becomes findable from its buffer when the buffer
  // is first handed out (creation stays a plain allocation).
  register() {
    this.known = true;
    if ((this.owned || this.foreign) && this.buffer !== null) {
      owners.set(this.buffer, this);
    }
  }

  // A Uint8Array over the whole buffer, for native calls; it points back at
  // this Storage so that importing our own capsule finds it again.
  getBytes() {
    let bytes = this.bytes;
    const current = this.memory !== null ? this.memory.buffer : this.buffer;
    if (bytes === null || bytes.buffer !== current || (bytes.length === 0 && current.byteLength !== 0)) {
      const buffer = this.getBuffer();
      if (buffer.byteLength === 0 && isDetached(buffer)) {
        throw makeError('ERR_DLPACK_DETACHED', 'The tensor\'s ArrayBuffer was detached');
      }
      bytes = new Uint8Array(buffer);
      bytes[kStorage] = this;
      this.bytes = bytes;
    }
    return bytes;
  }

  release() {
    if (--this.holders > 0 || this.released) return;
    this.released = true;
    if (this.foreign) {
      native.storageRelease(this.handle, this.buffer);
      this.handle = null; // its finalizer frees nothing more
    } else if (this.owned && !this.exported && isArrayBuffer(this.buffer) &&
               this.buffer.byteLength !== 0) {
      // Detached either way: large buffers the library allocated are kept a
      // moment for the next copy of their size (lib/memory.js).
      if (!recycle(this.buffer)) native.detachBuffer(this.buffer);
    }
    this.buffer = null;
    this.bytes = null;
  }
}

// buffer -> the Storage of memory the library owns (see register()).
const owners = new WeakMap();

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

module.exports = { Storage, isDetached, holderOf };
