// engine.createTrainer(): one attention layer trained inside WebAssembly. This file checks
// JavaScript types and applies defaults; the core checks values and names the field at fault.
// Shapes and layouts: see attention.d.ts (TrainerOptions, TrainingExample).

const TRAINER_OPTIONS = new Set(['model', 'loss', 'optimizer', 'train', 'seed', 'weights']);
const MODEL_OPTIONS = new Set(['dModel', 'heads', 'dK', 'dV', 'wo', 'biases', 'positions', 'scale', 'mask', 'vocabulary']);
// Names are looked up in Maps: 'toString' or '__proto__' is an unknown kind, never a mode.
const LOSS_KINDS = new Map([['attend', 0], ['classify', 1], ['regress', 2]]);
const OPTIMIZER_KINDS = new Map([['sgd', 0], ['adam', 1]]);
const OPTIMIZER_OPTIONS = new Set(['kind', 'learningRate', 'momentum', 'beta1', 'beta2', 'epsilon', 'weightDecay', 'clipNorm', 'batchSize']);
const EXAMPLE_OPTIONS = new Set(['x', 'tokens', 'query', 'target', 'head']);
const LOSS_HEAD = -2;  // an example without a head of its own takes the loss's (kLossHead in trainer.hpp)
// Every whole number crosses into WebAssembly as a C++ int, which would wrap anything past 32 bits
// (2³² + 1 steps ran 1 step): each is checked here as a JavaScript number, in its own range.
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
export const MAX_STEPS = 1_000_000;  // the core's own cap (Trainer::step)

// `api` carries attention.mjs's option helpers, so both files read options the same way.
export function object(api, value, field) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw api.fieldError(TypeError, field, `${field} must be an object, got ${api.describe(value)}`);
  }
  return value;
}

function number(api, options, field, fallback, prefix) {
  const value = options[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'number') {
    throw api.fieldError(TypeError, `${prefix}${field}`, `${prefix}${field} must be a number, got ${api.describe(value)}`);
  }
  return value;
}

// A whole number from min to max (a C++ int's range unless narrower); the message quotes the value given.
export function wholeNumber(api, value, field, fallback, min = INT_MIN, max = INT_MAX) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw api.fieldError(TypeError, field, `${field} must be a whole number, got ${api.describe(value)}`);
  }
  if (value < min || value > max) {
    throw api.fieldError(RangeError, field, `${field} must be a whole number from ${min} to ${max}, got ${exactly(value)}`);
  }
  return value;
}

// A number as given, all its digits: 2 ** 64 is 18446744073709551616, not 1.8446744073709552e+19.
export const exactly = (value) => (Number.isInteger(value) && Math.abs(value) < 1e300 ? BigInt(value).toString() : String(value));

function boolean(api, value, field, fallback) {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw api.fieldError(TypeError, field, `${field} must be true or false, got ${api.describe(value)}`);
  return value;
}

export function known(api, options, allowed, prefix) {
  for (const key of Object.keys(options)) {
    if (!allowed.has(key)) {
      throw api.fieldError(TypeError, `${prefix}${key}`, `unknown option '${prefix}${key}' (known: ${[...allowed].join(', ')})`);
    }
  }
}

function modelSpec(api, model) {
  object(api, model, 'model');
  known(api, model, MODEL_OPTIONS, 'model.');
  const [scaleMode, scaleDivisor] = api.scaleOption(model.scale);
  if (model.mask !== undefined && model.mask !== 'none' && model.mask !== 'causal') {
    throw api.fieldError(TypeError, 'model.mask', `model.mask must be 'none' or 'causal', got ${api.describe(model.mask)}`);
  }
  const sizes = { dModel: model.dModel, heads: model.heads, dK: model.dK, dV: model.dV };
  return {
    dModel: api.integer(sizes, 'dModel'),
    heads: api.integer(sizes, 'heads', 1),
    dK: api.integer(sizes, 'dK', 0),
    dV: api.integer(sizes, 'dV', 0),
    outputProjection: boolean(api, model.wo, 'model.wo', true),
    biases: boolean(api, model.biases, 'model.biases', false),
    positionsMode: api.positionsOption(model.positions),
    scaleMode, scaleDivisor,
    maskMode: model.mask === 'causal' ? 1 : 0,
    vocabulary: wholeNumber(api, model.vocabulary, 'model.vocabulary', 0, 0),
  };
}

function lossSpec(api, loss) {
  object(api, loss, 'loss');
  known(api, loss, new Set(['kind', 'head', 'classes']), 'loss.');
  if (!LOSS_KINDS.has(loss.kind)) {
    throw api.fieldError(TypeError, 'loss.kind', `loss.kind must be 'attend', 'classify' or 'regress', got ${api.describe(loss.kind)}`);
  }
  const head = loss.head === undefined || loss.head === 'mean' ? -1 : wholeNumber(api, loss.head, 'loss.head', undefined, -1);
  return { kind: loss.kind, kindCode: LOSS_KINDS.get(loss.kind), headIndex: head, classes: wholeNumber(api, loss.classes, 'loss.classes', 0, 0) };
}

