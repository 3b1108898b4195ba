// The native addon's surface, declared once: every function in the
// `functions[]` table of src/addon/addon.cc, with the positional arguments
// its binding reads (src/addon/*.cc) and what it returns. lib/ checks the
// arguments before the call (docs/development.md "The native surface"); the
// bindings only convert them. `npm run typecheck` checks lib/'s calls against
// this file, and test/native-surface.test.js fails when the addon's exports
// and the names declared in `Native` differ.
//
// Functions marked "Scratch" also read or write the scratch block (the
// `slots` init() hands over, src/addon/convention.h); only lib/binding.js
// calls them.

declare const capsuleBrand: unique symbol;
declare const storageBrand: unique symbol;

/** A napi_external over a CapsuleState (src/addon/capsule.h), tag-checked on every use. */
export interface CapsuleHandle {
  readonly [capsuleBrand]: true;
}

/** A napi_external over an owner of native memory (src/addon/host_storage.h), tag-checked on every use. */
export interface StorageHandle {
  readonly [storageBrand]: true;
}

/** Memory a binding reads or writes: a Uint8Array over JS memory (src/addon/bytes.h). */
export type Bytes = Uint8Array;

/**
 * A host op's tensor operand (src/addon/job_memory.h, lib/storage.js hostArg): a Uint8Array over
 * JS memory, or a storage handle over native memory (its base read from the handle).
 */
export type HostMemory = Bytes | StorageHandle;

/** Name -> number tables written once as X-macros in C++ (each says which). */
export type Table = Readonly<Record<string, number>>;

/** The calling convention (src/addon/convention.cc `Convention()`). */
export interface Convention {
  /** Scratch slot numbers (DLNODE_SCRATCH_SLOTS). */
  slots: Table;
  /** DLPack device type codes of the devices lib/device.js names (src/core/dlpack_abi.h). */
  deviceCodes: { cpu: number; cuda: number; cuda_host: number; cuda_managed: number };
  /** What importCapsule leaves in slot `result` (DLNODE_IMPORT_RESULTS). */
  importResult: Table;
  /** Why bufferViewCount refused, as minus the value (DLNODE_VIEW_FAILURES). */
  viewFailure: Table;
  /** cudaAlloc's `kind` (DLNODE_MEMORY_KINDS). */
  memoryKind: Table;
  /** [name, DLPack type code, bits] in dtype index order (DLNODE_DTYPES). */
  dtypes: Array<[name: string, code: number, bits: number]>;
  /** The elementwise ops' numbers (DLNODE_ELEMENTWISE_OPS, src/core/compute/elementwise.h). */
  ops: Table;
  /** The most threads setNumThreads accepts (src/core/parallel.h kMaxThreads). */
  /** The device an op call names for the host (src/core/compute/elementwise_call.h kHostDevice). */
  hostDevice: number;
  maxThreads: number;
  /** The most dimensions a tensor may have (src/core/layout.h kMaxDims). */
  maxDims: number;
  /** The DLPack version the addon's structs state (src/core/dlpack_abi.h). */
  dlpackVersion: { major: number; minor: number };
  /** DLManagedTensorVersioned flag bits (DLPACK_FLAG_BITMASK_*). */
  dlpackFlags: { readOnly: number; isCopied: number };
  /** Buffers at least this many bytes get huge-page advice (src/core/pages.h kHugePageAdviceMin). */
  hugePageAdviceMin: number;
  /** Whether lib/ advises its large buffers as huge pages (DLPACK_HUGE_PAGES; src/core/pages.h). */
  hugePageAdvice: boolean;
  /** The struct slab's convention (src/core/struct_slab.h), the same for every slab. */
  slab: {
    /** Entry states (DLNODE_SLAB_STATES). */
    states: Table;
    /** DLManagedTensorVersioned fields: [byte offset (offsetof), bytes] (DLNODE_STRUCT_FIELDS). */
    fields: Readonly<Record<string, [offset: number, bytes: number]>>;
    /** Sizes and byte offsets within the slab and an entry (DLNODE_SLAB_LAYOUT). */
    layout: Table;
  };
}

/**
 * The reductions' numbers; per op and input dtype index, the result's dtype index (-1: refused) and the one a
 * device call is staged in (src/core/compute/reduce_call.h StagedType; -1: none); per op, whether it reduces a set
 * of dims (ReducesDims) rather than running along one.
 */
