"""A line-oriented JSON worker for tests driven from Node.

    /usr/bin/python3 -m dlpack_node          (with python/ on PYTHONPATH)
    /usr/bin/python3 python/dlpack_node/__main__.py

One JSON command per stdin line, one JSON reply per stdout line:
  {"op":"open","descriptor":{...},"like":"numpy"|"torch"}
                                       -> {"ok":true,"id":1,"dtype":..,"shape":..,"strides":..,"sum":..}
  {"op":"empty","shape":[..],"dtype":"float32","like":..} -> {"ok":true,"id":2,"descriptor":{...}}
  {"op":"share","id":1}                -> {"ok":true,"descriptor":{...}}
  {"op":"fill","id":1,"value":v}       writes v everywhere; "values":[...] writes a flat list instead
  {"op":"read","id":1}                 -> {"ok":true,"values":[...]} (flattened, C order)
  {"op":"release","id":1}              drops the array and collects garbage
  {"op":"exit"}
Failures reply {"ok":false,"error":message,"type":exception class name}.
Complex numbers travel as [re, im]; NaN and infinities as "NaN", "Infinity", "-Infinity".
"""
import gc
import json
import math
import os
import sys

if not __package__:  # run as a file: make the package importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import dlpack_node as dl  # noqa: E402
from dlpack_node import _dtypes  # noqa: E402


def _out(value):
    """A JSON-safe form of a Python scalar or list."""
    if isinstance(value, list):
        return [_out(v) for v in value]
    if isinstance(value, complex):
        return [_out(value.real), _out(value.imag)]
    if isinstance(value, float) and not math.isfinite(value):
        return 'NaN' if math.isnan(value) else ('Infinity' if value > 0 else '-Infinity')
    return value


def _in(value):
    if value in ('NaN', 'Infinity', '-Infinity'):
        return float(value.replace('Infinity', 'inf'))
    return value


def _complex_in(value):
    if isinstance(value, list) and len(value) == 2:
        return complex(_in(value[0]), _in(value[1]))
    return _in(value)


def _is_numpy(array):
    return isinstance(array, np.ndarray)


def _dtype_name(array):
    if _is_numpy(array) or _is_cupy(array):
        return _dtypes.name_of_numpy(array.dtype)
    return _dtypes.name_of_torch(sys.modules['torch'], array.dtype)


def _strides(array):
    """In elements; CUDA tensors and CuPy arrays included."""
    if _is_numpy(array) or _is_cupy(array):
        return [s // array.itemsize for s in array.strides]
    return list(array.stride())


def _is_cupy(array):
    cupy = sys.modules.get('cupy')  # a CuPy array implies CuPy is imported already
    return cupy is not None and isinstance(array, cupy.ndarray)


def _host(array):
    """A CuPy array's values as a NumPy array (a copy, for replies); other arrays as they are."""
    return array.get() if _is_cupy(array) else array


def _sum(array):
    array = _host(array)
    if _is_numpy(array):
        return array.sum().item()
    return (array.float() if _dtype_name(array) == 'bfloat16' else array).sum().item()


def _values(array):
    array = _host(array)
    return (array.ravel() if _is_numpy(array) else array.flatten()).tolist()


def _fill(array, command):
    is_complex = _dtype_name(array).startswith('complex')
    convert = _complex_in if is_complex else _in
    if 'values' in command:
        values = [convert(v) for v in command['values']]
        if _is_numpy(array) or _is_cupy(array):
            host = np.asarray(values, dtype=array.dtype).reshape(array.shape)
            array[...] = sys.modules['cupy'].asarray(host) if _is_cupy(array) else host
        else:
            import torch
            array.copy_(torch.tensor(values, dtype=array.dtype).reshape(array.shape))
    elif 'value' not in command:
        raise ValueError('Expected `value` or `values` in a fill command')
    elif _is_numpy(array) or _is_cupy(array):
        array[...] = convert(command['value'])
    else:
        array.fill_(convert(command['value']))


class Worker:
    def __init__(self):
        self.arrays = {}
        self.next_id = 1

    def _keep(self, array):
        key = self.next_id
        self.next_id += 1
        self.arrays[key] = array
        return key

    def _get(self, command):
        key = command.get('id')
        if key not in self.arrays:
            raise ValueError(f'Expected the id of a live array for `id`, received {key!r}')
        return self.arrays[key]

    def handle(self, command):
        if not isinstance(command, dict):
            raise TypeError('Expected a JSON object per line')
        op = command.get('op')
        if op == 'open':
            array = dl.open(command.get('descriptor'), like=command.get('like'))
            return {'id': self._keep(array), 'dtype': _dtype_name(array), 'shape': list(array.shape),
                    'strides': _strides(array), 'sum': _out(_sum(array))}
        if op == 'empty':
            array = dl.empty(command.get('shape'), command.get('dtype', 'float32'), like=command.get('like', 'numpy'))
            return {'id': self._keep(array), 'descriptor': dl.share(array)}
        if op == 'share':
            return {'descriptor': dl.share(self._get(command))}
        if op == 'fill':
            _fill(self._get(command), command)
            return {}
        if op == 'read':
            return {'values': _out(_values(self._get(command)))}
        if op == 'release':
            self._get(command)
            del self.arrays[command['id']]
            gc.collect()
            return {}
        if op == 'exit':
            return {}
        raise ValueError(f"Expected one of open empty share fill read release exit for `op`, received {op!r}")


def main(stdin=sys.stdin, stdout=sys.stdout):
    worker = Worker()
    for line in iter(stdin.readline, ''):
        if not line.strip():
            continue
        command = None
        try:
            try:
                command = json.loads(line)
            except ValueError as error:
                raise ValueError(f'Expected one JSON command per line, received invalid JSON ({error})') from None
            reply = {'ok': True, **worker.handle(command)}
        except Exception as error:  # every failure is a reply, never the end of the worker
            reply = {'ok': False, 'error': str(error), 'type': type(error).__name__}
        stdout.write(json.dumps(reply, allow_nan=False) + '\n')
        stdout.flush()
        if isinstance(command, dict) and command.get('op') == 'exit':
            break


if __name__ == '__main__':
    main()
