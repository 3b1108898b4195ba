// Compiled with `tsc --noEmit` (npm run typecheck): every line marked
// `@ts-expect-error` must NOT compile. If lib/index.d.ts loosens and one of
// them compiles, tsc reports the directive as unused and the check fails.
// The runtime errors these misuses get are in the README's "Bad input" table.
import * as dl from 'dlpack';

declare const ab: ArrayBuffer;
declare const sab: SharedArrayBuffer;
declare const memory: dl.WasmMemory;
declare const t: dl.Tensor<'float32'>;
declare const capsule: dl.DLPackCapsule;
declare const pointer: bigint;
declare const descriptor: dl.ShareDescriptor;
const layout: dl.SharedLayout = { byteOffset: 0, dtype: 'int32', shape: [4], strides: [1], readOnly: false };

// --- dtype names ---
// @ts-expect-error not a dtype
dl.fromBuffer(ab, { dtype: 'float8' });
// @ts-expect-error dtype names are lower case
dl.zeros([2], { dtype: 'Float32' });
// @ts-expect-error not a dtype
dl.tensor([1], { dtype: 'double' });
// @ts-expect-error not a dtype
dl.wasm.view(memory, { ptr: 0, dtype: 'f32', shape: [1] });
// @ts-expect-error a dtype is a name or a dl.dtypes entry, not a code
dl.empty([1], { dtype: 2 });
// @ts-expect-error the entry of another dtype than the name says
const wrongEntry: dl.DType<'int8'> = dl.dtypes.uint8;

// --- required arguments and options ---
// @ts-expect-error fromBuffer needs options with a dtype
dl.fromBuffer(ab);
// @ts-expect-error dtype is required
dl.fromBuffer(ab, { count: 4 });
// @ts-expect-error `versioned` has no default
dl.DLPackCapsule.fromPointer(pointer);
// @ts-expect-error `versioned` has no default
dl.DLPackCapsule.fromPointer(pointer, {});
// @ts-expect-error wasm.view needs ptr
dl.wasm.view(memory, { dtype: 'int32', shape: [1] });
// @ts-expect-error dl.open needs a descriptor
dl.open();

// --- wrong argument and option types ---
// @ts-expect-error a string is not a buffer
dl.fromBuffer('abc', { dtype: 'uint8' });
// @ts-expect-error an array is not a buffer (use dl.tensor)
dl.fromBuffer([1, 2], { dtype: 'uint8' });
// @ts-expect-error offset is a number of bytes
dl.fromBuffer(ab, { dtype: 'uint8', offset: '4' });
// @ts-expect-error count is a number
dl.fromBuffer(ab, { dtype: 'uint8', count: 2n });
// @ts-expect-error shape is an array
dl.fromBuffer(ab, { dtype: 'uint8', shape: '2,2' });
// @ts-expect-error shape holds numbers
dl.zeros(['2']);
// @ts-expect-error shared is a boolean
dl.empty([1], { shared: 'yes' });
// @ts-expect-error not a device
dl.empty([1], { device: 'tpu' });
// @ts-expect-error not a device
dl.zeros([1], { device: 'gpu:0' });
// @ts-expect-error a CUDA index is a number
dl.zeros([1], { device: 'cuda:x' });
// @ts-expect-error a string is not tensor values
dl.tensor('abc');
// @ts-expect-error nor are strings inside arrays
dl.tensor(['1', '2']);
// @ts-expect-error nor plain objects
dl.tensor({ a: 1 });
// @ts-expect-error raw bytes go through dl.fromBuffer
dl.tensor(ab);
// @ts-expect-error nor a DataView
dl.tensor(new DataView(ab));
// @ts-expect-error not a device
t.to('gpu');
// @ts-expect-error a stream is a number, bigint or cuda.Stream
t.to('cuda', { stream: 'default' });
// @ts-expect-error clone() takes copy options, not a device
t.clone('cuda');
// @ts-expect-error a copy's stream is a number, bigint or cuda.Stream
t.copyFrom(t, { stream: 'default' });
// @ts-expect-error an index is a number
t.cuda('0');
// @ts-expect-error reshape takes numbers
t.reshape(['2', '2']);
// @ts-expect-error a string is not values
t.copyFrom('ab');
// @ts-expect-error maxVersion is [major, minor]
t.__dlpack__({ maxVersion: [1] });
// @ts-expect-error maxVersion is [major, minor]
t.__dlpack__({ maxVersion: '1.3' });
// @ts-expect-error dlDevice is [deviceType, index]
t.__dlpack__({ dlDevice: 'cpu' });
// @ts-expect-error copy is a boolean
t.__dlpack__({ copy: 'never' });
// @ts-expect-error stream is a number, bigint or cuda.Stream
t.__dlpack__({ stream: 'legacy' });
// @ts-expect-error not an option of __dlpack__
t.__dlpack__({ device: 'cpu' });
// @ts-expect-error copy is a boolean
dl.fromDLPack(capsule, { copy: 1 });
// @ts-expect-error not a device
dl.fromDLPack(capsule, { device: 'tpu' });
// @ts-expect-error not a capsule or producer
dl.fromDLPack({});
// @ts-expect-error a producer's __dlpack__ returns a capsule
dl.fromDLPack({ __dlpack__: () => 5 });
// @ts-expect-error toDLPack takes a tensor of this library
dl.toDLPack({ __dlpack__: () => capsule });
// @ts-expect-error a pointer is a bigint
dl.DLPackCapsule.fromPointer(4096, { versioned: true });
// @ts-expect-error versioned is a boolean
dl.DLPackCapsule.fromPointer(pointer, { versioned: 1 });
// @ts-expect-error ptr is a number
dl.wasm.view(memory, { ptr: 0n, dtype: 'int32', shape: [1] });
// @ts-expect-error an index is a number
dl.cuda.synchronize('0');
// @ts-expect-error an index is a number
new dl.cuda.Stream('1');
// @ts-expect-error not an error code
new dl.DLPackError('boom', 'ERR_NOPE');

