'use strict';
// The ops on a CUDA device (bench/README.md "CUDA ops"), run only where a GPU
// is usable: each op on device tensors, synchronised after every call, against
// PyTorch doing the same work on the same GPU (DLPACK_BENCH_PYTHON, torch with
// CUDA), in the same run. Rows are ms per op (median); ratio = ours / torch.
const { spawnSync } = require('child_process');
const dl = require('../lib');

const REPS = 21;
const now = process.hrtime.bigint;
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

// Median ms of fn() then a device synchronise, after one warm-up; `after`
// runs untimed after each call (a cold row's scrub, a fresh row's keeping).
function deviceMs(fn, after = () => {}) {
  after(fn());
  dl.cuda.synchronize(0);
  const t = [];
  for (let i = 0; i < REPS; i++) {
    const start = now();
    const result = fn();
    dl.cuda.synchronize(0);
    t.push(Number(now() - start) / 1e6);
    after(result);
  }
  return t.sort((a, b) => a - b)[t.length >> 1];
}

// The same work in torch on cuda:0: { ms: {name: ms}, version } or { reason }.
function torchOps() {
  const python = process.env.DLPACK_BENCH_PYTHON || '/usr/bin/python3';
  const code = `
import json, time, torch
if not torch.cuda.is_available():
    raise SystemExit("torch has no CUDA here")
d = 'cuda'
def ms(fn, after=lambda r: None):
    after(fn()); torch.cuda.synchronize()
    t = []
    for _ in range(${REPS}):
        s = time.perf_counter(); r = fn(); torch.cuda.synchronize(); t.append(time.perf_counter() - s)
        after(r)
    t.sort(); return t[len(t) // 2] * 1e3
# The cold rows' scrub: a 256 MiB copy on the device (past any GPU's L2) and
# 64 MiB written on the host (the call's own code and data), then a synchronise.
scrub_a = torch.empty(64 * 1024 * 1024, device=d); scrub_b = torch.empty(64 * 1024 * 1024, device=d)
host_scrub = torch.empty(64 * 1024 * 1024, dtype=torch.uint8)
fills = [0]
def scrub(_=None):
    fills[0] = (fills[0] + 1) % 256
    scrub_b.copy_(scrub_a); host_scrub.fill_(fills[0]); torch.cuda.synchronize()
kept = []
N = 64 * 1024 * 1024
a = torch.rand(N, device=d); b = torch.rand(N, device=d); out = torch.empty(N, device=d)
logits = torch.randn(4096, 1000, device=d)
wide = torch.randn(4096, 1024, device=d)
frames = torch.randint(0, 256, (64, 224, 224, 3), dtype=torch.uint8, device=d)
mean = torch.tensor(${JSON.stringify(MEAN)}, device=d).view(3, 1, 1)
std = torch.tensor(${JSON.stringify(STD)}, device=d).view(3, 1, 1)
batch = torch.empty(64, 3, 224, 224, device=d)
def pre():
    torch.sub(frames.permute(0, 3, 1, 2).float().div_(255), mean, out=batch); batch.div_(std)
frame = frames[0]; one = torch.empty(3, 224, 224, device=d)
def pre1():
    torch.sub(frame.permute(2, 0, 1).float().div_(255), mean, out=one); one.div_(std)
small = torch.randn(256, 1000, device=d)
fresh_a = a[:16 * 1024 * 1024]; fresh_b = b[:16 * 1024 * 1024]
print(json.dumps({"version": torch.__version__, "ms": {
  "add": ms(lambda: torch.add(a, b, out=out)),
  "exp": ms(lambda: torch.exp(a, out=out)),
  "softmax": ms(lambda: torch.softmax(logits, -1)),
  "sum1": ms(lambda: wide.sum(1)),
  "normalize": ms(pre),
  "normalize1": ms(pre1),
  "normalize1_cold": ms(pre1, scrub),
  "softmax_cold": ms(lambda: torch.softmax(small, -1), scrub),
  "add_fresh": ms(lambda: torch.add(fresh_a, fresh_b), kept.append),
}}))`;
  const run = spawnSync(python, ['-c', code], { encoding: 'utf8', timeout: 300000 });
  if (run.status !== 0) return { reason: `${python}: ${(run.stderr || String(run.error)).trim().split('\n').pop()}` };
  return JSON.parse(run.stdout);
}

