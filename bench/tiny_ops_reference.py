"""The peers' side of bench/tiny_ops.js: a tiny op's per-call cost in NumPy and
PyTorch, timed as that file times ours: median over BATCHES batches of CALLS
calls, time.perf_counter_ns around each batch.

    python bench/tiny_ops_reference.py CALLS BATCHES

Prints one JSON object: {"versions": {...}, "ns": {row: ns per call}}.
"""
import json
import sys
import time

import numpy as np

calls = int(sys.argv[1])
batches = int(sys.argv[2])
out = {"versions": {"numpy": np.__version__}, "ns": {}}


def per_call_ns(fn):
    for _ in range(3):  # warm up
        fn(calls)
    times = []
    for _ in range(batches):
        start = time.perf_counter_ns()
        fn(calls)
        times.append((time.perf_counter_ns() - start) / calls)
    times.sort()
    return times[len(times) // 2]


a = np.arange(8, dtype=np.float32)
b = np.arange(8, dtype=np.float32) * 2
o = np.empty(8, dtype=np.float32)


def np_add_out(n):
    for _ in range(n):
        np.add(a, b, out=o)


def np_add(n):
    for _ in range(n):
        np.add(a, b)


out["ns"]["numpy.add(out=)"] = per_call_ns(np_add_out)
out["ns"]["numpy.add"] = per_call_ns(np_add)

try:
    import torch

    torch.set_num_threads(1)
    ta = torch.arange(8, dtype=torch.float32)
    tb = ta * 2
    to = torch.empty(8, dtype=torch.float32)

    def torch_add_out(n):
        for _ in range(n):
            torch.add(ta, tb, out=to)

    def torch_add(n):
        for _ in range(n):
            torch.add(ta, tb)

    out["versions"]["torch"] = torch.__version__
    out["ns"]["torch.add(out=)"] = per_call_ns(torch_add_out)
    out["ns"]["torch.add"] = per_call_ns(torch_add)
except ImportError:
    pass

print(json.dumps(out))