// --- descriptors ---
// @ts-expect-error not a descriptor kind
dl.open({ ...descriptor, kind: 'nfs' });
// @ts-expect-error an 'shm' descriptor names its segment
dl.open({ ...layout, kind: 'shm', version: 2, pid: 1, fd: 3, dataSize: 16 });
// @ts-expect-error an 'shm' descriptor says where the segment is open
dl.open({ ...layout, kind: 'shm', version: 2, name: 'dlpack-0', dataSize: 16 });
// @ts-expect-error a 'sab' descriptor carries a SharedArrayBuffer
dl.open({ ...layout, kind: 'sab', buffer: ab });
// @ts-expect-error only version 2 exists
dl.open({ ...layout, kind: 'shm', version: 1, name: 'dlpack-0', pid: 1, fd: 3, dataSize: 16 });
// @ts-expect-error descriptor dtypes are names
dl.open({ ...layout, kind: 'sab', buffer: sab, dtype: 'f4' });
if (descriptor.kind === 'sab') {
  // @ts-expect-error a 'sab' descriptor has no segment name
  void descriptor.name;
}
// @ts-expect-error a 'cuda-ipc' descriptor names its ticket segment
dl.open({ ...layout, kind: 'cuda-ipc', version: 2, handle: 'ab', pid: 1, fd: 3, device: 'cuda:0', dataSize: 16 });
// @ts-expect-error a 'cuda-ipc' handle is a hex string, not bytes
dl.open({ ...layout, kind: 'cuda-ipc', version: 2, handle: new Uint8Array(64), ticket: 'dlpack-0', pid: 1, fd: 3,
  device: 'cuda:0', dataSize: 16 });
if (descriptor.kind === 'local') {
  // @ts-expect-error a 'local' id is a string
  const id: number = descriptor.id;
  void id;
}

// --- read-only properties and frozen objects ---
// @ts-expect-error read-only
t.shape = [4];
// @ts-expect-error frozen: no push
t.shape.push(1);
// @ts-expect-error frozen
t.strides[0] = 2;
// @ts-expect-error read-only
t.dtype = 'float32';
// @ts-expect-error read-only
t.data = new Float32Array(4);
// @ts-expect-error read-only
t.disposed = true;
// @ts-expect-error read-only
t.readOnly = false;
// @ts-expect-error read-only
t.device.index = 1;
// @ts-expect-error read-only
capsule.consumed = false;
// @ts-expect-error read-only
capsule.version.major = 0;
// @ts-expect-error frozen
dl.dtypes.float32 = dl.dtypes.float64;
// @ts-expect-error frozen
dl.dtypes.float32.itemSize = 8;
// @ts-expect-error frozen
dl.dlpackVersion.minor = 0;

// --- constructors and what is not exported ---
// @ts-expect-error tensors come from fromBuffer, empty, zeros, tensor, fromDLPack
new dl.Tensor();
// @ts-expect-error capsules come from __dlpack__ and fromPointer
new dl.DLPackCapsule();
// @ts-expect-error devices are written as strings
new dl.Device('cpu', 0);
// @ts-expect-error the stream class is dl.cuda.Stream; there is no dl.CudaStream value
void dl.CudaStream;

// --- what the types infer ---
// @ts-expect-error tensor(Float64Array) is float64
const inferred: Float32Array = dl.tensor(new Float64Array(2)).data;
// @ts-expect-error int8 data is an Int8Array
const int8View: Float32Array = dl.zeros([2], { dtype: 'int8' }).data;
// @ts-expect-error int64 elements are bigints
const int64Elements: number[] = dl.tensor([1, 2], { dtype: 'int64' }).toArray() as number[];
// @ts-expect-error an import of a float32 tensor is float32
const imported: dl.Tensor<'int32'> = dl.fromDLPack(t);
// @ts-expect-error a dtype entry's name is its dtype
const entryName: 'int8' = dl.dtypes.uint8.name;

void [wrongEntry, inferred, int8View, int64Elements, imported, entryName];

