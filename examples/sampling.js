'use strict';
// Sampling the next token, all library calls: logits -> temperature ->
// softmax -> top-p (nucleus: sort, cumsum, keep the smallest set of tokens
// whose probability reaches p) -> a seeded multinomial draw.
// test/recipes.test.js checks the top-p probabilities against torch.
// Run: node examples/sampling.js
const dl = require('..');

// The nucleus of each row of `logits` [rows, vocab]: { sorted [rows, vocab]
// (probabilities by decreasing value, 0 outside the nucleus), order (the
// token of each sorted position, int64) }.
function topP(logits, { temperature = 0.8, p = 0.9 } = {}) {
  const temporaries = [];
  const keep = (t) => {
    temporaries.push(t);
    return t;
  };
  try {
    const probs = keep(dl.softmax(keep(dl.div(logits, temperature)), -1));
    const { values, indices } = dl.sort(probs, -1, { descending: true });
    keep(values);
    // A token is dropped when the tokens before it already reach p (the most
    // likely token always stays).
    const before = keep(dl.sub(keep(dl.cumsum(values, -1)), values));
    const sorted = dl.maskedFill(values, keep(dl.gt(before, p)), 0);
    return { sorted, order: indices };
  } finally {
    for (const t of temporaries) t.dispose();
  }
}

// One token per row of logits, drawn from the nucleus with `generator`: int64 [rows, 1].
function sample(logits, { temperature = 0.8, p = 0.9, generator } = {}) {
  const { sorted, order } = topP(logits, { temperature, p });
  try {
    const position = dl.multinomial(sorted, 1, { generator });
    try {
      return dl.gather(order, 1, position);
    } finally {
      position.dispose();
    }
  } finally {
    sorted.dispose();
    order.dispose();
  }
}

module.exports = { topP, sample };

if (require.main === module) {
  const vocab = 32000;
  const generator = new dl.Generator().manualSeed(42);
  const logits = dl.randn([2, vocab], { generator });
  const scaled = dl.mul(logits, 3);
  const tokens = sample(scaled, { generator: new dl.Generator().manualSeed(7) });
  const again = sample(scaled, { generator: new dl.Generator().manualSeed(7) });
  console.log(`two rows of ${vocab} logits -> tokens ${tokens.toArray().flat().join(', ')} ` +
    `(the same seed again: ${again.toArray().flat().join(', ')})`);
}
