"""The Python half of examples/python-roundtrip.js.

Reads a 'shm' descriptor from Node on stdin, opens it as a NumPy array (and a
torch tensor where PyTorch is installed) without copying, doubles it in place,
then allocates a shared array of its own and prints its descriptor for Node.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'python'))
import dlpack_node  # noqa: E402

descriptor = json.loads(sys.stdin.readline())
batch = dlpack_node.open(descriptor)
print(f'python: opened {descriptor["name"]} as numpy {batch.dtype} {batch.shape}, '
      f'sum {batch.sum():.1f}', file=sys.stderr)
batch *= 2  # in place: Node sees it
try:
    import torch
    as_torch = dlpack_node.open(descriptor, like='torch')
    print(f'python: the same memory as torch {torch.__version__} {as_torch.dtype} {tuple(as_torch.shape)}, '
          f'sum {float(as_torch.sum()):.1f}', file=sys.stderr)
    del as_torch
except ImportError:
    print('python: torch not installed, numpy only', file=sys.stderr)

answer = dlpack_node.empty((2, 3), dtype='int64')
answer[:] = [[1, 2, 3], [4, 5, 6]]
print(json.dumps(dlpack_node.share(answer)), flush=True)
sys.stdin.readline()  # keep `answer` attached until Node has opened it