export function optimizerSpec(api, optimizer = {}) {
  object(api, optimizer, 'optimizer');
  known(api, optimizer, OPTIMIZER_OPTIONS, 'optimizer.');
  const kind = optimizer.kind ?? 'adam';
  if (!OPTIMIZER_KINDS.has(kind)) throw api.fieldError(TypeError, 'optimizer.kind', `optimizer.kind must be 'adam' or 'sgd', got ${api.describe(kind)}`);
  const n = (field, fallback) => number(api, optimizer, field, fallback, 'optimizer.');
  return {
    kindCode: OPTIMIZER_KINDS.get(kind),
    learningRate: n('learningRate', 0.01), momentum: n('momentum', 0), beta1: n('beta1', 0.9), beta2: n('beta2', 0.999),
    epsilon: n('epsilon', 1e-8), weightDecay: n('weightDecay', 0), clipNorm: n('clipNorm', 0),
    batchSize: wholeNumber(api, optimizer.batchSize, 'optimizer.batchSize', 0, 0),
  };
}

// Examples as the binding reads them: n derived from x (or tokens), every array typed.
function exampleList(api, examples, model, lossKind) {
  if (!Array.isArray(examples)) throw api.fieldError(TypeError, 'examples', `examples must be an array, got ${api.describe(examples)}`);
  return examples.map((example, i) => {
    const at = `examples[${i}]`;
    object(api, example, at);
    known(api, example, EXAMPLE_OPTIONS, `${at}.`);
    let n;
    let x = null;
    let tokens = null;
    if (model.vocabulary > 0) {
      if (!Array.isArray(example.tokens) && !ArrayBuffer.isView(example.tokens)) {
        throw api.fieldError(TypeError, `${at}.tokens`, `${at}.tokens must be an array of token ids (the model has a vocabulary), got ${api.describe(example.tokens)}`);
      }
      // Array.from reads a typed array through its iterator, by its true length
      tokens = Int32Array.from(Array.from(example.tokens), (id, j) => {
        if (!Number.isInteger(id)) throw api.fieldError(TypeError, `${at}.tokens`, `${at}.tokens[${j}] must be a whole number, got ${api.describe(id)}`);
        if (id < 0 || id >= model.vocabulary) {
          throw api.fieldError(RangeError, `${at}.tokens`, `${at}.tokens[${j}] must be a token id from 0 to ${model.vocabulary - 1}, got ${exactly(id)}`);
        }
        return id;
      });
      n = tokens.length;
    } else {
      x = api.matrix(example, 'x', true, `${at}.x`);
      if (x.length === 0 || x.length % model.dModel !== 0) {
        throw api.fieldError(RangeError, `${at}.x`, `${at}.x has ${x.length} values, not a positive multiple of dModel (${model.dModel})`);
      }
      n = x.length / model.dModel;
    }
    const query = wholeNumber(api, example.query, `${at}.query`, 0);
    let target = 0;
    let targetOutput = null;
    if (lossKind === 'regress') targetOutput = api.matrix(example, 'target', true, `${at}.target`);
    else target = wholeNumber(api, example.target, `${at}.target`);
    if (lossKind !== 'regress' && example.target === undefined) {
      throw api.fieldError(TypeError, `${at}.target`, `${at}.target is required: a whole number`);
    }
    const head = example.head === undefined ? LOSS_HEAD : example.head === 'mean' ? -1 : wholeNumber(api, example.head, `${at}.head`);
    return { n, x, tokens, query, target, targetOutput, head };
  });
}

// What learns when `train` is not given (or empty): every parameter but the embedding table and
// b_k. b_k adds q·b_k to every score in a query's row, the same for every key, and softmax ignores
// a constant added to a row, so b_k's true gradient is exactly 0; trained, an optimiser turns the
// float32 rounding in that 0 into steps of its own (Adam moved it by ±0.005 in 3 steps at lr 0.01).
function defaultTrain(model, lossKind) {
  const names = ['wq', 'wk', 'wv'];
  if (model.outputProjection) names.push('wo');
  if (model.biases) names.push('bq', 'bv', ...(model.outputProjection ? ['bo'] : []));
  if (lossKind === 'classify') names.push('readout', 'readoutBias');
  return names;
}

// The `train` and `seed` options, checked as both trainers take them.
export function trainAndSeed(api, train, seed = 0) {
  if (!Array.isArray(train) || train.some((name) => typeof name !== 'string')) {
    throw api.fieldError(TypeError, 'train', `train must be an array of parameter names, got ${api.describe(train)}`);
  }
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0) {
    throw api.fieldError(RangeError, 'seed', `seed must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, got ${api.describe(seed)}`);
  }
  return { train, seed };
}

