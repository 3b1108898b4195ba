# The torch values in test/cpp/matmul_test.cc (TorchValues), from torch 2.13:
#   ~/.cache/dlpack-ci/peers-venv/bin/python test/cpp/data/make_matmul_values.py
import torch

a = torch.tensor([[0.1, 0.2, 0.3], [1e8, 3.0, -1e8]], dtype=torch.float32)
b = torch.tensor([[0.7, -0.4], [0.5, 0.25], [0.9, 1.0 / 3.0]], dtype=torch.float32)
print(torch.__version__, [float(v) for v in (a @ b).flatten()])