export interface ReduceTable {
  ops: Table;
  results: number[][];
  staging: number[][];
  dims: boolean[];
}

/** What init() returns: the convention and this environment's state. */
export interface InitResult extends Convention {
  /** The scratch block: kCount doubles, one per environment. */
  scratch: ArrayBuffer;
  /** False where the runtime refuses external ArrayBuffers (the V8 sandbox). */
  externalBuffers: boolean;
}

/** This environment's struct slab (src/addon/struct_slab.cc); its layout is Convention['slab']. */
export interface StructSlab {
  buffer: ArrayBuffer;
  base: number;
  context: number;
  deleter: number;
  epoch: number;
  /** Set by lib/struct_slab.js: the object is shared by every load of lib/ in one environment. */
  state?: unknown;
}

/** Live and lifetime counts of managed and foreign tensors (src/core/stats.h). */
export interface NativeStats {
  managedLive: number;
  foreignLive: number;
  jsKeepaliveLive: number;
  managedMade: number;
  managedFreed: number;
  foreignMade: number;
  foreignFreed: number;
  /** CUDA streams made and not yet destroyed (a worker's are destroyed when it ends). */
  cudaStreamsLive: number;
  /** The library's native CPU blocks (src/core/host_block.h): alive, made and freed. */
  hostBlocksLive: number;
  hostBlocksMade: number;
  hostBlocksFreed: number;
  /** Host blocks of at least hugePageAdviceMin bytes whose allocation asked for huge pages. */
  hugePageRequests: number;
}

/** A CUDA IPC export (src/core/cuda_ipc.h IpcShare). */
export interface CudaIpcShare {
  /** 128 hex digits of a cudaIpcMemHandle_t. */
  handle: string;
  /** The name of the export's ticket (a sealed memfd, src/core/cuda_ipc.h). */
  ticket: string;
  /** A process holding the ticket open, and its descriptor number. */
  pid: number;
  fd: number;
  device: number;
  /** Bytes of the allocation. */
  size: number;
}

export interface CudaIpcCounts {
  exported: number;
  opened: number;
  waiting: number;
}

export interface CudaInfo {
  compiled: boolean;
  deviceCount: number;
  /** Device 0's memory, when there is a device. */
  totalMemory0?: number;
  /** Set when asking the runtime for the device count failed. */
  errorName?: string;
  reason?: string;
}

export interface CudaMemoryStats {
  allocatedBytes: number;
  allocations: number;
  peakAllocatedBytes: number;
  cachedBytes: number;
  cachedBlocks: number;
}

/** Makes the error a binding throws (lib/errors.js makeError). */
export type ErrorFactory = (code: string, message: string, detail?: string) => Error;

