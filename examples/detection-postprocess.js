'use strict';
// Detection post-processing of a YOLO-style output, all library calls:
// [1, 4 + classes, anchors] (cx, cy, w, h, then a score per class) ->
// permute -> the best class per anchor (max over classes) -> a score
// threshold -> boxes as (x1, y1, x2, y2) -> non-maximum suppression.
// test/recipes.test.js checks it against the same steps in torch.
// Run: node examples/detection-postprocess.js
const dl = require('..');

// { boxes [K, 4] (x1, y1, x2, y2), scores [K], classes [K] int64 } of the
// detections kept, by decreasing score.
function postprocess(output, { scoreThreshold = 0.25, iouThreshold = 0.45 } = {}) {
  const temporaries = [];
  const keep = (t) => {
    temporaries.push(t);
    return t;
  };
  try {
    const channels = output.shape[1];
    const rows = keep(output.select(0, 0).transpose(0, 1)); // [anchors, 4 + classes], a view
    const { values, indices } = keep(rows.narrow(1, 4, channels - 4)).max(1);
    keep(values);
    keep(indices);
    const [candidates] = dl.where(keep(dl.gt(values, scoreThreshold)));
    keep(candidates);
    const picked = keep(dl.indexSelect(rows, 0, candidates)); // [K, 4 + classes]
    const [cx, cy, w, h] = [0, 1, 2, 3].map((k) => keep(picked.select(1, k)));
    const halfW = keep(dl.mul(w, 0.5));
    const halfH = keep(dl.mul(h, 0.5));
    const xyxy = keep(dl.stack([keep(dl.sub(cx, halfW)), keep(dl.sub(cy, halfH)), keep(dl.add(cx, halfW)),
      keep(dl.add(cy, halfH))], 1));
    const scores = keep(dl.indexSelect(values, 0, candidates));
    const kept = keep(dl.ops.nms(xyxy, scores, iouThreshold));
    return {
      boxes: dl.indexSelect(xyxy, 0, kept),
      scores: dl.indexSelect(scores, 0, kept),
      classes: dl.indexSelect(keep(dl.indexSelect(indices, 0, candidates)), 0, kept),
    };
  } finally {
    for (const t of temporaries) t.dispose();
  }
}

// A synthetic output: `objects` objects, each seen by a cluster of anchors.
function syntheticOutput(classes = 80, anchors = 8400, objects = 12, seed = 1) {
  const g = new dl.Generator().manualSeed(seed);
  const out = dl.rand([1, 4 + classes, anchors], { generator: g });
  const data = out.data;
  for (let c = 4; c < 4 + classes; c++) {
    for (let a = 0; a < anchors; a++) data[c * anchors + a] *= 0.2; // background
  }
  for (let a = 0; a < anchors; a++) {
    const object = a % 97 < objects ? a % 97 : -1;
    data[0 * anchors + a] = 40 * (a % 16) + (object >= 0 ? 3 * object : data[a] * 600);
    data[1 * anchors + a] = 30 * Math.floor(a / 600) + data[1 * anchors + a] * 8;
    data[2 * anchors + a] = 20 + 30 * data[2 * anchors + a];
    data[3 * anchors + a] = 20 + 30 * data[3 * anchors + a];
    if (object >= 0) data[(4 + (object * 7) % classes) * anchors + a] = 0.3 + 0.7 * data[(4 + 1) * anchors + a];
  }
  return out;
}

module.exports = { postprocess, syntheticOutput };

if (require.main === module) {
  const output = syntheticOutput();
  const { boxes, scores, classes } = postprocess(output);
  console.log(`[1, 84, 8400] -> ${boxes.shape[0]} detections; the first: class ${classes.toArray()[0]}, ` +
    `score ${scores.toArray()[0].toFixed(3)}, box [${boxes.select(0, 0).toArray().map((v) => v.toFixed(1)).join(', ')}]`);
}
