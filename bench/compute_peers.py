# The peers of bench/native/compute_bench.cc's rows, timed the same way (the
# least and the median wall time of the runs, the least CPU time), with NumPy
# and torch at the same thread count:
#   ~/.cache/dlpack-ci/peers-venv/bin/python bench/compute_peers.py [threads]
# Figures: bench/README.md "Native cores".
import os
import sys
import time

threads = sys.argv[1] if len(sys.argv) > 1 else '1'
for name in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ[name] = threads
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(int(threads))
rng = np.random.default_rng(1)


def f32(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def row(name, reps, fn, flops=0.0):
    fn()
    wall, cpu = [], []
    for _ in range(reps):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - w) * 1e3)
        cpu.append((time.process_time() - c) * 1e3)
    wall.sort()
    cpu.sort()
    line = f'{name:44s} wall min {wall[0]:9.4f} ms  median {wall[len(wall) // 2]:9.4f} ms  cpu min {cpu[0]:9.4f} ms'
    if flops:
        line += f'  {flops / (wall[0] * 1e-3) / 1e9:6.1f} GFLOP/s'
    print(line)


print(f'threads {threads}, numpy {np.__version__}, torch {torch.__version__}')
for lib, mm in (('numpy', lambda a, b, o: np.matmul(a, b, out=o)),
                ('torch', lambda a, b, o: torch.matmul(a, b, out=o))):
    conv = (lambda v: v) if lib == 'numpy' else torch.from_numpy
    a, b, c = conv(f32(1024, 1024)), conv(f32(1024, 1024)), conv(np.empty((1024, 1024), np.float32))
    row(f'{lib} matmul [1024,1024]x[1024,1024]', 15, lambda: mm(a, b, c), 2.0 * 1024 ** 3)
    a, b, c = conv(f32(8, 384)), conv(f32(384, 384)), conv(np.empty((8, 384), np.float32))
    row(f'{lib} matmul [8,384]x[384,384]', 2000, lambda: mm(a, b, c), 2.0 * 8 * 384 * 384)
    a, b, c = conv(f32(1000, 384)), conv(f32(384)), conv(np.empty(1000, np.float32))
    row(f'{lib} matmul [1000,384]x[384]', 2000, lambda: mm(a, b, c), 2.0 * 1000 * 384)
x = torch.from_numpy(f32(256, 1000))
vals, idx = torch.empty_like(x), torch.empty(256, 1000, dtype=torch.int64)
row('torch sort [256,1000] descending', 50, lambda: torch.sort(x, 1, descending=True, out=(vals, idx)))
out = torch.empty_like(x)
row('torch cumsum [256,1000] dim 1', 200, lambda: torch.cumsum(x, 1, out=out))
x = torch.from_numpy(f32(1, 8400, 84))
gidx = torch.tensor([[(i * 37) % 84] for i in range(8400)]).reshape(1, 8400, 1)
gout = torch.empty(1, 8400, 1)
row('torch gather [1,8400,84] dim 2 (one per row)', 200, lambda: torch.gather(x, 2, gidx, out=gout))
x = torch.from_numpy(f32(1, 3, 160, 160))
row('torch interpolate bilinear [1,3,160,160] -> 640', 50,
    lambda: F.interpolate(x, size=(640, 640), mode='bilinear'))
x, w, b = torch.from_numpy(f32(256, 384)), torch.from_numpy(f32(384)), torch.from_numpy(f32(384))
row('torch layerNorm [256,384]', 200, lambda: F.layer_norm(x, [384], w, b))
row('torch varMean [256,384] dim 1', 200, lambda: torch.var_mean(x, 1))
try:
    import torchvision  # noqa: F401

    gen = np.random.default_rng(3)
    xy = gen.uniform(0, 600, (1000, 2)).astype(np.float32)
    wh = gen.uniform(10, 120, (1000, 2)).astype(np.float32)
    boxes = torch.from_numpy(np.concatenate([xy, xy + wh], 1))
    scores = torch.from_numpy(gen.uniform(0, 1, 1000).astype(np.float32))
    row('torchvision nms 1000 boxes, iou 0.5', 100, lambda: torchvision.ops.nms(boxes, scores, 0.5))
except ImportError:
    print('torchvision nms: skipped (torchvision is not installed)')
