'use strict';
// The recipes of examples/ against torch 2.x and 1.13 (each interpreter that
// has torch; test/pipeline-oracle.js finds them): detection post-processing
// ([1, 84, 8400] -> permute -> max over classes -> threshold -> nms; nms in
// the oracle is torchvision's definition as a plain loop, torchvision being
// absent) and top-p sampling (the nucleus probabilities and order; the draw
// itself is this library's generator, checked to fall in the nucleus and to
// repeat with its seed).
const path = require('path');
const { spawnSync } = require('child_process');
const dl = require('../lib');
const { oracles } = require('./pipeline-oracle');
const { postprocess, syntheticOutput } = require('../examples/detection-postprocess');
const { topP, sample } = require('../examples/sampling');

const SCRIPT = path.join(__dirname, 'fixtures', 'recipes_oracle.py');
const { found, skipped } = oracles();
for (const reason of skipped) console.log(`recipes.test.js: skipping the oracle ${reason}`);

const DETECTION = { scoreThreshold: 0.25, iouThreshold: 0.45 };
const SAMPLING = { temperature: 0.8, p: 0.9 };

function inputs() {
  const output = syntheticOutput();
  const g = new dl.Generator().manualSeed(42);
  const raw = dl.randn([3, 500], { generator: g });
  const logits = dl.mul(raw, 3);
  raw.dispose();
  return { output, logits };
}

describe.each(found)('against torch under %s', (python) => {
  let torch;
  let made;
  beforeAll(() => {
    made = inputs();
    const job = {
      detection: { values: Array.from(made.output.data), shape: made.output.shape, ...DETECTION },
      sampling: { values: Array.from(made.logits.data), shape: made.logits.shape, ...SAMPLING },
    };
    const run = spawnSync(python, [SCRIPT], { input: JSON.stringify(job), encoding: 'utf8', timeout: 300000,
      maxBuffer: 1 << 28 });
    if (run.status !== 0) throw new Error(`the oracle failed (${run.status} ${run.signal}): ${run.stderr}`);
    torch = JSON.parse(run.stdout);
    console.log(`recipes.test.js: torch ${torch.version} under ${python}`);
  }, 300000);
  afterAll(() => {
    made.output.dispose();
    made.logits.dispose();
  });

  test('detection post-processing keeps the same boxes, scores and classes', () => {
    const { boxes, scores, classes } = postprocess(made.output, DETECTION);
    try {
      expect(boxes.shape[0]).toBeGreaterThan(10);
      expect(classes.dtype).toBe('int64');
      expect(classes.toArray().map(Number)).toEqual(torch.detection.classes);
      expect(Array.from(scores.data)).toEqual(torch.detection.scores);
      expect(Array.from(boxes.data)).toEqual(torch.detection.boxes);
    } finally {
      for (const t of [boxes, scores, classes]) t.dispose();
    }
  });

  test('top-p: the nucleus probabilities and their order are torch\'s', () => {
    const { sorted, order } = topP(made.logits, SAMPLING);
    try {
      expect(order.toArray().flat().map(Number)).toEqual(torch.sampling.order);
      const got = Array.from(sorted.data);
      got.forEach((v, i) => {
        // softmax's exp may round differently in the last bit; a token right at the
        // boundary (the mass before it within 1e-6 of p) may fall on either side
        if (Math.abs(torch.sampling.before[i] - SAMPLING.p) < 1e-6) return;
        expect(Math.abs(v - torch.sampling.sorted[i])).toBeLessThanOrEqual(1e-6 * Math.max(v, 1e-30) + 1e-12);
      });
      expect(got.filter((v) => v > 0).length).toBe(torch.sampling.sorted.filter((v) => v > 0).length);
    } finally {
      sorted.dispose();
      order.dispose();
    }
  });
});

test('a sampled token is in the nucleus, and the same seed draws it again', () => {
  const { logits, output } = inputs();
  output.dispose();
  const draw = () => sample(logits, { ...SAMPLING, generator: new dl.Generator().manualSeed(7) });
  const a = draw();
  const b = draw();
  const { sorted, order } = topP(logits, SAMPLING);
  try {
    expect(a.shape).toEqual([3, 1]);
    expect(a.toArray()).toEqual(b.toArray());
    const tokens = a.toArray().map((r) => Number(r[0]));
    const ord = order.toArray();
    const probs = sorted.toArray();
    tokens.forEach((token, r) => {
      const position = ord[r].findIndex((x) => Number(x) === token);
      expect(probs[r][position]).toBeGreaterThan(0);
    });
  } finally {
    for (const t of [a, b, sorted, order, logits]) t.dispose();
  }
});
