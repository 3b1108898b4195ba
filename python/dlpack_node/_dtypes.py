"""The library's dtype names and their NumPy and PyTorch counterparts."""
import numpy as np

from ._errors import expected

# name -> itemsize, in the order the Node side lists them.
ITEMSIZE = {
    'bool': 1, 'int8': 1, 'int16': 2, 'int32': 4, 'int64': 8,
    'uint8': 1, 'uint16': 2, 'uint32': 4, 'uint64': 8,
    'float16': 2, 'bfloat16': 2, 'float32': 4, 'float64': 8,
    'complex64': 8, 'complex128': 16,
}

# NumPy has no bfloat16 (FORMAT.md "Descriptors"): it has no entry here.
_NUMPY = {name: np.dtype(name) for name in ITEMSIZE if name != 'bfloat16'}
_NUMPY_NAMES = {dtype: name for name, dtype in _NUMPY.items()}

NAME_LIST = ' '.join(ITEMSIZE)


def check_name(name, field):
    if not isinstance(name, str) or name not in ITEMSIZE:
        raise ValueError(expected(field, f'one of {NAME_LIST}', name))
    return name


def numpy_dtype(name, field):
    """The NumPy dtype for `name`; bfloat16 has none."""
    try:
        return _NUMPY[name]
    except KeyError:
        raise TypeError(expected(field, "a dtype NumPy has (bfloat16 needs like='torch')", name)) from None


def carrier_dtype(name):
    """The NumPy dtype whose bytes torch reinterprets as `name`."""
    # torch.from_numpy takes int16 but not uint16; .view(torch.bfloat16) keeps the bits.
    return np.dtype('int16') if name == 'bfloat16' else _NUMPY[name]


def name_of_numpy(dtype):
    """The library name of a NumPy dtype, or None (this includes byte-swapped dtypes)."""
    return _NUMPY_NAMES.get(dtype)


def torch_dtype(torch, name, field):
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        # torch < 2.3 has no uint16/uint32/uint64.
        raise TypeError(expected(field, f'a dtype torch {torch.__version__} has', name))
    return dtype


def name_of_torch(torch, dtype):
    """The library name of a torch dtype, or None."""
    name = str(dtype).rpartition('.')[2]
    return name if name in ITEMSIZE and getattr(torch, name, None) == dtype else None
