// Compiled with `tsc --noEmit` (npm run typecheck): the declarations in
// lib/index.d.ts must accept real usage.
import * as dl from 'dlpack';

const ab = new ArrayBuffer(16);
const t: dl.Tensor<'float32'> = dl.fromBuffer(ab, { dtype: 'float32', offset: 0, count: 4, shape: [2, 2] });
const view: Float32Array = t.data;
const bigs: BigInt64Array = dl.zeros([2], { dtype: 'int64' }).data;
const shape: readonly number[] = t.shape;
const capsule: dl.DLPackCapsule = t.__dlpack__({ maxVersion: [1, 0], copy: false });
const pointer: bigint = capsule.toPointer();
const back: dl.Tensor = dl.fromDLPack(dl.DLPackCapsule.fromPointer(pointer, { versioned: true }));
const device: string = back.device.toString();
const legacy = dl.to_dlpack(dl.tensor([1, 2, 3]), { maxVersion: [0, 8] });
dl.from_dlpack(legacy, { device: 'cpu', copy: true }).dispose();
const nested = dl.tensor([[1, 2], [3, 4]], { dtype: 'complex64' }).toArray();
const code: dl.ErrorCode | undefined = (new dl.DLPackError('x', 'ERR_DLPACK_CONSUMED')).code;
const version: number = dl.dlpackVersion.major + dl.dtypes.float32.itemSize;
const pythonPath: string = dl.pythonPath;
void pythonPath;
const available: boolean = dl.cuda.isAvailable() && dl.capabilities().cuda.compiled;
if (available) {
  const stream = new dl.cuda.Stream(0);
  const handle: bigint | null = stream.handle;
  stream.dispose();
  void handle;
}
const shared = dl.empty([4], { dtype: 'int32', shared: true });
const descriptor: dl.ShareDescriptor = shared.share();
if (descriptor.kind === 'shm') { const name: string = descriptor.name; void name; }
const opened: dl.Tensor = dl.open(descriptor);
const moved: dl.Tensor<'float32'> = dl.zeros([2]).shareMemory();
const sharedCopy: dl.Tensor<'int32'> = dl.tensor(new Int32Array(2)).toShared();
void [moved, sharedCopy];
declare const memory: dl.WasmMemory; // a WebAssembly.Memory
const wasmView: Int32Array = dl.wasm.view(memory, { ptr: 0, dtype: 'int32', shape: [4] }).data;
void [opened, wasmView];
void [view, bigs, shape, device, nested, code, version, available];

// --- the rest of the API (docs/API.md), as a caller writes it ---
const viaAlias: dl.Tensor<'uint8'> = dl.frombuffer(new Uint8Array(8), { dtype: dl.dtypes.uint8, shape: [2, 4] });
const fromShared: dl.Tensor<'int16'> = dl.fromBuffer(new SharedArrayBuffer(8), { dtype: 'int16' });
const fromView: dl.Tensor<'float64'> = dl.fromBuffer(new DataView(new ArrayBuffer(16)), { dtype: 'float64' });
const everywhere: dl.Tensor[] = [
  dl.empty(4), dl.empty([2, 2], { device: 'cpu' }), dl.zeros([1], { device: 'cuda' }),
  dl.zeros([1], { device: 'cuda:1', dtype: 'bfloat16' }), dl.empty([1], { device: 'cuda_host' }),
  dl.empty([1], { device: 'cuda_managed' }), dl.zeros([1], { device: t.device }),
];
const defaultDtype: dl.Tensor<'float32'> = dl.zeros([3]);

