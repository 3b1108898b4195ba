'use strict';
// Sentence-embedding post-processing, all library calls (what transformers.js
// writes as JS loops: mean_pooling, normalize, cos_sim): a model's last hidden
// state [batch, tokens, dim] and its attention mask [batch, tokens] ->
// mean pooling over the tokens the mask keeps -> L2 normalisation -> the
// cosine similarity matrix (one matmul of unit vectors) -> each sentence's
// most similar others (topk). test/linalg.test.js checks it against torch.
// Run: node examples/sentence-embedding.js
const dl = require('..');

// { embeddings [batch, dim], similarity [batch, batch], top: { values, indices } [batch, k] }.
function postprocess(hidden, mask, k = 2) {
  const m = mask.to('float32').unsqueeze(-1); // [batch, tokens, 1]
  const summed = dl.sum(dl.mul(hidden, m), 1); // [batch, dim]
  const counts = dl.clamp(dl.sum(m, 1), 1e-9); // [batch, 1]: tokens kept (at least 1e-9)
  const pooled = dl.div(summed, counts);
  const embeddings = dl.lpNormalize(pooled, 2, 1); // F.normalize(p=2, dim=1)
  const similarity = dl.matmul(embeddings, embeddings.transpose(0, 1));
  const top = similarity.topk(k, -1);
  for (const t of [m, summed, counts, pooled]) t.dispose();
  return { embeddings, similarity, top };
}

// A stand-in for a model's output: deterministic values, the second
// sentence's last three tokens padding.
function example(batch = 2, tokens = 8, dim = 384) {
  const values = new Float32Array(batch * tokens * dim);
  let s = 12345;
  for (let i = 0; i < values.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    values[i] = s / 2 ** 32 - 0.5;
  }
  const hidden = dl.tensor(values, { shape: [batch, tokens, dim] });
  const mask = dl.ones([batch, tokens], { dtype: 'int64' });
  if (batch > 1) mask.select(0, 1).narrow(0, tokens - 3, 3).fill_(0);
  return { hidden, mask };
}

module.exports = { postprocess, example };

if (require.main === module) {
  const { hidden, mask } = example();
  const { similarity, top } = postprocess(hidden, mask);
  console.log('cosine similarity:', similarity.toArray());
  console.log('most similar:', top.indices.toArray());
}
