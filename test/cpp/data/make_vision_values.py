# The torch values in test/cpp/vision_test.cc and sort_test.cc, from torch 2.13:
#   ~/.cache/dlpack-ci/peers-venv/bin/python test/cpp/data/make_vision_values.py
import torch
import torch.nn.functional as F

x = torch.arange(2 * 3 * 5, dtype=torch.float32).reshape(1, 2, 3, 5) * 0.37 - 2.0


def show(name, t):
    print(f'  // {name}')
    print('  ' + ', '.join(f'{v:.9g}F' if t.is_floating_point() else str(v) for v in t.flatten().tolist()))


print(torch.__version__)
show('interpolate(x, size=(4, 7), mode=bilinear)', F.interpolate(x, size=(4, 7), mode='bilinear', align_corners=False))
show('interpolate(x, size=(4, 7), mode=bilinear, align_corners=True)',
     F.interpolate(x, size=(4, 7), mode='bilinear', align_corners=True))
show('interpolate(x, scale_factor=1.7, mode=bilinear)', F.interpolate(x, scale_factor=1.7, mode='bilinear'))
show('interpolate(x, size=(2, 8), mode=nearest)', F.interpolate(x, size=(2, 8), mode='nearest'))
show('interpolate(x, scale_factor=2.5, mode=nearest)', F.interpolate(x, scale_factor=2.5, mode='nearest'))
v = torch.tensor([3.0, float('nan'), -1.0, 3.0, 0.0, -0.0, float('inf'), 2.0, float('nan'), -float('inf')])
show('sort(v).indices', torch.sort(v, stable=True).indices)
show('sort(v, descending=True).indices', torch.sort(v, descending=True, stable=True).indices)
show('cumsum(arange(1..6, int8))', torch.cumsum(torch.tensor([100, 100, 100, -50, 7, 1], dtype=torch.int8), 0))
show('cumprod(float32)', torch.cumprod(torch.tensor([0.1, 3.0, 7.0, 1e-3, 2.5, 1.1]), 0))