/**
 * A trainer living in one engine instance's memory (runtime.mjs): the core's object, made by
 * `make(module)` and initialised from `spec`, with the calls both trainers share. Every call checks the
 * object is still there (not disposed, not lost when the engine started again after a WebAssembly
 * trap); an answer { error } is thrown, naming its field. Trainer (below) and StackTrainer
 * (stack-trainer.mjs) extend it.
 */
export class EngineTrainer {
  #handle;
  #api;
  #runtime;
  #generation;

  constructor(runtime, api, what, make, spec) {
    this.#handle = api.guarded(runtime, what, (module) => {
      const handle = make(module);
      const error = handle.init(spec);
      if (error) {
        handle.delete();
        api.raise(error.error);
      }
      return handle;
    });
    this.#runtime = runtime;
    this.#generation = runtime.generation;
    this.#api = api;
  }

  // `weights`, when given, set after the subclass's own fields; a refusal frees the trainer
  initialWeights(weights) {
    if (weights === undefined) return;
    try {
      this.setWeights(weights);
    } catch (e) {
      this.dispose();
      throw e;
    }
  }

  live() {
    if (!this.#handle) throw this.#api.fieldError(Error, 'trainer', 'this trainer was disposed; create a new one');
    if (this.#generation !== this.#runtime.generation) {
      throw this.#api.fieldError(Error, 'trainer', 'this trainer was lost when the engine started again after a WebAssembly error; create a new one');
    }
    return this.#handle;
  }

  // call(handle) on the live trainer; a WebAssembly trap restarts the engine (runtime.mjs); a refusal
  // (an answer { error } without the losses of a step) is thrown
  call(what, call) {
    const handle = this.live();
    const result = this.#api.guarded(this.#runtime, what, () => call(handle));
    if (result?.error && !result.losses) this.#api.raise(result.error);
    return result;
  }

  /**
   * `steps` optimiser steps (default 1): { losses, gradientNorms } per step, `gradientNorm` of the last,
   * and `steps`, the trainer's total. A refused step throws a RangeError (field 'optimizer.learningRate')
   * carrying the losses of the steps taken before it; the weights stay at the last good step.
   */
  step(steps = 1) {
    wholeNumber(this.#api, steps, 'steps', undefined, 1, MAX_STEPS);
    const result = this.call('step()', (handle) => handle.step(steps));
    if (result.error) {
      const error = this.#api.fieldError(result.error.kind === 'type' ? TypeError : RangeError, result.error.field, result.error.message);
      error.losses = result.losses;
      error.gradientNorms = result.gradientNorms;
      throw error;
    }
    return { losses: result.losses, gradientNorms: result.gradientNorms, gradientNorm: result.gradientNorms.at(-1), steps: result.steps };
  }

  /** Every parameter by name, as Float32Array copies, in the core's order. */
  weights() {
    return this.call('weights()', (handle) => handle.weights());
  }

  /** Replaces the named parameters (same sizes, finite), all or none; the optimiser's state starts over. */
  setWeights(weights) {
    object(this.#api, weights, 'weights');
    this.live();
    const names = Object.keys(weights);
    const values = names.map((name) => this.#api.matrix(weights, name, true, name));  // each read before any is set
    this.call('setWeights()', (handle) => handle.setWeights(names, values));
  }

  /** Optimiser steps taken so far. */
  get steps() {
    return this.call('steps', (handle) => handle.steps());
  }

  /** Frees the trainer's WebAssembly memory; any later call throws. */
  dispose() {
    // a trainer of an instance since replaced went with that instance's memory
    if (this.#handle && this.#generation === this.#runtime.generation && this.#runtime.module) this.#handle.delete();
    this.#handle = null;
  }
}

export class Trainer extends EngineTrainer {
  #api;
  #model;
  #lossKind;

  // runtime: the engine's instance (runtime.mjs); a trainer lives in one instance's memory
  constructor(runtime, api, options) {
    api.checkOptions(options, TRAINER_OPTIONS, 'createTrainer()');
    const model = modelSpec(api, options.model);
    const loss = lossSpec(api, options.loss ?? { kind: 'attend' });
    const optimizer = optimizerSpec(api, options.optimizer);
    const given = options.train ?? [];
    const { train, seed } = trainAndSeed(api, Array.isArray(given) && given.length === 0 ? defaultTrain(model, loss.kind) : given, options.seed);
    super(runtime, api, 'createTrainer()', (module) => new module.Trainer(), { model, loss, optimizer, train, seed });
    this.#api = api;
    this.#model = model;
    this.#lossKind = loss.kind;
    this.initialWeights(options.weights);
  }

  /** The examples every step draws from (copied into WebAssembly memory). */
  setData(examples) {
    const list = exampleList(this.#api, examples, this.#model, this.#lossKind);
    this.call('setData()', (handle) => handle.setData(list));
  }

  /** Mean loss and accuracy (the share whose argmax is the target; NaN for regress) at the current weights. */
  evaluate(examples) {
    const list = exampleList(this.#api, examples, this.#model, this.#lossKind);
    return this.call('evaluate()', (handle) => handle.evaluate(list));
  }
}
