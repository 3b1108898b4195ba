// Type declarations for dlpack. The reference: ../docs/API.md (shipped in the package).

// `Symbol.dispose` (the tensors', streams' and capsules' `using` support) is
// in TypeScript's lib from esnext.disposable (es2024 in later versions);
// declared here too, in the form TypeScript's own lib and @types/node write,
// so that a project compiled with `lib: es2022` or `es2023` and no
// skipLibCheck (@tsconfig/node20's settings) still checks these types
// (test/types/tsconfig.node20.json). Declarations of one property in merged
// interfaces with the same type agree, so projects with the newer lib see no
// conflict.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

export type DTypeName =
  | 'bool' | 'int8' | 'int16' | 'int32' | 'int64' | 'uint8' | 'uint16' | 'uint32' | 'uint64'
  | 'float16' | 'bfloat16' | 'float32' | 'float64' | 'complex64' | 'complex128';

export interface DType<N extends DTypeName = DTypeName> {
  readonly name: N;
  /** DLPack type code: Int 0, UInt 1, Float 2, Bfloat 4, Complex 5, Bool 6. */
  readonly code: number;
  /** Bits of one element (complex counts both parts). */
  readonly bits: number;
  readonly lanes: 1;
  readonly itemSize: number;
}

export declare const dtypes: { readonly [N in DTypeName]: DType<N> };

/** bool and the integer dtypes: their sum is int64 (torch). */
export type IntegerDTypeName = 'bool' | 'int8' | 'int16' | 'int32' | 'int64' | 'uint8' | 'uint16' | 'uint32' | 'uint64';
export type FloatDTypeName = 'float16' | 'bfloat16' | 'float32' | 'float64';
/** The dtype sum() gives for N: int64 for bool and integers, else N. */
export type SumDType<N extends DTypeName> = N extends IntegerDTypeName ? 'int64' : N;
/** Dims to reduce: one, a list of distinct dims, or all (undefined, null or []); negative from the end. */
export type ReduceDims = number | readonly number[] | null | undefined;
/**
 * `async: true` (every reduction, softmax and topk): a Promise of the result, the loop running off
 * the event loop (docs/API.md "Off the event loop"); the synchronous forms take `async: false`.
 * A tensor over an ArrayBuffer the caller passed to fromBuffer() is refused there
 * (ERR_DLPACK_DETACHABLE): pass a SharedArrayBuffer or library memory.
 */
export interface SyncOption {
  async?: false;
}
export interface AsyncOption {
  async: true;
}
/**
 * `stream` (every reduction, softmax and topk): on a CUDA tensor, the stream its copies and kernels
 * are enqueued on (the legacy default stream unless named), as the elementwise ops take it; checked
 * and without effect on host memory (docs/API.md "Reductions").
 */
export interface ReduceStreamOption {
  stream?: number | bigint | CudaStream;
}
/** keepdim: reduced dims stay, with size 1. */
export interface KeepdimOptions extends SyncOption, ReduceStreamOption {
  keepdim?: boolean;
}
/** `dtype`: the input is converted to it first (torch); `out`: the result is copied into it (any dtype, converted). */
export interface SumOptions<M extends DTypeName = DTypeName> extends KeepdimOptions {
  dtype?: M | DType<M>;
  out?: Tensor;
}
export interface SoftmaxOptions<M extends DTypeName = DTypeName> extends SyncOption, ReduceStreamOption {
  dtype?: M | DType<M>;
  out?: Tensor;
}
export interface TopkOptions extends SyncOption, ReduceStreamOption {
  largest?: boolean;
  sorted?: boolean;
}
/** max(dim), min(dim), topk(): the values and their int64 indices along the dim. */
export interface ValuesIndices<N extends DTypeName> {
  values: Tensor<N>;
  indices: Tensor<'int64'>;
}
/** Options of the asynchronous form: O with `async: true`. */
export type Async<O> = Omit<O, 'async'> & AsyncOption;

/** Float16Array where the TypeScript lib declares it, else never. */
type Float16ArrayType = typeof globalThis extends { Float16Array: new (...args: any[]) => infer F } ? F : never;
/** Float16Array where the runtime has it (Node 24), else Uint16Array of raw bits. */
type Float16View = Float16ArrayType | Uint16Array;

/** The typed arrays dl.tensor() copies from, inferring the dtype (DTypeOfArray). */
export type TypedArray =
  | Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array
  | Float32Array | Float64Array | BigInt64Array | BigUint64Array | Float16ArrayType;

/** The dtype dl.tensor(typedArray) gives without a `dtype` option. */
export type DTypeOfArray<A> =
  A extends Int8Array ? 'int8' : A extends Uint8Array | Uint8ClampedArray ? 'uint8' :
  A extends Int16Array ? 'int16' : A extends Uint16Array ? 'uint16' :
  A extends Int32Array ? 'int32' : A extends Uint32Array ? 'uint32' :
  A extends Float32Array ? 'float32' : A extends Float64Array ? 'float64' :
  A extends BigInt64Array ? 'int64' : A extends BigUint64Array ? 'uint64' :
  A extends Float16ArrayType ? 'float16' : DTypeName;

/** One element dl.tensor() takes (a complex one may be a [re, im] pair). */
type TensorLeaf = number | bigint | boolean | TypedArray;
/** Nested arrays of booleans only: `dl.tensor()` infers bool (torch.tensor's rule). */
type BoolValues = boolean | readonly BoolValues[];
/** Nested arrays of bigints only: `dl.tensor()` infers int64. */
type BigIntValues = bigint | readonly BigIntValues[];
/**
 * What dl.tensor() and copyFrom() copy from: a scalar, a typed array, or nested
 * arrays (or iterables) of them. Strings, plain objects and raw buffers are not
 * values (use dl.fromBuffer for bytes).
 */
export type TensorValues = TensorLeaf | readonly TensorValues[] | Iterable<TensorLeaf | readonly TensorValues[]>;

/** The CPU view type of `tensor.data` for each dtype. */
export interface DataViewOf {
  bool: Uint8Array;
  int8: Int8Array;
  int16: Int16Array;
  int32: Int32Array;
  int64: BigInt64Array;
  uint8: Uint8Array;
  uint16: Uint16Array;
  uint32: Uint32Array;
  uint64: BigUint64Array;
  float16: Float16View;
  bfloat16: Uint16Array;
  float32: Float32Array;
  float64: Float64Array;
  complex64: Float32Array;
  complex128: Float64Array;
}

/** One element as toArray() gives it. */
export interface ElementOf {
  bool: boolean;
  int8: number; int16: number; int32: number; uint8: number; uint16: number; uint32: number;
  int64: bigint; uint64: bigint;
  float16: number; bfloat16: number; float32: number; float64: number;
  complex64: [number, number]; complex128: [number, number];
}

export type DeviceType = 'cpu' | 'cuda' | 'cuda_host' | 'cuda_managed';
/** 'cpu', 'cuda' (= 'cuda:0'), 'cuda:N', 'cuda_host' (pinned) or 'cuda_managed'. */
export type DeviceLike = DeviceType | `cuda:${number}` | Device;

export declare class Device {
  private constructor();
  readonly type: DeviceType;
  readonly index: number;
  toString(): string;
}

/** Nested arrays as toArray() returns them. */
export type NestedArray<T> = T | NestedArray<T>[];

export interface FromBufferOptions<N extends DTypeName> {
  dtype: N | DType<N>;
  /** Elements to read; -1 (default) reads all remaining bytes. */
  count?: number;
  /** Bytes to skip; a multiple of the element size. */
  offset?: number;
  /** Row-major shape whose product equals the element count (default [count]). */
  shape?: readonly number[];
  /** Strides in elements (negative allowed) for `shape`; element 0 at `offset`; no `count` then. */
  strides?: readonly number[];
}

export interface CreateOptions<N extends DTypeName> {
  dtype?: N | DType<N>;
  device?: DeviceLike;
  /**
   * Memory other processes can map: a sealed memfd on the CPU (share() gives a 'shm'
   * descriptor), CUDA IPC-capable memory on 'cuda:N' (a 'cuda-ipc' descriptor). Not for
   * 'cuda_host' or 'cuda_managed'.
   */
  shared?: boolean;
}

/** The layout every descriptor carries. */
export interface SharedLayout {
  /** Byte offset of element 0 (from the buffer, segment data or memory start). */
  byteOffset: number;
  dtype: DTypeName;
  shape: number[];
  /** In elements. */
  strides: number[];
  readOnly: boolean;
}

/** SharedArrayBuffer-backed tensors, for worker_threads (postMessage clones the SAB by reference). */
export interface SabDescriptor extends SharedLayout {
  kind: 'sab';
  buffer: SharedArrayBuffer;
}

/** Natively owned memory, for worker threads of the same process. */
export interface LocalDescriptor extends SharedLayout {
  kind: 'local';
  id: string;
  pid: number;
  device: string;
}

/** A sealed memfd segment, for other processes of the same user (Node or Python); JSON-serialisable. */
export interface ShmDescriptor extends SharedLayout {
  kind: 'shm';
  version: 2;
  /** The segment's name: 'dlpack-' and 32 lowercase hex digits (python/FORMAT.md). */
  name: string;
  /** A process that holds the segment open, and its descriptor number (/proc/<pid>/fd/<fd>). */
  pid: number;
  fd: number;
  dataSize: number;
}