// dl.tensor infers the dtype from a typed array, else bool / int64 / float32; `dtype` wins.
const f64: Float64Array = dl.tensor(new Float64Array([1, 2])).data;
const i64: BigInt64Array = dl.tensor(new BigInt64Array([1n])).data;
const inferredBool: dl.Tensor<'bool'> = dl.tensor([[true], [false]]);
const inferredInt64: dl.Tensor<'int64'> = dl.tensor([1n, 2n]);
const inferredFloat: dl.Tensor<'float32'> = dl.tensor([1, true]);
const u8: Uint8Array = dl.tensor(new Uint8ClampedArray([1, 2])).data;
const u16: dl.Tensor<'uint16'> = dl.tensor(new Uint16Array(2), { shape: [2, 1] });
const fromNested: dl.Tensor<'float32'> = dl.tensor([[1, 2], [3, 4]]);
const fromIterable: dl.Tensor<'int32'> = dl.tensor(new Set([1, 2]), { dtype: 'int32' });
const bools: dl.Tensor<'bool'> = dl.tensor([true, false], { dtype: dl.dtypes.bool });
const complex: dl.Tensor<'complex128'> = dl.tensor([[1, -1], [2, 0]], { dtype: 'complex128' });
const scalar: dl.Tensor<'float32'> = dl.tensor(3);
declare const someDtype: dl.DTypeName;
const anyDtype: dl.Tensor = dl.zeros([2], { dtype: someDtype });

// Properties.
const props: [string, readonly number[], readonly number[], number, number, number, number, number] =
  [t.dtype, t.shape, t.strides, t.ndim, t.size, t.itemSize, t.nbytes, t.byteOffset];
const flags: boolean[] = [t.readOnly, t.isCopy, t.isContiguous, t.disposed];
const deviceType: dl.DeviceType = t.device.type;
const deviceIndex: number = t.device.index;
const backing: ArrayBuffer | SharedArrayBuffer = t.buffer;
const bf16Bits: Uint16Array = dl.zeros([1], { dtype: 'bfloat16' }).data;
const complexParts: Float32Array = dl.zeros([1], { dtype: 'complex64' }).data;

// Methods.
const views: dl.Tensor<'float32'>[] = [t.reshape([4]), t.reshape(4), t.reshape([-1, 2]), t.contiguous(), t.clone(),
  t.to('cpu'), t.to('cuda:0', { stream: 2 }), t.to(t.device), t.cpu(), t.cuda(), t.cuda(1)];
const same: dl.Tensor<'float32'> = t.copyFrom(dl.zeros([2, 2], { dtype: 'int64' })).copyFrom([[1, 2], [3, 4]]);
const int64Values: dl.NestedArray<bigint> = dl.tensor([1, 2], { dtype: 'int64' }).toArray();
const boolValues: dl.NestedArray<boolean> = bools.toArray();
const pairs: dl.NestedArray<[number, number]> = complex.toArray();
const text: string = t.toString() + String(t.device);
const where: [number, number] = t.__dlpack_device__();
t.dispose();
t[Symbol.dispose]();
{
  using scoped = dl.zeros([1]); // disposed at the end of the block
  void scoped;
}

// DLPack.
const full: dl.DLPackCapsule = t.__dlpack__({ maxVersion: null, dlDevice: [1, 0], copy: undefined, stream: undefined });
const versioned: boolean = full.versioned && !full.consumed;
const minor: number = full.version.minor;
full.dispose();
full[Symbol.dispose]();
const adopted: dl.Tensor = dl.fromDLPack(dl.DLPackCapsule.fromPointer(pointer, { versioned: false }), { copy: false });
const keepsDtype: dl.Tensor<'float32'> = dl.from_dlpack(t, { device: 'cpu' });
const producerObject: dl.DLPackProducer = {
  __dlpack__: (options?: dl.DLPackOptions) => t.__dlpack__(options),
  __dlpack_device__: () => [1, 0],
};
const fromProducer: dl.Tensor = dl.fromDLPack(producerObject);
const exported: dl.DLPackCapsule = dl.toDLPack(t, { maxVersion: [1, 3] });

// CUDA.
if (dl.cuda.isAvailable()) {
  const stream = new dl.cuda.Stream();
  const typed: dl.CudaStream = stream;
  t.__dlpack__({ stream });
  const onDevice = t.to('cuda', { stream });
  onDevice.clone({ stream }).copyFrom(onDevice, { stream: stream.handle ?? undefined });
  const options: dl.CopyOptions = { stream: 2n };
  t.__dlpack__({ stream: 2n });
  const finished: Promise<void> = stream.done();
  void [options, finished];
  stream.synchronize();
  stream[Symbol.dispose]();
  dl.cuda.synchronize(0);
  const stats: number = dl.cuda.memoryStats(0).peakAllocatedBytes + dl.cuda.deviceCount();
  const cached: number = dl.cuda.memoryStats(0).cachedBytes + dl.cuda.memoryStats().cachedBlocks + dl.cuda.emptyCache(0);
  void [typed, stats, cached];
}
const caps = dl.capabilities();
const why: string | null = caps.cuda.reason;
const external: boolean = caps.externalArrayBuffers;

