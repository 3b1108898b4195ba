'use strict';
// The DLPack peers test/peers.test.js runs in process, and what each one does,
// pinned to the version CI installs (scripts/peers-requirements.txt for the
// modern ones, Debian 12's python3-numpy and python3-torch for the legacy
// ones). docs/python.md "Peers" is this table in prose; the test checks the
// two agree. Where a peer deviates from the DLPack Python specification, the
// entry says so and cites its version: a newer release that changes it fails
// its check, which then names what to update.

const ALL = ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
  'float16', 'bfloat16', 'float32', 'float64', 'complex64', 'complex128'];
const without = (...names) => ALL.filter((d) => !names.includes(d));
const KEYWORDS = ['stream', 'max_version', 'dl_device', 'copy'];

// Each peer:
//   label, python ('venv': scripts/peers-venv.sh; 'system': /usr/bin/python3), version
//   consumer: its from_dlpack, as docs/python.md names it
//   request: the keywords that from_dlpack passes to a CPU producer's __dlpack__
//   copyKeyword: from_dlpack(x, copy=...) exists
//   device: the CPU as its from_dlpack(x, device=...) takes it (null: no such keyword), and
//   deviceAsks: whether it then asks __dlpack__ with dl_device=(1, 0)
//   capsule: what its from_dlpack does with a bare capsule, versioned and legacy:
//     true (imports it) or a pattern of the error it raises
//   readOnly: what it makes of our READ_ONLY struct: 'read-only', 'writable'
//     (the flag dropped), or 'refused' (it asks for a legacy struct, which cannot
//     say read-only, so our export refuses: BufferError)
//   copy: from_dlpack(ours, copy=True): 'asks' (passes copy=True: we copy and set
//     IS_COPIED), or 'shares' (a peer bug: the same memory)
//   consumes: our dtypes it reads as themselves; consumeOther: what it does with
//     the rest ({ dtype: pattern of the error, or { as: 'its dtype' } })
//   importsWritable: what it makes of our writable struct can be written
//   emptyDeleted: it calls the deleter of an empty tensor's struct (data NULL, as DLPack asks)
//   views: our views { transposed, stepped, reversed }: 'reads', a pattern of the
//     error it raises, 'aborts' (the process dies: run alone), or 'misreads'
//   maxDims: the most dimensions it reads (ours go to 64); overDims: the error past it
//   align: the alignment its zero-copy import needs (a copy below it)
//   exports: its DLPack exports (the code in test/peers/peers.py) and the capsule each makes
//   keywords: the keywords its own __dlpack__ takes
//   produces: the dtypes it exports to us; produceOther: { dtype: pattern } it refuses
//     to export; writable: it can write its own tensors
//   readOnlyExport: whether its read-only arrays export with READ_ONLY
//   copiedFlag: its __dlpack__(max_version=(1, 0), copy=True) sets IS_COPIED
//   exportDims: the most dimensions of a tensor it makes and exports
//   exportViews: the views of its own it exports as views (peers.py `view`)
const PEERS = {
  numpy: {
    label: 'NumPy', python: 'venv', version: '2.4.6', consumer: 'numpy.from_dlpack',
    request: { dl_device: null, copy: null, max_version: [1, 0] }, copyKeyword: true,
    device: "'cpu'", deviceAsks: true,
    capsule: { versioned: /has no attribute '__dlpack__'/, legacy: /has no attribute '__dlpack__'/ },
    readOnly: 'read-only', copy: 'asks',
    consumes: without('bfloat16'), consumeOther: { bfloat16: /Unsupported dtype in DLTensor/ },
    importsWritable: true, emptyDeleted: true,
    views: { transposed: 'reads', stepped: 'reads', reversed: 'reads' },
    maxDims: 64, align: 1,
    exports: { '__dlpack__(max_version=(1, 0))': 'versioned', '__dlpack__()': 'legacy' },
    keywords: KEYWORDS, produces: without('bfloat16'), writable: true, readOnlyExport: true, copiedFlag: true,
    exportDims: 64, exportViews: ['transposed', 'stepped', 'reversed'],
  },
  torch: {
    label: 'PyTorch', python: 'venv', version: '2.13.0+cpu', consumer: 'torch.from_dlpack',
    request: { max_version: [1, 0] }, copyKeyword: true, device: "'cpu'", deviceAsks: true,
    capsule: { versioned: true, legacy: true },
    // torch has no read-only tensors: 2.13 drops the flag.
    readOnly: 'writable', copy: 'asks',
    consumes: ALL, consumeOther: {}, importsWritable: true, emptyDeleted: true,
    // torch 2.13 (and 1.13) aborts on a negative stride: a c10::Error escapes
    // at::fromDLPack ("Storage size calculation overflowed"): std::terminate.
    views: { transposed: 'reads', stepped: 'reads', reversed: 'aborts' },
    maxDims: 64, align: 1,
    exports: {
      '__dlpack__(max_version=(1, 0))': 'versioned', '__dlpack__()': 'legacy',
      'torch.utils.dlpack.to_dlpack(x)': 'legacy',
    },
    // torch 2.13's __dlpack__(copy=True) copies but leaves IS_COPIED unset.
    keywords: KEYWORDS, produces: ALL, writable: true, readOnlyExport: false, copiedFlag: false,
    exportDims: 64, exportViews: ['transposed', 'stepped'],
  },
  jax: {
    label: 'JAX', python: 'venv', version: '0.10.2', consumer: 'jax.dlpack.from_dlpack',
    // jax 0.10.2 asks for a legacy struct (no max_version), so read-only memory cannot reach it.
    request: { stream: null }, copyKeyword: true, device: 'peer.jax.devices("cpu")[0]', deviceAsks: false,
    capsule: { versioned: /must have __dlpack__ and __dlpack_device__/, legacy: /must have __dlpack__ and __dlpack_device__/ },
    readOnly: 'refused',
    // jax 0.10.2 shares memory with copy=True when the data is aligned (it drops the
    // keyword after the import, jax/_src/dlpack.py), and passes no copy to __dlpack__.
    copy: 'shares',
    consumes: ALL, consumeOther: {}, importsWritable: false, emptyDeleted: true,
    // XLA takes only compact layouts (transpositions of a dense buffer).
    views: { transposed: 'reads', stepped: /Only DLPack tensors with trivial \(compact\) striding/,
      reversed: /Only DLPack tensors with trivial \(compact\) striding/ },
    maxDims: 64, align: 64, // XLA's CPU buffers: an unaligned import is a copy, refused with copy=False
    // jax 0.10.2's __dlpack__ makes a legacy capsule whatever max_version says.
    exports: { '__dlpack__(max_version=(1, 0))': 'legacy', '__dlpack__()': 'legacy' },
    keywords: KEYWORDS, produces: ALL, writable: false, readOnlyExport: false, copiedFlag: false,
    exportDims: 64, exportViews: [], // its arrays are always dense
  },
  paddle: {
    label: 'Paddle', python: 'venv', version: '3.3.1', consumer: 'paddle.utils.dlpack.from_dlpack',
    request: { max_version: [1, 2] }, copyKeyword: true, device: "'cpu'", deviceAsks: true,
    capsule: { versioned: true, legacy: true },
    readOnly: 'writable', copy: 'asks',
    // Paddle 3.3.1 takes DLPack uint16 for its bfloat16 (its UINT16 is bfloat16's old name).
    consumes: without('uint16'), consumeOther: { uint16: { as: 'bfloat16' } },
    importsWritable: true, emptyDeleted: true,
    // Paddle 3.3.1 ignores a negative stride's sign and reads other memory: never run.
    views: { transposed: 'reads', stepped: 'reads', reversed: 'misreads' },
    maxDims: 9, overDims: /only supports access to dimension 0 to 9/, align: 1,
    exports: {
      '__dlpack__(max_version=(1, 0))': 'versioned', '__dlpack__()': 'legacy',
      'paddle.utils.dlpack.to_dlpack(x)': 'legacy',
    },
    // Paddle makes no uint16/32/64 tensor of its own (uint16 is bfloat16 there).
    keywords: KEYWORDS, produces: without('uint16', 'uint32', 'uint64'), writable: true, readOnlyExport: false,
    copiedFlag: true, exportDims: 9, exportViews: ['transposed', 'stepped'],
  },
  'legacy-numpy': {
    label: 'NumPy', python: 'system', version: '1.24.2', consumer: 'numpy.from_dlpack', adapter: 'numpy',
    request: {}, copyKeyword: false, device: null,
    capsule: { versioned: /has no attribute '__dlpack__'/, legacy: /has no attribute '__dlpack__'/ },
    readOnly: 'refused', copy: null,
    consumes: without('bool', 'bfloat16'),
    consumeOther: { bool: /Unsupported dtype in DLTensor/, bfloat16: /Unsupported dtype in DLTensor/ },
    // NumPy 1.24 makes every import read-only: a legacy struct cannot say whether it may be written.
    importsWritable: false, emptyDeleted: true,
    views: { transposed: 'reads', stepped: 'reads', reversed: 'reads' },
    maxDims: 32, overDims: /maxdims of DLPack tensor is higher than the supported maxdims/, align: 1,
    exports: { '__dlpack__()': 'legacy' },
    keywords: ['stream'], produces: without('bool', 'bfloat16'),
    produceOther: { bool: /BufferError: DLPack only supports signed\/unsigned integers, float and complex dtypes/ },
    writable: true, readOnlyExport: false, copiedFlag: false, exportDims: 32, exportViews: ['transposed', 'stepped', 'reversed'],
  },
  'legacy-torch': {
    label: 'PyTorch', python: 'system', version: '1.13.0a0', consumer: 'torch.from_dlpack', adapter: 'torch',
    request: {}, copyKeyword: false, device: null,
    capsule: { versioned: /from_dlpack received an invalid capsule/, legacy: true },
    readOnly: 'refused', copy: null,
    consumes: without('bool', 'uint16', 'uint32', 'uint64'),
    consumeOther: { bool: /Unsupported code 6/, uint16: /Unsupported kUInt bits 16/,
      uint32: /Unsupported kUInt bits 32/, uint64: /Unsupported kUInt bits 64/ },
    // torch 1.13 never calls the deleter of a struct whose data is NULL (an empty
    // tensor's, as DLPack asks): that struct and the memory it holds are never freed.
    importsWritable: true, emptyDeleted: false,
    views: { transposed: 'reads', stepped: 'reads', reversed: 'aborts' },
    maxDims: 64, align: 1,
    exports: { '__dlpack__()': 'legacy', 'torch.utils.dlpack.to_dlpack(x)': 'legacy' },
    keywords: ['stream'], produces: without('bool', 'uint16', 'uint32', 'uint64'),
    produceOther: { bool: /RuntimeError: Bool type is not supported by dlpack/ }, writable: true, readOnlyExport: false,
    copiedFlag: false, exportDims: 64, exportViews: ['transposed', 'stepped'],
  },
};

for (const [name, peer] of Object.entries(PEERS)) {
  peer.name = name;
  peer.adapter = peer.adapter || name;
  peer.modern = peer.python === 'venv';
}

module.exports = { PEERS, ALL_DTYPES: ALL, KEYWORDS };
