"""Arrays as Apache Arrow tensor columns, and back, without copying (docs/arrow.md).

to_arrow(array) is a pyarrow FixedShapeTensorArray over the array's memory;
from_arrow(column) is a NumPy array over the column's values. A tensor of
shape [B, ...cell] is B rows of a FixedSizeList<T>[prod(cell)] tagged
arrow.fixed_shape_tensor, as the Node side writes it (lib/arrow.js).

The extension's `permutation` follows Arrow's specification (Canonical
Extensions, "Fixed shape tensor"): `shape` is the physical row-major cell and
logical dim i is physical dim permutation[i]. pyarrow 26's own
FixedShapeTensorArray.from_numpy_ndarray writes the inverse permutation, and
its to_numpy_ndarray() computes wrong strides, for a permutation that is not
its own inverse (an NHWC buffer viewed as NCHW): both functions here compute
the layout themselves.

What would need a copy (bit-packed booleans, a dtype Arrow lacks, nulls,
several chunks, non-native byte order, strides that are no permutation of a
row-major cell) raises ValueError unless copy=True.
"""
import sys

import numpy as np

from ._errors import expected

__all__ = ['to_arrow', 'from_arrow']

FIXED_SHAPE = 'arrow.fixed_shape_tensor'
VARIABLE_SHAPE = 'arrow.variable_shape_tensor'


def _pyarrow():
    try:
        import pyarrow
    except ImportError as error:
        raise ImportError('dlpack_node.to_arrow/from_arrow (and like=\'arrow\') need pyarrow, which could not be '
                          f'imported ({error}): {sys.executable} -m pip install pyarrow') from error
    return pyarrow


def _cell_order(shape, strides):
    """The physical order of the cell dims (order[j] is the logical dim at physical position j) when the
    rows are consecutive and each is a permuted row-major cell, else None; strides in elements.
    The same rule as lib/arrow_layout.js cellOrder()."""
    cell = len(shape) - 1
    size = int(np.prod(shape[1:], dtype=np.int64))
    if shape[0] > 1 and strides[0] != size and size != 0:
        return None
    if size == 0:
        return list(range(cell))
    wide = sorted((i for i in range(cell) if shape[i + 1] != 1), key=lambda i: (-strides[i + 1], i))
    step = 1
    for i in reversed(wide):
        if strides[i + 1] != step:
            return None
        step *= shape[i + 1]
    order = list(wide)
    for i in range(cell):
        if shape[i + 1] == 1:
            order.insert(0 if i == 0 else order.index(i - 1) + 1, i)
    return order


def _as_numpy(array):
    torch = sys.modules.get('torch')
    if torch is not None and isinstance(array, torch.Tensor):
        if array.device.type != 'cpu':
            raise ValueError(expected('array', 'a CPU tensor', f'one on {array.device}'))
        return array.detach().numpy() if array.dtype != torch.bfloat16 else array
    if not isinstance(array, np.ndarray):
        raise TypeError(expected('array', 'a NumPy ndarray or a torch.Tensor', array))
    return array