// Errors.
try {
  dl.tensor([1]).dispose();
} catch (error) {
  if (error instanceof dl.CudaError) {
    const name: string | undefined = error.cudaError;
    void name;
  } else if (error instanceof dl.DLPackError) {
    const errorCode: dl.ErrorCode = error.code;
    void errorCode;
  }
}
const constructed = new dl.CudaError('no device', 'ERR_DLPACK_CUDA_UNAVAILABLE', 'cudaErrorNoDevice');

// Sharing: each descriptor kind narrows by `kind`.
const d: dl.ShareDescriptor = dl.empty([2], { shared: true }).share();
if (d.kind === 'sab') { const buffer: SharedArrayBuffer = d.buffer; void buffer; }
if (d.kind === 'local') { const id: string = d.id; const pid: number = d.pid; void [id, pid]; }
if (d.kind === 'shm') {
  const size: number = d.dataSize;
  const version: 2 = d.version;
  const place: [string, number, number] = [d.name, d.pid, d.fd];
  void [size, version, place];
}
if (d.kind === 'cuda-ipc') {
  const ipc: [string, string, number, number, string, number] = [d.handle, d.ticket, d.pid, d.fd, d.device,
    d.dataSize];
  void ipc;
}
const onGpu: dl.Tensor<'float16'> = dl.empty([2], { dtype: 'float16', device: 'cuda:0', shared: true });
const layout: [number, dl.DTypeName, number[], number[], boolean] =
  [d.byteOffset, d.dtype, d.shape, d.strides, d.readOnly];
const reopened: dl.Tensor = dl.open(JSON.parse(JSON.stringify(d)) as dl.ShareDescriptor);
const wasmDefault: dl.Tensor<'float64'> = dl.wasm.view(memory, { ptr: 8, dtype: dl.dtypes.float64, shape: 2 });

void [viaAlias, fromShared, fromView, everywhere, defaultDtype, f64, i64, u8, u16, fromNested, fromIterable, complex,
  scalar, anyDtype, props, flags, deviceType, deviceIndex, backing, bf16Bits, complexParts, views, same, int64Values,
  boolValues, pairs, text, where, versioned, minor, adopted, keepsDtype, fromProducer, exported, why, external,
  constructed, layout, reopened, wasmDefault, onGpu];

