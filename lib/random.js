'use strict';
// Random numbers from a seeded generator (docs/API.md "Random numbers"):
// dl.Generator, dl.manualSeed, rand, randn, randint, multinomial, torch's
// names. A Generator is a seed and a counter offset into Philox4x32-10
// (src/core/compute/random.h, philox.h): each draw reads counters from the
// offset on and moves it past them, so the same seed gives the same values
// at any thread count and on every platform. The bits are not torch's (its
// CPU generator is an mt19937); the distributions are.
const { getRandomValues } = require('crypto');
const { invalidType, invalidValue, outOfRange, fail } = require('./errors');
const { hostTensor, dtypeOf, operand, result, optionsOf } = require('./compute');
const route = require('./route');
const { computeTable } = require('./binding');
const { dtypeInfo } = require('./dtypes');
const { normalizeShape } = require('./shape');
const { integer, tooMany } = require('./views');
const { kLayout } = require('./symbols');

const OP = computeTable.random;
const U64 = (1n << 64n) - 1n;
// torch's default seed (c10 default_rng_seed_val): dl's default generator
// starts from it too, so a program that never seeds still repeats itself.
const DEFAULT_SEED = 67280421310721n;
// The one way a draw reads and moves a generator's counter (module-private).
const kDraw = Symbol('draw');

// A seed as a BigInt: a non-negative safe integer or a BigInt below 2^64.
function seedOf(seed, name = 'seed') {
  if (typeof seed === 'number') {
    integer(seed, name);
    if (seed < 0) throw outOfRange(name, 'an integer from 0 below 2^64', String(seed));
    return BigInt(seed);
  }
  if (typeof seed !== 'bigint') throw invalidType(name, 'an integer or a bigint', seed);
  if (seed < 0n || seed > U64) throw outOfRange(name, 'an integer from 0 below 2^64', String(seed));
  return seed;
}

// torch.Generator: manualSeed(seed), seed(), initialSeed(); `offset` is the
// next Philox counter (where torch has get_state()).
class Generator {
  #seed = DEFAULT_SEED;
  #offset = 0n;

  manualSeed(seed) {
    this.#seed = seedOf(seed);
    this.#offset = 0n;
    return this;
  }

  // A fresh nondeterministic seed, set and returned (torch.Generator.seed()).
  seed() {
    const words = new BigUint64Array(1);
    getRandomValues(words);
    this.#seed = words[0];
    this.#offset = 0n;
    return this.#seed;
  }

