// engine.createStackTrainer(): a stack of transformer blocks trained inside WebAssembly
// (core/include/attention/stack_trainer.hpp, bound by core/bindings/stack_trainer.cpp). This file
// checks JavaScript types, applies defaults and turns names into the core's codes; the core checks
// values and names the field at fault. Shapes and layouts: docs/api.md, attention.d.ts.
import { object, wholeNumber, known, optimizerSpec, exactly, EngineTrainer, trainAndSeed } from './trainer.mjs';

const OPTIONS = new Set(['model', 'loss', 'optimizer', 'train', 'seed', 'weights']);
const MODEL_OPTIONS = new Set(['vocab', 'dModel', 'layers', 'heads', 'dK', 'block', 'norm', 'mlp', 'mlpHidden',
  'positions', 'maxPositions', 'mask', 'unembedding']);
const LOSS_OPTIONS = new Set(['kind', 'layer', 'head']);
const EXAMPLE_OPTIONS = new Set(['ids', 'first', 'query', 'target', 'targetOutput']);
const EVALUATE_OPTIONS = new Set(['ablate']);
// The core's enums (stack_trainer.hpp, transformer.hpp), looked up in Maps: '__proto__' is no kind.
const BLOCKS = new Map([['attention-only', 2], ['pre', 0], ['post', 1]]);
const NORMS = new Map([['layernorm', 1], ['rmsnorm', 2]]);
// the MLP: its activation's code (layers.hpp's Activation), SwiGLU's gate being silu (3)
const MLPS = new Map([['gelu-tanh', 1], ['gelu', 0], ['relu', 2], ['swiglu', 3]]);
const POSITIONS = new Map([['none', 0], ['learned', 1], ['rotary', 3]]);
const MASKS = new Map([['causal', true], ['none', false]]);
const UNEMBEDDINGS = new Map([['own', false], ['tied', true]]);
const LOSS_KINDS = new Map([['next-token', 0], ['classify', 1], ['attend', 2], ['regress', 3]]);

function choice(api, value, field, names, fallback) {
  if (value === undefined) return names.get(fallback);
  if (typeof value === 'string' && names.has(value)) return names.get(value);
  throw api.fieldError(TypeError, field, `${field} must be ${[...names.keys()].map((name) => `'${name}'`).join(', ')}; got ${api.describe(value)}`);
}

function modelSpec(api, model) {
  object(api, model, 'model');
  known(api, model, MODEL_OPTIONS, 'model.');
  const whole = (key, fallback, min) => wholeNumber(api, model[key], `model.${key}`, fallback, min);
  const blockCode = choice(api, model.block, 'model.block', BLOCKS, 'attention-only');
  const activationCode = choice(api, model.mlp, 'model.mlp', MLPS, 'gelu-tanh');
  return {
    vocab: whole('vocab', undefined, 0),
    dModel: whole('dModel', undefined, 0),
    layers: whole('layers', 1, 0),
    heads: whole('heads', 1, 0),
    dK: whole('dK', 0, 0),
    mlp: blockCode !== BLOCKS.get('attention-only'),
    arrangementCode: blockCode,
    normCode: choice(api, model.norm, 'model.norm', NORMS, 'layernorm'),
    swiglu: activationCode === MLPS.get('swiglu'),
    activationCode,
    mlpHidden: whole('mlpHidden', 0, 0),
    positionsCode: choice(api, model.positions, 'model.positions', POSITIONS, 'none'),
    maxPositions: whole('maxPositions', 0, 0),
    causal: choice(api, model.mask, 'model.mask', MASKS, 'causal'),
    tied: choice(api, model.unembedding, 'model.unembedding', UNEMBEDDINGS, 'own'),
  };
}

function lossSpec(api, loss) {
  object(api, loss, 'loss');
  known(api, loss, LOSS_OPTIONS, 'loss.');
  const kindCode = choice(api, loss.kind, 'loss.kind', LOSS_KINDS, 'next-token');
  const headIndex = loss.head === undefined || loss.head === 'mean' ? -1 : wholeNumber(api, loss.head, 'loss.head', undefined, -1);
  return { kind: loss.kind ?? 'next-token', kindCode, layer: wholeNumber(api, loss.layer, 'loss.layer', 0), headIndex };
}