// Python workers (docs/python.md "Workers").
async function pythonWorker(): Promise<void> {
  const worker: dl.PythonWorker = dl.python.spawn('model.py', { python: '/usr/bin/python3', args: ['torch'] });
  await worker.ready;
  const methods: readonly string[] | null = worker.methods;
  const result = await worker.call('normalize', dl.empty([2, 3], { shared: true }), { scale: 2 });
  if (result instanceof dl.Tensor) result.dispose();
  // The docs' snippet, in strict mode without casts.
  const batch = dl.empty([8, 3, 224, 224], { shared: true });
  await worker.call('normalize', batch, 0.5, 0.25);
  const logits = await worker.call<dl.Tensor>('infer', batch);
  const [view, sum] = await worker.call<[dl.Tensor, number]>('every_other', batch);
  logits.dispose(); view.dispose();
  const total: number = sum;
  if (worker.stderr !== null) worker.stderr.on('data', (chunk: Uint8Array) => void chunk.length);
  const interpreter: string = worker.python;
  void total; void interpreter;
  const code: number | null = await worker.close();
  void methods; void code;
}
void pythonWorker;
// --- views, conversion, batching (docs/API.md "Views", "Conversion", "Batching") ---
{
  const img = dl.fromBuffer(new Uint8Array(12), { dtype: 'uint8', shape: [2, 2, 3] });
  const chw: dl.Tensor<'float32'> = img.permute(2, 0, 1).to('float32');
  const chw2: dl.Tensor<'float32'> = img.permute([2, 0, 1]).to({ dtype: dl.dtypes.float32 });
  const u8: dl.Tensor<'uint8'> = img.transpose(0, 1).narrow(0, 0, 1).select(0, 0).slice(0, null, null, -1)
    .unsqueeze(0).squeeze().flatten().expand(2, -1).asStrided([2], [1], 0).reshape(2, 1).view(2);
  const bytes: dl.Tensor<'int16'> = dl.zeros([4], { dtype: 'int8' }).view('int16');
  const moved: dl.Tensor<'uint8'> = img.to({ device: 'cpu' });
  const strided = dl.fromBuffer(new Uint8Array(15), { dtype: 'uint8', shape: [3, 5], strides: [1, 3] });
  const batch: dl.Tensor<'uint8'> = dl.stack([img, img]);
  const out = dl.empty([2, 3, 2, 2], { dtype: 'float32', shared: true });
  const into: dl.Tensor<'float32'> = dl.stack([img.permute(2, 0, 1), img.permute(2, 0, 1)], 0, { out });
  const joined: dl.Tensor<'uint8'> = dl.cat([img, img], -1);
  const one: number = dl.tensor([1], { dtype: 'int32' }).item();
  const big: bigint = dl.tensor([1], { dtype: 'int64' }).item();
  batch.select(0, 1).copyFrom(img);
  void [chw, chw2, u8, bytes, moved, strided, into, joined, one, big];
}

// JSON and structured clone (docs/API.md "Tensor").
const asJson: { dtype: 'int32'; shape: number[] } = dl.tensor([1], { dtype: 'int32' }).toJSON();
const guard: symbol = dl.tensor([1]).dlpack;
void [asJson, guard];

// Elementwise ops (docs/API.md "Ops").
{
  const x = dl.zeros([2, 3], { dtype: 'float32' });
  const sum: dl.Tensor = dl.add(x, 1, { out: dl.zeros([2, 3]) });
  const mask: dl.Tensor<'bool'> = x.gt(0);
  const picked: dl.Tensor = dl.where(mask, x, 0);
  // The function forms of the comparisons are bool as the methods are (issue 37, finding 14).
  const relu: dl.Tensor = dl.where(dl.gt(x, 0), x, 0);
  const flags: dl.Tensor<'bool'>[] = [dl.ge(x, 0), dl.lt(x, 0), dl.le(x, 0), dl.eq(x, 0), dl.ne(x, 0)];
  const same: dl.Tensor<'float32'> = x.neg();
  const inPlace: dl.Tensor<'float32'> = x.sub_(0.5).div_(2).clamp_(0, 1).exp_();
  const frame = dl.zeros([4, 4, 3], { dtype: 'uint8' });
  const norm: dl.Tensor = dl.normalize(frame.permute(2, 0, 1), [0.485, 0.456, 0.406], [0.229, 0.224, 0.225],
    { scale: 1 / 255 });
  const t: dl.DTypeName = dl.resultType(x, 1.5);
  const shape: number[] = dl.broadcastShapes([3, 1], [4]);
  dl.setNumThreads(dl.getNumThreads());
  void [relu, flags];
  void [sum, mask, picked, same, inPlace, norm, t, shape, dl.canCast('float32', 'int8'), dl.promoteTypes('int8', 'uint8')];
}