export interface Native {
  /**
   * Registers the error factory, the warning callback and the marker a failing call
   * returns (lib/binding.js throws the error takeError() gives); the last load wins.
   */
  init(makeError: ErrorFactory, warn: (message: string) => void, isMainThread: boolean, failed: symbol): InitResult;
  /** The error the last failing call kept, cleared (it returned the `failed` marker instead of throwing). */
  takeError(): Error | undefined;
  /** Scratch: fromBuffer's element count from slots view..view+4, or minus a viewFailure. */
  bufferViewCount(): number;
  /** Scratch: a new DLManagedTensor(Versioned) over `memory`; its address. */
  exportTensor(memory: Bytes | StorageHandle, foreign: boolean, versioned: boolean): bigint;
  /**
   * The environment's slab, null where it has none; `sweep` runs when a slab struct
   * was deleted. With `peek`, null rather than taking a slab when none is held yet.
   */
  structSlab(sweep: () => void, peek?: boolean): StructSlab | null;
  /** The address of the bytes (the slab's fills keep it; see struct_slab.js addressOf). */
  bytesAddress(bytes: Bytes): number;
  /**
   * Scratch: runs the import checklist and consumes the capsule: the Uint8Array
   * our own export was made over (importResult.jsBuffer), a storage handle
   * (foreign) or an ArrayBuffer holding a copy (copied).
   */
  importCapsule(capsule: CapsuleHandle, allowCopy: boolean): Bytes | StorageHandle | ArrayBuffer;
  /** Scratch: adopts a producer's struct (writes major, minor, deviceType, deviceId). */
  capsuleFromPointer(pointer: bigint, versioned: boolean): CapsuleHandle;
  /** Hands the struct to native code; the capsule is consumed. */
  capsuleToPointer(capsule: CapsuleHandle): bigint;
  /** Calls the struct's deleter now. */
  capsuleDispose(capsule: CapsuleHandle): void;
  /** Whether the capsule still owns its struct. */
  capsuleOwns(capsule: CapsuleHandle): boolean;
  /**
   * An external ArrayBuffer over the memory; an empty one for empty memory or
   * when asked again (lib/ keeps the first).
   */
  storageBuffer(storage: StorageHandle): ArrayBuffer;
  storageLength(storage: StorageHandle): number;
  /** The memory's first byte as an address (-1 at 2^53 and above): which memory it is (lib/route.js). */
  storageAddress(storage: StorageHandle): number;
  /**
   * Detaches `buffer` (storageBuffer's, when it made one; one the caller detached is left to its new
   * owner) and lets go of the memory.
   */
  storageRelease(storage: StorageHandle, buffer: ArrayBuffer | undefined): void;
  /** Whether nothing but the owner and its own attached buffer holds the memory (no export, share, job). */
  storageSole(storage: StorageHandle, buffer: ArrayBuffer | undefined): boolean;
  /** When storageSole: detaches `buffer`, keeps the memory behind the handle for reuse, true; else false. */
  storageRecycle(storage: StorageHandle, buffer: ArrayBuffer | undefined): boolean;
  /**
   * A new native CPU block of `nbytes` (src/core/host_block.h), zeroed or not, V8 told of it; null
   * while too much native memory piled up this turn of the event loop (src/addon/memory.h kPiledMax).
   */
  hostAlloc(nbytes: number, zeroed: boolean): StorageHandle | null;
  /** A turn of the event loop came: the pile count of hostAlloc starts again. */
  hostLoopTurned(): void;
  /** Scratch (shape, strides, sourceStrides): dst <- src with conversion; dtypes are indices. */
  copyStrided(dst: HostMemory, dstOffset: number, dstDtype: number, src: HostMemory, srcOffset: number,
    srcDtype: number): void;
  /**
   * The same on a libuv thread; resolves when the copy has run. `stage`: bit i stages the i-th
   * tensor operand (lib/route.js jobMask).
   */
  copyStridedAsync(dst: HostMemory, dstOffset: number, dstDtype: number, src: HostMemory, srcOffset: number,
    srcDtype: number, stage: number): Promise<void>;
  detachBuffer(buffer: ArrayBuffer): void;
  /** Advises transparent huge pages; the bytes advised. */
  adviseHugePages(buffer: ArrayBuffer): number;
  /** Tests: act as a runtime that refuses external ArrayBuffers, or not. */
  setExternalBuffers(allowed: boolean): void;
  /** Tests: runs the releases other threads and GC posted (exportTensor runs them too). */
  drainReleases(): void;
  /** Tests: the counters behind the lifetime tests. */
  stats(): NativeStats;
  /** A new sealed segment: [handle, name, fd]. */
  shmCreate(nbytes: number): [StorageHandle, string, number];
  /** Opens a segment holding at least `minBytes`: [handle, fd]. */
  shmOpen(name: string, pid: number, fd: number, minBytes: number): [StorageHandle, number];
  /** Publishes the memory to this process's threads; the decimal id. */
  localShare(storage: StorageHandle, device: string): string;
  /** [handle, the device string it was shared with]. */
  localOpen(id: string): [StorageHandle, string];
  /** Tests: ids published now. */
  localShares(): number;
  cudaIpcShare(storage: StorageHandle): CudaIpcShare;
  cudaIpcOpen(handle: string, ticket: string, pid: number, fd: number, device: number, minBytes: number): StorageHandle;
  /** Frees exports nobody maps any more; how many are still waiting. */
  cudaIpcCollect(): number;
  cudaIpcCounts(): CudaIpcCounts;
  cudaInfo(): CudaInfo;
  cudaSynchronize(device: number): void;
  cudaStreamCreate(device: number): bigint;
  cudaStreamDestroy(device: number, stream: bigint): void;
  cudaStreamSynchronize(device: number, stream: bigint): void;
  /** Orders `stream` after the work on the device's legacy default stream. */
  cudaStreamWait(device: number, stream: bigint): void;
  /** Resolves once the stream has run the work enqueued so far. */
  cudaStreamDone(device: number, stream: bigint): Promise<void>;
  /** `kind`: a memoryKind value. */
  cudaAlloc(kind: number, device: number, nbytes: number, zeroed: boolean): StorageHandle;
  /**
   * Copies bytes; `*IsHandle` says which kind each side is; `device` is the side
   * the copy runs on and `other` the other side's device (-1 for host memory). With
   * `stream` (both sides CUDA memory this library allocated) it is enqueued there,
   * ordered on both devices.
   */
  cudaCopy(dst: Bytes | StorageHandle, dstIsHandle: boolean, dstOffset: number, src: Bytes | StorageHandle,
    srcIsHandle: boolean, srcOffset: number, nbytes: number, device: number, other: number, stream?: bigint): void;
  /** Scratch (shape, strides, sourceStrides): a strided copy kernel on `stream`. */
  cudaStridedCopy(device: number, dst: StorageHandle, dstOffset: number, src: StorageHandle, srcOffset: number,
    itemSize: number, stream: bigint): void;
  /** Scratch (shape, strides, sourceStrides): a conversion kernel; types as DLPack code and bits. */
  cudaConvert(device: number, dst: StorageHandle, dstOffset: number, dstCode: number, dstBits: number,
    src: StorageHandle, srcOffset: number, srcCode: number, srcBits: number, stream: bigint): void;
  cudaStats(device: number): CudaMemoryStats;
  /** Gives cached blocks back to the driver and trims the pool; the bytes handed back. */
  cudaEmptyCache(device: number): number;
  /** Waits for the stream copies in flight on pinned or managed memory (its host fence). */
  cudaHostWait(storage: StorageHandle): void;
  /** Tests: done()'s promise and thread-safe function, with a thread sleeping `ms` for the stream. */
  streamDoneAfter(ms: number): Promise<void>;
  /**
   * Scratch (shape, strides of out, sourceStrides, operandStrides): out = op(inputs) over the broadcast shape on
   * `device` (hostDevice, or a CUDA device's index, the kernel enqueued on `stream`); each input a (memory, byte
   * offset) pair or a (number, 0) pair.
   */
  elementwise(device: number, op: number, dtype: number, stream: bigint, out: HostMemory | StorageHandle,
    outOffset: number, ...inputs: Array<HostMemory | StorageHandle | number>): void;
  /**
   * The dense form on the host, on this thread: scratch shape[0] the element count, offsets (out, in0, in1) the byte
   * offsets; out and each tensor input row-major over that count (ndim 1, stride 1); an input may be a number.
   */
  elementwiseDense(op: number, dtype: number, out: HostMemory | StorageHandle,
    ...inputs: Array<HostMemory | StorageHandle | number>): void;
  /** The same on the host on a libuv thread, the `stage` mask last (copyStridedAsync); resolves when it has run. */
  elementwiseAsync(device: number, op: number, dtype: number, stream: bigint, out: HostMemory, outOffset: number,
    ...inputs: Array<HostMemory | number>): Promise<void>;
  /**
   * Scratch (shape, strides of out, sourceStrides of input): dl.normalize's one pass on `device` (hostDevice, or a
   * CUDA device's index, the one-pass kernel enqueued on `stream`); true where it ran (always on the host), false
   * with nothing enqueued where the device's kernel does not take the case.
   */
  normalize(device: number, inDtype: number, outDtype: number, stream: bigint, out: HostMemory | StorageHandle,
    outOffset: number, input: HostMemory | StorageHandle, inOffset: number, meanStd: Float64Array,
    scale: number): boolean;
  /** The same on the host on a libuv thread (`stage` as copyStridedAsync); resolves when the pass has run. */
  normalizeAsync(device: number, inDtype: number, outDtype: number, stream: bigint, out: HostMemory,
    outOffset: number, input: HostMemory, inOffset: number, meanStd: Float64Array, scale: number,
    stage: number): Promise<void>;
  getNumThreads(): number;
  /** False (and nothing changes) outside 1..maxThreads. */
  setNumThreads(n: number): boolean;
  reduceTable(): ReduceTable;
  /**
   * Scratch (shape, strides, sourceStrides as the results'): one reduction on `device` (hostDevice, or a CUDA
   * device's index, the row kernels enqueued on `stream`): sum/mean/amax/amin over the last `reducedOrDim` dims into
   * contiguous values; max/min, softmax, topk along dim `reducedOrDim`. True where it ran (always on the host),
   * false with nothing enqueued where the device's kernels do not take the operands as they are.
   */
  reduce(op: number, device: number, stream: bigint, src: HostMemory | StorageHandle, srcOffset: number,
    srcDtype: number, reducedOrDim: number, values: HostMemory | StorageHandle | null, valuesOffset: number,
    indices: HostMemory | StorageHandle | null, indicesOffset: number, k: number, largest: boolean,
    sorted: boolean): boolean;
  /** The same on the host on a libuv thread (`stage` as copyStridedAsync, over the operands not null). */
  reduceAsync(op: number, device: number, stream: bigint, src: HostMemory, srcOffset: number, srcDtype: number,
    reducedOrDim: number, values: HostMemory | null, valuesOffset: number, indices: HostMemory | null,
    indicesOffset: number, k: number, largest: boolean, sorted: boolean, stage: number): Promise<void>;
  // The compute families (src/addon/linalg.h). Memory is host memory, or
  // storage handles on a CUDA device (matmul only).
  /** Scratch (out's shape and strides; a's strides in sourceStrides, b's in operandStrides): out = a b (+ bias). */
  matmul(dtype: number, a: HostMemory, aOffset: number, b: HostMemory, bOffset: number, bias: HostMemory | null,
    biasOffset: number, biasStride: number, out: HostMemory, outOffset: number, k: number, deviceType: number,
    deviceId: number, stream: bigint): void;
  /** The same on a libuv thread (`stage` as copyStridedAsync, over the operands not null). */
  matmulAsync(dtype: number, a: HostMemory, aOffset: number, b: HostMemory, bOffset: number, bias: HostMemory | null,
    biasOffset: number, biasStride: number, out: HostMemory, outOffset: number, k: number, deviceType: number,
    deviceId: number, stream: bigint, stage: number): Promise<void>;
  statisticsTable(): { ops: Table };
  /** Scratch (in's shape and strides; out's strides in sourceStrides, mean's in operandStrides). */
  statistics(op: number, dtype: number, input: HostMemory, inputOffset: number, reduced: number, correction: number,
    ord: number, out: HostMemory, outOffset: number, mean: HostMemory | null, meanOffset: number): void;
  statisticsAsync(op: number, dtype: number, input: HostMemory, inputOffset: number, reduced: number,
    correction: number, ord: number, out: HostMemory, outOffset: number, mean: HostMemory | null, meanOffset: number,
    stage: number): Promise<void>;
  /** Scratch (x's shape and strides; out's in sourceStrides, y's in operandStrides, z's after them). */
  norms(kind: number, dtype: number, x: HostMemory, xOffset: number, y: HostMemory | null, yOffset: number,
    z: HostMemory | null, zOffset: number, out: HostMemory, outOffset: number, normalized: number, p: number,
    eps: number): void;
  normsAsync(kind: number, dtype: number, x: HostMemory, xOffset: number, y: HostMemory | null, yOffset: number,
    z: HostMemory | null, zOffset: number, out: HostMemory, outOffset: number, normalized: number, p: number,
    eps: number, stage: number): Promise<void>;
  // issue 40's host families (src/addon/compute_families.h); each operand is
  // ...ViewArgs (src/addon/compute_view.h).
  computeTable(): { random: Table };
  sortLanes(...args: [...ViewArgs, boolean, ...ViewArgs, ...ViewArgs]): void;
  scanLanes(...args: [boolean, ...ViewArgs, ...ViewArgs]): void;
  indexGather(...args: [number, ...ViewArgs, number, ...ViewArgs, ...ViewArgs]): void;
  indexNonzero(...args: [...ViewArgs, ...ViewArgs]): number;
  randomFill(...args: [number, bigint, bigint, bigint, bigint, ...ViewArgs]): bigint;
  randomMultinomial(...args: [...ViewArgs, number, boolean, bigint, bigint, ...ViewArgs]): bigint;
  boxesIou(...args: [...ViewArgs, ...ViewArgs, ...ViewArgs]): void;
  boxesNms(...args: [...ViewArgs, ...ViewArgs, ...ViewArgs, number, ...ViewArgs]): number;
  interpolateNchw(...args: [...ViewArgs, boolean, boolean, number, number, ...ViewArgs]): void;
}

/** One operand of a compute family: memory (null: none), byte offset, dtype index, [...shape, ...strides]. */
export type ViewArgs = [HostMemory | null, number, number, number[]];

