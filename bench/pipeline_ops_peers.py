# torch's side of bench/pipeline_ops.js (issue 40's sort, cumsum, gather, nms,
# interpolate rows): the same inputs, torch at the thread count given, median
# ms over `repeats` runs after one warm-up; one JSON object on stdout.
# torchvision is not installed here: the nms row is absent unless it is.
import json
import sys
import time

import torch

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 51
torch.set_num_threads(threads)
g = torch.Generator().manual_seed(1)


def median_ms(fn):
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    return times[len(times) // 2]


x = torch.rand(64, 1000, generator=g)
c = torch.rand(64, 32000, generator=g)
table = torch.rand(1000, 384, generator=g)
index = torch.randint(0, 384, (1000, 64), generator=g)
image = torch.rand(1, 3, 256, 256, generator=g)
rows = {
    'sort [64, 1000] float32 dim -1': median_ms(lambda: torch.sort(x, -1)),
    'cumsum [64, 32000] float32 dim -1': median_ms(lambda: torch.cumsum(c, -1)),
    'gather [1000, 384] float32 dim 1, index [1000, 64]': median_ms(lambda: torch.gather(table, 1, index)),
    'interpolate [1, 3, 256, 256] bilinear -> 512x512': median_ms(
        lambda: torch.nn.functional.interpolate(image, size=(512, 512), mode='bilinear', align_corners=False)),
}
try:
    import torchvision  # noqa: F401
    xy = torch.rand(2000, 2, generator=g) * 600
    wh = torch.rand(2000, 2, generator=g) * 60 + 10
    boxes = torch.cat([xy, xy + wh], 1)
    scores = torch.rand(2000, generator=g)
    rows['nms 2000 boxes float32 iou 0.5'] = median_ms(lambda: torchvision.ops.nms(boxes, scores, 0.5))
except ImportError:
    pass
print(json.dumps({'version': torch.__version__, 'threads': threads, 'rows': rows}))
