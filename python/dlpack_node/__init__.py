"""Shared-memory tensors exchanged with the `dlpack` Node.js package.

open() maps a segment a Node process (or another Python process) made and
shared, empty() makes one, share() describes one. The segment format and the
protocol are those of FORMAT.md next to this package.
"""
import json
import os
import sys
import warnings
import weakref

try:
    import numpy as np
except ImportError as _error:
    _message = (f'dlpack_node needs NumPy, which python {sys.version.split()[0]} ({sys.executable}) cannot import '
                f'({_error}): install it for this interpreter ({sys.executable} -m pip install numpy), or run the one '
                'that has it (DLPACK_PYTHON names it for dl.python.spawn and the examples)')
    # python -m dlpack_node, the documented install check, imports this
    # package before its __main__ runs: it reports, rather than a traceback.
    if sys.argv[:1] == ['-m']:
        sys.stdout.write(f'dlpack_node from {os.path.dirname(os.path.abspath(__file__))}\nnumpy: not available\n')
        sys.stderr.write(_message + '\n')
        sys.exit(1)
    raise ImportError(_message) from _error

from . import _cuda_ipc, _dtypes, _segment
from ._errors import PrivateMemoryError, SegmentGoneError, expected
from .arrow import from_arrow, to_arrow

__all__ = ['open', 'empty', 'share', 'release', 'to_arrow', 'from_arrow', 'SegmentGoneError', 'PrivateMemoryError',
           'DTYPES']

DTYPES = tuple(_dtypes.ITEMSIZE)
VERSION = 2
_LIKE = ('numpy', 'torch', 'cupy')
# NumPy's NPY_MAXDIMS: an array interface with more dimensions overruns its
# stack (NumPy 1.x reads 70 dimensions into 32 slots), so more are refused
# before anything is mapped.
MAX_DIMS = 64 if int(np.__version__.split('.')[0]) >= 2 else 32
# The most dimensions a descriptor may have (Node's limit, FORMAT.md).
_FORMAT_DIMS = 64

# Copies made by share(copy=True), by segment name, kept attached for the
# other side until release() (see share()).
_parked = {}


class _Holder:
    """The base object of every array over one attachment.

    NumPy keeps the object an array came from (through __array_interface__)
    as the array's base, every view keeps its base, and torch.from_numpy keeps
    the array: so the holder, and with it the attachment, lives exactly as
    long as some array or tensor over it. Its finalizer detaches.
    """

    __slots__ = ('__array_interface__', 'segment', '__weakref__')


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


_SAFE = 2**53 - 1  # Number.MAX_SAFE_INTEGER: the largest count, size, stride or offset a descriptor holds


def _is_safe(value):
    return _is_int(value) and -_SAFE <= value <= _SAFE


def _torch():
    try:
        import torch
    except ImportError as error:
        raise ImportError("like='torch' needs PyTorch, which could not be imported") from error
    return torch


def _check_like(like, allowed=_LIKE[:2]):
    if like not in allowed:
        raise ValueError(expected('like', ' or '.join(repr(a) for a in allowed), like))


def _extent(shape, strides, itemsize):
    """Byte offsets of the lowest element and one past the highest, from element 0; None when empty."""
    if any(n == 0 for n in shape):
        return None
    low = sum(s * (n - 1) for n, s in zip(shape, strides) if s < 0)
    high = sum(s * (n - 1) for n, s in zip(shape, strides) if s > 0)
    return low * itemsize, high * itemsize + itemsize


def _check_dims(name, shape, limit=MAX_DIMS):
    """Refuses more dimensions than NumPy takes before any array interface is built: NumPy 1.x reads
    a longer shape into its 32 stack slots (stack smashing) wherever an array is made over memory."""
    if len(shape) > limit:
        library = f'NumPy {np.__version__}' if limit == MAX_DIMS else 'the descriptor format'
        raise ValueError(expected(name, f'at most {limit} dimensions ({library})', f'{len(shape)} dimensions'))


