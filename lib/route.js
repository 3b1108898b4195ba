'use strict';
// Where copies, conversions and ops run (docs/API.md "Devices", "Conversion",
// "Ops"): the one module that picks the path for a pair of memories (a host
// loop, a kernel on one CUDA device, or bytes through the driver) and the one
// caller of the binding's copy and op wrappers (test/architecture.test.js).
//
// It works on (Storage, Layout) pairs, never on tensors, and never requires
// lib/tensor.js: the Tensor methods (lib/tensor.js) and the ops (lib/ops.js,
// lib/reduce.js) validate their arguments, then hand their storages and
// layouts here. What it allocates comes back as a new pair { storage,
// layout } that no holder has taken yet (Storage.discard() frees it); the
// caller wraps it in a tensor. The device of a pair is its storage's.
const {
  native, HOST_DEVICE, copyStrided, cudaStridedCopy, cudaConvert, elementwise, elementwiseDense, normalize, reduce,
  matmul, statistics, norms, deviceCodes,
  sortLanes, scanLanes, indexGather, indexNonzero, randomFill, randomMultinomial, boxesIou, boxesNms, interpolateNchw,
} = require('./binding');
const { makeError } = require('./errors');
const { CPU, cudaUnavailable } = require('./device');
const { isAvailable, cudaStorage } = require('./cuda');
const { Layout } = require('./layout');
const { Storage, detachedError } = require('./storage');

// --- placement ----------------------------------------------------------------

// The storage's buffer, after checking that it still holds every element of
// `layout` (detach, shrink).
function coveredBuffer(storage, layout) {
  const buffer = storage.buffer();
  if (!layout.inside(buffer.byteLength)) throw detachedError(storage);
  return buffer;
}

// The same check before a host loop, which reads native memory through its
// handle: no ArrayBuffer is made for it (Storage#hostArg throws where the
// one made was transferred away; the addon checks the extent again).
function covered(storage, layout) {
  if (storage.isNative) storage.hostArg();
  else coveredBuffer(storage, layout);
}

// An { async: true } job's Promise, refused with ERR_DLPACK_DETACHED when the
// ArrayBuffer made over an output's native memory was transferred away while
// the job ran: the result went with it. A staged output's buffer detached
// meanwhile is refused the same way by the addon (src/addon/job_memory.h).
function settledInto(settled, output) {
  return settled.then(() => {
    if (output.isNative && output.memory.detached) throw detachedError(output);
  });
}

// The `stage` argument of an { async: true } native call whose tensor
// operands, in argument order, are over `storages`: bit i when the job stages
// the i-th. Each goes through Storage#jobStages, the one rule of what a job
// may use while JavaScript runs on, which throws ERR_DLPACK_DETACHABLE for
// memory no job may touch (docs/API.md "Off the event loop").
function jobMask(storages) {
  let mask = 0;
  for (let i = 0; i < storages.length; i++) if (storages[i].jobStages()) mask |= 1 << i;
  return mask;
}

// Refuses memory the host cannot address, for `what` (ops and host reads run
// on the host only).
function onHost(device, what) {
  if (!device.hostAccessible) {
    throw makeError('ERR_DLPACK_WRONG_DEVICE',
      `Expected a CPU-accessible tensor for \`${what}\`, received one on ${device}`);
  }
}

// --- the overlap rules ------------------------------------------------------------
// One set of rules for every path that writes (copies, the ops, their
// in-place and `out` forms, normalize, the reductions' `out`), on every
// device (docs/API.md "Overlap").

// Where storage b's bytes lie in storage a's frame: the number to add to a
// byte position of b to get the position of the same byte in a, or null when
// they are other memory. Memory is named by what it is, not by which JS
// object reaches it (issue 37, finding 5): a shared-memory segment by its
// name (every mapping of it in this process holds the same bytes at the same
// offsets: dl.open(t.share()) in the thread that shared it, a descriptor
// opened twice); other native memory by its address (a 'local' share opened
// in the thread that made it, one producer's memory imported twice, CUDA
// memory alike); JS memory by its buffer (two fromBuffer() over one
// ArrayBuffer).
function shiftBetween(a, b) {
  if (a === b) return 0;
  const sa = a.segment;
  const sb = b.segment;
  if (sa !== null || sb !== null) return sa !== null && sb !== null && sa.name === sb.name ? 0 : null;
  if (a.isNative !== b.isNative) return null;
  if (a.isNative) {
    const x = a.memory.address();
    const y = b.memory.address();
    return x < 0 || y < 0 ? null : y - x;
  }
  return a.buffer() === b.buffer() ? 0 : null;
}