// Python workers: the script is a path, the options are the documented ones.
// @ts-expect-error the script is a string
dl.python.spawn(['model.py']);
// @ts-expect-error stderr is 'inherit', 'pipe' or 'ignore'
dl.python.spawn('model.py', { stderr: 'stdout' });
// @ts-expect-error a call resolves with what Python can return, not any type
void (null as unknown as dl.PythonWorker).call<Date>('f');
// @ts-expect-error workers come from dl.python.spawn
new dl.python.PythonWorker();
// --- views, conversion, batching (docs/API.md "Views", "Conversion", "Batching") ---
{
  const u8 = dl.zeros([2, 3], { dtype: 'uint8' });
  // @ts-expect-error to('float32') is a float32 tensor
  const notU8: dl.Tensor<'uint8'> = u8.to('float32');
  // @ts-expect-error views keep the dtype
  const notF32: dl.Tensor<'float32'> = u8.permute(1, 0);
  // @ts-expect-error 'float8' is no dtype or device
  u8.to('float8');
  // @ts-expect-error transpose takes two dims
  u8.transpose(0);
  // @ts-expect-error item() of uint8 is a number
  const itemBig: bigint = u8.item();
  // @ts-expect-error cat takes an array of tensors
  dl.cat(u8, 0);
  // @ts-expect-error out is a tensor
  dl.stack([u8], 0, { out: [1, 2] });
  // @ts-expect-error topk's k is a number
  u8.topk('3');
  // @ts-expect-error max(dim) takes one dim, not a list
  u8.max([0, 1]);
  // @ts-expect-error keepdim is a boolean
  u8.sum(0, { keepdim: 1 });
  // @ts-expect-error softmax needs a dim
  dl.softmax(u8);
  // @ts-expect-error matmul's operands are floating-point tensors
  dl.matmul(u8, u8);
  // @ts-expect-error varMean takes no out
  dl.varMean(dl.ones([2]), 0, { out: dl.ones([1]) });
  // @ts-expect-error strides are numbers
  dl.fromBuffer(new Uint8Array(4), { dtype: 'uint8', shape: [4], strides: ['1'] });
  void [notU8, notF32, itemBig];
}
// @ts-expect-error the async form is a Promise, not a tensor
const notNow: dl.Tensor = dl.zeros([2]).sum(0, { async: true });
void notNow;
// @ts-expect-error an async clone takes no stream (a CUDA copy is asynchronous on its stream already)
void dl.zeros([2]).clone({ async: true, stream: 2 });
// @ts-expect-error full takes a value, not an array of values
dl.full([2], [1, 2, 3]);
// @ts-expect-error arange takes numbers or bigints
dl.arange('10');
// @ts-expect-error fill_ takes one value
dl.zeros([2]).fill_('1');
// @ts-expect-error the *Like forms take a tensor
dl.zerosLike([1, 2]);

// Arrow and Ray misuse.
// @ts-expect-error toArrow's format is not an option of its own
dl.zeros([2, 2]).toArrow({ format: 'file' });
// @ts-expect-error the IPC format is 'stream' or 'file'
dl.toArrowIPCChunks(dl.zeros([2, 2]), { format: 'feather' });
// @ts-expect-error fromArrow takes Arrow objects, not a typed array
dl.fromArrow(new Float32Array(4));
// @ts-expect-error numCpus is a number
void dl.ray.connect({ numCpus: '1' });
// @ts-expect-error a RayRef comes from a client
void new dl.ray.RayRef();

// @ts-expect-error a comparison gives a bool tensor, not one of its inputs' dtype
const notBool: dl.Tensor<'float32'> = dl.gt(dl.zeros([2]), 0);
void notBool;

// gelu's approximation is 'none' or 'tanh'.
// @ts-expect-error
dl.gelu(dl.zeros([2]), { approximate: 'erf' });
// issue 40
// @ts-expect-error sort's out is [values, indices], not one tensor
dl.sort(dl.zeros([2]), { out: dl.zeros([2]) });
// @ts-expect-error sort's indices out is int64
dl.sort(dl.zeros([2]), { out: [dl.zeros([2]), dl.zeros([2], { dtype: 'int32' })] });
// @ts-expect-error sort's values out has the input's dtype
dl.zeros([2]).sort({ out: [dl.zeros([2], { dtype: 'float64' }), dl.zeros([2], { dtype: 'int64' })] });
// @ts-expect-error argsort's out is one int64 tensor
dl.argsort(dl.zeros([2]), { out: [dl.zeros([2], { dtype: 'int64' })] });
// @ts-expect-error interpolate takes size or scaleFactor, not both
dl.interpolate(dl.zeros([1, 1, 2, 2]), { size: 4, scaleFactor: 2 });
// @ts-expect-error an index is an int64 or int32 tensor
dl.gather(dl.zeros([2]), 0, dl.zeros([2]));
// @ts-expect-error a mode interpolate does not have
dl.interpolate(dl.zeros([1, 1, 2, 2]), { size: 4, mode: 'bicubic' });
// @ts-expect-error a reduction's stream is a number, bigint or cuda.Stream
dl.zeros([2]).sum(0, { stream: 'default' });