  initialSeed() { return this.#seed; }

  get offset() { return this.#offset; }

  // run(seed, offset) -> the counters it used; the offset moves past them
  // (not at all when run throws).
  [kDraw](run) {
    const used = run(this.#seed, this.#offset);
    this.#offset = (this.#offset + used) & U64;
  }
}

const defaultGenerator = new Generator();

// dl.manualSeed(seed): seeds the default generator; returns it.
const manualSeed = (seed) => defaultGenerator.manualSeed(seed);

function generatorOf(generator) {
  if (generator === undefined) return defaultGenerator;
  if (!(generator instanceof Generator)) throw invalidType('options.generator', 'a dl.Generator', generator);
  return generator;
}

// One draw of `op` into a new tensor of `shape` and `info`.
function drawn(op, shape, info, generator, low = 0n, high = 1n) {
  const value = result(info, normalizeShape(shape));
  if (value[kLayout].size === 0) return value;
  try {
    generator[kDraw]((seed, offset) => route.runRandom(op, seed, offset, low, high, operand(value)));
  } catch (error) {
    value.dispose();
    throw error;
  }
  return value;
}

const FLOAT_KEYS = ['dtype', 'generator'];

function floatDraw(op, method) {
  return function draw(shape, options, ...rest) {
    if (rest.length !== 0) tooMany(rest, 2, method);
    const { dtype = 'float32', generator } = optionsOf(options, FLOAT_KEYS);
    const info = dtypeInfo(dtype, 'options.dtype');
    if (info.kind !== 'float') {
      throw fail('ERR_INVALID_ARG_VALUE', 'options.dtype', `a floating-point dtype for ${method}`, info.name);
    }
    return drawn(op, shape, info, generatorOf(generator));
  };
}

// rand(shape, { dtype, generator }): uniform in [0, 1).
const rand = floatDraw(OP.rand, 'rand()');
// randn(shape, { dtype, generator }): standard normal.
const randn = floatDraw(OP.randn, 'randn()');

// A randint bound: an integer number or a BigInt.
function bound(v, name) {
  if (typeof v === 'bigint') return v;
  integer(v, name);
  return BigInt(v);
}

// randint(low = 0, high, shape, { dtype = 'int64', generator }): uniform
// integers in [low, high).
function randint(...args) {
  let options;
  if (args.length > 0 && args[args.length - 1] !== null && typeof args[args.length - 1] === 'object' &&
      !Array.isArray(args[args.length - 1])) {
    options = args.pop();
  }
  if (args.length < 2 || args.length > 3) {
    throw invalidValue('arguments', '(high, shape) or (low, high, shape) before the options for randint()',
      `${args.length} of them`);
  }
  const [low, high, shape] = args.length === 2 ? [0n, bound(args[0], 'high'), args[1]] :
    [bound(args[0], 'low'), bound(args[1], 'high'), args[2]];
  const { dtype = 'int64', generator } = optionsOf(options, FLOAT_KEYS);
  const info = dtypeInfo(dtype, 'options.dtype');
  if (info.kind === 'complex') {
    throw fail('ERR_INVALID_ARG_VALUE', 'options.dtype', 'a real dtype for randint()', info.name);
  }
  if (high <= low) throw outOfRange('high', `an integer above low (${low})`, String(high));
  if (info.kind !== 'float' && (low < info.min || high - 1n > info.max)) {
    throw outOfRange('high', `a range [low, high) inside ${info.name}'s [${info.min}, ${info.max}]`,
      `[${low}, ${high})`);
  }
  if (low < -(1n << 63n) || high > (1n << 63n) - 1n) {
    throw outOfRange('high', 'bounds from -2^63 below 2^63', `[${low}, ${high})`);
  }
  return drawn(OP.randint, shape, info, generatorOf(generator), low, high);
}

const MULTINOMIAL_KEYS = ['replacement', 'generator'];

// multinomial(probs, numSamples, { replacement = false, generator }) -> int64
// [rows, numSamples] ([numSamples] for a 1-d probs): indices drawn by weight.
function multinomial(probs, numSamples, options, ...rest) {
  if (rest.length !== 0) tooMany(rest, 3, 'multinomial()');
  hostTensor(probs, 'probs', 'multinomial()');
  dtypeOf(probs, 'probs', 'multinomial()', ['float'], 'a floating-point tensor');
  const { replacement = false, generator } = optionsOf(options, MULTINOMIAL_KEYS);
  if (typeof replacement !== 'boolean') throw invalidType('options.replacement', 'a boolean', replacement);
  const gen = generatorOf(generator);
  const shape = probs[kLayout].shape;
  if (shape.length !== 1 && shape.length !== 2) {
    throw fail('ERR_INVALID_ARG_VALUE', 'probs', 'a 1-d or 2-d tensor for multinomial()',
      `one of shape [${shape.join(', ')}]`);
  }
  integer(numSamples, 'numSamples');
  const k = shape[shape.length - 1];
  if (k === 0) throw fail('ERR_INVALID_ARG_VALUE', 'probs', 'at least one category for multinomial()', 'none');
  if (numSamples <= 0 || (!replacement && numSamples > k)) {
    throw outOfRange('numSamples', replacement ? 'an integer from 1' :
      `an integer from 1 to ${k} (the categories; without replacement)`, String(numSamples));
  }
  const rows = shape.length === 1 ? 1 : shape[0];
  const value = result(dtypeInfo('int64'), shape.length === 1 ? [numSamples] : [rows, numSamples]);
  if (rows === 0) return value;
  const two = (t) => {
    const o = operand(t);
    return o.shape.length === 2 ? o : { ...o, shape: [1, o.shape[0]], strides: [0, o.strides[0]] };
  };
  try {
    gen[kDraw]((seed, offset) => route.runMultinomial(two(probs), numSamples, replacement, seed, offset, two(value)));
  } catch (error) {
    value.dispose();
    throw error;
  }
  return value;
}

const functions = { rand, randn, randint, multinomial, manualSeed };

const tensorMethods = {
  multinomial(numSamples, options) { return multinomial(this, numSamples, options); },
};

module.exports = { Generator, defaultGenerator, functions, tensorMethods };