/** CUDA device memory, for other processes (Node or Python with CuPy/torch); JSON-serialisable. */
export interface CudaIpcDescriptor extends SharedLayout {
  kind: 'cuda-ipc';
  version: 2;
  /** The cudaIpcMemHandle_t of the whole allocation, as 128 lowercase hex digits. */
  handle: string;
  /** Name of the ticket that counts the processes mapping the allocation. */
  ticket: string;
  /** A process that holds the ticket open, and its descriptor number. */
  pid: number;
  fd: number;
  /** 'cuda:N', in the exporter's device numbering. */
  device: string;
  /** Bytes of the allocation; byteOffset is from its start. */
  dataSize: number;
}

export type ShareDescriptor = SabDescriptor | LocalDescriptor | ShmDescriptor | CudaIpcDescriptor;

export interface TensorOptions<N extends DTypeName> {
  dtype?: N | DType<N>;
  shape?: readonly number[];
  device?: DeviceLike;
}

/** dl.tensor() options without a dtype: inferred from a typed array, else float32. */
export type InferredTensorOptions = Omit<TensorOptions<DTypeName>, 'dtype'> & { dtype?: undefined };

export interface ToOptions<M extends DTypeName> {
  dtype?: M | DType<M>;
  device?: DeviceLike;
  stream?: number | bigint | CudaStream;
  /** true: a Promise of the result, converted off the event loop (host memory to the CPU only). */
  async?: false;
}

export interface DLPackOptions {
  /** CUDA consumer stream (1 legacy default, 2 per-thread, a handle, -1 none; 0 is an error); CPU tensors accept only undefined. */
  stream?: number | bigint | CudaStream;
  /** [major, minor]; major 0 gives a legacy DLManagedTensor. Default: versioned. */
  maxVersion?: readonly [number, number] | null;
  /** [deviceType, index]; a different device means a copy. */
  dlDevice?: readonly [number, number];
  /** true: always copy; false: never (ERR_DLPACK_COPY_REQUIRED); undefined: when needed. */
  copy?: boolean;
}

/**
 * A copy's stream (as __dlpack__ takes it; -1 means the legacy default stream here).
 * Between CUDA memory this library allocated (device, pinned, managed) the copy is
 * enqueued on it and the call returns at once: await `stream.done()` before reading the
 * result on the host. Pageable host memory and imported memory copy synchronously.
 */
export interface CopyOptions {
  stream?: number | bigint | CudaStream;
}

export interface FromDLPackOptions {
  device?: DeviceLike;
  copy?: boolean;
}

/** Anything that speaks the DLPack protocol. */
export interface DLPackProducer {
  __dlpack__(options?: DLPackOptions): DLPackCapsule;
  __dlpack_device__?(): [number, number];
}

export declare class Tensor<N extends DTypeName = DTypeName> implements DLPackProducer {
  private constructor();
  readonly dtype: N;
  readonly shape: readonly number[];
  /** In elements. */
  readonly strides: readonly number[];
  readonly ndim: number;
  readonly size: number;
  readonly itemSize: number;
  readonly nbytes: number;
  /** Byte offset of element 0 in `buffer`. */
  readonly byteOffset: number;
  readonly device: Device;
  readonly readOnly: boolean;
  readonly isCopy: boolean;
  readonly isContiguous: boolean;
  readonly disposed: boolean;
  /** A typed view over exactly the elements (contiguous, CPU-accessible tensors). */
  readonly data: DataViewOf[N];
  readonly buffer: ArrayBuffer | SharedArrayBuffer;

  /** A view when strides allow, else a contiguous copy (torch); one dim may be -1. Array or varargs. */
  reshape(shape: readonly number[] | number, ...rest: number[]): Tensor<N>;
  /** reshape() that never copies (ERR_DLPACK_NOT_CONTIGUOUS when it would have to). */
  view(shape: readonly number[] | number, ...rest: number[]): Tensor<N>;
  /** The same bytes as another dtype; sizes may differ where the last dim is dense. */
  view<M extends DTypeName>(dtype: M | DType<M>): Tensor<M>;
  permute(dims: readonly number[]): Tensor<N>;
  permute(...dims: number[]): Tensor<N>;
  transpose(dim0: number, dim1: number): Tensor<N>;
  narrow(dim: number, start: number, length: number): Tensor<N>;
  select(dim: number, index: number): Tensor<N>;
  /** Python slicing on one dim; null/undefined take the default; negative steps allowed. */
  slice(dim: number, start?: number | null, end?: number | null, step?: number | null): Tensor<N>;
  squeeze(dim?: number): Tensor<N>;
  unsqueeze(dim: number): Tensor<N>;
  flatten(startDim?: number, endDim?: number): Tensor<N>;
  /** Size-1 dims broadcast with stride 0; -1 keeps a size. */
  expand(sizes: readonly number[]): Tensor<N>;
  expand(...sizes: number[]): Tensor<N>;
  /** Strides in elements; byteOffset from the start of the storage (default: this byteOffset). */
  asStrided(shape: readonly number[], strides: readonly number[], byteOffset?: number): Tensor<N>;
  /**
   * A contiguous copy; when already contiguous, a new tensor over the same memory (never `this`). With a `stream`,
   * a CUDA copy is enqueued there (see CopyOptions).
   */
  contiguous(options?: CopyOptions & SyncOption): Tensor<N>;
  /** `async: true`: a Promise of the copy, the loop off the event loop (host memory only). */
  contiguous(options: AsyncOption): Promise<Tensor<N>>;
  /** With a `stream`, a CUDA copy is enqueued there (see CopyOptions). */
  clone(options?: CopyOptions & SyncOption): Tensor<N>;
  /** `async: true`: a Promise of the copy, the loop off the event loop (host memory only, no stream). */
  clone(options: AsyncOption): Promise<Tensor<N>>;
  /** A copy on `device`; already there, a new tensor over the same memory (never `this`). */
  to(device: DeviceLike, options?: CopyOptions): Tensor<N>;
  /** A converted contiguous copy; of dtype M already, a new tensor over the same memory (never `this`). */
  to<M extends DTypeName>(dtype: M | DType<M>): Tensor<M>;
  to<M extends DTypeName = N>(options: ToOptions<M>): Tensor<M>;
  to<M extends DTypeName = N>(options: Omit<ToOptions<M>, 'async' | 'stream'> & { async: true }): Promise<Tensor<M>>;
  cpu(): Tensor<N>;
  cuda(index?: number): Tensor<N>;
  /** Same shape, any dtype (converted); values as dl.tensor() takes them. Any view, strided included. */
  copyFrom(src: Tensor | TensorValues, options?: CopyOptions & SyncOption): this;
  /** `async: true`: a Promise of this tensor once the copy has run off the event loop (host memory only). */
  copyFrom(src: Tensor | TensorValues, options: AsyncOption): Promise<this>;
  /** torch's fill_: every element `value` (an [re, im] pair too for a complex dtype), by dl.tensor()'s rules. */
  fill_(value: number | bigint | boolean | readonly [number, number], options?: SyncOption): this;
  fill_(value: number | bigint | boolean | readonly [number, number], options: AsyncOption): Promise<this>;
  zero_(options?: SyncOption): this;
  zero_(options: AsyncOption): Promise<this>;
  // Elementwise ops (docs/API.md "Ops"): torch's names, promotion and broadcasting.
  add(other: Tensor | number | boolean): Tensor;
  sub(other: Tensor | number | boolean): Tensor;
  mul(other: Tensor | number | boolean): Tensor;
  div(other: Tensor | number | boolean): Tensor;
  maximum(other: Tensor | number | boolean): Tensor;
  minimum(other: Tensor | number | boolean): Tensor;
  pow(other: Tensor | number | boolean): Tensor;
  /** In place: refused when the result would broadcast larger or cannot be cast to N. */
  add_(other: Tensor | number | boolean): this;
  sub_(other: Tensor | number | boolean): this;
  mul_(other: Tensor | number | boolean): this;
  div_(other: Tensor | number | boolean): this;
  eq(other: Tensor | number | boolean): Tensor<'bool'>;
  ne(other: Tensor | number | boolean): Tensor<'bool'>;
  lt(other: Tensor | number | boolean): Tensor<'bool'>;
  le(other: Tensor | number | boolean): Tensor<'bool'>;
  gt(other: Tensor | number | boolean): Tensor<'bool'>;
  ge(other: Tensor | number | boolean): Tensor<'bool'>;
  neg(): Tensor<N>;
  abs(): Tensor<N>;
  round(): Tensor<N>;
  /** Integer and bool tensors give float32. */
  exp(): Tensor;
  log(): Tensor;
  sqrt(): Tensor;
  sigmoid(): Tensor;
  tanh(): Tensor;
  neg_(): this;
  abs_(): this;
  round_(): this;
  exp_(): this;
  log_(): this;
  sqrt_(): this;
  sigmoid_(): this;
  tanh_(): this;
  /** floor, ceil, trunc, sign and relu keep the dtype (bool refused but by sign). */
  floor(): Tensor<N>;
  ceil(): Tensor<N>;
  trunc(): Tensor<N>;
  sign(): Tensor<N>;
  relu(): Tensor<N>;
  floor_(): this;
  ceil_(): this;
  trunc_(): this;
  sign_(): this;
  relu_(): this;
  /** Integer and bool tensors give float32. */
  erf(): Tensor;
  log1p(): Tensor;
  expm1(): Tensor;
  sin(): Tensor;
  cos(): Tensor;
  rsqrt(): Tensor;
  reciprocal(): Tensor;
  erf_(): this;
  log1p_(): this;
  expm1_(): this;
  sin_(): this;
  cos_(): this;
  rsqrt_(): this;
  reciprocal_(): this;
  /** Floating tensors only (torch's F.silu, F.gelu). */
  silu(): Tensor<N>;
  silu_(): this;
  gelu(options?: { approximate?: 'none' | 'tanh' }): Tensor<N>;
  gelu_(options?: { approximate?: 'none' | 'tanh' }): this;
  /** clamp(min), clamp(min, max), clamp(null, max). */
  clamp(min?: Tensor | number | null, max?: Tensor | number | null): Tensor;
  clamp_(min?: Tensor | number | null, max?: Tensor | number | null): this;
  /** The one element of a 0-d or one-element tensor. */
  item(): ElementOf[N];
  toArray(): NestedArray<ElementOf[N]>;
  /** What JSON.stringify writes: flat row-major values (RangeError for NaN, infinities, |int64| > 2^53). */
  toJSON(): { dtype: N; shape: number[]; data: Array<number | boolean | [number, number]> };
  /** A symbol that makes postMessage/structuredClone of a tensor throw DataCloneError (docs/API.md). */
  readonly dlpack: symbol;
  toString(): string;
  dispose(): void;
  [Symbol.dispose](): void;
  __dlpack__(options?: DLPackOptions): DLPackCapsule;
  __dlpack_device__(): [number, number];
  /**
   * An Arrow Vector over this tensor's memory (docs/arrow.md): a FixedSizeList column of shape[0] rows
   * (a plain column for one dim), tagged arrow.fixed_shape_tensor where it is written into a table or IPC.
   * The vector holds the memory: dispose() cannot detach it. bool, bfloat16, complex and strides that are
   * no permutation of a row-major cell need `copy: true` (ERR_DLPACK_COPY_REQUIRED).
   */
  toArrow(options?: ToArrowOptions): ArrowVector;
  /**
   * A descriptor another thread or process opens with dl.open(). A tensor over a plain
   * ArrayBuffer throws ERR_DLPACK_UNSUPPORTED: call shareMemory() or toShared() first.
   */
  share(): ShareDescriptor;
  /**
   * torch's share_memory_(): moves this tensor's memory, in place, into memory other processes
   * can map (a CPU segment, or shareable CUDA memory on 'cuda:N'); every view over it moves too.
   * JS buffers handed out before (data, buffer) are detached. Only memory this library allocated
   * moves: anything else is ERR_DLPACK_COPY_REQUIRED (use toShared()). A no-op, `this`, when the
   * memory is shareable already.
   */
  shareMemory(): this;
  /**
   * A contiguous copy in memory other processes can map ('cuda:N' stays on its device; host
   * memory goes to a CPU segment); when its memory is such memory already, a new tensor over the
   * same memory (never `this`, as contiguous()).
   */
  toShared(): Tensor<N>;