function cudaOpCases(record) {
  if (!dl.cuda.isAvailable()) return `CUDA op benchmarks skipped: ${dl.capabilities().cuda.reason}`;
  const torch = torchOps();
  const notes = [];
  if (torch.reason) notes.push(`no torch peer (${torch.reason})`);
  else notes.push(`torch ${torch.version}`);
  const made = [];
  const keep = (t) => { made.push(t); return t; };
  const N = 64 * 1024 * 1024;
  const a = keep(dl.empty([N], { device: 'cuda' }));
  const b = keep(dl.empty([N], { device: 'cuda' }));
  const out = keep(dl.empty([N], { device: 'cuda' }));
  const logits = keep(dl.empty([4096, 1000], { device: 'cuda' }));
  const wide = keep(dl.empty([4096, 1024], { device: 'cuda' }));
  const frames = keep(dl.zeros([64, 224, 224, 3], { dtype: 'uint8', device: 'cuda' }));
  const batch = keep(dl.empty([64, 3, 224, 224], { device: 'cuda' }));
  for (const t of [a, b, logits, wide]) t.copyFrom(dl.zeros(t.shape).add_(0.5));
  const one = keep(dl.empty([3, 224, 224], { device: 'cuda' }));
  const frame = frames.select(0, 0);
  const small = keep(dl.empty([256, 1000], { device: 'cuda' }));
  small.copyFrom(dl.zeros(small.shape).add_(0.25));
  const freshA = a.narrow(0, 0, 16 * 1024 * 1024);
  const freshB = b.narrow(0, 0, 16 * 1024 * 1024);
  // The cold rows' scrub, as torch's above: a 256 MiB copy on the device and
  // 64 MiB written on the host, then a synchronise.
  const scrubA = keep(dl.empty([N], { device: 'cuda' }));
  const scrubB = keep(dl.empty([N], { device: 'cuda' }));
  const hostScrub = new Uint8Array(64 * 1024 * 1024);
  let fills = 0;
  const scrub = (result) => {
    if (result && typeof result.dispose === 'function' && result !== one) result.dispose();
    scrubB.copyFrom(scrubA);
    hostScrub.fill(++fills & 255);
    dl.cuda.synchronize(0);
  };
  // The fresh-memory row keeps every result until the row ends, so the
  // caching allocator hands out no block a result has used.
  const kept = [];
  const cases = [
    ['add', 'dl.add 64M float32 into out', () => dl.add(a, b, { out })],
    ['exp', 'dl.exp 64M float32 into out', () => dl.exp(a, { out })],
    ['softmax', 'softmax(-1) [4096,1000]', () => logits.softmax(-1).dispose()],
    ['sum1', 'sum(1) [4096,1024]', () => wide.sum(1).dispose()],
    ['normalize', 'dl.normalize 64 uint8 HWC frames -> float32 NCHW',
      () => dl.normalize(frames.permute(0, 3, 1, 2), MEAN, STD, { scale: 1 / 255, out: batch })],
    ['normalize1', 'dl.normalize one uint8 224x224 frame (the video case)',
      () => dl.normalize(frame.permute(2, 0, 1), MEAN, STD, { scale: 1 / 255, out: one })],
    ['normalize1_cold', 'dl.normalize one frame, cold: GPU L2 and host caches scrubbed between calls',
      () => dl.normalize(frame.permute(2, 0, 1), MEAN, STD, { scale: 1 / 255, out: one }), scrub],
    ['softmax_cold', 'softmax(-1) [256,1000], cold: scrubbed between calls', () => small.softmax(-1), scrub],
    ['add_fresh', 'dl.add 16M float32, new result in fresh memory (results kept)', () => dl.add(freshA, freshB),
      (r) => kept.push(r)],
  ];
  for (const [id, name, fn, after] of cases) {
    let ms;
    try {
      ms = deviceMs(fn, after);
    } catch (error) {
      record({ id: `cuda_op_${id}`, name: `CUDA ${name}`, unit: 'ms', info: true, value: null,
        note: `not on the device: ${error.code || error.message}` });
      continue;
    }
    const base = torch.ms ? torch.ms[id] : undefined;
    record({
      id: `cuda_op_${id}`, name: `CUDA ${name}`, unit: 'ms', value: ms, baseline: base,
      baselineName: base === undefined ? undefined : `torch ${torch.version} on the same GPU`,
      ratio: base === undefined ? undefined : ms / base,
      target: base === undefined ? undefined : { on: 'ratio', op: '<=', limit: 1.25, text: '<= 1.25 (torch on the GPU)' },
    });
  }
  for (const t of [...made, ...kept]) t.dispose();
  return `CUDA ops: ${notes.join('; ')}`;
}

module.exports = { cudaOpCases };