// Whether two pairs touch common bytes: one memory (shiftBetween), and
// byte ranges [base, base + extent) that intersect. The rule of the host
// copy and of the device path: two disjoint views of one allocation do not
// overlap.
function overlapping(aStorage, a, bStorage, b) {
  if (a.size === 0 || b.size === 0) return false;
  const shift = shiftBetween(aStorage, bStorage);
  if (shift === null) return false;
  const bBase = b.base + shift;
  return a.base < bBase + b.extent && bBase < a.base + a.extent;
}

// Whether writing `out` element by element (over `shape`) could change an
// element of `input` before it is read: their bytes overlap and they are not
// the very same elements (element 0 at one byte, one item size, the same
// stride on every dim longer than 1; `inStrides` are input's strides
// broadcast to `shape`). The very same elements are safe: each is read
// before it is written (an in-place op); any other overlap is staged through
// a temporary by the caller, as copies stage it.
//
// A dim of extent 1 is never stepped, whatever stride it carries: without
// this rule an in-place op on a [1, 3, 224, 224] image, whose broadcast
// stride on dim 0 is 0, went through a temporary and a copy back, 5x slower.
function writeOverlaps(outStorage, out, inStorage, input, inStrides, shape) {
  if (!overlapping(outStorage, out, inStorage, input)) return false;
  if (input.byteOffset + shiftBetween(outStorage, inStorage) !== out.byteOffset ||
      input.info.itemSize !== out.info.itemSize) {
    return true;
  }
  for (let i = 0; i < shape.length; i++) {
    if (shape[i] !== 1 && inStrides[i] !== out.strides[i]) return true;
  }
  return false;
}

// How elements of `layout` share memory: null when no two do; 'stride0'
// for a dim of size > 1 with stride 0 (expand()), torch's "has internal
// overlap"; 'overlap' for strides that may reach one element twice
// (asStrided(), fromBuffer or a descriptor with such strides). The proof of
// no sharing: an order of the dims of size > 1 in which each |stride| is
// larger than the span (size - 1) * |stride| of all before it (then two
// index vectors differ by more than the earlier dims can make up, a mixed
// radix); the given order last-to-first is tried first (every view of a
// dense tensor passes there, or after sorting by |stride|, the only other
// order that can pass). A layout that fails both may still map its elements
// to distinct bytes (shape [3, 2], strides [2, 3]): it is refused all the
// same, where torch lets what it cannot decide cheaply through unchecked
// (its "too hard"; deciding exactly is a subset-sum problem).
function sharedElements(layout) {
  if (layout.size === 0) return null; // nothing is written
  const { shape, strides } = layout;
  let span = 0;
  let ordered = true;
  for (let i = shape.length - 1; i >= 0; i--) {
    if (shape[i] <= 1) continue;
    const step = Math.abs(strides[i]);
    if (step === 0) return 'stride0';
    if (step <= span) ordered = false;
    span += (shape[i] - 1) * step;
  }
  if (ordered) return null;
  const dims = [];
  for (let i = 0; i < shape.length; i++) if (shape[i] > 1) dims.push(i);
  dims.sort((x, y) => Math.abs(strides[x]) - Math.abs(strides[y]));
  span = 0;
  for (const d of dims) {
    const step = Math.abs(strides[d]);
    if (step <= span) return 'overlap';
    span += (shape[d] - 1) * step;
  }
  return null;
}

// A destination whose elements share memory is refused (`what` names it):
// which write wins would depend on the order the loop runs in, and on a GPU
// or two host threads writes race (an in-place add over an expand()ed view
// lost updates, run to run: issue 37, finding 3). torch refuses the same on
// every device ("more than one element of the written-to tensor refers to a
// single memory location"). One rule for copyFrom(), fill_(), the ops'
// in-place forms and `out`, normalize's `out` and the reductions' `out`.
function refuseSharedElements(layout, what) {
  const how = sharedElements(layout);
  if (how === null) return;
  const which = how === 'stride0' ? 'a stride-0 dim of size > 1, as expand() makes' :
    `strides [${layout.strides.join(', ')}] that reach one element twice for shape [${layout.shape.join(', ')}]`;
  throw makeError('ERR_DLPACK_UNSUPPORTED', `Expected a destination for ${what} whose elements do not share ` +
    `memory, received one in which more than one element refers to a single memory location (${which}); ` +
    'clone() it first');
}

