"""The peers' side of test/peers.test.js, run inside a Node process.

test/peers/child.js embeds the peer's Python (test/native/embed_python.cc) and
imports this module; its checks (test/peers/checks.js) call the adapter of one
peer through it. An adapter says, in the peer's own terms, how to make a
tensor, consume a DLPack producer or capsule, export one, and read, write and
locate a tensor's memory; what each peer does with our structs is the test's
business, not this module's.
"""
import sys

import _node

def values(dtype, count):
    """count values every dtype holds exactly, as Python numbers."""
    if dtype == 'bool':
        return [i % 3 == 0 for i in range(count)]
    if dtype.startswith('uint'):
        return [(i * 5) % 13 for i in range(count)]
    base = [(i * 5) % 13 - 6 for i in range(count)]
    if dtype.startswith('complex'):
        return [complex(v, v / 2) for v in base]
    return base


class Ours:
    """One of this library's tensors as a Python DLPack producer.

    __dlpack__ asks Node for tensor.__dlpack__() with the keywords mapped to its
    options, and wraps the struct in a capsule whose deleter calls are counted
    (embed_python.cc). `requests` keeps the keywords each consumer passed. What
    Node refuses (ERR_DLPACK_*) is a BufferError, as the protocol asks.
    """

    KEYWORDS = ('stream', 'max_version', 'dl_device', 'copy')

    def __init__(self, tensor_id):
        self.id = tensor_id
        self.requests = []
        self.pointers = []
        self.structs = []  # 'versioned' or 'legacy', per struct handed out

    def __dlpack__(self, **kw):
        unknown = sorted(set(kw) - set(self.KEYWORDS))
        if unknown:
            raise TypeError('__dlpack__() got unexpected keyword arguments %s' % unknown)
        self.requests.append(dict(kw))
        try:
            pointer, versioned = _node.call('export', self.id, *(kw.get(k) for k in self.KEYWORDS))
        except RuntimeError as error:
            if str(error).startswith('ERR_DLPACK_'):
                raise BufferError(str(error)) from None
            raise
        self.pointers.append(pointer)
        self.structs.append('versioned' if versioned else 'legacy')
        return _node.capsule(pointer, versioned)

    def __dlpack_device__(self):
        return tuple(_node.call('device', self.id))


def capsule(pointer, versioned):
    """A capsule over one of our structs, its deleter calls counted."""
    return _node.capsule(pointer, versioned)


def take(capsule):
    """(pointer, versioned) of a peer's capsule, now ours to delete."""
    return _node.take(capsule)


def calls(pointer):
    return _node.calls(pointer)


class Peer:
    """What every adapter has; a peer overrides what it does its own way."""

    def exports(self):
        """Its DLPack exports by name: each makes a capsule of x."""
        return {'__dlpack__(max_version=(1, 0))': lambda x: x.__dlpack__(max_version=(1, 0)),
                '__dlpack__()': lambda x: x.__dlpack__()}

    def export(self, how, x):
        return self.exports()[how](x)

    def refs(self, x):
        """A count that an export of x holds one of, or None where the peer shows none."""
        return sys.getrefcount(x) - 1  # less getrefcount's own argument

    def __getattr__(self, name):
        raise AttributeError('%s has no %s' % (type(self).__name__, name))


class NumPy(Peer):
    name = 'numpy'

    def __init__(self):
        import numpy
        self.np = numpy
        self.version = numpy.__version__

    def consume(self, obj, **kw):
        return self.np.from_dlpack(obj, **kw)

    def make(self, dtype, shape):
        n = 1
        for s in shape:
            n *= s
        return self.np.array(values(dtype, n), dtype=dtype).reshape(shape)

    def dtype(self, x):
        return str(x.dtype)

    def shape(self, x):
        return list(x.shape)

    def address(self, x):
        return x.__array_interface__['data'][0]

    def raw(self, x):
        return self.np.ascontiguousarray(x).tobytes()

    def tolist(self, x):
        return x.tolist()

    def write(self, x, index, value):
        x[tuple(index)] = value

    def read_only(self, x):
        return not x.flags.writeable

    def view(self, x, how):
        return {'transposed': lambda: x.T, 'stepped': lambda: x[:, ::2],
                'reversed': lambda: x[::-1]}[how]()


