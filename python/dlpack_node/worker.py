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
  Node -> worker  {"close": true}  answer the calls already sent, then return from serve()
Standard input ending without the close message means Node is gone: the
worker exits at once, mid-call or not (and Linux kills it when the Node
thread that started it ends). Lines are at most MAX_LINE bytes. Its own
standard output is the protocol channel: print() in a served function goes
to standard error.
"""
import ctypes
import json
import os
import queue
import signal
import sys
import threading
import traceback

import numpy as np

from . import _copy_into_segment, open as open_descriptor, share
from ._errors import PrivateMemoryError, expected

__all__ = ['serve', 'MAX_LINE']

# The longest protocol line, in UTF-8 bytes without its newline (FORMAT.md
# "Workers"; MAX_LINE in Node's lib/python.js). An error's message and
# traceback are clipped to fit; results that do not fit are an error.
MAX_LINE = 16 * 1024 * 1024
_MAX_TEXT = 64 * 1024  # characters kept of an error's message, and of its traceback
MAX_HELD = 16  # calls whose results may wait for Node's release at once
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


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
        except PrivateMemoryError:
            pass
    copy = _copy_into_segment(value, _dtype_of(value))  # kept attached by the caller, not parked
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
    _check_ints(value)
    return {'value': value}


_SAFE_INT = 2**53 - 1  # Number.MAX_SAFE_INTEGER: JSON.parse rounds any int beyond it


def _check_ints(value):
    """Refuses ints JavaScript would round, as Node refuses BigInts going the other way."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _SAFE_INT:
        raise ValueError(f'Expected integers within +-(2**53 - 1) in a returned JSON value, received {value}, which '
                         'JavaScript would round: return it as a string, or in an int64 array')
    if isinstance(value, (list, tuple)):
        for item in value:
            _check_ints(item)
    elif isinstance(value, dict):
        for item in value.values():
            _check_ints(item)


def _clip(text):
    if len(text) <= _MAX_TEXT:
        return text
    half = _MAX_TEXT // 2
    return f'{text[:half]}... ({len(text) - 2 * half} characters left out) ...{text[-half:]}'


def _text(error):
    """str(error), clipped; an exception whose __str__ raises must not end the worker."""
    try:
        return _clip(str(error))
    except Exception as inner:  # noqa: BLE001 - any failure of a user's __str__
        return f'<str() of the {type(error).__name__} raised {type(inner).__name__}>'


def _describe(error):
    """The error answer's fields, each bounded: the message is formatted once, not again per chained frame."""
    name = type(error).__name__
    try:
        frames = ''.join(traceback.format_tb(error.__traceback__))
    except Exception:  # noqa: BLE001 - a frame whose source cannot be read
        frames = ''
    message = _text(error)
    trace = f'Traceback (most recent call last):\n{_clip(frames)}{name}: {message}\n'
    return {'type': name, 'message': message, 'traceback': trace}


def _decode(arg, like):
    if not isinstance(arg, dict) or len(arg) != 1:
        raise ValueError(expected('args[i]', "{'tensor': descriptor} or {'value': v}", arg))
    if 'tensor' in arg:
        return open_descriptor(arg['tensor'], like=like)
    return arg['value']


class _Server:
    """Answers calls on the main thread; a reader thread takes Node's lines as they come.

    Releases are applied by the reader at once, not queued behind calls, so a
    storm of calls holds only the results Node has not opened yet (at most
    MAX_HELD calls' worth: the next answer waits for a release). Standard
    input ending without Node's close message means Node is gone: the
    worker exits at once, even mid-call, rather than run on under init with
    Node's segments mapped.
    """

    def __init__(self, methods, like, channel):
        self.methods = methods
        self.like = like
        self.channel = channel
        self.held = {}  # call id -> the arrays its results are over, until Node releases them
        self.released = threading.Condition()  # guards held
        self.calls = queue.SimpleQueue()  # requests for the main thread; None after Node's close message

    def send(self, message):
        line = json.dumps(message, allow_nan=False)
        if len(line) > MAX_LINE // 4 and len(line.encode('utf-8')) > MAX_LINE:
            raise ValueError(f'the results take {len(line.encode("utf-8"))} bytes of JSON, more than the {MAX_LINE} '
                             'one protocol line carries: return large data as an array, which travels in shared memory')
        self.channel.write(line + '\n')
        self.channel.flush()

    def hold(self, call_id, keep):
        with self.released:
            self.released.wait_for(lambda: len(self.held) < MAX_HELD)
            self.held[call_id] = keep

    def release(self, call_id):
        with self.released:
            self.held.pop(call_id, None)
            self.released.notify()

    def handle(self, request):
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
                self.hold(call_id, keep)
            self.send({'id': call_id, 'results': results, 'many': many})
        except Exception as error:  # noqa: BLE001 - every failure goes back to Node as an answer
            self.release(call_id)
            self.send({'id': call_id, 'error': _describe(error)})

    def read(self, requests):
        closing = False
        try:
            for line in requests:
                if not line.strip():
                    continue
                request = json.loads(line)
                if 'release' in request:
                    self.release(request['release'])
                elif request.get('close') is True:
                    closing = True
                    self.calls.put(None)
                else:
                    self.calls.put(request)
        except Exception:  # noqa: BLE001 - a line Node did not write: nothing sensible is left to do
            traceback.print_exc()
        if not closing:
            os._exit(1)  # Node is gone (or wrote garbage): no one will read an answer

    def run(self, requests):
        _die_with_parent()
        self.send({'ready': {'methods': sorted(self.methods), 'pid': os.getpid(), 'like': self.like}})
        threading.Thread(target=self.read, args=(requests,), name='dlpack_node reader', daemon=True).start()
        for request in iter(self.calls.get, None):
            self.handle(request)
        with self.released:
            self.held.clear()


def _die_with_parent():
    """Asks Linux for SIGKILL when the thread that started this process ends (prctl PR_SET_PDEATHSIG).

    This covers a Node killed by SIGKILL while a served function runs; where
    prctl is missing, the reader thread still exits once standard input ends.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux
        pass


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
