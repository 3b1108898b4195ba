"""Serve Python functions to a Node process, passing arrays through shared memory.

    # my_model.py, started from Node with dl.python.spawn('my_model.py')
    from dlpack_node import worker

    def normalize(batch):            # batch: a NumPy array (or torch tensor) over Node's memory
        return (batch - batch.mean()) / batch.std()

    worker.serve(normalize)          # answers Node until Node closes the worker

Each function receives the tensors Node passed as arrays over the same shared
memory (no copy) and plain JSON values as they are. It may return an array
(NumPy or torch), a JSON value, None, or a tuple or list of those. A returned
array over shared memory (an input written in place, or one made with
dlpack_node.empty()) is handed back as it is; any other array is copied once
into a new shared segment. This worker keeps every returned array attached
until Node has opened it and said so, so nothing is freed before Node holds it
and nothing is left behind after.

The protocol (one JSON object per line; docs/python.md "Workers"):
  worker -> Node  {"ready": {"methods": [...], "pid": n, "like": "numpy"}}
  Node -> worker  {"id": n, "call": "name", "args": [{"tensor": descriptor} | {"value": v}, ...]}
  worker -> Node  {"id": n, "results": [...same encoding...], "many": bool}
                  {"id": n, "error": {"type": "ValueError", "message": "...", "traceback": "..."}}
  Node -> worker  {"release": n}   Node has opened (or given up on) the results of call n
The worker ends when its standard input closes. Its own standard output is
the protocol channel: print() in a served function goes to standard error.
"""
import json
import os
import sys
import traceback

import numpy as np

from . import empty, open as open_descriptor, share
from ._errors import expected

__all__ = ['serve']


def _is_array(value):
    if isinstance(value, np.ndarray):
        return True
    torch = sys.modules.get('torch')
    return torch is not None and isinstance(value, torch.Tensor)


def _shared(value):
    """(descriptor, the array to keep attached): value itself when it is over shared memory, else a copy."""
    if not isinstance(value, np.ndarray) and value.device.type != 'cpu':
        value = value.cpu()  # Python shares host memory only (docs/python.md)
    else:
        try:
            return share(value), value
        except ValueError as error:
            if 'over private memory' not in str(error):
                raise
    is_numpy = isinstance(value, np.ndarray)
    shape = list(value.shape)
    if is_numpy:
        copy = empty(shape, dtype=_dtype_of(value))
        copy[...] = value
    else:
        copy = empty(shape, dtype=_dtype_of(value), like='torch')
        copy.copy_(value.resolve_conj().resolve_neg())
    return share(copy), copy


def _dtype_of(value):
    from . import _dtypes
    if isinstance(value, np.ndarray):
        name = _dtypes.name_of_numpy(value.dtype)
    else:
        name = _dtypes.name_of_torch(sys.modules['torch'], value.dtype)
    if name is None:
        raise TypeError(expected('the returned array\'s dtype', f'one of {_dtypes.NAME_LIST}', str(value.dtype)))
    return name


def _encode(value, keep):
    if _is_array(value):
        descriptor, holder = _shared(value)
        keep.append(holder)
        return {'tensor': descriptor}
    if isinstance(value, np.generic):
        value = value.item()
    json.dumps(value)  # TypeError here names what cannot travel
    return {'value': value}


def _decode(arg, like):
    if not isinstance(arg, dict) or len(arg) != 1:
        raise ValueError(expected('args[i]', "{'tensor': descriptor} or {'value': v}", arg))
    if 'tensor' in arg:
        return open_descriptor(arg['tensor'], like=like)
    return arg['value']


class _Server:
    def __init__(self, methods, like, channel):
        self.methods = methods
        self.like = like
        self.channel = channel
        self.held = {}  # call id -> the arrays its results are over, until Node releases them

    def send(self, message):
        self.channel.write(json.dumps(message, allow_nan=False) + '\n')
        self.channel.flush()

    def handle(self, request):
        if 'release' in request:
            self.held.pop(request['release'], None)
            return
        call_id = request.get('id')
        try:
            function = self.methods.get(request.get('call'))
            if function is None:
                raise LookupError(expected('call', f"one of {sorted(self.methods)}", request.get('call')))
            args = [_decode(arg, self.like) for arg in request.get('args', [])]
            result = function(*args)
            del args  # inputs are not kept: only what the results are over stays attached
            # A tuple is several results; so is a list holding an array. Other lists are one JSON value.
            many = isinstance(result, tuple) or (isinstance(result, list) and any(_is_array(r) for r in result))
            keep = []
            results = [_encode(r, keep) for r in (result if many else [result])]
            if keep:
                self.held[call_id] = keep
            self.send({'id': call_id, 'results': results, 'many': many})
        except Exception as error:  # noqa: BLE001 - every failure goes back to Node as an answer
            self.held.pop(call_id, None)
            self.send({'id': call_id, 'error': {
                'type': type(error).__name__,
                'message': str(error),
                'traceback': ''.join(traceback.format_exception(type(error), error, error.__traceback__)),
            }})

    def run(self, requests):
        self.send({'ready': {'methods': sorted(self.methods), 'pid': os.getpid(), 'like': self.like}})
        for line in requests:
            if line.strip():
                self.handle(json.loads(line))
        self.held.clear()


def serve(*functions, like='numpy', **named):
    """Answers calls from Node (dl.python.spawn) until Node closes standard input.

    functions are served by their __name__, named ones by the keyword; like
    ('numpy' or 'torch') is what tensors from Node arrive as.
    """
    if like not in ('numpy', 'torch'):
        raise ValueError(expected('like', "'numpy' or 'torch'", like))
    methods = {f.__name__: f for f in functions}
    methods.update(named)
    for name, function in methods.items():
        if not callable(function):
            raise TypeError(expected(f'the method {name!r}', 'a function', function))
    # The protocol keeps the real standard output; everything else printed
    # to fd 1 (print(), C libraries) goes to standard error from here on.
    channel = os.fdopen(os.dup(1), 'w', encoding='utf-8')
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _Server(methods, like, channel).run(sys.stdin)