def _contiguous(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return strides[::-1]


def _view(segment, name, shape, strides, byte_offset, read_only, like):
    """An array or tensor over `segment`, owning the attachment from now on."""
    holder = _Holder()
    holder.segment = segment
    detach = weakref.finalize(holder, segment.detach)
    try:
        itemsize = _dtypes.ITEMSIZE[name]
        numpy = like == 'numpy'
        dtype = _dtypes.numpy_dtype(name, 'dtype') if numpy else _dtypes.carrier_dtype(name)
        holder.__array_interface__ = {
            'version': 3,
            'shape': tuple(shape),
            'typestr': dtype.str,
            # torch has no read-only tensors, and warns on read-only arrays.
            'data': (segment.address + byte_offset, read_only and numpy),
            'strides': tuple(s * itemsize for s in strides),
        }
        array = np.asarray(holder)
        if numpy:
            return array
        torch = _torch()
        tensor = torch.from_numpy(array)
        if name == 'bfloat16':
            tensor = tensor.view(torch.bfloat16)
        if read_only:
            warnings.warn('The descriptor is read-only but torch tensors cannot be: do not write to this tensor',
                          stacklevel=3)
        return tensor
    except BaseException:
        detach()
        raise


def _parse(descriptor):
    """Checks a descriptor as the Node side's open() does.

    Returns its kind, its source (the segment name, pid and fd for 'shm'; the
    handle, ticket place and device index for 'cuda-ipc') and its layout.
    """
    if isinstance(descriptor, (str, bytes)):
        try:
            descriptor = json.loads(descriptor)
        except ValueError as error:
            raise ValueError('Expected a JSON share() descriptor for `descriptor`, '
                             f'received invalid JSON ({error})') from None
    if not isinstance(descriptor, dict):
        raise TypeError(expected('descriptor', 'a share() descriptor (dict or JSON string)', descriptor))
    d = descriptor
    kind = d.get('kind')
    if kind == 'cuda-ipc':
        source = _cuda_ipc.parse(d)
    elif kind != 'shm':
        raise ValueError(expected('descriptor.kind', "'shm' or 'cuda-ipc' (other kinds live in one Node process)",
                                  kind))
    else:
        if not _is_int(d.get('version')) or d['version'] != VERSION:
            raise ValueError(expected('descriptor.version', VERSION, d.get('version')))
        _segment.check_name('descriptor.name', d.get('name'))
        source = (d['name'], *_segment.check_place(d))
    data_size = d.get('dataSize')
    if not _is_safe(data_size) or data_size < 0:
        raise ValueError(expected('descriptor.dataSize', 'a non-negative integer', data_size))
    dtype = _dtypes.check_name(d.get('dtype'), 'descriptor.dtype')
    itemsize = _dtypes.ITEMSIZE[dtype]
    shape = d.get('shape')
    if not isinstance(shape, (list, tuple)) or not all(_is_safe(n) and n >= 0 for n in shape):
        raise ValueError(expected('descriptor.shape', 'a list of non-negative integers up to 2**53 - 1', shape))
    _check_dims('descriptor.shape', shape)
    count = 1
    for n in shape:
        count *= int(n)
    if count > _SAFE:  # zero strides describe any count in a few bytes
        raise ValueError(expected('descriptor.shape', 'at most 2**53 - 1 elements', count))
    strides = d.get('strides', _contiguous(shape))
    if not isinstance(strides, (list, tuple)) or len(strides) != len(shape) or not all(_is_safe(s) for s in strides):
        raise ValueError(expected('descriptor.strides', f'a list of {len(shape)} integers', strides))
    byte_offset = d.get('byteOffset', 0)
    if not _is_safe(byte_offset) or byte_offset < 0:
        raise ValueError(expected('descriptor.byteOffset', 'a non-negative integer', byte_offset))
    if byte_offset % itemsize != 0:
        raise ValueError(expected('descriptor.byteOffset', f'a multiple of {itemsize} (the {dtype} size)',
                                  byte_offset))
    read_only = d.get('readOnly', False)
    if not isinstance(read_only, bool):
        raise TypeError(expected('descriptor.readOnly', 'a boolean', read_only))
    extent = _extent(shape, strides, itemsize)
    if extent is None and byte_offset > data_size:  # an empty layout may start at the end, not past it
        raise ValueError(f'Expected a layout inside the {data_size} shared bytes for `descriptor`, received '
                         f'an empty one at byte {byte_offset}')
    if extent is not None and (byte_offset + extent[0] < 0 or byte_offset + extent[1] > data_size):
        raise ValueError(f'Expected a layout inside the {data_size} shared bytes for `descriptor`, received '
                         f'elements from byte {byte_offset + extent[0]} to {byte_offset + extent[1]}')
    return kind, source, int(data_size), dtype, [int(n) for n in shape], [int(s) for s in strides], int(byte_offset), \
        read_only


def open(descriptor, like=None):  # noqa: A001 - the API's name, as dl.open() in Node
    """Attaches to the memory of a share() descriptor (a dict or its JSON).

    'shm': returns a NumPy array (like='numpy', the default) or a torch tensor
    (like='torch') over the shared bytes without copying. The attachment
    lasts until that array and every view of it (tensors included) have been
    garbage-collected.
    like='arrow': a pyarrow FixedShapeTensorArray over the same bytes
    (to_arrow() of the NumPy array: the first dim is the rows), holding the
    attachment as the array would.
    'cuda-ipc': returns a CuPy array (like='cupy', the default) or a torch
    tensor (like='torch') over the CUDA memory, mapped without copying until
    the last array over it is collected. Needs CuPy.
    """
    kind, source, data_size, dtype, shape, strides, byte_offset, read_only = _parse(descriptor)
    if kind == 'cuda-ipc':
        like = 'cupy' if like is None else like
        _check_like(like, ('cupy', 'torch'))
        return _cuda_ipc.open_array(source, data_size, dtype, shape, strides, byte_offset, like)
    like = 'numpy' if like is None else like
    if like == 'arrow':
        return to_arrow(open(descriptor, like='numpy'))
    _check_like(like, ('numpy', 'torch', 'arrow'))
    # Everything that can refuse the layout refuses it before attaching.
    if like == 'numpy':
        _dtypes.numpy_dtype(dtype, 'descriptor.dtype')
    else:
        torch = _torch()
        _dtypes.torch_dtype(torch, dtype, 'descriptor.dtype')
        if any(s < 0 for s in strides):
            raise ValueError(expected('descriptor.strides', "non-negative strides for like='torch' "
                                      "(torch has no negative strides; use like='numpy')", strides))
    segment = _segment.attach(*source, data_size)
    return _view(segment, dtype, shape, strides, byte_offset, read_only, like)


def empty(shape, dtype='float32', like='numpy'):
    """A new zeroed, C-contiguous array (or tensor) in a new shared-memory segment."""
    _check_like(like)
    if _is_int(shape):
        shape = [shape]
    if not isinstance(shape, (list, tuple)) or not all(_is_int(n) and n >= 0 for n in shape):
        raise ValueError(expected('shape', 'a list of non-negative integers', shape))
    _check_dims('shape', shape)
    _dtypes.check_name(dtype, 'dtype')
    if like == 'numpy':
        _dtypes.numpy_dtype(dtype, 'dtype')
    else:
        _dtypes.torch_dtype(_torch(), dtype, 'dtype')
    shape = [int(n) for n in shape]
    count = 1
    for n in shape:
        count *= n
    segment = _segment.create(count * _dtypes.ITEMSIZE[dtype])
    return _view(segment, dtype, shape, _contiguous(shape), 0, False, like)


def _is_tensor(array):
    torch = sys.modules.get('torch')  # a tensor implies torch is imported already
    return torch is not None and isinstance(array, torch.Tensor)


def _layout(array):
    """(dtype name, address of element 0, shape, strides in elements, itemsize, read-only)."""
    if _is_tensor(array):
        torch = sys.modules['torch']
        if array.device.type != 'cpu' or array.layout != torch.strided:
            raise ValueError(f'Expected a strided CPU tensor for `array`, received a {array.layout} tensor '
                             f'on {array.device}')
        if array.is_conj() or array.is_neg():
            raise ValueError('Expected a tensor without a lazy conjugate or negation for `array` (call '
                             'resolve_conj()/resolve_neg(), or pass copy=True), received one with it')
        name = _dtypes.name_of_torch(torch, array.dtype)
        if name is None:
            raise TypeError(expected('array.dtype', f'one of {_dtypes.NAME_LIST}', str(array.dtype)))
        return name, array.data_ptr(), list(array.shape), list(array.stride()), array.element_size(), False
    if not isinstance(array, np.ndarray):
        raise TypeError(expected('array', 'a NumPy ndarray or a torch.Tensor', array))
    name = _dtypes.name_of_numpy(array.dtype)
    if name is None:
        raise TypeError(expected('array.dtype', f'one of {_dtypes.NAME_LIST} in native byte order',
                                 str(array.dtype)))
    itemsize = array.dtype.itemsize
    if any(s % itemsize for s in array.strides):
        raise ValueError(expected('array.strides', f'byte strides that are multiples of {itemsize}',
                                  list(array.strides)))
    strides = [s // itemsize for s in array.strides]
    address = array.__array_interface__['data'][0]
    return name, address, list(array.shape), strides, itemsize, not array.flags.writeable


def _find_segment(address, extent):
    low, high = (address, address) if extent is None else (address + extent[0], address + extent[1])
    for segment in _segment.live_segments():
        if segment.contains(low, high):
            return segment
    return None


def share(array, copy=False):
    """The descriptor of an array (or torch tensor) over one of this module's segments.

    Its memory must lie in a segment made by empty() or attached by open(). The
    caller keeps `array` (or another array over the same segment) alive until
    the other side has opened the descriptor: when this process's last array
    over it is collected, the segment is released and the descriptor goes
    stale (as with CUDA IPC).

    With copy=True an array anywhere else is first copied into a new segment,
    which this module keeps attached until release(descriptor) or exit.
    """
    _segment.run_deferred()
    if copy and _is_tensor(array):
        array = array.resolve_conj().resolve_neg()  # new memory if lazy, so copied below
    elif copy and not isinstance(array, np.ndarray):
        array = np.asarray(array)
    name, address, shape, strides, itemsize, read_only = _layout(array)
    _check_dims('array', shape, _FORMAT_DIMS)
    extent = _extent(shape, strides, itemsize)
    segment = _find_segment(address, extent)
    if segment is None:
        if not copy:
            raise PrivateMemoryError('Expected an array over shared memory for `array`, received one over private '
                                     'memory: make it with dlpack_node.empty() or dlpack_node.open(), or pass '
                                     'copy=True')
        duplicate = _copy_into_segment(array, name)
        descriptor = share(duplicate)
        _parked[descriptor['name']] = duplicate
        return descriptor
    byte_offset = address - segment.address
    if byte_offset % itemsize != 0:
        raise ValueError(f'Expected an array aligned to its {itemsize}-byte items for `array`, received one '
                         f'starting at byte {byte_offset} of the segment data')
    return {
        'kind': 'shm',
        'version': VERSION,
        'name': segment.name,
        'pid': os.getpid(),
        'fd': segment.fd,
        'dataSize': segment.data_size,
        'byteOffset': byte_offset,
        'dtype': name,
        'shape': shape,
        'strides': strides,
        'readOnly': read_only,
    }


def _copy_into_segment(array, name):
    """A new array (a torch tensor for a CPU tensor) over a new segment: a copy of `array` as dtype `name`."""
    if _is_tensor(array):
        duplicate = empty(list(array.shape), name, like='torch')
        duplicate.copy_(array.resolve_conj().resolve_neg())
    else:
        duplicate = empty(list(array.shape), name)
        duplicate[...] = array
    return duplicate


def release(descriptor):
    """Drops the copy share(..., copy=True) made for `descriptor`; True if there was one."""
    name = descriptor.get('name') if isinstance(descriptor, dict) else descriptor
    return _parked.pop(name, None) is not None