  // Reductions, softmax and topk (docs/API.md "Reductions"); host memory or a CUDA device.
  /** Pairwise float summation (same bits for any thread count); bool and integers give int64. */
  sum(dim?: ReduceDims, options?: SumOptions<N>): Tensor<SumDType<N>>;
  sum<M extends DTypeName>(dim: ReduceDims, options: SumOptions<M> & { dtype: M | DType<M> }): Tensor<SumDType<M>>;
  sum(options: SumOptions<N>): Tensor<SumDType<N>>;
  sum(dim: ReduceDims, options: Async<SumOptions<N>>): Promise<Tensor<SumDType<N>>>;
  sum<M extends DTypeName>(dim: ReduceDims, options: Async<SumOptions<M>> & { dtype: M | DType<M> }): Promise<Tensor<SumDType<M>>>;
  sum(options: Async<SumOptions<N>>): Promise<Tensor<SumDType<N>>>;
  /** Floating-point and complex tensors only (or pass `dtype`), as torch. */
  mean(dim?: ReduceDims, options?: SumOptions<N>): Tensor<N>;
  mean<M extends DTypeName>(dim: ReduceDims, options: SumOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
  mean(options: SumOptions<N>): Tensor<N>;
  mean(dim: ReduceDims, options: Async<SumOptions<N>>): Promise<Tensor<N>>;
  mean<M extends DTypeName>(dim: ReduceDims, options: Async<SumOptions<M>> & { dtype: M | DType<M> }): Promise<Tensor<M>>;
  mean(options: Async<SumOptions<N>>): Promise<Tensor<N>>;
  /** NaN propagates. */
  amax(dim?: ReduceDims, options?: KeepdimOptions & { out?: Tensor }): Tensor<N>;
  amin(dim?: ReduceDims, options?: KeepdimOptions & { out?: Tensor }): Tensor<N>;
  amax(dim: ReduceDims, options: Async<KeepdimOptions> & { out?: Tensor }): Promise<Tensor<N>>;
  amin(dim: ReduceDims, options: Async<KeepdimOptions> & { out?: Tensor }): Promise<Tensor<N>>;
  /** The whole tensor's maximum (0-d; NaN propagates). */
  max(): Tensor<N>;
  /** Along one dim: the first index of the maximum (of the first NaN where there is one). */
  max(dim: number, options?: KeepdimOptions): ValuesIndices<N>;
  max(options: AsyncOption): Promise<Tensor<N>>;
  max(dim: number, options: Async<KeepdimOptions>): Promise<ValuesIndices<N>>;
  min(): Tensor<N>;
  min(dim: number, options?: KeepdimOptions): ValuesIndices<N>;
  min(options: AsyncOption): Promise<Tensor<N>>;
  min(dim: number, options: Async<KeepdimOptions>): Promise<ValuesIndices<N>>;
  /** Without a dim: the index into the flattened tensor. */
  argmax(dim?: number | null, options?: KeepdimOptions & { out?: Tensor }): Tensor<'int64'>;
  argmax(options: KeepdimOptions & { out?: Tensor }): Tensor<'int64'>;
  argmin(dim?: number | null, options?: KeepdimOptions & { out?: Tensor }): Tensor<'int64'>;
  argmin(options: KeepdimOptions & { out?: Tensor }): Tensor<'int64'>;
  argmax(dim: number | null | undefined, options: Async<KeepdimOptions> & { out?: Tensor }): Promise<Tensor<'int64'>>;
  argmax(options: Async<KeepdimOptions> & { out?: Tensor }): Promise<Tensor<'int64'>>;
  argmin(dim: number | null | undefined, options: Async<KeepdimOptions> & { out?: Tensor }): Promise<Tensor<'int64'>>;
  argmin(options: Async<KeepdimOptions> & { out?: Tensor }): Promise<Tensor<'int64'>>;
  /** Floating-point tensors only (or pass `dtype`), as torch; the lane's maximum is subtracted first. */
  softmax(dim: number, options?: SoftmaxOptions<N>): Tensor<N>;
  softmax<M extends DTypeName>(dim: number, options: SoftmaxOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
  logSoftmax(dim: number, options?: SoftmaxOptions<N>): Tensor<N>;
  logSoftmax<M extends DTypeName>(dim: number, options: SoftmaxOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
  softmax(dim: number, options: Async<SoftmaxOptions<N>>): Promise<Tensor<N>>;
  softmax<M extends DTypeName>(dim: number, options: Async<SoftmaxOptions<M>> & { dtype: M | DType<M> }): Promise<Tensor<M>>;
  logSoftmax(dim: number, options: Async<SoftmaxOptions<N>>): Promise<Tensor<N>>;
  logSoftmax<M extends DTypeName>(dim: number, options: Async<SoftmaxOptions<M>> & { dtype: M | DType<M> }): Promise<Tensor<M>>;
  /** The k largest (smallest) along dim; NaN counts as largest; equal values in index order. */
  topk(k: number, dim?: number, options?: TopkOptions): ValuesIndices<N>;
  topk(k: number, options: TopkOptions): ValuesIndices<N>;
  topk(k: number, dim: number, options: Async<TopkOptions>): Promise<ValuesIndices<N>>;
  topk(k: number, options: Async<TopkOptions>): Promise<ValuesIndices<N>>;

  // Linear algebra and statistics (docs/API.md "Linear algebra", "Statistics and norms").
  matmul(other: Tensor<N>, options?: OutOptions<N>): Tensor<N>;
  matmul(other: Tensor<N>, options: AsyncOptions<N>): Promise<Tensor<N>>;
  mm(other: Tensor<N>, options?: OutOptions<N>): Tensor<N>;
  mm(other: Tensor<N>, options: AsyncOptions<N>): Promise<Tensor<N>>;
  var(dim?: ReduceDims, options?: VarOptions): Tensor<N>;
  var(options: VarOptions): Tensor<N>;
  var(dim: ReduceDims, options: Async<VarOptions>): Promise<Tensor<N>>;
  std(dim?: ReduceDims, options?: VarOptions): Tensor<N>;
  std(options: VarOptions): Tensor<N>;
  std(dim: ReduceDims, options: Async<VarOptions>): Promise<Tensor<N>>;
}

export declare class DLPackCapsule {
  private constructor();
  readonly versioned: boolean;
  readonly version: { readonly major: number; readonly minor: number };
  readonly consumed: boolean;
  /**
   * Hands the DLManagedTensor(Versioned)* to native code, which must call its deleter
   * (once, from any thread). A versioned struct over JavaScript memory comes from the
   * thread's struct slab (docs/API.md "FFI hand-off").
   */
  toPointer(): bigint;
  /** Calls the deleter now (releases the memory's hold). Idempotent. */
  dispose(): void;
  [Symbol.dispose](): void;
  /**
   * Adopts a managed tensor from native code. Unsafe: the pointer is trusted, except
   * that one already adopted, and a slab struct no longer out, are refused
   * (`ERR_DLPACK_CONSUMED`).
   */
  static fromPointer(pointer: bigint, options: { versioned: boolean }): DLPackCapsule;
}

export type ErrorCode =
  | 'ERR_INVALID_ARG_TYPE' | 'ERR_INVALID_ARG_VALUE' | 'ERR_ILLEGAL_CONSTRUCTOR'
  | 'ERR_OUT_OF_RANGE' | 'ERR_DLPACK_MISALIGNED'
  | 'ERR_DLPACK_NO_BINARY' // require('dlpack') found no binary that loads here (the message says why)
  | 'ERR_DLPACK_UNSUPPORTED' | 'ERR_DLPACK_CONSUMED' | 'ERR_DLPACK_COPY_REQUIRED' | 'ERR_DLPACK_DETACHED'
  | 'ERR_DLPACK_DISPOSED' | 'ERR_DLPACK_READ_ONLY' | 'ERR_DLPACK_NOT_CONTIGUOUS' | 'ERR_DLPACK_WRONG_DEVICE'
  | 'ERR_DLPACK_OUT_OF_MEMORY' | 'ERR_DLPACK_CUDA' | 'ERR_DLPACK_CUDA_UNAVAILABLE'
  // an { async: true } op over an ArrayBuffer the caller can detach (docs/API.md "Off the event loop")
  | 'ERR_DLPACK_DETACHABLE'
  | 'ERR_DLPACK_PYTHON' | 'ERR_DLPACK_WORKER_EXITED' | 'ERR_DLPACK_WORKER_PROTOCOL'
  | 'ERR_DLPACK_MISSING_PEER'; // an optional peer (apache-arrow, Ray in the worker's Python) is not installed

export declare class DLPackError extends Error {
  constructor(message: string, code?: ErrorCode);
  readonly code: ErrorCode;
}

export declare class CudaError extends DLPackError {
  constructor(message: string, code?: ErrorCode, cudaError?: string);
  readonly cudaError?: string;
}

export declare const dlpackVersion: { readonly major: number; readonly minor: number };
/** The folder holding the Python half (`dlpack_node`): put it on `sys.path` or `PYTHONPATH`. */
export declare const pythonPath: string;

export declare function fromBuffer<N extends DTypeName>(
  source: ArrayBufferLike | ArrayBufferView, options: FromBufferOptions<N>): Tensor<N>;
export declare const frombuffer: typeof fromBuffer;
/** Zeroed on the host; on a CUDA device (`'cuda'`) the contents are unspecified, as `torch.empty`'s. */
export declare function empty<N extends DTypeName = 'float32'>(
  shape: readonly number[] | number, options?: CreateOptions<N>): Tensor<N>;
export declare function zeros<N extends DTypeName = 'float32'>(
  shape: readonly number[] | number, options?: CreateOptions<N>): Tensor<N>;
/** torch.ones: every element 1 (true for bool, 1 + 0i for complex). */
export declare function ones<N extends DTypeName = 'float32'>(
  shape: readonly number[] | number, options?: CreateOptions<N>): Tensor<N>;
/** torch.full: the dtype is `options.dtype`, else bool for a boolean, int64 for a bigint, else float32. */
export declare function full<N extends DTypeName>(
  shape: readonly number[] | number, fillValue: number | bigint | boolean | readonly [number, number],
  options: CreateOptions<N> & { dtype: N | DType<N> }): Tensor<N>;
export declare function full(shape: readonly number[] | number, fillValue: boolean,
  options?: Omit<CreateOptions<'bool'>, 'dtype'>): Tensor<'bool'>;
export declare function full(shape: readonly number[] | number, fillValue: bigint,
  options?: Omit<CreateOptions<'int64'>, 'dtype'>): Tensor<'int64'>;
export declare function full(shape: readonly number[] | number, fillValue: number,
  options?: Omit<CreateOptions<'float32'>, 'dtype'>): Tensor<'float32'>;
/** torch's *_like: input's shape, dtype and device unless the options give others; row-major always. */
export declare function emptyLike<N extends DTypeName>(input: Tensor<N>, options?: Omit<CreateOptions<N>, 'dtype'>): Tensor<N>;
export declare function emptyLike<M extends DTypeName>(input: Tensor, options: CreateOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
export declare function zerosLike<N extends DTypeName>(input: Tensor<N>, options?: Omit<CreateOptions<N>, 'dtype'>): Tensor<N>;
export declare function zerosLike<M extends DTypeName>(input: Tensor, options: CreateOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
export declare function onesLike<N extends DTypeName>(input: Tensor<N>, options?: Omit<CreateOptions<N>, 'dtype'>): Tensor<N>;
export declare function onesLike<M extends DTypeName>(input: Tensor, options: CreateOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
/** The dtype is input's (not inferred from fillValue, as torch.full_like), unless given. */
export declare function fullLike<N extends DTypeName>(input: Tensor<N>, fillValue: number | bigint | boolean | readonly [number, number],
  options?: Omit<CreateOptions<N>, 'dtype'>): Tensor<N>;
export declare function fullLike<M extends DTypeName>(input: Tensor, fillValue: number | bigint | boolean | readonly [number, number],
  options: CreateOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
/** Options of arange(): the dtype (int64 when every bound is a bigint, else float32) and device. */
export interface ArangeOptions<N extends DTypeName> {
  dtype?: N | DType<N>;
  device?: DeviceLike;
}
/** torch.arange: start + i * step for i below ceil((end - start) / step). */
export declare function arange<N extends DTypeName>(end: number | bigint, options: ArangeOptions<N> & { dtype: N | DType<N> }): Tensor<N>;
export declare function arange<N extends DTypeName>(start: number | bigint, end: number | bigint, options: ArangeOptions<N> & { dtype: N | DType<N> }): Tensor<N>;
export declare function arange<N extends DTypeName>(start: number | bigint, end: number | bigint, step: number | bigint, options: ArangeOptions<N> & { dtype: N | DType<N> }): Tensor<N>;
export declare function arange(end: bigint, options?: ArangeOptions<'int64'>): Tensor<'int64'>;
export declare function arange(start: bigint, end: bigint, step?: bigint, options?: ArangeOptions<'int64'>): Tensor<'int64'>;
export declare function arange(end: number, options?: ArangeOptions<'float32'>): Tensor<'float32'>;
export declare function arange(start: number | bigint, end: number | bigint, options?: ArangeOptions<'float32'>): Tensor<'float32'>;
export declare function arange(start: number | bigint, end: number | bigint, step: number | bigint, options?: ArangeOptions<'float32'>): Tensor<'float32'>;
/**
 * Copies `values`; the dtype is `options.dtype`, else the typed array's, else bool when
 * every value is a boolean, int64 when they are bigints (and booleans), else float32.
 */
export declare function tensor<N extends DTypeName>(
  values: TensorValues, options: TensorOptions<N> & { dtype: N | DType<N> }): Tensor<N>;
export declare function tensor<A extends TypedArray>(values: A, options?: InferredTensorOptions): Tensor<DTypeOfArray<A>>;
export declare function tensor(values: BoolValues, options?: InferredTensorOptions): Tensor<'bool'>;
export declare function tensor(values: BigIntValues, options?: InferredTensorOptions): Tensor<'int64'>;
export declare function tensor(values: TensorValues, options?: InferredTensorOptions): Tensor<'float32'>;
/** torch.cat: along an existing dim. Without `out`, all inputs share a dtype and device. */
export declare function cat<N extends DTypeName>(tensors: readonly Tensor<N>[], dim?: number): Tensor<N>;
export declare function cat<M extends DTypeName>(tensors: readonly Tensor[], dim: number, options: { out: Tensor<M> }): Tensor<M>;
/** Reductions as functions (docs/API.md "Reductions"): the methods' arguments after the input. */
export declare function sum<N extends DTypeName>(input: Tensor<N>, dim?: ReduceDims, options?: SumOptions<N>): Tensor<SumDType<N>>;
export declare function sum<N extends DTypeName, M extends DTypeName>(input: Tensor<N>, dim: ReduceDims, options: SumOptions<M> & { dtype: M | DType<M> }): Tensor<SumDType<M>>;
export declare function mean<N extends DTypeName>(input: Tensor<N>, dim?: ReduceDims, options?: SumOptions<N>): Tensor<N>;
export declare function mean<N extends DTypeName, M extends DTypeName>(input: Tensor<N>, dim: ReduceDims, options: SumOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
export declare function sum<N extends DTypeName, M extends DTypeName>(input: Tensor<N>, dim: ReduceDims, options: Async<SumOptions<M>> & { dtype: M | DType<M> }): Promise<Tensor<SumDType<M>>>;
export declare function sum<N extends DTypeName>(input: Tensor<N>, dim: ReduceDims, options: Async<SumOptions<N>>): Promise<Tensor<SumDType<N>>>;
export declare function mean<N extends DTypeName, M extends DTypeName>(input: Tensor<N>, dim: ReduceDims, options: Async<SumOptions<M>> & { dtype: M | DType<M> }): Promise<Tensor<M>>;
export declare function mean<N extends DTypeName>(input: Tensor<N>, dim: ReduceDims, options: Async<SumOptions<N>>): Promise<Tensor<N>>;
export declare function amax<N extends DTypeName>(input: Tensor<N>, dim?: ReduceDims, options?: KeepdimOptions & { out?: Tensor }): Tensor<N>;
export declare function amin<N extends DTypeName>(input: Tensor<N>, dim?: ReduceDims, options?: KeepdimOptions & { out?: Tensor }): Tensor<N>;
export declare function amax<N extends DTypeName>(input: Tensor<N>, dim: ReduceDims, options: Async<KeepdimOptions> & { out?: Tensor }): Promise<Tensor<N>>;
export declare function amin<N extends DTypeName>(input: Tensor<N>, dim: ReduceDims, options: Async<KeepdimOptions> & { out?: Tensor }): Promise<Tensor<N>>;
export declare function max<N extends DTypeName>(input: Tensor<N>): Tensor<N>;
export declare function max<N extends DTypeName>(input: Tensor<N>, dim: number, options?: KeepdimOptions): ValuesIndices<N>;
export declare function min<N extends DTypeName>(input: Tensor<N>): Tensor<N>;
export declare function min<N extends DTypeName>(input: Tensor<N>, dim: number, options?: KeepdimOptions): ValuesIndices<N>;
export declare function max<N extends DTypeName>(input: Tensor<N>, dim: number, options: Async<KeepdimOptions>): Promise<ValuesIndices<N>>;
export declare function min<N extends DTypeName>(input: Tensor<N>, dim: number, options: Async<KeepdimOptions>): Promise<ValuesIndices<N>>;
export declare function argmax(input: Tensor, dim?: number | null, options?: KeepdimOptions & { out?: Tensor }): Tensor<'int64'>;
export declare function argmin(input: Tensor, dim?: number | null, options?: KeepdimOptions & { out?: Tensor }): Tensor<'int64'>;
export declare function argmax(input: Tensor, dim: number | null | undefined, options: Async<KeepdimOptions> & { out?: Tensor }): Promise<Tensor<'int64'>>;
export declare function argmin(input: Tensor, dim: number | null | undefined, options: Async<KeepdimOptions> & { out?: Tensor }): Promise<Tensor<'int64'>>;
export declare function softmax<N extends DTypeName>(input: Tensor<N>, dim: number, options?: SoftmaxOptions<N>): Tensor<N>;
export declare function softmax<N extends DTypeName, M extends DTypeName>(input: Tensor<N>, dim: number, options: SoftmaxOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
export declare function logSoftmax<N extends DTypeName>(input: Tensor<N>, dim: number, options?: SoftmaxOptions<N>): Tensor<N>;
export declare function logSoftmax<N extends DTypeName, M extends DTypeName>(input: Tensor<N>, dim: number, options: SoftmaxOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
export declare function softmax<N extends DTypeName, M extends DTypeName>(input: Tensor<N>, dim: number, options: Async<SoftmaxOptions<M>> & { dtype: M | DType<M> }): Promise<Tensor<M>>;
export declare function softmax<N extends DTypeName>(input: Tensor<N>, dim: number, options: Async<SoftmaxOptions<N>>): Promise<Tensor<N>>;
export declare function logSoftmax<N extends DTypeName, M extends DTypeName>(input: Tensor<N>, dim: number, options: Async<SoftmaxOptions<M>> & { dtype: M | DType<M> }): Promise<Tensor<M>>;
export declare function logSoftmax<N extends DTypeName>(input: Tensor<N>, dim: number, options: Async<SoftmaxOptions<N>>): Promise<Tensor<N>>;
export declare function topk<N extends DTypeName>(input: Tensor<N>, k: number, dim?: number, options?: TopkOptions): ValuesIndices<N>;
export declare function topk<N extends DTypeName>(input: Tensor<N>, k: number, dim: number, options: Async<TopkOptions>): Promise<ValuesIndices<N>>;
/** torch.stack: along a new dim. */
export declare function stack<N extends DTypeName>(tensors: readonly Tensor<N>[], dim?: number): Tensor<N>;
export declare function stack<M extends DTypeName>(tensors: readonly Tensor[], dim: number, options: { out: Tensor<M> }): Tensor<M>;
export type Operand = Tensor | number | boolean;
/**
 * `out`: any writable tensor of the broadcast shape the result can be cast to, on the operands' device.
 * `async: true`: a Promise of the result, the engine running off the event loop (docs/API.md "Ops").
 * `stream` (CUDA operands): the stream the kernels are enqueued on, as copies take it; checked and
 * ignored on the host.
 */
export interface OutOptions<M extends DTypeName = DTypeName> {
  out?: Tensor<M>; async?: false; stream?: number | bigint | CudaStream;
}
export interface AsyncOptions<M extends DTypeName = DTypeName> {
  out?: Tensor<M>; async: true; stream?: number | bigint | CudaStream;
}
export declare function add(input: Operand, other: Operand, options?: OutOptions): Tensor;
export declare function add(input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor>;
export declare function sub(input: Operand, other: Operand, options?: OutOptions): Tensor;
export declare function sub(input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor>;
export declare function mul(input: Operand, other: Operand, options?: OutOptions): Tensor;
export declare function mul(input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor>;
/** True division: integer / integer gives float32. */
export declare function div(input: Operand, other: Operand, options?: OutOptions): Tensor;
export declare function div(input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor>;
export declare function maximum(input: Operand, other: Operand, options?: OutOptions): Tensor;
export declare function maximum(input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor>;
export declare function minimum(input: Operand, other: Operand, options?: OutOptions): Tensor;
export declare function minimum(input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor>;
export declare function pow(input: Operand, other: Operand, options?: OutOptions): Tensor;
export declare function pow(input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor>;
export declare function eq(input: Operand, other: Operand, options?: OutOptions): Tensor<'bool'>;
export declare function eq(input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor<'bool'>>;
export declare function ne(input: Operand, other: Operand, options?: OutOptions): Tensor<'bool'>;
export declare function ne(input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor<'bool'>>;
export declare function lt(input: Operand, other: Operand, options?: OutOptions): Tensor<'bool'>;
export declare function lt(input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor<'bool'>>;
export declare function le(input: Operand, other: Operand, options?: OutOptions): Tensor<'bool'>;
export declare function le(input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor<'bool'>>;
export declare function gt(input: Operand, other: Operand, options?: OutOptions): Tensor<'bool'>;
export declare function gt(input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor<'bool'>>;
export declare function ge(input: Operand, other: Operand, options?: OutOptions): Tensor<'bool'>;
export declare function ge(input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor<'bool'>>;
export declare function where(condition: Tensor<'bool'>, input: Operand, other: Operand, options?: OutOptions): Tensor;
export declare function where(condition: Tensor<'bool'>, input: Operand, other: Operand, options: AsyncOptions): Promise<Tensor>;
export declare function neg<N extends DTypeName>(input: Tensor<N>, options?: OutOptions): Tensor<N>;
export declare function neg<N extends DTypeName>(input: Tensor<N>, options: AsyncOptions): Promise<Tensor<N>>;
export declare function abs<N extends DTypeName>(input: Tensor<N>, options?: OutOptions): Tensor<N>;
export declare function abs<N extends DTypeName>(input: Tensor<N>, options: AsyncOptions): Promise<Tensor<N>>;
export declare function round<N extends DTypeName>(input: Tensor<N>, options?: OutOptions): Tensor<N>;
export declare function round<N extends DTypeName>(input: Tensor<N>, options: AsyncOptions): Promise<Tensor<N>>;
export declare function exp(input: Tensor, options?: OutOptions): Tensor;
export declare function exp(input: Tensor, options: AsyncOptions): Promise<Tensor>;
export declare function log(input: Tensor, options?: OutOptions): Tensor;
export declare function log(input: Tensor, options: AsyncOptions): Promise<Tensor>;
export declare function sqrt(input: Tensor, options?: OutOptions): Tensor;
export declare function sqrt(input: Tensor, options: AsyncOptions): Promise<Tensor>;
export declare function sigmoid(input: Tensor, options?: OutOptions): Tensor;
export declare function sigmoid(input: Tensor, options: AsyncOptions): Promise<Tensor>;
export declare function tanh(input: Tensor, options?: OutOptions): Tensor;
export declare function tanh(input: Tensor, options: AsyncOptions): Promise<Tensor>;
export declare function floor<N extends DTypeName>(input: Tensor<N>, options?: OutOptions): Tensor<N>;
export declare function floor<N extends DTypeName>(input: Tensor<N>, options: AsyncOptions): Promise<Tensor<N>>;
export declare function ceil<N extends DTypeName>(input: Tensor<N>, options?: OutOptions): Tensor<N>;
export declare function ceil<N extends DTypeName>(input: Tensor<N>, options: AsyncOptions): Promise<Tensor<N>>;
export declare function trunc<N extends DTypeName>(input: Tensor<N>, options?: OutOptions): Tensor<N>;
export declare function trunc<N extends DTypeName>(input: Tensor<N>, options: AsyncOptions): Promise<Tensor<N>>;
export declare function sign<N extends DTypeName>(input: Tensor<N>, options?: OutOptions): Tensor<N>;
export declare function sign<N extends DTypeName>(input: Tensor<N>, options: AsyncOptions): Promise<Tensor<N>>;
export declare function relu<N extends DTypeName>(input: Tensor<N>, options?: OutOptions): Tensor<N>;
export declare function relu<N extends DTypeName>(input: Tensor<N>, options: AsyncOptions): Promise<Tensor<N>>;
export declare function silu<N extends DTypeName>(input: Tensor<N>, options?: OutOptions): Tensor<N>;
export declare function silu<N extends DTypeName>(input: Tensor<N>, options: AsyncOptions): Promise<Tensor<N>>;
/** torch's F.gelu: exact (erf) unless `approximate: 'tanh'`. Floating tensors only. */
export declare function gelu<N extends DTypeName>(input: Tensor<N>, options?: OutOptions & { approximate?: 'none' | 'tanh' }): Tensor<N>;
export declare function gelu<N extends DTypeName>(input: Tensor<N>, options: AsyncOptions & { approximate?: 'none' | 'tanh' }): Promise<Tensor<N>>;
export declare function erf(input: Tensor, options?: OutOptions): Tensor;
export declare function erf(input: Tensor, options: AsyncOptions): Promise<Tensor>;
export declare function log1p(input: Tensor, options?: OutOptions): Tensor;
export declare function log1p(input: Tensor, options: AsyncOptions): Promise<Tensor>;
export declare function expm1(input: Tensor, options?: OutOptions): Tensor;
export declare function expm1(input: Tensor, options: AsyncOptions): Promise<Tensor>;
export declare function sin(input: Tensor, options?: OutOptions): Tensor;
export declare function sin(input: Tensor, options: AsyncOptions): Promise<Tensor>;
export declare function cos(input: Tensor, options?: OutOptions): Tensor;
export declare function cos(input: Tensor, options: AsyncOptions): Promise<Tensor>;
export declare function rsqrt(input: Tensor, options?: OutOptions): Tensor;
export declare function rsqrt(input: Tensor, options: AsyncOptions): Promise<Tensor>;
export declare function reciprocal(input: Tensor, options?: OutOptions): Tensor;
export declare function reciprocal(input: Tensor, options: AsyncOptions): Promise<Tensor>;
export declare function clamp(input: Tensor, min?: Operand | null, max?: Operand | null, options?: OutOptions): Tensor;
export declare function clamp(input: Tensor, min: Operand | null | undefined, max: Operand | null | undefined, options: AsyncOptions): Promise<Tensor>;
/** torchvision's normalize: (input * scale - mean[c]) / std[c], channel at dim -3, one pass into float32 (or out's dtype). */
export declare function normalize(input: Tensor, mean: number | readonly number[], std: number | readonly number[],
  options?: { scale?: number; out?: Tensor; async?: false; stream?: number | bigint | CudaStream }): Tensor;
/** The same off the event loop: a Promise of the result; operands held until it settles. */
export declare function normalize(input: Tensor, mean: number | readonly number[], std: number | readonly number[],
  options: { scale?: number; out?: Tensor; async: true; stream?: number | bigint | CudaStream }): Promise<Tensor>;
/** torch.result_type over tensors and numbers. */
export declare function resultType(...operands: Operand[]): DTypeName;
export declare function promoteTypes(a: DTypeName | DType, b: DTypeName | DType): DTypeName;
export declare function canCast(from: DTypeName | DType, to: DTypeName | DType): boolean;
export declare function broadcastShapes(...shapes: readonly number[][]): number[];
/** Threads the host loops may use (1..256); default DLPACK_NUM_THREADS, else the online cores. Beside busy cores split loops back off (DLPACK_THREAD_BACKOFF, docs/API.md "Threads"). */
export declare function setNumThreads(n: number): void;
export declare function getNumThreads(): number;
export declare function fromDLPack<N extends DTypeName>(x: Tensor<N>, options?: FromDLPackOptions): Tensor<N>;
export declare function fromDLPack(x: DLPackCapsule | DLPackProducer, options?: FromDLPackOptions): Tensor;
export declare const from_dlpack: typeof fromDLPack;
export declare function toDLPack(tensor: Tensor, options?: DLPackOptions): DLPackCapsule;
export declare const to_dlpack: typeof toDLPack;

/** A zero-copy tensor over memory another thread or process shared. */
export declare function open(descriptor: ShareDescriptor): Tensor;

/** A WebAssembly.Memory (declared structurally: no DOM or Node typings needed). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(delta: number): number;
}

export declare const wasm: {
  /** A tensor over WebAssembly memory that stays valid across memory.grow(). */
  view<N extends DTypeName>(memory: WasmMemory,
    options: { ptr: number; dtype: N | DType<N>; shape: readonly number[] | number }): Tensor<N>;
};

/** dl.cuda.Stream (a type here: the class is reached through dl.cuda, not exported by name). */
declare class CudaStream {
  /** new dl.cuda.Stream(index = 0): a non-blocking stream on that device. */
  constructor(index?: number);
  readonly device: number;
  /** The cudaStream_t as a BigInt (what DLPack's `stream` takes); null once disposed. */
  readonly handle: bigint | null;
  synchronize(): void;
  /** Resolves once the stream has run the work enqueued so far (a host callback: no blocking). */
  done(): Promise<void>;
  dispose(): void;
  [Symbol.dispose](): void;
}

export type { CudaStream };

export declare const cuda: {
  /** Whether CUDA is compiled in and a device is usable. */
  isAvailable(): boolean;
  deviceCount(): number;
  synchronize(index?: number): void;
  /** allocatedBytes counts live allocations; cachedBytes (whole blocks) are freed blocks kept for reuse. */
  memoryStats(index?: number): {
    allocatedBytes: number; allocations: number; peakAllocatedBytes: number; cachedBytes: number; cachedBlocks: number;
  };
  /** Frees the device's cached blocks and trims its pool; returns the bytes the pool handed back to the driver. */
  emptyCache(index?: number): number;
  Stream: typeof CudaStream;
};

/** What a Python worker's call resolves with: what the function returned, tensors opened in place. */
export type PythonResult = Tensor | string | number | boolean | null | PythonResult[] | { [key: string]: PythonResult };

/** A Python process serving functions through dlpack_node.worker.serve() (docs/python.md "Workers"). */
export declare class PythonWorker {
  private constructor();
  readonly pid: number | undefined;
  /** The interpreter it was started with (options.python). */
  readonly python: string;
  /**
   * With stderr: 'pipe', the worker's standard error, a Node Readable already read (its last lines go into
   * ERR_DLPACK_WORKER_EXITED before ready); null with 'inherit' or 'ignore'.
   */
  readonly stderr: { on(event: 'data', listener: (chunk: Uint8Array) => void): unknown } | null;
  /** The served function names, once `ready` has resolved; null before. */
  readonly methods: readonly string[] | null;
  /** Resolves when the worker serves; rejects (ERR_DLPACK_WORKER_EXITED, ENOENT, ...) if it never will. */
  readonly ready: Promise<PythonWorker>;
  /**
   * Resolves with the exit code once the process has exited (null after a signal, or when it never started);
   * awaiting it keeps Node running until then.
   */
  readonly closed: Promise<number | null>;
  /**
   * Calls a served function. Tensors (in memory other processes can open) travel as share() descriptors and
   * arrive as arrays over the same memory; other arguments as JSON. A tuple result resolves to an array.
   * Rejects with ERR_DLPACK_PYTHON (with pythonType, pythonTraceback) when the function raises, and with
   * ERR_DLPACK_WORKER_EXITED when the worker dies. R names what the function returns (TypeScript cannot see
   * into Python): `await worker.call<Tensor>('infer', batch)`, `worker.call<[Tensor, number]>(...)`.
   */
  call<R extends PythonResult = PythonResult>(name: string, ...args: unknown[]): Promise<R>;
  /** Closes the worker's input; it finishes the calls in flight and exits. Resolves with its exit code. */
  close(): Promise<number | null>;
  kill(signal?: string | number): boolean;
}

export interface PythonSpawnOptions {
  /** The interpreter (default: $DLPACK_PYTHON, else python3). */
  python?: string;
  /** Arguments after the script. */
  args?: readonly string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
  /**
   * The worker's standard error (print() in served functions lands there): default 'inherit'; 'pipe' makes
   * it worker.stderr, read as it comes (a worker never blocks on it).
   */
  stderr?: 'inherit' | 'pipe' | 'ignore';
}

export declare const python: {
  /** Starts `script` (which calls dlpack_node.worker.serve) with this package's Python module on PYTHONPATH. */
  spawn(script: string, options?: PythonSpawnOptions): PythonWorker;
  PythonWorker: typeof PythonWorker;
};

// Apache Arrow (docs/arrow.md). apache-arrow is an optional peer dependency: these are the parts of its
// objects the functions read, so any apache-arrow Table, RecordBatch, Vector or Data (of any version)
// fits; cast what they return to apache-arrow's own types for the rest of its API.
export interface ArrowData {
  readonly type: { readonly typeId: number };
  readonly length: number;
  readonly children: readonly ArrowData[];
}
export interface ArrowField {
  readonly name: string;
  readonly metadata: ReadonlyMap<string, string>;
}
export interface ArrowVector {
  readonly data: readonly ArrowData[];
  readonly length: number;
  readonly type: { readonly typeId: number };
}
export interface ArrowRecordBatch {
  readonly schema: { readonly fields: readonly ArrowField[] };
  readonly data: ArrowData;
}
export interface ArrowTable {
  readonly schema: { readonly fields: readonly ArrowField[] };
  readonly batches: readonly ArrowRecordBatch[];
  readonly numRows: number;
}

export interface FromArrowOptions {
  /** The column of a table or record batch: its name or index (required when it has several). */
  column?: string | number;
  /** Allow a copy where no view can be made (nulls as NaN or 0, booleans, several batches, big-endian bytes). */
  copy?: boolean;
  /** The cell shape of a column without the extension (DuckDB and Polars results); must agree with one. */
  shape?: readonly number[];
}

export interface ToArrowOptions {
  /** The field's name when the vector is written into a table or IPC (default 'tensor'). */
  name?: string;
  /** Tag the column arrow.fixed_shape_tensor (default true); false writes a plain FixedSizeList. */
  extension?: boolean;
  /** Names of the cell dims, in the tensor's (logical) order. */
  dimNames?: readonly string[];
  /** Allow a conversion into new memory (bool to a bitmap, bfloat16 to float32, complex to pairs, strides). */
  copy?: boolean;
}

/** A tensor over an Arrow column's values (no copy); it keeps the Arrow buffer alive, as fromBuffer does. */
export declare function fromArrow(source: ArrowTable | ArrowRecordBatch | ArrowVector | ArrowData,
  options?: FromArrowOptions): Tensor;
/** A tensor over a column of Arrow IPC bytes (stream or file): the same ArrayBuffer, no byte copied. */
export declare function fromArrowIPC(bytes: ArrayBufferLike | ArrayBufferView, options?: FromArrowOptions): Tensor;
/** One record batch whose columns are the tensors' memory (and Arrow vectors as they are). */
export declare function toArrowTable(columns: { readonly [name: string]: Tensor | ArrowVector },
  options?: { copy?: boolean }): ArrowTable;
/**
 * The Arrow IPC stream (or file) as chunks, nothing joined: headers and padding, and body chunks that are
 * the columns' memory (for fs.writev or a socket).
 */
export declare function toArrowIPCChunks(source: ArrowTable | Tensor | ArrowVector,
  options?: { format?: 'stream' | 'file'; copy?: boolean }): Uint8Array[];

export interface RayConnectOptions {
  /** A cluster to join ('auto', 'host:port'); without it the worker starts a local cluster. */
  address?: string;
  namespace?: string;
  /** A local cluster's CPUs. */
  numCpus?: number;
  /** A local cluster's object store, in bytes. */
  objectStoreMemory?: number;
  /** The worker's Python (it needs Ray): default $DLPACK_PYTHON, else python3. */
  python?: string;
  env?: Record<string, string | undefined>;
  stderr?: 'inherit' | 'pipe' | 'ignore';
}

/** An ObjectRef the Ray worker holds for this process, until release() or collection. */
export declare class RayRef {
  private constructor();
  /** The ObjectRef's hex id. */
  readonly id: string;
  readonly client: RayClient;
  release(): Promise<unknown>;
}

/** Ray through a Python worker (docs/arrow.md "Ray"). */
export declare class RayClient {
  private constructor();
  readonly address: string;
  readonly nodeId: string;
  readonly version: string;
  /** Whether connect() started the cluster (close() stops it). */
  readonly local: boolean;
  readonly pid: number | undefined;
  readonly closed: boolean;
  /** ray.put: one copy into the object store. The tensor must be in shared memory (as for worker.call). */
  put(tensor: Tensor): Promise<RayRef>;
  /** fn.remote(...args) for 'package.module:function'; resolves with the result's reference. */
  call(fn: string, ...args: unknown[]): Promise<RayRef>;
  /** ray.get: a Tensor in memory this process maps (one copy), or the JSON value. */
  get<R extends PythonResult = PythonResult>(ref: RayRef): Promise<R>;
  release(...refs: RayRef[]): Promise<unknown>;
  /** The references held, and the bytes in use in the node's object store. */
  stats(): Promise<{ refs: number; objectStoreBytes: number }>;
  /** Drops every reference, disconnects (stopping a local cluster) and ends the worker. */
  close(): Promise<number | null>;
}

export declare const ray: {
  connect(options?: RayConnectOptions): Promise<RayClient>;
  RayClient: typeof RayClient;
  RayRef: typeof RayRef;
};

/** What this build and machine can do. */
export declare function capabilities(): {
  cuda: { compiled: boolean; available: boolean; deviceCount: number; reason: string | null };
  externalArrayBuffers: boolean;
};

// Linear algebra (docs/API.md "Linear algebra"): float16, bfloat16, float32, float64.
export declare function matmul<N extends FloatDTypeName>(input: Tensor<N>, other: Tensor<N>, options?: OutOptions<N>): Tensor<N>;
export declare function matmul<N extends FloatDTypeName>(input: Tensor<N>, other: Tensor<N>, options: AsyncOptions<N>): Promise<Tensor<N>>;
export declare function mm<N extends FloatDTypeName>(input: Tensor<N>, other: Tensor<N>, options?: OutOptions<N>): Tensor<N>;
export declare function mm<N extends FloatDTypeName>(input: Tensor<N>, other: Tensor<N>, options: AsyncOptions<N>): Promise<Tensor<N>>;
export declare function bmm<N extends FloatDTypeName>(input: Tensor<N>, other: Tensor<N>, options?: OutOptions<N>): Tensor<N>;
export declare function bmm<N extends FloatDTypeName>(input: Tensor<N>, other: Tensor<N>, options: AsyncOptions<N>): Promise<Tensor<N>>;
/** x weight^T + bias (torch.nn.functional.linear). */
export declare function linear<N extends FloatDTypeName>(input: Tensor<N>, weight: Tensor<N>, bias?: Tensor<N> | null, options?: OutOptions<N>): Tensor<N>;
export declare function linear<N extends FloatDTypeName>(input: Tensor<N>, weight: Tensor<N>, bias: Tensor<N> | null | undefined, options: AsyncOptions<N>): Promise<Tensor<N>>;

// Statistics and norms (docs/API.md "Statistics and norms"): floating-point host tensors.
/** correction: the divisor is max(0, N - correction) (torch's default 1); out: the result copied into it. */
export interface VarOptions extends KeepdimOptions {
  correction?: number;
  out?: Tensor;
}
export interface VarMeanOptions extends KeepdimOptions {
  correction?: number;
}
export interface NormOutOptions extends SyncOption {
  out?: Tensor;
}
/** `var` (a reserved word in JavaScript, so declared as var_ and exported as var). */
declare function var_<N extends FloatDTypeName>(input: Tensor<N>, dim?: ReduceDims, options?: VarOptions): Tensor<N>;
declare function var_<N extends FloatDTypeName>(input: Tensor<N>, dim: ReduceDims, options: Async<VarOptions>): Promise<Tensor<N>>;
export { var_ as var };
export declare function std<N extends FloatDTypeName>(input: Tensor<N>, dim?: ReduceDims, options?: VarOptions): Tensor<N>;
export declare function std<N extends FloatDTypeName>(input: Tensor<N>, dim: ReduceDims, options: Async<VarOptions>): Promise<Tensor<N>>;
/** [var, mean] (torch's tuple as an array). */
export declare function varMean<N extends FloatDTypeName>(input: Tensor<N>, dim?: ReduceDims, options?: VarMeanOptions): [Tensor<N>, Tensor<N>];
export declare function varMean<N extends FloatDTypeName>(input: Tensor<N>, dim: ReduceDims, options: Async<VarMeanOptions>): Promise<[Tensor<N>, Tensor<N>]>;
/** [std, mean] (torch's tuple as an array). */
export declare function stdMean<N extends FloatDTypeName>(input: Tensor<N>, dim?: ReduceDims, options?: VarMeanOptions): [Tensor<N>, Tensor<N>];
export declare function stdMean<N extends FloatDTypeName>(input: Tensor<N>, dim: ReduceDims, options: Async<VarMeanOptions>): Promise<[Tensor<N>, Tensor<N>]>;
/** torch.linalg.vector_norm: ord a p (0 counts nonzeros), Infinity or -Infinity. */
export declare function vectorNorm<N extends FloatDTypeName>(input: Tensor<N>, ord?: number, dim?: ReduceDims, options?: KeepdimOptions & { out?: Tensor }): Tensor<N>;
export declare function vectorNorm<N extends FloatDTypeName>(input: Tensor<N>, ord: number, dim: ReduceDims, options: Async<KeepdimOptions>): Promise<Tensor<N>>;
export declare function layerNorm<N extends FloatDTypeName>(input: Tensor<N>, normalizedShape: number | readonly number[], weight?: Tensor<N> | null, bias?: Tensor<N> | null, eps?: number, options?: NormOutOptions): Tensor<N>;
export declare function layerNorm<N extends FloatDTypeName>(input: Tensor<N>, normalizedShape: number | readonly number[], weight: Tensor<N> | null | undefined, bias: Tensor<N> | null | undefined, eps: number | undefined, options: AsyncOption): Promise<Tensor<N>>;
export declare function cosineSimilarity<N extends FloatDTypeName>(x1: Tensor<N>, x2: Tensor<N>, dim?: number, eps?: number, options?: NormOutOptions): Tensor<N>;
export declare function cosineSimilarity<N extends FloatDTypeName>(x1: Tensor<N>, x2: Tensor<N>, dim: number | undefined, eps: number | undefined, options: AsyncOption): Promise<Tensor<N>>;
/** torch.nn.functional.normalize (dl.normalize is the image normalisation). */
export declare function lpNormalize<N extends FloatDTypeName>(input: Tensor<N>, p?: number, dim?: number, eps?: number, options?: NormOutOptions): Tensor<N>;
export declare function lpNormalize<N extends FloatDTypeName>(input: Tensor<N>, p: number | undefined, dim: number | undefined, eps: number | undefined, options: AsyncOption): Promise<Tensor<N>>;
// --- issue 40: sorting and scans, indexing, random numbers, vision (docs/API.md) -----------
// Host tensors only for now: a CUDA tensor is refused with ERR_DLPACK_WRONG_DEVICE.

export interface SortFlags {
  dim?: number;
  descending?: boolean;
  /** Every sort here is stable; accepted for torch's signature. */
  stable?: boolean;
}
export interface SortOptions<N extends DTypeName = DTypeName> extends SortFlags {
  /** torch's out=(values, indices): values of the input's dtype, int64 indices, the input's shape; returned. */
  out?: [Tensor<N>, Tensor<'int64'>];
}
export interface ArgsortOptions extends SortFlags {
  /** An int64 tensor of the input's shape, returned. */
  out?: Tensor<'int64'>;
}
/** cumsum/cumprod: bool and integers give int64, floats their own dtype, unless `dtype`. */
export type ScanDType<N extends DTypeName> = N extends FloatDTypeName ? N : 'int64';
export interface ScanOptions<M extends DTypeName = DTypeName> {
  dtype?: M | DType<M>;
  out?: Tensor;
}
export interface IndexOutOptions {
  out?: Tensor;
}
export type IndexTensor = Tensor<'int64'> | Tensor<'int32'>;

export interface Tensor<N extends DTypeName = DTypeName> {
  /** Sorted along dim (default -1), stable; NaN sorts as the largest value. */
  sort(dim?: number, options?: SortOptions<N>): ValuesIndices<N>;
  sort(options: SortOptions<N>): ValuesIndices<N>;
  argsort(dim?: number, options?: ArgsortOptions): Tensor<'int64'>;
  argsort(options: ArgsortOptions): Tensor<'int64'>;
  cumsum<M extends DTypeName>(dim: number, options: ScanOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
  cumsum(dim: number, options?: ScanOptions): Tensor<ScanDType<N>>;
  cumprod<M extends DTypeName>(dim: number, options: ScanOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
  cumprod(dim: number, options?: ScanOptions): Tensor<ScanDType<N>>;
  gather(dim: number, index: IndexTensor, options?: IndexOutOptions): Tensor<N>;
  indexSelect(dim: number, index: IndexTensor, options?: IndexOutOptions): Tensor<N>;
  take(index: IndexTensor, options?: IndexOutOptions): Tensor<N>;
  /** [count, ndim] int64 indices of the nonzero elements, row-major. */
  nonzero(): Tensor<'int64'>;
  maskedFill(mask: Tensor<'bool'>, value: number | boolean | Tensor): Tensor<N>;
  maskedFill_(mask: Tensor<'bool'>, value: number | boolean | Tensor): this;
  multinomial(numSamples: number, options?: MultinomialOptions): Tensor<'int64'>;
}

export declare function sort<N extends DTypeName>(input: Tensor<N>, dim?: number, options?: SortOptions<N>): ValuesIndices<N>;
export declare function sort<N extends DTypeName>(input: Tensor<N>, options: SortOptions<N>): ValuesIndices<N>;
export declare function argsort(input: Tensor, dim?: number, options?: ArgsortOptions): Tensor<'int64'>;
export declare function argsort(input: Tensor, options: ArgsortOptions): Tensor<'int64'>;
export declare function cumsum<M extends DTypeName>(input: Tensor, dim: number,
  options: ScanOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
export declare function cumsum<N extends DTypeName>(input: Tensor<N>, dim: number, options?: ScanOptions): Tensor<ScanDType<N>>;
export declare function cumprod<M extends DTypeName>(input: Tensor, dim: number,
  options: ScanOptions<M> & { dtype: M | DType<M> }): Tensor<M>;
export declare function cumprod<N extends DTypeName>(input: Tensor<N>, dim: number, options?: ScanOptions): Tensor<ScanDType<N>>;
export declare function gather<N extends DTypeName>(input: Tensor<N>, dim: number, index: IndexTensor,
  options?: IndexOutOptions): Tensor<N>;
export declare function indexSelect<N extends DTypeName>(input: Tensor<N>, dim: number, index: IndexTensor,
  options?: IndexOutOptions): Tensor<N>;
export declare function take<N extends DTypeName>(input: Tensor<N>, index: IndexTensor, options?: IndexOutOptions): Tensor<N>;
export declare function nonzero(input: Tensor): Tensor<'int64'>;
/** torch.where(condition): one int64 tensor of indices per dim (nonzero's columns). */
export declare function where(condition: Tensor): Tensor<'int64'>[];
export declare function maskedFill<N extends DTypeName>(input: Tensor<N>, mask: Tensor<'bool'>,
  value: number | boolean | Tensor): Tensor<N>;
export declare function maskedFill_<T extends Tensor>(input: T, mask: Tensor<'bool'>, value: number | boolean | Tensor): T;

/** torch.Generator: a seed and a Philox4x32-10 counter offset (the bits are not torch's). */
export declare class Generator {
  manualSeed(seed: number | bigint): this;
  /** A fresh nondeterministic seed, set and returned. */
  seed(): bigint;
  initialSeed(): bigint;
  /** The next counter a draw reads. */
  readonly offset: bigint;
}
export interface RandomOptions<M extends DTypeName = 'float32'> {
  dtype?: M | DType<M>;
  generator?: Generator;
}
export interface MultinomialOptions {
  replacement?: boolean;
  generator?: Generator;
}
/** Seeds the default generator (torch.manual_seed); returns it. */
export declare function manualSeed(seed: number | bigint): Generator;
export declare function rand<M extends FloatDTypeName = 'float32'>(shape: readonly number[] | number,
  options?: RandomOptions<M>): Tensor<M>;
export declare function randn<M extends FloatDTypeName = 'float32'>(shape: readonly number[] | number,
  options?: RandomOptions<M>): Tensor<M>;
export declare function randint<M extends DTypeName = 'int64'>(high: number | bigint, shape: readonly number[] | number,
  options?: RandomOptions<M>): Tensor<M>;
export declare function randint<M extends DTypeName = 'int64'>(low: number | bigint, high: number | bigint,
  shape: readonly number[] | number, options?: RandomOptions<M>): Tensor<M>;
export declare function multinomial(probs: Tensor<FloatDTypeName>, numSamples: number,
  options?: MultinomialOptions): Tensor<'int64'>;

/** torchvision.ops' names; boxes are [N, 4] (x1, y1, x2, y2) float32 or float64. */
export declare const ops: {
  nms(boxes: Tensor<'float32' | 'float64'>, scores: Tensor<'float32' | 'float64'>, iouThreshold: number): Tensor<'int64'>;
  batchedNms(boxes: Tensor<'float32' | 'float64'>, scores: Tensor<'float32' | 'float64'>, idxs: IndexTensor,
    iouThreshold: number): Tensor<'int64'>;
  boxIou<N extends 'float32' | 'float64'>(boxes1: Tensor<N>, boxes2: Tensor<N>): Tensor<N>;
};
export type InterpolateOptions = {
  mode?: 'nearest' | 'bilinear';
  /** bilinear only. */
  alignCorners?: boolean;
} & ({ size: number | readonly [number, number]; scaleFactor?: undefined } |
  { scaleFactor: number | readonly [number, number]; size?: undefined });
/** torch.nn.functional.interpolate of an NCHW tensor. */
export declare function interpolate<N extends FloatDTypeName>(input: Tensor<N>, options: InterpolateOptions): Tensor<N>;