// The paths of copyInto(): both sides on the host; a kernel on one CUDA
// device (staged: the source copied aside first, its bytes overlapping the
// destination's); bytes through the driver between devices.
const PATH = Object.freeze({ host: 'host', kernel: 'kernel', staged: 'staged', bytes: 'bytes' });

const onOneDevice = (aStorage, bStorage) => aStorage.device.type === 'cuda' && aStorage.device === bStorage.device;

function copyPath(dstStorage, dst, srcStorage, src) {
  if (dstStorage.device.hostAccessible && srcStorage.device.hostAccessible) return PATH.host;
  if (!onOneDevice(dstStorage, srcStorage)) return PATH.bytes;
  return overlapping(dstStorage, dst, srcStorage, src) ? PATH.staged : PATH.kernel;
}

// --- the host loop ---------------------------------------------------------------

// dst <- src element by element with conversion (same shape; host-accessible
// memory). Overlap within one buffer is handled natively, by address; the
// same bytes reached through two storages (overlapping(): two mappings of one
// segment have other addresses) are staged here, into a copy no one else
// holds, which a job may then use in place.
function copyOnHost(dstStorage, dst, srcStorage, src, async = false) {
  const stage = async ? jobMask([dstStorage, srcStorage]) : undefined;
  let srcMemory = srcStorage.hostArg();
  let srcOffset = src.byteOffset;
  if (dstStorage !== srcStorage && overlapping(dstStorage, dst, srcStorage, src)) {
    srcMemory = srcStorage.getBytes().slice(src.base, srcOffset + src.high);
    srcOffset -= src.base;
  }
  const settled = copyStrided(dstStorage.hostArg(), dst.byteOffset, dst.info.index, srcMemory, srcOffset,
    src.info.index, dst.shape, dst.strides, src.strides, stage);
  return async ? settledInto(settled, dstStorage) : settled;
}

// A new contiguous host pair with src's elements as `info` (src
// host-accessible).
function convertOnHost(storage, layout, info) {
  // Every byte of the result is written below (or it is dropped unseen), so
  // it may reuse memory a disposed tensor left (lib/memory.js).
  const out = Layout.contiguous(info, layout.shape.slice());
  const fresh = Storage.allocateForCopy(layout.size * info.itemSize);
  try {
    if (layout.size !== 0) {
      covered(storage, layout);
      copyOnHost(fresh, out, storage, layout);
    }
  } catch (error) {
    fresh.discard();
    throw error;
  }
  return { storage: fresh, layout: out };
}

// convertOnHost off the event loop: the loop runs on a libuv thread (and the
// pool); the Promise resolves to wrap(the new pair), called as soon as the
// copy has run. Both storages are held until then (Storage.holdUntilSettled: a
// dispose() meanwhile lets go of the tensor, not the memory; shareMemory()
// is refused); a failure frees the new storage.
function convertOnHostAsync(storage, layout, info, wrap) {
  const out = Layout.contiguous(info, layout.shape.slice());
  const fresh = Storage.allocateForCopy(layout.size * info.itemSize);
  if (layout.size === 0) return Promise.resolve(wrap({ storage: fresh, layout: out }));
  let settled;
  try {
    covered(storage, layout);
    settled = copyOnHost(fresh, out, storage, layout, true);
  } catch (error) {
    fresh.discard();
    throw error;
  }
  // fresh's release is its last holder's on a failure: freed.
  return Storage.holdUntilSettled([storage, fresh], settled.then(() => wrap({ storage: fresh, layout: out })));
}

// --- CUDA ---------------------------------------------------------------------------

// Copies bytes between two storages (any devices). On a stream other than
// the legacy default one, and when both sides are CUDA memory this library
// allocated (device, pinned or managed: their frees are stream-ordered), the
// copy is enqueued there and this returns at once; otherwise (pageable host
// memory, memory imported from another library) it is synchronous.
// Both copies run with a CUDA side's device current (device memory's first)
// and are ordered with the other side's device too (src/core/stream_order.h
// EnqueueOrderedAcross): a copy between two GPUs waits for work on both and
// is waited for by later work on both.
function copyBytes(dst, dstOffset, src, srcOffset, nbytes, stream = 1n) {
  const dstIndex = dst.device.type === 'cpu' ? -1 : dst.device.index;
  const srcIndex = src.device.type === 'cpu' ? -1 : src.device.index;
  if (dstIndex < 0 && srcIndex < 0) {
    // No CUDA side (a strided device view gathered on the host, say): there
    // is no device to make current, and cudaSetDevice(-1) is an error.
    dst.getBytes().set(src.getBytes().subarray(srcOffset, srcOffset + nbytes), dstOffset);
    return;
  }
  const dstArg = dst.nativeArg();
  const srcArg = src.nativeArg();
  const dstFirst = dst.device.type === 'cuda' || srcIndex < 0;
  const device = dstFirst ? dstIndex : srcIndex;
  const other = dstFirst ? srcIndex : dstIndex;
  if (stream !== 1n && dst.streamOrdered && src.streamOrdered) {
    native.cudaCopy(dstArg, true, dstOffset, srcArg, true, srcOffset, nbytes, device, other, stream);
    return;
  }
  native.cudaCopy(dstArg, dst.isNative, dstOffset, srcArg, src.isNative, srcOffset, nbytes, device, other);
}