// Token ids as an Int32Array (each a whole number; the core checks them against the vocabulary)
function ids(api, value, field) {
  if (!Array.isArray(value) && !(value instanceof Int32Array)) {
    throw api.fieldError(TypeError, field, `${field} must be an array of token ids or an Int32Array, got ${api.describe(value)}`);
  }
  return Int32Array.from(Array.from(value), (id, j) => {
    if (typeof id !== 'number' || !Number.isInteger(id)) {
      throw api.fieldError(TypeError, field, `${field}[${j}] must be a whole number, got ${api.describe(id)}`);
    }
    if (id < 0 || id > 2 ** 31 - 1) throw api.fieldError(RangeError, field, `${field}[${j}] must be a token id of the vocabulary, got ${exactly(id)}`);
    return id;
  });
}

// Examples as the binding reads them: every field present, every array typed.
function exampleList(api, examples, lossKind) {
  if (!Array.isArray(examples)) throw api.fieldError(TypeError, 'examples', `examples must be an array, got ${api.describe(examples)}`);
  return examples.map((example, i) => {
    const at = `examples[${i}]`;
    object(api, example, at);
    known(api, example, EXAMPLE_OPTIONS, `${at}.`);
    const needed = lossKind === 'classify' || lossKind === 'attend';
    if (needed && (example.query === undefined || example.target === undefined)) {
      throw api.fieldError(TypeError, `${at}.${example.query === undefined ? 'query' : 'target'}`,
        `${at}.query and ${at}.target are required by the ${lossKind} loss: whole numbers`);
    }
    return {
      ids: ids(api, example.ids, `${at}.ids`),
      first: wholeNumber(api, example.first, `${at}.first`, 0),
      query: wholeNumber(api, example.query, `${at}.query`, 0),
      target: wholeNumber(api, example.target, `${at}.target`, 0),
      targetOutput: lossKind === 'regress' ? api.matrix(example, 'targetOutput', true, `${at}.targetOutput`) : null,
    };
  });
}

// { ablate: [[layer, head], …] } → the pairs (whole numbers; the core checks their ranges)
function ablation(api, options) {
  if (options === undefined) return [];
  object(api, options, 'options');
  known(api, options, EVALUATE_OPTIONS, '');
  const list = options.ablate ?? [];
  if (!Array.isArray(list)) throw api.fieldError(TypeError, 'ablate', `ablate must be an array of [layer, head] pairs, got ${api.describe(list)}`);
  return list.map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw api.fieldError(TypeError, `ablate[${i}]`, `ablate[${i}] must be a [layer, head] pair, got ${api.describe(pair)}`);
    }
    return [wholeNumber(api, pair[0], `ablate[${i}].layer`), wholeNumber(api, pair[1], `ablate[${i}].head`)];
  });
}

export class StackTrainer extends EngineTrainer {
  #api;
  #loss;

  // runtime: the engine's instance (runtime.mjs); a trainer lives in one instance's memory
  constructor(runtime, api, options) {
    api.checkOptions(options, OPTIONS, 'createStackTrainer()');
    const model = modelSpec(api, options.model);
    const loss = lossSpec(api, options.loss ?? {});
    const optimizer = optimizerSpec(api, options.optimizer);
    const { train, seed } = trainAndSeed(api, options.train ?? [], options.seed);
    super(runtime, api, 'createStackTrainer()', (module) => new module.StackTrainer(), { model, loss, optimizer, train, seed });
    this.#api = api;
    this.#loss = loss.kind;
    this.initialWeights(options.weights);
  }

  /** The examples every step draws from (copied into WebAssembly memory). */
  setData(examples) {
    const list = exampleList(this.#api, examples, this.#loss);
    this.call('setData()', (handle) => handle.setData(list));
  }

  /** { loss, accuracy } at the current weights; `ablate: [[layer, head], …]` switches heads off for this call. */
  evaluate(examples, options) {
    const list = exampleList(this.#api, examples, this.#loss);
    const ablate = ablation(this.#api, options);
    return this.call('evaluate()', (handle) => handle.evaluate(list, ablate));
  }

  /** { loss, gradients: { name: Float32Array } }: the mean loss over the examples and its gradient. */
  gradients(examples) {
    const list = exampleList(this.#api, examples, this.#loss);
    return this.call('gradients()', (handle) => handle.gradients(list));
  }

  /** One example's forward trace (engine.transformer()'s shape, with every head), heads ablated as asked. */
  trace(example, options) {
    const list = exampleList(this.#api, [example], this.#loss);
    const ablate = ablation(this.#api, options);
    return this.call('trace()', (handle) => handle.trace(list, ablate));
  }
}
