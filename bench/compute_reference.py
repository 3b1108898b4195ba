"""The peers' side of bench/compute.js: NumPy and PyTorch on the same work.

Usage: compute_reference.py THREADS REPEATS [SHORT_REPEATS [ONLY]]
Prints one JSON object: {"versions": {...}, "ms": {name: median ms per op}}.
ONLY, a JSON array of row names, times those rows alone (compute.js's
side-by-side rounds).
Every op makes its result, as a user of that library would (NumPy and torch
allocate a new array per call unless told otherwise); the in-place rows are
in place. torch runs with THREADS intra-op threads; NumPy's elementwise loops
are single-threaded whatever the count. The rows of under a few milliseconds
take SHORT_REPEATS samples (as compute.js takes for the same rows).
"""
import json
import sys
import time

import numpy as np

threads = int(sys.argv[1])
repeats = int(sys.argv[2])
short = int(sys.argv[3]) if len(sys.argv) > 3 else repeats
only = set(json.loads(sys.argv[4])) if len(sys.argv) > 4 else None
out = {"versions": {"numpy": np.__version__}, "ms": {}}


def median_ms(fn, repeats=repeats):
    fn()  # warm up: first-touch pages, lazy init
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[len(times) // 2]


def time_row(name, fn, repeats=repeats):
    if only is None or name in only:
        out["ms"][name] = median_ms(fn, repeats)


N = 16 * 1024 * 1024
rng = np.random.default_rng(1)
a = rng.random(N, dtype=np.float32)
b = rng.random(N, dtype=np.float32)
time_row("numpy add 16M float32", lambda: np.add(a, b))
time_row("numpy exp 16M float32", lambda: np.exp(a))
time_row("numpy tanh 16M float32", lambda: np.tanh(a))
m = rng.random((4096, 1024), dtype=np.float32)
time_row("numpy sum(1) [4096,1024] float32", lambda: m.sum(1), short)
logits = rng.standard_normal((256, 1000), dtype=np.float32)


def np_softmax():
    e = np.exp(logits - logits.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


time_row("numpy softmax(-1) [256,1000]", np_softmax, short)
batch = rng.random((8, 3, 224, 224), dtype=np.float32)
mean = np.array([0.485, 0.456, 0.406], dtype=np.float32).reshape(1, 3, 1, 1)
std = np.array([0.229, 0.224, 0.225], dtype=np.float32).reshape(1, 3, 1, 1)


def np_normalize_inplace():
    np.subtract(batch, mean, out=batch)
    np.divide(batch, std, out=batch)


time_row("numpy in-place sub/div [8,3,224,224]", np_normalize_inplace, short)
frames = [rng.integers(0, 256, (224, 224, 3), dtype=np.uint8) for _ in range(8)]
mean3 = mean.reshape(3, 1, 1)
std3 = std.reshape(3, 1, 1)
time_row(
    "numpy preprocess 8 frames",
    lambda: np.stack([(f.transpose(2, 0, 1).astype(np.float32) / 255 - mean3) / std3 for f in frames]), short)

try:
    import torch
except ImportError as error:
    out["torch"] = "unavailable: %s" % error
else:
    torch.set_num_threads(threads)
    out["versions"]["torch"] = torch.__version__
    ta = torch.from_numpy(a)
    tb = torch.from_numpy(b)
    time_row("torch add 16M float32", lambda: torch.add(ta, tb))
    time_row("torch exp 16M float32", lambda: torch.exp(ta))
    time_row("torch sigmoid 16M float32", lambda: torch.sigmoid(ta))
    time_row("torch tanh 16M float32", lambda: torch.tanh(ta))
    tm = torch.from_numpy(m)
    time_row("torch sum(1) [4096,1024] float32", lambda: tm.sum(1), short)
    tl = torch.from_numpy(logits)
    time_row("torch softmax(-1) [256,1000]", lambda: torch.softmax(tl, -1), short)
    time_row("torch topk(5) [256,1000]", lambda: torch.topk(tl, 5), short)
    tbatch = torch.from_numpy(batch)
    tmean = torch.from_numpy(mean)
    tstd = torch.from_numpy(std)
    time_row("torch in-place sub_/div_ [8,3,224,224]", lambda: tbatch.sub_(tmean).div_(tstd), short)
    tframes = [torch.from_numpy(f) for f in frames]
    tmean3 = tmean.reshape(3, 1, 1)
    tstd3 = tstd.reshape(3, 1, 1)
    time_row(
        "torch preprocess 8 frames",
        lambda: torch.stack([(f.permute(2, 0, 1).float() / 255 - tmean3) / tstd3 for f in tframes]), short)

print(json.dumps(out))