// Every byte of src into dst, both `nbytes` long (shareMemory()'s move to
// shareable memory): through the driver from CUDA device memory, else on the
// host (pinned and managed memory included).
function copyStorage(dst, src, nbytes) {
  if (src.device.type === 'cuda') copyBytes(dst, 0, src, 0, nbytes);
  else dst.getBytes().set(src.getBytes());
}

// The stream a kernel between two storages may run on: the caller's where
// both are memory this library allocated (stream-ordered frees, as in
// copyBytes), else the legacy default stream, ordered with imported memory's
// owner as every synchronous copy is.
const kernelStream = (dstStorage, srcStorage, stream) =>
  (dstStorage.streamOrdered && srcStorage.streamOrdered ? stream : 1n);

// Device-side copies (src/core/cuda_kernels.h): kernels between two views of
// CUDA device memory on one device, enqueued on `stream` (a BigInt as
// lib/cuda.js streamHandle gives; the legacy default stream unless named)
// and ordered with later work on it. The caller passes views of one shape
// whose bytes do not overlap (copyPath() says when they might).
//
// dst <- src, same dtype, any strides on both sides (a dense pair is one
// cudaMemcpyAsync).
function copyOnDevice(dstStorage, dst, srcStorage, src, stream = 1n) {
  cudaStridedCopy(dstStorage.device.index, dstStorage.nativeArg(), dst.byteOffset, srcStorage.nativeArg(),
    src.byteOffset, dst.info.itemSize, kernelStream(dstStorage, srcStorage, stream), dst.shape, dst.strides,
    src.strides);
}

// dst <- src converted to dst's dtype by the conversion kernel (rules in
// src/core/device_copy.h: NaN -> 0 and saturation for float -> integer,
// round to nearest even for float16/bfloat16, real part of complex, nonzero
// -> true).
function convertOnDevice(dstStorage, dst, srcStorage, src, stream = 1n) {
  cudaConvert(dstStorage.device.index, dstStorage.nativeArg(), dst.byteOffset, dst.info, srcStorage.nativeArg(),
    src.byteOffset, src.info, kernelStream(dstStorage, srcStorage, stream), dst.shape, dst.strides, src.strides);
}

// src's elements, row-major and contiguous, as { storage, offset, temporary }
// (src itself when it is contiguous; a temporary the caller discards). A
// strided pair is gathered on the host: host memory directly, device memory
// after downloading the bytes it spans.
function contiguousSource(storage, layout) {
  if (layout.isContiguous) return { storage, offset: layout.byteOffset, temporary: false };
  if (storage.device.hostAccessible) {
    return { storage: convertOnHost(storage, layout, layout.info).storage, offset: 0, temporary: true };
  }
  const span = layout.extent;
  const staged = Storage.allocateForCopy(span);
  try {
    copyBytes(staged, 0, storage, layout.base, span);
    const gathered = convertOnHost(staged, Layout.of(layout.info, layout.shape, layout.strides, layout.low),
      layout.info);
    return { storage: gathered.storage, offset: 0, temporary: true };
  } finally {
    staged.discard();
  }
}

// A contiguous copy of src on `target` (any devices; CUDA must be usable),
// enqueued on `stream` where copyBytes can.
function transfer(storage, layout, target, stream = 1n) {
  if (!isAvailable()) throw cudaUnavailable(`a copy from ${storage.device} to ${target}`);
  const out = Layout.contiguous(layout.info, layout.shape.slice());
  const nbytes = layout.size * layout.info.itemSize;
  if (target === storage.device && target.type === 'cuda') {
    // clone()/contiguous() on the device: a kernel, not through the host.
    const fresh = cudaStorage(target, nbytes);
    try {
      copyOnDevice(fresh, out, storage, layout, stream);
    } catch (error) {
      fresh.discard();
      throw error;
    }
    return { storage: fresh, layout: out };
  }
  const source = contiguousSource(storage, layout);
  // A strided view gathered on the host is already the copy the CPU wants.
  if (target === CPU && source.temporary) return { storage: source.storage, layout: out };
  let fresh = null;
  try {
    fresh = target === CPU ? Storage.allocateForCopy(nbytes) : cudaStorage(target, nbytes);
    copyBytes(fresh, 0, source.storage, source.offset, nbytes, stream);
  } catch (error) {
    if (fresh !== null) fresh.discard();
    throw error;
  } finally {
    if (source.temporary) source.storage.discard();
  }
  return { storage: fresh, layout: out };
}

