# The peers of bench/linalg.js's rows: NumPy (its OpenBLAS) and torch at one
# thread, each case the median ms of `reps` runs after a warm-up, as JSON
# {"numpy": {case: ms}, "torch": {case: ms}, "versions": {...}}.
#   python bench/linalg_peers.py reps
import json
import os
import sys
import time

for name in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ[name] = '1'
import numpy as np  # noqa: E402

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 21
rng = np.random.default_rng(1)


def f32(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def median_ms(fn):
    fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[len(times) // 2]


big_a, big_b = f32(1024, 1024), f32(1024, 1024)
small_a, small_b = f32(8, 384), f32(384, 384)
mv_a, mv_b = f32(1000, 384), f32(384)
ln_x = f32(8, 128, 384)
out = {"numpy": {}, "torch": {}, "versions": {"numpy": np.__version__}}
out["numpy"]["matmul1024"] = median_ms(lambda: big_a @ big_b)
out["numpy"]["matmul8x384"] = median_ms(lambda: small_a @ small_b)
out["numpy"]["matvec1000x384"] = median_ms(lambda: mv_a @ mv_b)
out["numpy"]["varMean"] = median_ms(lambda: (ln_x.var(-1, ddof=1), ln_x.mean(-1)))
try:
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(1)
    out["versions"]["torch"] = torch.__version__
    ta, tb = torch.from_numpy(big_a), torch.from_numpy(big_b)
    sa, sb = torch.from_numpy(small_a), torch.from_numpy(small_b)
    ma, mb = torch.from_numpy(mv_a), torch.from_numpy(mv_b)
    tx = torch.from_numpy(ln_x)
    out["torch"]["matmul1024"] = median_ms(lambda: ta @ tb)
    out["torch"]["matmul8x384"] = median_ms(lambda: sa @ sb)
    out["torch"]["matvec1000x384"] = median_ms(lambda: ma @ mb)
    out["torch"]["layerNorm"] = median_ms(lambda: F.layer_norm(tx, (384,)))
    out["torch"]["varMean"] = median_ms(lambda: torch.var_mean(tx, -1))
except ImportError as error:
    out["torch"] = {"skip": str(error)}
print(json.dumps(out))