def to_arrow(array, dim_names=None, copy=False):
    """A pyarrow FixedShapeTensorArray over `array` (a NumPy array or CPU torch tensor) of shape [B, ...cell],
    sharing its memory; a plain pyarrow array for one dim. The Arrow array keeps `array`'s memory alive."""
    pa = _pyarrow()
    a = _as_numpy(array)
    if not isinstance(a, np.ndarray):  # torch bfloat16
        if not copy:
            raise ValueError('Expected a dtype Arrow holds for `array`, received bfloat16; copy=True converts it '
                             'to float32')
        a = a.float().numpy()
    if a.ndim == 0:
        raise ValueError(expected('array', 'an array of at least one dim (its first dim is the rows)', '0-d'))
    if a.dtype.kind == 'c':
        if not copy:
            raise ValueError(f'Expected a dtype Arrow holds for `array`, received {a.dtype} (Arrow has no complex '
                             'type); copy=True writes pairs of floats in a last dim of 2')
        a = np.ascontiguousarray(a)
        a = a.view(a.real.dtype).reshape(a.shape + (2,))
    if not a.dtype.isnative:
        if not copy:
            raise ValueError(f'Expected native byte order for `array`, received {a.dtype}; copy=True swaps it')
        a = a.astype(a.dtype.newbyteorder('='))
    if a.dtype == np.bool_ and not copy:
        raise ValueError('Expected a dtype Arrow holds as it is for `array`, received bool (Arrow packs booleans '
                         'into bits); copy=True packs them')
    if dim_names is not None and (len(dim_names) != a.ndim - 1 or not all(isinstance(n, str) for n in dim_names)):
        raise ValueError(expected('dim_names', f'{a.ndim - 1} strings (one per cell dim)', dim_names))
    if a.ndim == 1:
        return pa.array(np.ascontiguousarray(a) if copy else _flat(a))
    itemsize = a.dtype.itemsize
    if any(s % itemsize for s in a.strides):
        order = None
    else:
        order = _cell_order(a.shape, [s // itemsize for s in a.strides])
    if order is None:
        if not copy:
            raise ValueError(f'Expected rows that are a permutation of row-major cells for `array`, received strides '
                             f'{list(a.strides)} for shape {list(a.shape)}; copy=True writes a contiguous copy')
        a = np.ascontiguousarray(a)
        order = list(range(a.ndim - 1))
    physical = a.transpose([0] + [1 + d for d in order])  # C-contiguous: a view of the same bytes
    values = pa.array(_flat(physical))
    cell = list(physical.shape[1:])
    permutation = [order.index(i) for i in range(len(order))]
    tensor_type = pa.fixed_shape_tensor(
        values.type, cell,
        dim_names=None if dim_names is None else [dim_names[d] for d in order],
        permutation=None if permutation == sorted(permutation) else permutation)
    storage = pa.FixedSizeListArray.from_arrays(values, int(np.prod(cell, dtype=np.int64)))
    return pa.ExtensionArray.from_storage(tensor_type, storage)


def _flat(a):
    """The elements of a C-contiguous array as a 1-d view of the same bytes (raises rather than copies)."""
    flat = a.view()
    flat.shape = (a.size,)  # an AttributeError where the bytes are not C-contiguous: never a silent copy
    return flat


def from_arrow(column, shape=None, copy=False):
    """A NumPy array over an Arrow tensor column's values (no copy): a FixedShapeTensorArray, a
    FixedSizeListArray (cell `shape`, else
    its list size; DuckDB and Polars leave the extension out), a primitive array, or a ChunkedArray of one
    chunk (arrow.variable_shape_tensor is read on the Node side only). The array keeps the Arrow buffers alive; it is read-only as Arrow's are."""
    pa = _pyarrow()
    if isinstance(column, pa.ChunkedArray):
        chunks = [c for c in column.chunks if len(c)] or column.chunks[:1]
        if len(chunks) > 1:
            if not copy:
                raise ValueError(f'Expected one chunk for `column`, received {len(chunks)}; copy=True concatenates '
                                 'them')
            return np.concatenate([from_arrow(c, shape, copy) for c in chunks])
        if not chunks:
            raise ValueError(expected('column', 'a chunked array with a chunk', 'none'))
        column = chunks[0]
    if not isinstance(column, pa.Array):
        raise TypeError(expected('column', 'a pyarrow Array or ChunkedArray', column))
    name = column.type.extension_name if isinstance(column.type, pa.BaseExtensionType) else None
    if name is not None and name != FIXED_SHAPE:
        raise ValueError(expected('column', f'a {FIXED_SHAPE} column (pyarrow has no {VARIABLE_SHAPE} type)', name))
    physical, permutation = None, None
    if name == FIXED_SHAPE:
        physical, permutation = list(column.type.shape), column.type.permutation
    storage = column.storage if isinstance(column.type, pa.BaseExtensionType) else column
    dims, levels, leaf = [], [storage], storage
    while pa.types.is_fixed_size_list(leaf.type):
        dims.append(leaf.type.list_size)
        # The values of the entries in view, null entries included (flatten() would drop them): no copy.
        leaf = leaf.values.slice(leaf.offset * leaf.type.list_size, len(leaf) * leaf.type.list_size)
        levels.append(leaf)
    if shape is not None:
        if physical is not None and list(shape) != _logical(physical, permutation):
            raise ValueError(expected('shape', f'the cell shape the extension gives, {_logical(physical, permutation)}',
                                      list(shape)))
        if physical is None and int(np.prod(shape, dtype=np.int64)) != int(np.prod(dims, dtype=np.int64)):
            raise ValueError(expected('shape', f'a cell of {int(np.prod(dims, dtype=np.int64))} elements', list(shape)))
        physical = physical or list(shape)
    physical = dims if physical is None else physical
    nulls = any(level.null_count for level in levels)
    if (nulls or pa.types.is_boolean(leaf.type)) and not copy:
        raise ValueError('Expected a column to view for `column`, received '
                         f'{"one with nulls" if nulls else "bit-packed booleans"}; copy=True copies it')
    if nulls:
        flat = _filled(pa, levels, dims)
    else:
        flat = leaf.to_numpy(zero_copy_only=not pa.types.is_boolean(leaf.type))
    rows = len(storage)
    flat = flat[:rows * int(np.prod(physical, dtype=np.int64))]
    array = flat.reshape([rows] + list(physical))
    if permutation is not None:
        array = array.transpose([0] + [1 + p for p in permutation])
    return array


def _filled(pa, levels, dims):
    """The leaf's values in new memory, NaN (0, False) where an entry of any level is null."""
    import pyarrow.compute as pc
    leaf = levels[-1]
    blank = np.nan if pa.types.is_floating(leaf.type) else 0
    flat = np.array(pc.fill_null(leaf, pa.scalar(blank, leaf.type)).to_numpy(zero_copy_only=False))
    span = int(np.prod(dims, dtype=np.int64))
    for level, size in zip(levels[:-1], dims + [1]):
        if level.null_count:
            flat.reshape(len(level), span)[level.is_null().to_numpy(zero_copy_only=False)] = blank
        span //= size
    return flat


def _logical(physical, permutation):
    return list(physical) if permutation is None else [physical[p] for p in permutation]