// --- what the Tensor methods call ------------------------------------------------------

// dst <- src (copyFrom(); same shape, both live, dst writable and checked by
// refuseSharedElements()). On the host: the native loop, any strides and
// dtypes. On one CUDA device: kernels, any strides and dtypes, overlapping
// bytes copied aside first as on the host. Across devices: the destination
// must be contiguous, and other dtypes are converted on the host first.
function copyInto(dstStorage, dst, srcStorage, src, stream = 1n) {
  if (dst.size === 0) return;
  const path = copyPath(dstStorage, dst, srcStorage, src);
  if (path === PATH.host) {
    covered(dstStorage, dst);
    covered(srcStorage, src);
    copyOnHost(dstStorage, dst, srcStorage, src);
    return;
  }
  if (!isAvailable()) throw cudaUnavailable(`copyFrom() between ${srcStorage.device} and ${dstStorage.device}`);
  if (path !== PATH.bytes) {
    const from = path === PATH.staged ? transfer(srcStorage, src, srcStorage.device) : { storage: srcStorage, layout: src };
    try {
      if (from.layout.info === dst.info) copyOnDevice(dstStorage, dst, from.storage, from.layout, stream);
      else convertOnDevice(dstStorage, dst, from.storage, from.layout, stream);
    } finally {
      if (path === PATH.staged) from.storage.discard();
    }
    return;
  }
  if (!dst.isContiguous) {
    throw makeError('ERR_DLPACK_NOT_CONTIGUOUS',
      `Expected a contiguous destination for copyFrom() on ${dstStorage.device}, received a strided view`);
  }
  let from = { storage: srcStorage, layout: src };
  if (src.info !== dst.info) {
    const host = srcStorage.device.hostAccessible ? from : transfer(srcStorage, src, CPU);
    from = convertOnHost(host.storage, host.layout, dst.info);
    if (host.storage !== srcStorage) host.storage.discard();
  }
  const source = contiguousSource(from.storage, from.layout);
  try {
    copyBytes(dstStorage, dst.byteOffset, source.storage, source.offset, dst.nbytes, stream);
  } finally {
    if (source.temporary) source.storage.discard();
    if (from.storage !== srcStorage) from.storage.discard();
  }
}

// copyInto() off the event loop, host-accessible memory on both sides (the
// caller checks): the loop runs on a libuv thread (and the pool), overlapping
// bytes staged natively as copyInto's; a Promise that settles once it has
// run. Both storages are held until then (Storage.holdUntilSettled).
function copyIntoAsync(dstStorage, dst, srcStorage, src) {
  if (dst.size === 0) return Promise.resolve();
  covered(dstStorage, dst);
  covered(srcStorage, src);
  const settled = copyOnHost(dstStorage, dst, srcStorage, src, true);
  return Storage.holdUntilSettled([dstStorage, srcStorage], settled);
}

// A contiguous copy (clone()): on the device it lives on.
function clone(storage, layout, stream = 1n) {
  if (!storage.device.hostAccessible) return transfer(storage, layout, storage.device, stream);
  return convertOnHost(storage, layout, layout.info);
}

// src on `place`: null when it is there already (the caller makes a view:
// docs/API.md "Decisions"), else a new contiguous pair.
function moveTo(storage, layout, place, stream = 1n) {
  if (place === storage.device) return null;
  // Host-accessible memory to the CPU is a plain host copy.
  if (place === CPU && storage.device.hostAccessible) return convertOnHost(storage, layout, layout.info);
  return transfer(storage, layout, place, stream);
}