// The asynchronous form.
async function asyncOps(): Promise<void> {
  const x = dl.zeros([2, 3], { dtype: 'float32' });
  const sum: dl.Tensor = await dl.add(x, 1, { async: true });
  const e: dl.Tensor = await dl.exp(x, { async: true, out: dl.zeros([2, 3]) });
  const c: dl.Tensor = await dl.clamp(x, 0, undefined, { async: true });
  const g: dl.Tensor<'float32'> = await dl.gelu(x, { approximate: 'tanh', async: true });
  const r: dl.Tensor<'float32'> = dl.relu(x);
  const f: dl.Tensor<'float32'> = x.floor().sign().relu_().gelu({ approximate: 'none' });
  const s: dl.Tensor = dl.sin(dl.cos(dl.erf(dl.log1p(dl.expm1(dl.rsqrt(dl.reciprocal(dl.silu(x))))))), { out: x });
  void [g, r, f, s, dl.ceil(x), dl.trunc(x), x.silu_(), x.erf_()];
  const n: dl.Tensor = await dl.normalize(dl.zeros([3, 2, 2]), 0.5, 0.25, { scale: 2, async: true });
  const h: dl.Tensor<'float16'> = await x.to({ dtype: 'float16', async: true });
  const same: dl.Tensor<'float32'> = x.to({ dtype: 'float32', async: false });
  void [sum, e, c, n, h, same];
}
void asyncOps;
// The asynchronous form of the reductions: a Promise of what the sync call gives.
async function asyncReductions(): Promise<void> {
  const x = dl.zeros([2, 3], { dtype: 'float32' });
  const counts = dl.zeros([4], { dtype: 'uint8' });
  const total: dl.Tensor<'int64'> = await counts.sum({ async: true });
  const rows: dl.Tensor<'float32'> = await x.sum(1, { keepdim: true, async: true });
  const wide: dl.Tensor<'float64'> = await dl.mean(x, [0, 1], { dtype: 'float64', async: true });
  const top: dl.Tensor<'float32'> = await dl.amax(x, 0, { async: true, out: dl.zeros([3]) });
  const whole: dl.Tensor<'float32'> = await x.max({ async: true });
  const { values, indices }: dl.ValuesIndices<'float32'> = await x.min(1, { async: true });
  const at: dl.Tensor<'int64'> = await dl.argmax(x, null, { async: true });
  const p: dl.Tensor<'float32'> = await x.softmax(-1, { async: true });
  const lp: dl.Tensor<'float64'> = await dl.logSoftmax(x, 1, { dtype: 'float64', async: true });
  const best: dl.ValuesIndices<'float32'> = await x.topk(2, { largest: false, async: true });
  const sync: dl.Tensor<'float32'> = x.softmax(-1, { async: false });
  const copied: dl.Tensor<'float32'> = await dl.zeros([2, 3]).copyFrom(x, { async: true });
  const cloned: dl.Tensor<'float32'> = await x.clone({ async: true });
  const dense: dl.Tensor<'float32'> = await x.transpose(0, 1).contiguous({ async: true });
  const now: dl.Tensor<'float32'> = x.clone({ stream: 1, async: false });
  // `stream` on every reduction (docs/API.md "Reductions").
  const s = new dl.cuda.Stream();
  const onStream: dl.Tensor<'int64'> = await counts.sum(0, { stream: s, async: true });
  const peakOn: dl.ValuesIndices<'float32'> = x.max(1, { stream: 2 });
  const pOn: dl.Tensor<'float32'> = x.softmax(-1, { stream: 1n });
  const bestOn: dl.ValuesIndices<'float32'> = x.topk(2, { stream: -1, largest: false });
  const atOn: dl.Tensor<'int64'> = x.argmax({ stream: s });
  void [total, rows, wide, top, whole, values, indices, at, p, lp, best, sync, copied, cloned, dense, now, onStream,
    peakOn, pOn, bestOn, atOn];
}
void asyncReductions;
// Reductions (docs/API.md "Reductions").
{
  const logits = dl.zeros([2, 10]);
  const counts = dl.tensor([1, 2, 3], { dtype: 'uint8' });
  const total: dl.Tensor<'int64'> = counts.sum();
  const rows: dl.Tensor<'float32'> = logits.sum([0, -1], { keepdim: true });
  const asDouble: dl.Tensor<'float64'> = counts.mean(0, { dtype: 'float64' });
  const peak: dl.Tensor<'float32'> = logits.amax(-1);
  const { values, indices }: dl.ValuesIndices<'float32'> = logits.max(1, { keepdim: true });
  const best: dl.Tensor<'int64'> = dl.argmax(logits, 1);
  const flatBest: dl.Tensor<'int64'> = logits.argmax();
  const probs: dl.Tensor<'float32'> = dl.softmax(logits, -1, { out: dl.empty([2, 10]) });
  const logProbs: dl.Tensor<'float64'> = counts.logSoftmax(0, { dtype: 'float64' });
  const top = probs.topk(5, -1, { largest: true, sorted: true });
  const topIndices: dl.Tensor<'int64'> = top.indices;
  const all: dl.Tensor<'float32'> = dl.sum(logits, null, { out: dl.zeros([]) });
  void [total, rows, asDouble, peak, values, indices, best, flatBest, logProbs, topIndices, all];
}
// Creating and filling (docs/API.md "Creating tensors").
{
  const a: dl.Tensor<'float32'> = dl.ones([2, 3]);
  const b: dl.Tensor<'uint8'> = dl.ones([2], { dtype: 'uint8' });
  const c: dl.Tensor<'float32'> = dl.full([2], 0.5);
  const d: dl.Tensor<'bool'> = dl.full(4, true);
  const e: dl.Tensor<'int64'> = dl.full([1], 7n, { device: 'cpu' });
  const f: dl.Tensor<'complex64'> = dl.full([2], [1, 2], { dtype: 'complex64' });
  const g: dl.Tensor<'float32'> = dl.arange(10);
  const h: dl.Tensor<'int64'> = dl.arange(0n, 10n, 2n);
  const i: dl.Tensor<'int32'> = dl.arange(0, 10, 3, { dtype: 'int32' });
  const j: dl.Tensor<'float64'> = dl.arange(1, 2, { dtype: 'float64' });
  const k: dl.Tensor<'float32'> = a.fill_(2).zero_();
  const filled: Promise<dl.Tensor<'float32'>> = a.fill_(3, { async: true });
  const l: dl.Tensor<'uint8'> = dl.zerosLike(b);
  const m: dl.Tensor<'float64'> = dl.onesLike(b, { dtype: 'float64' });
  const n: dl.Tensor<'int32'> = dl.fullLike(i, 2.5);
  const o: dl.Tensor<'float32'> = dl.emptyLike(a, { device: 'cpu' });
  void [b, c, d, e, f, g, h, i, j, k, filled, l, m, n, o];
}

