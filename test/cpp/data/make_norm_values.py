# The torch values in test/cpp/stats_test.cc (TorchValues), from torch 2.13:
#   ~/.cache/dlpack-ci/peers-venv/bin/python test/cpp/data/make_norm_values.py
import torch
import torch.nn.functional as F

x = torch.tensor([[0.5, -1.25, 3.0, 1e-3, 7.5], [2.0, 2.0, 2.0, 2.0, 2.0], [1e4, -1e4, 3.0, 0.1, -0.7]],
                 dtype=torch.float32)
y = torch.tensor([[1.0, 0.0, -2.0, 4.0, 0.5], [0.0, 0.0, 0.0, 0.0, 0.0], [3.0, 1.0, -1.0, 2.0, 0.25]],
                 dtype=torch.float32)
w = torch.tensor([1.5, -0.5, 2.0, 1.0, 0.25], dtype=torch.float32)
b = torch.tensor([0.1, 0.2, -0.3, 0.0, 1.0], dtype=torch.float32)


def show(name, t):
    print(f'  // {name}')
    print('  ' + ', '.join(f'{v:.9g}F' for v in t.flatten().tolist()))


print(torch.__version__)
show('var(x, 1, correction=1)', torch.var(x, 1, correction=1))
show('std(x, 1, correction=0)', torch.std(x, 1, correction=0))
show('vector_norm(x, 2, 1)', torch.linalg.vector_norm(x, 2, 1))
show('vector_norm(x, 3, 1)', torch.linalg.vector_norm(x, 3, 1))
show('vector_norm(x, 0.5, 1)', torch.linalg.vector_norm(x, 0.5, 1))
show('layer_norm(x, [5], w, b, 1e-5)', F.layer_norm(x, [5], w, b, 1e-5))
show('cosine_similarity(x, y, 1)', F.cosine_similarity(x, y, 1))
show('normalize(x, 2, 1)', F.normalize(x, 2, 1))
show('normalize(y, 2, 1)', F.normalize(y, 2, 1))