class Torch(Peer):
    name = 'torch'

    def __init__(self):
        import torch
        import torch.utils.dlpack
        self.torch = torch
        self.version = torch.__version__

    def consume(self, obj, **kw):
        return self.torch.from_dlpack(obj, **kw)

    def exports(self):
        out = super().exports()
        out['torch.utils.dlpack.to_dlpack(x)'] = self.torch.utils.dlpack.to_dlpack
        return out

    def make(self, dtype, shape):
        n = 1
        for s in shape:
            n *= s
        t = self.torch
        vals = values(dtype, n)
        if dtype.startswith('complex'):
            x = t.tensor(vals, dtype=getattr(t, dtype))
        elif dtype in ('uint16', 'uint32', 'uint64'):
            x = t.tensor(vals, dtype=t.int64).to(getattr(t, dtype))
        else:
            x = t.tensor(vals, dtype=getattr(t, dtype))
        return x.reshape(shape)

    def dtype(self, x):
        return str(x.dtype).replace('torch.', '')

    def shape(self, x):
        return list(x.shape)

    def address(self, x):
        return x.data_ptr()

    def raw(self, x):
        c = x.contiguous().reshape(-1)
        return bytes(c.view(self.torch.uint8).numpy().tobytes()) if c.numel() else b''

    def tolist(self, x):
        return x.tolist()

    def write(self, x, index, value):
        x[tuple(index)] = value

    def refs(self, x):
        # The TensorImpl's count, which an export holds one of (torch 2.x; 1.13 shows none).
        return x._use_count() if hasattr(x, '_use_count') else None

    def read_only(self, x):
        return False  # torch has no read-only tensors

    def view(self, x, how):
        return {'transposed': lambda: x.T, 'stepped': lambda: x[:, ::2],
                'reversed': lambda: x.flip(0)}[how]()


class Jax(Peer):
    name = 'jax'

    def __init__(self):
        import jax
        import jax.dlpack
        import jax.numpy
        import numpy
        # 64-bit dtypes stay 64-bit only in x64 mode; otherwise from_dlpack
        # canonicalises them to 32 bits, a copy (checks.js pins it, through x64()).
        jax.config.update('jax_enable_x64', True)
        self.jax = jax
        self.jnp = jax.numpy
        self.np = numpy
        self.version = jax.__version__

    def x64(self, on):
        self.jax.config.update('jax_enable_x64', bool(on))

    def consume(self, obj, **kw):
        return self.jax.dlpack.from_dlpack(obj, **kw)

    def exports(self):
        return {'__dlpack__(max_version=(1, 0))': lambda x: x.__dlpack__(max_version=(1, 0)),
                '__dlpack__()': lambda x: x.__dlpack__()}

    def make(self, dtype, shape):
        n = 1
        for s in shape:
            n *= s
        return self.jnp.array(values(dtype, n), dtype=self.jnp.dtype(dtype)).reshape(shape)

    def dtype(self, x):
        return str(x.dtype)

    def shape(self, x):
        return list(x.shape)

    def address(self, x):
        return x.unsafe_buffer_pointer()

    def raw(self, x):
        return self.np.asarray(x).tobytes()

    def tolist(self, x):
        return self.np.asarray(x).tolist()

    def write(self, x, index, value):
        raise TypeError('JAX arrays are immutable')

    def refs(self, x):
        return None  # an export holds the buffer, not the Python array

    def read_only(self, x):
        return True  # immutable


class Paddle(Peer):
    name = 'paddle'

    def __init__(self):
        import paddle
        import paddle.utils.dlpack
        self.paddle = paddle
        self.version = paddle.__version__

    def consume(self, obj, **kw):
        return self.paddle.utils.dlpack.from_dlpack(obj, **kw)

    def exports(self):
        out = super().exports()
        out['paddle.utils.dlpack.to_dlpack(x)'] = self.paddle.utils.dlpack.to_dlpack
        return out

    def make(self, dtype, shape):
        import numpy
        n = 1
        for s in shape:
            n *= s
        if dtype == 'bfloat16':
            x = self.paddle.to_tensor(numpy.array(values(dtype, n), dtype='float32')).astype('bfloat16')
        else:
            x = self.paddle.to_tensor(numpy.array(values(dtype, n), dtype=dtype))
        return x.reshape(shape)

    def dtype(self, x):
        return str(x.dtype).replace('paddle.', '')

    def shape(self, x):
        return list(x.shape)

    def address(self, x):
        return x.data_ptr()

    def raw(self, x):
        import numpy
        c = x.contiguous() if hasattr(x, 'contiguous') else x
        return numpy.ascontiguousarray(c.numpy()).tobytes()

    def tolist(self, x):
        return x.tolist()

    def write(self, x, index, value):
        x[tuple(index)] = value

    def refs(self, x):
        return None

    def read_only(self, x):
        return False

    def view(self, x, how):
        return {'transposed': lambda: x.T, 'stepped': lambda: x[:, ::2]}[how]()


ADAPTERS = {'numpy': NumPy, 'torch': Torch, 'jax': Jax, 'paddle': Paddle}


def load(name):
    return ADAPTERS[name]()