// Apache Arrow and Ray (docs/arrow.md).
async function arrow(): Promise<void> {
  const batch = dl.zeros([8, 3, 4, 4]);
  const vector: dl.ArrowVector = batch.toArrow({ name: 'x', dimNames: ['C', 'H', 'W'], extension: true });
  const table: dl.ArrowTable = dl.toArrowTable({ x: batch, y: vector });
  const chunks: Uint8Array[] = dl.toArrowIPCChunks(table, { format: 'file' });
  const back: dl.Tensor = dl.fromArrow(table, { column: 'x', copy: false, shape: [3, 4, 4] });
  const read: dl.Tensor = dl.fromArrowIPC(chunks[0], { column: 0 });
  const ray: dl.RayClient = await dl.ray.connect({ numCpus: 1, objectStoreMemory: 1 << 27, python: 'python3' });
  const ref: dl.RayRef = await ray.put(batch);
  const out: dl.RayRef = await ray.call('tasks:infer', ref, 0.5);
  const result = await ray.get<dl.Tensor>(out);
  const stats: { refs: number; objectStoreBytes: number } = await ray.stats();
  await ray.release(ref, out);
  const code: number | null = await ray.close();
  void [back, read, result, stats, code, ref.id];
}
void arrow;

// Linear algebra, statistics and norms (docs/API.md "Linear algebra", "Statistics and norms").
async function linalg(): Promise<void> {
  const a: dl.Tensor<'float32'> = dl.ones([2, 3]);
  const b: dl.Tensor<'float32'> = dl.ones([3, 4]);
  const p: dl.Tensor<'float32'> = dl.matmul(a, b);
  const q: dl.Tensor<'float32'> = await dl.matmul(a, b, { async: true });
  const r: dl.Tensor<'float32'> = a.matmul(b, { out: dl.empty([2, 4]) });
  const s: dl.Tensor<'float32'> = dl.linear(a, dl.ones([5, 3]), dl.ones([5]));
  const v: dl.Tensor<'float32'> = dl.var(a, 1, { correction: 0, keepdim: true });
  const w: dl.Tensor<'float32'> = a.std(-1);
  const [sd, mean]: [dl.Tensor<'float32'>, dl.Tensor<'float32'>] = dl.stdMean(a, [0, 1]);
  const [va, mu] = await dl.varMean(a, 0, { async: true });
  const n: dl.Tensor<'float32'> = dl.vectorNorm(a, Infinity, -1, { keepdim: true });
  const l: dl.Tensor<'float32'> = dl.layerNorm(a, [3], dl.ones([3]), null, 1e-5);
  const c: dl.Tensor<'float32'> = dl.cosineSimilarity(a, a, -1);
  const e: dl.Tensor<'float32'> = await dl.lpNormalize(a, 2, -1, 1e-12, { async: true });
  void [p, q, r, s, v, w, sd, mean, va, mu, n, l, c, e, dl.mm(a, b), dl.bmm(dl.ones([1, 2, 3]), dl.ones([1, 3, 2]))];
}
void linalg;
// issue 40: sorting and scans, indexing, random numbers, vision
{
  const x = dl.tensor([3, 1, 2]);
  const s: dl.ValuesIndices<'float32'> = dl.sort(x, { descending: true });
  const s2: dl.ValuesIndices<'float32'> = x.sort(0, { stable: true });
  const order: dl.Tensor<'int64'> = x.argsort();
  const pair: [dl.Tensor<'float32'>, dl.Tensor<'int64'>] = [dl.empty([3]), dl.empty([3], { dtype: 'int64' })];
  const so: dl.ValuesIndices<'float32'> = dl.sort(x, 0, { descending: true, out: pair });
  const so2: dl.ValuesIndices<'float32'> = x.sort({ out: pair });
  const ao: dl.Tensor<'int64'> = dl.argsort(x, { out: pair[1] });
  const ao2: dl.Tensor<'int64'> = x.argsort(0, { stable: true, out: pair[1] });
  const c: dl.Tensor<'float32'> = x.cumsum(0);
  const ci: dl.Tensor<'int64'> = dl.cumsum(dl.tensor([1, 2], { dtype: 'int32' }), 0);
  const cd: dl.Tensor<'float64'> = dl.cumprod(x, 0, { dtype: 'float64' });
  const idx = dl.tensor([0, 2], { dtype: 'int64' });
  const g: dl.Tensor<'float32'> = dl.gather(x, 0, idx);
  const sel: dl.Tensor<'float32'> = x.indexSelect(0, idx, { out: dl.empty([2]) });
  const tk: dl.Tensor<'float32'> = dl.take(x, idx);
  const nz: dl.Tensor<'int64'> = x.nonzero();
  const cols: dl.Tensor<'int64'>[] = dl.where(dl.gt(x, 1));
  const filled: dl.Tensor<'float32'> = dl.maskedFill(x, dl.gt(x, 1), 0);
  const same: dl.Tensor<'float32'> = x.maskedFill_(dl.gt(x, 1), 0);
  const gen: dl.Generator = new dl.Generator().manualSeed(1);
  dl.manualSeed(2n);
  const r: dl.Tensor<'float64'> = dl.rand([2, 3], { dtype: 'float64', generator: gen });
  const n: dl.Tensor<'float32'> = dl.randn(4);
  const ri: dl.Tensor<'int64'> = dl.randint(0, 10, [3]);
  const m: dl.Tensor<'int64'> = dl.multinomial(dl.softmax(x, 0), 2, { replacement: true, generator: gen });
  const keep: dl.Tensor<'int64'> = dl.ops.nms(dl.zeros([2, 4]), dl.zeros([2]), 0.5);
  const iou: dl.Tensor<'float64'> = dl.ops.boxIou(dl.zeros([2, 4], { dtype: 'float64' }), dl.zeros([1, 4], { dtype: 'float64' }));
  const up: dl.Tensor<'float32'> = dl.interpolate(dl.zeros([1, 3, 4, 4]), { scaleFactor: 2, mode: 'bilinear', alignCorners: true });
  void [s, s2, order, so, so2, ao, ao2, c, ci, cd, g, sel, tk, nz, cols, filled, same, r, n, ri, m, keep, iou, up, gen.initialSeed()];
}
