"""Reference timings for bench/reduce.js: NumPy's sum(1) of a [4096, 1024]
float32 array, PyTorch's softmax(-1) and topk(5) of a [256, 1000] float32
tensor, with PyTorch's default threads. Prints one JSON object (ns per call).

    python3 bench/reduce_reference.py
"""
import json
import statistics
import timeit

import numpy
import torch


def per_op_ns(stmt, env, number, repeat=11):
    timer = timeit.Timer(stmt, globals=env)
    timer.timeit(number)  # warm-up
    return statistics.median(timer.repeat(repeat=repeat, number=number)) / number * 1e9


def main():
    rng = numpy.random.default_rng(1)
    a = rng.random((4096, 1024), dtype=numpy.float32)
    logits = torch.from_numpy(rng.standard_normal((256, 1000), dtype=numpy.float32))
    env = {'a': a, 'logits': logits, 'torch': torch}
    print(json.dumps({
        'numpy': numpy.__version__,
        'torch': torch.__version__,
        'threads': torch.get_num_threads(),
        'sum_ns': per_op_ns('a.sum(1)', env, 20),
        'softmax_ns': per_op_ns('torch.softmax(logits, -1)', env, 50),
        'topk_ns': per_op_ns('torch.topk(logits, 5)', env, 50),
    }))


main()