// to(): src as `info` on `place`; null when neither changes. Another dtype
// is converted where src lives (host memory by the host loop, a CUDA tensor
// by a kernel on its own device: docs/API.md "Conversion"), then moved.
function convert(storage, layout, info, place, stream = 1n) {
  if (info === layout.info) return moveTo(storage, layout, place, stream);
  let out;
  if (storage.device.hostAccessible) {
    out = convertOnHost(storage, layout, info);
  } else {
    if (!isAvailable()) throw cudaUnavailable(`a conversion on ${storage.device}`);
    out = { storage: cudaStorage(storage.device, layout.size * info.itemSize),
      layout: Layout.contiguous(info, layout.shape.slice()) };
    try {
      if (layout.size !== 0) convertOnDevice(out.storage, out.layout, storage, layout, stream);
    } catch (error) {
      out.storage.discard();
      throw error;
    }
  }
  if (place === out.storage.device) return out;
  // The intermediate freed stream-ordered after the copy where it was enqueued.
  const moved = transfer(out.storage, out.layout, place, stream);
  out.storage.discard();
  return moved;
}

// --- what the ops call -------------------------------------------------------------------

// out = op(inputs) over `shape` (src/core/compute/elementwise_call.h): one
// descriptor for the host and CUDA, forked at the bottom by the device of
// outStorage. inputs are numbers or { storage, layout, strides } (strides
// already broadcast to `shape`). On the host, `async`: a Promise that settles
// once the engine has run off this thread. On a CUDA device the kernel is
// enqueued on `stream` where every storage is memory this library allocated
// (kernelStream's rule), else on the legacy default stream, and nothing waits
// (`async`: a Promise already settled).
function runElementwise(opCode, dtypeIndex, shape, outStorage, out, inputs, async = false, stream = 1n) {
  const device = outStorage.device;
  const n = inputs.length;
  const operands = new Array(n);
  if (!device.hostAccessible) {
    let ordered = true;
    for (let k = 0; k < n; k++) {
      const v = inputs[k];
      if (typeof v === 'number') {
        operands[k] = v;
        continue;
      }
      if (!v.storage.streamOrdered) ordered = false;
      operands[k] = { memory: v.storage.nativeArg(), offset: v.layout.byteOffset, strides: v.strides };
    }
    const on = ordered ? kernelStream(outStorage, outStorage, stream) : 1n;
    elementwise(device.index, opCode, dtypeIndex, on, shape, outStorage.nativeArg(), out.byteOffset, out.strides,
      operands);
    return async ? Promise.resolve() : undefined;
  }
  for (let k = 0; k < n; k++) {
    const v = inputs[k];
    operands[k] = typeof v === 'number' ? v : { memory: v.storage.hostArg(), offset: v.layout.byteOffset,
      strides: v.strides };
  }
  if (!async) {
    return elementwise(HOST_DEVICE, opCode, dtypeIndex, 0n, shape, outStorage.hostArg(), out.byteOffset, out.strides,
      operands);
  }
  const stage = jobMask([outStorage, ...inputs.filter((v) => typeof v !== 'number').map((v) => v.storage)]);
  return settledInto(elementwise(HOST_DEVICE, opCode, dtypeIndex, 0n, shape, outStorage.hostArg(), out.byteOffset,
    out.strides, operands, stage), outStorage);
}

// runElementwise()'s dense form (lib/binding.js elementwiseDense): the same
// descriptor with one dim, for out and tensor inputs all host memory and
// row-major over out's elements (lib/ops.js denseBinary), on this thread. The
// inputs are (storage, layout) pairs; `bStorage` undefined for a unary op.
function runElementwiseDense(opCode, dtypeIndex, outStorage, out, aStorage, a, bStorage, b) {
  if (bStorage === undefined) {
    return elementwiseDense(opCode, dtypeIndex, out.size, outStorage.hostArg(), out.byteOffset, aStorage.hostArg(),
      a.byteOffset);
  }
  return elementwiseDense(opCode, dtypeIndex, out.size, outStorage.hostArg(), out.byteOffset, aStorage.hostArg(),
    a.byteOffset, bStorage.hostArg(), b.byteOffset);
}

// dl.normalize's one pass, out <- (input * scale - mean[c]) / std[c], on the
// device of outStorage (src/core/compute/normalize.h RunNormalize forks at the
// bottom): on the host, true, or with `async` a Promise settled once the pass
// has run; on a CUDA device the one-pass kernel, enqueued on `stream` where
// both storages are memory this library allocated (kernelStream's rule), else
// on the legacy default stream: true, or false with nothing enqueued where the
// kernel does not take the case (the caller composes elementwise kernels).
function runNormalize(outStorage, out, inStorage, input, meanStd, scale, async = false, stream = 1n) {
  const device = outStorage.device;
  if (!device.hostAccessible) {
    return normalize(device.index, input.info.index, out.info.index, kernelStream(outStorage, inStorage, stream),
      out.shape, outStorage.nativeArg(), out.byteOffset, out.strides, inStorage.nativeArg(), input.byteOffset,
      input.strides, meanStd, scale);
  }
  const stage = async ? jobMask([outStorage, inStorage]) : undefined;
  const settled = normalize(HOST_DEVICE, input.info.index, out.info.index, 0n, out.shape, outStorage.hostArg(),
    out.byteOffset, out.strides, inStorage.hostArg(), input.byteOffset, input.strides, meanStd, scale, stage);
  return async ? settledInto(settled, outStorage) : settled;
}

