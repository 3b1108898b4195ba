"""Peer timings for bench/compute.js: NumPy and PyTorch on the same work as
the ops rows. Prints one JSON object of ns per call (median of 7 batches).

    python3 bench/compute_peers.py
"""
import json
import statistics
import timeit

import numpy
import torch


def per_op_ns(stmt, env, number=1, repeat=7):
    timer = timeit.Timer(stmt, globals=env)
    timer.timeit(number)  # warm-up
    return statistics.median(timer.repeat(repeat=repeat, number=number)) / number * 1e9


def main():
    n = 16 << 20
    a = numpy.arange(n, dtype=numpy.float32) % 256
    b = numpy.full(n, 1.5, dtype=numpy.float32)
    ta = torch.from_numpy(a)
    x = torch.rand(8, 3, 224, 224)
    mean = torch.tensor([0.485, 0.456, 0.406]).reshape(3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).reshape(3, 1, 1)
    frames = [torch.randint(0, 256, (224, 224, 3), dtype=torch.uint8) for _ in range(8)]
    env = {'numpy': numpy, 'torch': torch, 'a': a, 'b': b, 'ta': ta, 'x': x, 'mean': mean, 'std': std,
           'frames': frames}
    out = {
        'numpy': numpy.__version__,
        'torch': torch.__version__,
        'threads': torch.get_num_threads(),
        'np_add_ns': per_op_ns('numpy.add(a, b)', env),
        'torch_sub_div_ns': per_op_ns('x.sub_(mean).div_(std)', env, number=20),
        'torch_exp_ns': per_op_ns('torch.exp(ta)', env),
        'torch_normalize_ns': per_op_ns(
            'torch.stack([(f.permute(2, 0, 1).float() / 255 - mean) / std for f in frames])', env, number=20),
    }
    print(json.dumps(out))


main()
