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
declare const memory: dl.WasmMemory; // a WebAssembly.Memory
const wasmView: Int32Array = dl.wasm.view(memory, { ptr: 0, dtype: 'int32', shape: [4] }).data;
void [opened, wasmView];
void [view, bigs, shape, device, nested, code, version, available];