// One reduction (src/core/compute/reduce_call.h RunReduce): one descriptor
// for the host and CUDA, forked at the bottom by the device of the input.
// { op (lib/binding.js reduceTable.ops), input: { storage, layout },
// order (sum/mean/amax/amin: input's dims in this order, the last `reduced`
// of them reduced, results contiguous; undefined: as they are), dim (the
// others: along it, results at `outStrides` per dim of input), values,
// indices ({ storage, offset } or null where the op has none), k, largest,
// sorted, stream, async }. On the host: true, or with `async` a Promise
// settled once the loop has run off this thread. On a CUDA device the row
// kernels, enqueued on `stream` where every storage is memory this library
// allocated (kernelStream's rule), else on the legacy default stream: true,
// or false with nothing enqueued where they do not take the operands as they
// are (the caller stages them: lib/reduce.js staged()).
function runReduce({ op, input, order, reduced = 0, dim = 0, outStrides = [], values, indices = null, k = 0,
  largest = true, sorted = true, stream = 1n, async = false }) {
  const { storage, layout } = input;
  const shape = order === undefined ? layout.shape : order.map((i) => layout.shape[i]);
  const strides = order === undefined ? layout.strides : order.map((i) => layout.strides[i]);
  const at = order === undefined ? dim : reduced;
  const vOffset = values === null ? 0 : values.offset;
  const iOffset = indices === null ? 0 : indices.offset;
  const device = storage.device;
  if (!device.hostAccessible) {
    const ordered = [input, values, indices].every((x) => x === null || x.storage.streamOrdered);
    return reduce(op, device.index, ordered ? stream : 1n, storage.nativeArg(), layout.byteOffset, layout.info.index,
      shape, strides, at, outStrides, values === null ? null : values.storage.nativeArg(), vOffset,
      indices === null ? null : indices.storage.nativeArg(), iOffset, k, largest, sorted);
  }
  const stage = async ? jobMask([input, values, indices].filter((x) => x !== null).map((x) => x.storage)) : undefined;
  return reduce(op, HOST_DEVICE, 0n, storage.hostArg(), layout.byteOffset, layout.info.index, shape, strides, at,
    outStrides, values === null ? null : values.storage.hostArg(), vOffset,
    indices === null ? null : indices.storage.hostArg(), iOffset, k, largest, sorted, stage);
}

// --- the compute families (docs/development.md "Compute families") -------------
// Each family's one descriptor: operands as { storage, layout, strides }
// (strides per dim of the family's canonical form, in elements), `out` the
// same, `device` null on the host or the CUDA Device every operand is on.

const HOST_PLACE = Object.freeze({ deviceType: deviceCodes.cpu, deviceId: 0, stream: 1n });

// A descriptor operand as the binding takes it.
function familyOperand(x, onDevice) {
  return { memory: onDevice ? x.storage.nativeArg() : x.storage.hostArg(), offset: x.layout.byteOffset,
    strides: x.strides };
}

// The `stage` of a host job over the operands (in argument order), or
// undefined for the synchronous form and for a device.
function familyStage(async, device, operands) {
  return async && device === null ? jobMask(operands.filter((x) => x !== null).map((x) => x.storage)) : undefined;
}

// matmul: { dtype, shape, k, a, b, bias, out, device, stream, async } (the
// shapes as src/addon/linalg.h MatmulFamily reads them; bias null or a
// vector operand). On a device the kernels are enqueued on `stream` where every
// storage is memory this library allocated (kernelStream's rule), else on the
// legacy default stream. A Promise when async (on the host, of the job).
function runMatmul({ dtype, shape, k, a, b, bias, out, device, stream, async }) {
  const onDevice = device !== null;
  const stage = familyStage(async, device, [a, b, bias, out]);
  const ordered = [a, b, bias].every((x) => x === null || x.storage.streamOrdered);
  const place = onDevice ? { deviceType: device.code, deviceId: device.index,
    stream: ordered ? kernelStream(out.storage, out.storage, stream) : 1n } : HOST_PLACE;
  const biasArg = bias === null ? null :
    { memory: onDevice ? bias.storage.nativeArg() : bias.storage.hostArg(), offset: bias.layout.byteOffset,
      stride: bias.strides[0] };
  const settled = matmul(dtype.index, shape, familyOperand(out, onDevice), familyOperand(a, onDevice),
    familyOperand(b, onDevice), k, biasArg, place, stage);
  return stage !== undefined ? settledInto(settled, out.storage) : settled;
}

