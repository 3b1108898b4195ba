"""'cuda-ipc' descriptors: CUDA device memory a Node process shared.

The Node side (src/core/cuda_ipc.h) gives the 64-byte handle of a whole
cudaMalloc allocation and a ticket (FORMAT.md "Tickets") whose slots count
the processes that mapped the allocation. The exporter frees it only once no
other process holds a slot. This process maps a handle once (CuPy's
ipcOpenMemHandle) while holding a slot, checks the allocation is as large as
the descriptor says (where the driver can tell), and closes the mapping before
giving the slot up, when the last array over it is collected.
"""
import ctypes
import re
import weakref

from . import _dtypes, _segment
from ._errors import expected

VERSION = 2
_HANDLE = re.compile(r'[0-9a-f]{128}\Z')
_DEVICE = re.compile(r'cuda:(\d+)\Z')

# ticket -> this process's mapping, while some array uses it.
_mappings = weakref.WeakValueDictionary()


def _cupy():
    try:
        import cupy
    except ImportError as error:
        raise ImportError("'cuda-ipc' descriptors need CuPy, which could not be imported") from error
    return cupy


def parse(d):
    """The handle bytes, ticket and device index of a 'cuda-ipc' descriptor."""
    if not isinstance(d.get('version'), int) or d['version'] != VERSION:
        raise ValueError(expected('descriptor.version', VERSION, d.get('version')))
    handle = d.get('handle')
    if not isinstance(handle, str) or not _HANDLE.match(handle):
        raise ValueError(expected('descriptor.handle', '128 lowercase hex digits (a cudaIpcMemHandle_t)', handle))
    ticket = d.get('ticket')
    _segment.check_name('descriptor.ticket', ticket)
    pid, fd = _segment.check_place(d)
    device = d.get('device')
    match = _DEVICE.match(device) if isinstance(device, str) else None
    if match is None:
        raise ValueError(expected('descriptor.device', "a 'cuda:N' device", device))
    return bytes.fromhex(handle), (ticket, pid, fd), int(match.group(1))


def _allocation_size(ptr):
    """Bytes from `ptr` to the end of its allocation (cuMemGetAddressRange), or None where the driver cannot say."""
    try:
        driver = ctypes.CDLL('libcuda.so.1')
        get = driver.cuMemGetAddressRange_v2
    except (OSError, AttributeError):
        return None
    get.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_size_t), ctypes.c_uint64]
    get.restype = ctypes.c_int
    base, size = ctypes.c_uint64(0), ctypes.c_size_t(0)
    if get(ctypes.byref(base), ctypes.byref(size), ctypes.c_uint64(ptr)) != 0:
        return None
    return size.value - (ptr - base.value)


class _Mapping:
    """One mapping of another process's allocation, owner of the CuPy memory over it."""

    __slots__ = ('ptr', 'size', 'device', 'handle', '__weakref__')

    def __init__(self, cupy, handle, ticket, device, size):
        slot = _segment.Ticket(*ticket, handle)  # refuses a ticket of another allocation
        try:
            with cupy.cuda.Device(device):
                self.ptr = cupy.cuda.runtime.ipcOpenMemHandle(handle)
                # Node checks the same way (src/core/cuda_ipc.cc AllocationSize).
                mapped = _allocation_size(self.ptr)
                if mapped is not None and mapped < size:
                    cupy.cuda.runtime.ipcCloseMemHandle(self.ptr)
                    raise _too_small(mapped, size)
        except BaseException:
            slot.detach()
            raise
        self.size = size
        self.device = device
        self.handle = handle
        weakref.finalize(self, _close, cupy, self.ptr, device, slot)


def _too_small(holds, says):
    return ValueError(f'The shared CUDA allocation holds {holds} bytes, fewer than the {says} the descriptor says')


def _close(cupy, ptr, device, slot):
    """Unmaps, then gives up the slot: the exporter may free once no slot is left."""
    try:
        with cupy.cuda.Device(device):
            cupy.cuda.runtime.ipcCloseMemHandle(ptr)
    finally:
        slot.detach()


def open_array(source, data_size, name, shape, strides, byte_offset, like):
    """A CuPy array (like='cupy') or a torch tensor (like='torch') over the shared memory.

    `source` is what parse() returned for the descriptor.
    """
    handle, ticket, device = source
    cupy = _cupy()
    torch = None
    if like == 'torch':
        import torch
        _dtypes.torch_dtype(torch, name, 'descriptor.dtype')
        if any(s < 0 for s in strides):
            raise ValueError(expected('descriptor.strides', "non-negative strides for like='torch'", strides))
        dtype = _dtypes.carrier_dtype(name)
    else:
        dtype = _dtypes.numpy_dtype(name, 'descriptor.dtype')
    mapping = _mappings.get(ticket[0])
    if mapping is None:
        mapping = _Mapping(cupy, handle, ticket, device, data_size)
        _mappings[ticket[0]] = mapping
    elif mapping.handle != handle:
        raise ValueError(f"Ticket '{ticket[0]}' belongs to another CUDA allocation than the descriptor's `handle` "
                         'names')
    elif mapping.size < data_size:  # as Node checks a mapping it reuses
        raise _too_small(mapping.size, data_size)
    memory = cupy.cuda.UnownedMemory(mapping.ptr, mapping.size, mapping, device_id=device)
    itemsize = _dtypes.ITEMSIZE[name]
    with cupy.cuda.Device(device):
        array = cupy.ndarray(tuple(shape), dtype=dtype, memptr=cupy.cuda.MemoryPointer(memory, byte_offset),
                             strides=tuple(s * itemsize for s in strides))
    if torch is None:
        return array
    tensor = torch.as_tensor(array, device=f'cuda:{device}')  # __cuda_array_interface__: no copy
    return tensor.view(torch.bfloat16) if name == 'bfloat16' else tensor
