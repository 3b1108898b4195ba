"""Reference timings for bench/run.js: PyTorch's DLPack round trip,
numpy.frombuffer and numpy.from_dlpack on the same sizes as the Node cases. Prints one JSON object.

    python3 bench/python_reference.py BUFFER_BYTES OFFSET COUNT
    python3 bench/python_reference.py astype COUNT   (uint8 -> float32, ns per call)
    python bench/python_reference.py from_dlpack BUFFER_BYTES OFFSET COUNT
        (NumPy only: numpy.from_dlpack of a small array, for the C-struct round
        trip's row; bench/run.js runs it in the peers venv's Python)
"""
import json
import statistics
import sys
import timeit

import numpy


def per_op_ns(stmt, env, number, repeat=15):
    # Median of `repeat` batches of `number` calls, like bench/run.js.
    timer = timeit.Timer(stmt, globals=env)
    timer.timeit(number)  # warm-up
    batches = timer.repeat(repeat=repeat, number=number)
    return statistics.median(batches) / number * 1e9


def astype(count):
    a = numpy.zeros(count, dtype=numpy.uint8)
    a[: count // 2] = 7
    out = numpy.ones(count, dtype=numpy.float32)
    env = {'a': a, 'out': out, 'numpy': numpy}
    ns = per_op_ns('a.astype(numpy.float32)', env, 1, repeat=7)
    # Into memory that exists already: the conversion loop without page faults.
    copy_ns = per_op_ns("numpy.copyto(out, a, casting='unsafe')", env, 1, repeat=7)
    print(json.dumps({'numpy': numpy.__version__, 'astype_ns': ns, 'copyto_ns': copy_ns}))


def from_dlpack(size, offset, count):
    # The array of the struct round trip (a float32 view of COUNT elements at
    # OFFSET in a buffer of SIZE bytes): a.__dlpack__() and NumPy's import.
    a = numpy.frombuffer(bytearray(size), dtype=numpy.float32, count=count, offset=offset)
    ns = per_op_ns('numpy.from_dlpack(a)', {'numpy': numpy, 'a': a}, 50000, repeat=21)
    print(json.dumps({'python': sys.version.split()[0], 'numpy': numpy.__version__, 'from_dlpack_ns': ns}))


def main():
    if sys.argv[1] == 'astype':
        astype(int(sys.argv[2]))
        return
    if sys.argv[1] == 'from_dlpack':
        from_dlpack(*(int(a) for a in sys.argv[2:5]))
        return
    import torch  # pylint: disable=import-outside-toplevel
    import torch.utils.dlpack  # pylint: disable=import-outside-toplevel
    size, offset, count = (int(a) for a in sys.argv[1:4])
    buf = bytearray(size)
    t = torch.frombuffer(buf, dtype=torch.float32, count=count, offset=offset)
    env = {
        'torch': torch,
        'numpy': numpy,
        'from_dlpack': torch.utils.dlpack.from_dlpack,
        'to_dlpack': torch.utils.dlpack.to_dlpack,
        't': t,
        'b': buf,
        'n': count,
        'o': offset,
    }
    torch_ns = per_op_ns('from_dlpack(to_dlpack(t))', env, 20000)
    numpy_ns = per_op_ns('numpy.frombuffer(b, dtype=numpy.float32, count=n, offset=o)', env, 50000)
    # NumPy's DLPack import of an object that makes a capsule (an array:
    # a.__dlpack__() then the import), the pointer round trip's counterpart.
    env['a'] = numpy.frombuffer(buf, dtype=numpy.float32, count=count, offset=offset)
    numpy_dlpack_ns = per_op_ns('numpy.from_dlpack(a)', env, 50000)
    print(json.dumps({
        'python': sys.version.split()[0],
        'torch': torch.__version__,
        'numpy': numpy.__version__,
        'torch_roundtrip_ns': torch_ns,
        'numpy_frombuffer_ns': numpy_ns,
        'numpy_from_dlpack_ns': numpy_dlpack_ns,
    }))


if __name__ == '__main__':
    main()