// statistics: { op, dtype, shape, input, reduced, correction, ord, out, mean,
// async } on the host (src/addon/linalg.h StatisticsFamily).
function runStatistics({ op, dtype, shape, input, reduced, correction, ord, out, mean, async }) {
  const stage = familyStage(async, null, [input, out, mean]);
  const settled = statistics(op, dtype.index, shape, familyOperand(input, false), reduced, correction, ord,
    familyOperand(out, false), mean === null ? null : familyOperand(mean, false), stage);
  return stage !== undefined ? settledInto(settled, out.storage) : settled;
}

// norms: { kind, dtype, shape, x, y, z, out, normalized, p, eps, async } on
// the host (src/addon/linalg.h NormsFamily).
function runNorms({ kind, dtype, shape, x, y, z, out, normalized, p, eps, async }) {
  const stage = familyStage(async, null, [x, y, z, out]);
  const settled = norms(kind, dtype.index, shape, familyOperand(x, false), y === null ? null : familyOperand(y, false),
    z === null ? null : familyOperand(z, false), familyOperand(out, false), normalized, p, eps, stage);
  return stage !== undefined ? settledInto(settled, out.storage) : settled;
}

// --- issue 40's host families (lib/compute.js builds the operands) ---------------------

// An operand { storage, layout, shape, strides } (lib/compute.js operand())
// as the four arguments of src/addon/compute_view.h; null: none.
function viewArgs(v) {
  if (v === null) return [null, 0, 0, []];
  return [v.storage.hostArg(), v.layout.byteOffset, v.layout.info.index, [...v.shape, ...v.strides]];
}

// sort / argsort (values null) along the last dim of the operands.
function runSort(input, descending, values, indices) {
  sortLanes(viewArgs(input), descending, viewArgs(values), viewArgs(indices));
}

// cumsum / cumprod (`product`) along the last dim.
function runScan(product, input, out) {
  scanLanes(product, viewArgs(input), viewArgs(out));
}

// gather (kind 0), indexSelect (1) or take (2).
function runGather(kind, input, dim, index, out) {
  indexGather(kind, viewArgs(input), dim, viewArgs(index), viewArgs(out));
}

// The number of nonzero elements of input; their indices into out when it is
// not null.
function runNonzero(input, out) {
  return indexNonzero(viewArgs(input), viewArgs(out));
}

// rand, randn, randint (op: binding's computeTable.random) into out from
// counter `offset`: the counters used.
function runRandom(op, seed, offset, low, high, out) {
  return randomFill(op, seed, offset, low, high, viewArgs(out));
}

function runMultinomial(probs, samples, replacement, seed, offset, out) {
  return randomMultinomial(viewArgs(probs), samples, replacement, seed, offset, viewArgs(out));
}

function runBoxIou(a, b, out) {
  boxesIou(viewArgs(a), viewArgs(b), viewArgs(out));
}

// nms / batchedNms (idxs not null): how many indices were written into keep.
function runNms(boxes, scores, idxs, iouThreshold, keep) {
  return boxesNms(viewArgs(boxes), viewArgs(scores), viewArgs(idxs), iouThreshold, viewArgs(keep));
}

function runInterpolate(input, bilinear, alignCorners, scaleH, scaleW, out) {
  interpolateNchw(viewArgs(input), bilinear, alignCorners, scaleH, scaleW, viewArgs(out));
}

module.exports = {
  runSort, runScan, runGather, runNonzero, runRandom, runMultinomial, runBoxIou, runNms, runInterpolate,
  PATH, coveredBuffer, covered, jobMask, onHost, overlapping, writeOverlaps, sharedElements, refuseSharedElements,
  copyPath, copyBytes, copyStorage, copyOnDevice, convertOnDevice, copyInto, copyIntoAsync, clone, moveTo, convert,
  convertOnHostAsync, runElementwise, runElementwiseDense, runNormalize, runReduce,
  runMatmul, runStatistics, runNorms,
};
