// Types for attention.mjs. All matrices are row-major; weight tensors are head-major.

export declare const VERSION: string;

export type Matrix = Float32Array | ArrayLike<number>;

export interface AttentionOptions {
  /** n × dModel: the sequence that asks (queries). */
  x: Matrix;
  n: number;
  dModel: number;
  /** m × dModel: keys and values come from here (cross-attention). Default: x itself. */
  context?: Matrix;
  /** Rows of context; derived from context.length / dModel when omitted. */
  m?: number;
  /** Default 1. */
  heads?: number;
  /** Default dModel / heads. */
  dK?: number;
  /** Default dK. */
  dV?: number;
  /** heads × dModel × dK. Omitted: identity (needs heads = 1 and dK = dModel). */
  wq?: Matrix;
  /** kvHeads × dModel × dK (kvHeads = heads unless given). Omitted: identity, as wq. */
  wk?: Matrix;
  /** kvHeads × dModel × dV. Omitted: identity (needs heads = 1 and dV = dModel). */
  wv?: Matrix;
  /** (heads·dV) × dModel. Omitted: the output is the concatenation of the heads. */
  wo?: Matrix;
  /** 'sqrt_dk' (default) divides the scores by √dK, 'none' leaves them, a number divides by it. */
  scale?: 'sqrt_dk' | 'none' | number;
  /**
   * 'none' (default), 'causal', or n × m flags with their convention named: { keep } (1 or true: the
   * query may look at that key) or { masked } (1 or true: hidden, as PyTorch's boolean attn_mask).
   * An unnamed array of flags (a Uint8Array, 0 and 1, booleans) is refused with a message naming both.
   */
  mask?: 'none' | 'causal' | { keep: Uint8Array | ArrayLike<0 | 1 | boolean> } | { masked: Uint8Array | ArrayLike<0 | 1 | boolean> }
    | Uint8Array | ArrayLike<0 | 1>;
  /** Keep every intermediate (default true). false: only output and dOut, the fast path. */
  trace?: boolean;
  /** heads × dK, added after the projection. Omitted: zero. */
  bq?: Matrix;
  /** kvHeads × dK. Omitted: zero. */
  bk?: Matrix;
  /** kvHeads × dV. Omitted: zero. */
  bv?: Matrix;
  /** dModel, added after wo (needs wo). Omitted: zero. */
  bo?: Matrix;
  /**
   * 'none' (default) or 'sinusoidal': Vaswani et al.'s encoding, pe(pos, 2i) = sin(pos / 10000^(2i/dModel)),
   * pe(pos, 2i+1) = cos(…), added to x and to the context (by its own positions) before the projections.
   */
  positions?: 'none' | 'sinusoidal';
  /**
   * Grouped-query attention: the key/value heads (wk, wv, bk, bv hold this many blocks), a divisor of
   * heads; query head h reads key/value head floor(h / (heads / kvHeads)). 1: multi-query. Default heads.
   */
  kvHeads?: number;
  /**
   * Rotary positions (RoPE, rotate-half as GPT-NeoX and Llama), on q and k of every head after the
   * projection and bias: the first `dims` features (even, ≤ dK) turn in pairs (c, c + dims/2) by the
   * angle position · theta^(−2c/dims), row i at position firstPosition + i. theta (above 1) default
   * 10000, firstPosition (0 to 262144) default 0.
   */
  rotary?: { dims: number; theta?: number; firstPosition?: number };
  /**
   * Sliding window (Mistral, Qwen2), on top of the mask: key j is visible to query i only when
   * i − j < window (transformers' kv_idx > q_idx − sliding_window). 0 (default): none.
   */
  window?: number;
}

export interface GradientsOptions extends AttentionOptions {
  /** n × dOut: the gradient arriving at the output. */
  dOutput: Matrix;
  /** heads × n × m: a gradient arriving at the attention weights themselves. */
  dWeights?: Matrix;
}

/** The gradient of Σ dOutput ⊙ output + Σ dWeights ⊙ weights, per input present, in its layout. */
export interface Gradients {
  /** The forward pass's output (n × dOut), as attention() gives it, returned alongside: not a gradient. */
  output: Float32Array;
  x: Float32Array;
  context?: Float32Array;
  wq?: Float32Array; wk?: Float32Array; wv?: Float32Array; wo?: Float32Array;
  bq?: Float32Array; bk?: Float32Array; bv?: Float32Array; bo?: Float32Array;
}

export interface HeadTrace {
  q: Float32Array;        // n × dK
  k: Float32Array;        // m × dK
  v: Float32Array;        // m × dV
  scores: Float32Array;   // n × m, q·kᵀ
  scaled: Float32Array;   // n × m, scores / scale, -Infinity where masked
  weights: Float32Array;  // n × m, row softmax; a fully masked row is all zero
  z: Float32Array;        // n × dV, weights·v
  // with rotary: q and k above are rotated, these are before the rotation
  qUnrotated?: Float32Array;  // n × dK
  kUnrotated?: Float32Array;  // m × dK
}

export interface AttentionShape {
  n: number; m: number; dModel: number; heads: number; kvHeads: number; dK: number; dV: number; dOut: number;
  /** The number the scores were divided by. */
  scale: number;
  /** True when the context was x. */
  self: boolean;
}

export interface AttentionResult {
  /** n × dOut: concat·wo, or concat when wo is omitted. */
  output: Float32Array;
  dOut: number;
  shape: AttentionShape;
  /** n × (heads·dV); only with trace. */
  concat?: Float32Array;
  /** One per head; only with trace. */
  heads?: HeadTrace[];
  /** What was added to x (n × dModel) and the context (m × dModel); only with trace and positions. */
  positions?: { x: Float32Array; context?: Float32Array };
}

/** attention()'s result with trace (the default): every intermediate is there. */
export interface TracedAttentionResult extends AttentionResult {
  concat: Float32Array;
  heads: HeadTrace[];
}

export interface InitWeightsOptions {
  dModel: number;
  heads?: number;
  dK?: number;
  dV?: number;
  /** A whole number from 0 to 2^53 - 1 (default 0). The same seed gives the same bits everywhere. */
  seed?: number;
}

export interface Weights {
  wq: Float32Array; wk: Float32Array; wv: Float32Array; wo: Float32Array;
}

export interface TrainerOptions {
  model: {
    dModel: number; heads?: number; dK?: number; dV?: number;
    /** An output projection wo (default true). */
    wo?: boolean;
    /** bq, bk, bv (and bo with wo), starting at zero (default false). */
    biases?: boolean;
    positions?: 'none' | 'sinusoidal';
    scale?: 'sqrt_dk' | 'none' | number;
    /** Self-attention over each example; 'none' (default) or 'causal'. */
    mask?: 'none' | 'causal';
    /** Rows of a trainable embedding table ('embeddings'); examples then give token ids. Default 0: examples give x. */
    vocabulary?: number;
  };
  /**
   * attend: -log p[target], p = the query row's attention weights in `head`, or their mean over heads ('mean', default).
   * classify: -log softmax(output[query] · readout + readoutBias)[target], with a trained read-out (dOut × classes).
   * regress: the mean of (output − target)² over n × dOut.
   */
  loss?: { kind: 'attend'; head?: 'mean' | number } | { kind: 'classify'; classes: number } | { kind: 'regress' };
  optimizer?: {
    kind?: 'adam' | 'sgd';
    /** Default 0.01. */
    learningRate?: number;
    /** SGD: velocity = momentum·velocity + g (default 0). */
    momentum?: number;
    /** Adam's (defaults 0.9, 0.999, 1e-8). */
    beta1?: number; beta2?: number; epsilon?: number;
    /** Decoupled: w −= learningRate·weightDecay·w each step (default 0). */
    weightDecay?: number;
    /** > 0: gradients scaled so that their global norm is at most this (default 0, off). */
    clipNorm?: number;
    /** Examples per step, drawn with the seed (default 0: all of them). */
    batchSize?: number;
  };
  /**
   * The parameters that learn (wq, wk, wv, wo, bq, bk, bv, bo, embeddings, readout, readoutBias).
   * Default (or []): all but embeddings and bk (softmax ignores a constant per row: bk's true gradient is 0).
   */
  train?: string[];
  /** Initial weights and batches; the same seed gives the same bits in every build. Default 0. */
  seed?: number;
  /** Initial values for some parameters, as setWeights(). */
  weights?: Record<string, Matrix>;
}

export interface TrainingExample {
  /** n × dModel, any n (without a vocabulary). */
  x?: Matrix;
  /** n token ids (with a vocabulary). */
  tokens?: ArrayLike<number>;
  /** attend: the query row; classify: the token read out. Default 0. */
  query?: number;
  /** attend: the key to look at; classify: the class; regress: n × dOut target outputs. */
  target: number | Matrix;
  /** attend: the head this example's loss reads (0…, or 'mean'); default: the loss's head. */
  head?: number | 'mean';
}

export interface Trainer {
  setData(examples: TrainingExample[]): void;
  /** Throws a RangeError (field 'optimizer.learningRate', with .losses of the steps before) when a step diverges. */
  step(steps?: number): { losses: Float64Array; gradientNorms: Float64Array; gradientNorm: number; steps: number };
  evaluate(examples: TrainingExample[]): { loss: number; accuracy: number };
  weights(): Record<string, Float32Array>;
  setWeights(weights: Record<string, Matrix>): void;
  readonly steps: number;
  /** Frees the WebAssembly memory; later calls throw (field 'trainer'). */
  dispose(): void;
}

/** createStackTrainer()'s options (docs/api.md#training-a-stack). */
export interface StackTrainerOptions {
  model: {
    /** Token ids from 0 to vocab − 1 (2 … 2²⁰); dModel the stream's width. */
    vocab: number; dModel: number;
    /** Blocks (default 1, at most 1024), heads per block (default 1), dK per head (default dModel / heads). */
    layers?: number; heads?: number; dK?: number;
    /** 'attention-only' (default: x + attn(x), the circuit lessons), 'pre' (GPT-2, Llama: + a final norm) or 'post' (BERT). */
    block?: 'attention-only' | 'pre' | 'post';
    /** With 'pre' or 'post': the norms (default 'layernorm') and the MLP (default 'gelu-tanh'; 'gelu' (erf), 'relu'; 'swiglu': wGate, wUp, wDown). */
    norm?: 'layernorm' | 'rmsnorm';
    mlp?: 'gelu-tanh' | 'gelu' | 'relu' | 'swiglu';
    /** The MLP's hidden width (default 4 · dModel). */
    mlpHidden?: number;
    /** 'none' (default), 'learned' (a table of maxPositions rows) or 'rotary' (every dimension of each head; dK even). */
    positions?: 'none' | 'learned' | 'rotary';
    maxPositions?: number;
    /** 'causal' (default) or 'none', in every block. */
    mask?: 'causal' | 'none';
    /** 'own' (default: an unembedding dModel × vocab) or 'tied' (logits from the token table). */
    unembedding?: 'own' | 'tied';
  };
  /**
   * next-token (default): the mean over positions first … n − 2 of −log softmax(logits[i])[ids[i + 1]].
   * classify: −log softmax(logits[query])[target]. attend: −log of the query row's weight on target in
   * `layer`'s `head` (or the mean over heads), attention-only blocks. regress: mean (output − targetOutput)².
   */
  loss?: { kind?: 'next-token' | 'classify' | 'attend' | 'regress'; layer?: number; head?: number | 'mean' };
  optimizer?: TrainerOptions['optimizer'];
  /** The parameters that learn (names as weights() gives them); default (or []): all. */
  train?: string[];
  /** Initial weights and batches; an attention-only stack trains to the same bits in every build. Default 0. */
  seed?: number;
  /** Initial values for some parameters, as setWeights(). */
  weights?: Record<string, Matrix>;
}

export interface StackExample {
  /** n token ids. */
  ids: ArrayLike<number>;
  /** next-token: the first position scored (it predicts ids[first + 1]); default 0. */
  first?: number;
  /** classify: the token read out; attend: the query row. */
  query?: number;
  /** classify: the class (a token id); attend: the key the query should look at. */
  target?: number;
  /** regress: n × dModel. */
  targetOutput?: Matrix;
}

/** Heads switched off for one call: [layer, head] pairs (the head's rows of layers.L.wo read as zero). */
export interface Ablation { ablate?: Array<[number, number]> }

export interface StackTrainer {
  setData(examples: StackExample[]): void;
  /** Throws a RangeError (field 'optimizer.learningRate', with .losses of the steps before) when a step diverges. */
  step(steps?: number): { losses: Float64Array; gradientNorms: Float64Array; gradientNorm: number; steps: number };
  /** accuracy: the share of scored predictions whose argmax is the target (NaN for regress). */
  evaluate(examples: StackExample[], options?: Ablation): { loss: number; accuracy: number };
  /** The mean loss over the examples and its gradient for every parameter, by name. */
  gradients(examples: StackExample[]): { loss: number; gradients: Record<string, Float32Array> };
  /** One example's forward pass with every head (as transformer()'s result; logits left empty). */
  trace(example: StackExample, options?: Ablation): TransformerResult;
  /** tokens, positions, layers.L.wq … wo, layers.L.norm1.weight …, finalNorm.*, unembedding: Float32Array copies. */
  weights(): Record<string, Float32Array>;
  setWeights(weights: Record<string, Matrix>): void;
  readonly steps: number;
  /** Frees the WebAssembly memory; later calls throw (field 'trainer'). */
  dispose(): void;
}

export interface PrepareOptions {
  dModel: number;
  heads?: number;
  dK?: number;
  dV?: number;
  /** As in AttentionOptions; omitted wq, wk, wv mean the identity (heads = 1, dK = dV = dModel). */
  wq?: Float32Array | number[];
  wk?: Float32Array | number[];
  wv?: Float32Array | number[];
  wo?: Float32Array | number[];
  scale?: 'sqrt_dk' | 'none' | number;
  /** A keep-matrix depends on n, so a prepared model takes only these. */
  mask?: 'none' | 'causal';
}

/** Weights checked once and resident in WebAssembly memory; self-attention, trace-free. */
export interface PreparedAttention {
  readonly dModel: number;
  readonly dOut: number;
  /**
   * x: n × dModel. Returns a copy the caller owns, the same bits as attention() with trace: false;
   * with `output` (n × dOut values) writes into it and returns it, allocating nothing.
   */
  run(options: { x: Float32Array | number[]; n: number; output?: Float32Array }): { output: Float32Array; dOut: number };
  /** Frees the model's WebAssembly memory; run() then throws. Safe to call twice. */
  dispose(): void;
}

/** A norm of a transformer block (docs/api.md#transformer-stacks); omitted or null: none. */
export interface NormOptions {
  kind?: 'layernorm' | 'rmsnorm';  // default 'layernorm'
  eps?: number;                     // default 1e-5
  weight: Float32Array | number[];  // dModel
  bias?: Float32Array | number[];   // dModel, layernorm only
}

/** A block's MLP, weights (in, out); omitted or null: none. */
export interface MlpOptions {
  kind?: 'plain' | 'swiglu';                            // default 'plain'
  activation?: 'gelu' | 'gelu-tanh' | 'relu' | 'silu';  // plain only; default 'gelu' (erf)
  hidden: number;
  w1?: Float32Array | number[]; b1?: Float32Array | number[];  // dModel × hidden, hidden
  w2?: Float32Array | number[]; b2?: Float32Array | number[];  // hidden × dModel, dModel
  wGate?: Float32Array | number[]; wUp?: Float32Array | number[]; wDown?: Float32Array | number[];
}

export interface BlockOptions {
  arrangement?: 'pre' | 'post' | 'attention-only';  // default 'pre'
  attention?: {
    heads?: number; kvHeads?: number; dK?: number; dV?: number; scale?: 'sqrt_dk' | 'none' | number;
    mask?: 'none' | 'causal'; window?: number;
    wq?: Float32Array | number[]; wk?: Float32Array | number[]; wv?: Float32Array | number[]; wo?: Float32Array | number[];
    bq?: Float32Array | number[]; bk?: Float32Array | number[]; bv?: Float32Array | number[]; bo?: Float32Array | number[];
  };
  norm1?: NormOptions | null;
  norm2?: NormOptions | null;
  mlp?: MlpOptions | null;
}

/** The gradients transformerGradients() returns, named as the request's weights (docs/api.md). */
export interface TransformerGradients {
  tokens: Float32Array;
  /** Per block: its parts (attention, norm1, norm2, mlp), each its weights' gradients. */
  layers: Array<{ [part: string]: { [weight: string]: Float32Array } }>;
  [name: string]: unknown;
}

export interface TransformerOptions {
  ids: Int32Array | number[];
  vocab: number;
  dModel: number;
  tokens: Float32Array | number[];  // vocab × dModel
  positions?: 'none' | 'learned' | 'sinusoidal' | 'rotary';
  positionTable?: Float32Array | number[];  // maxPositions × dModel, learned only
  rotary?: { dims?: number; theta?: number; firstPosition?: number };  // rotary only
  tokenTypes?: number; typeTable?: Float32Array | number[]; typeIds?: Int32Array | number[];
  embeddingNorm?: NormOptions | null;
  layers?: BlockOptions[];  // at most 1024
  finalNorm?: NormOptions | null;
  unembedding?: 'none' | 'tied' | 'own';
  unembeddingWeight?: Float32Array | number[];  // dModel × vocab, own only
  unembeddingBias?: Float32Array | number[];    // vocab
  heads?: boolean;  // default true: every head's trace
  /** One flag per id: keep (1 or true: a real token) or masked (1 or true: padding); every block hides the padded keys. */
  padding?: { keep: Uint8Array | Array<0 | 1 | boolean> } | { masked: Uint8Array | Array<0 | 1 | boolean> };
}

/** prepareTransformer()'s weights: a stack's request without ids, typeIds, heads and padding. */
export type PreparedTransformerWeights = Omit<TransformerOptions, 'ids' | 'typeIds' | 'heads' | 'padding'>;

/** One run of a prepared stack: ids (or x, n × dModel, in place of the token rows), no trace. */
export interface PreparedTransformerRun {
  ids?: Int32Array | number[];
  x?: Float32Array | number[];
  typeIds?: Int32Array | number[];
  logits?: boolean;        // default true (a stack with an unembedding)
  hiddenStates?: boolean;  // default false: the stream into block 0 and out of every block
  /** A padding mask as transformer()'s: one flag per token (ids, or x's rows). */
  padding?: TransformerOptions['padding'];
}

export interface PreparedTransformerResult {
  n: number;
  output: Float32Array;            // n × dModel, after the final norm
  logits?: Float32Array;           // n × vocab
  hiddenStates?: Float32Array[];   // L + 1 of n × dModel
}

/** A traced run of a prepared stack: what a reader of a real model looks at, nothing of the MLP. */
export interface PreparedTransformerTraceRun {
  ids?: Int32Array | number[];
  x?: Float32Array | number[];
  typeIds?: Int32Array | number[];
  openLayer?: number;    // the block whose attention is traced in full; default none
  lastLogits?: boolean;  // default true (a stack with an unembedding)
  blocks?: number;       // run only the first `blocks` blocks (output null, no logits); default all
}

export interface PreparedTransformerTrace {
  n: number;
  embeddings: Float32Array;  // n × dModel, the stream into block 0
  layers: { input: Float32Array; weights: Float32Array[]; output: Float32Array; hidden: Float32Array }[];
  open: { heads: HeadTrace[]; concat: Float32Array; output: Float32Array } | null;
  output: Float32Array | null;  // n × dModel, after the final norm; null with `blocks` below the count
  lastLogits?: Float32Array;    // vocab: the last position's
}

/** A stack whose weights live packed in WebAssembly memory (errors name 'prepared' once disposed or lost). */
export interface PreparedTransformer {
  readonly dModel: number;
  readonly vocab: number;
  readonly layers: number;
  run(request: PreparedTransformerRun): PreparedTransformerResult;
  trace(request: PreparedTransformerTraceRun): PreparedTransformerTrace;
  dispose(): void;
}

/** A tensor already in WebAssembly memory, given in place of its array to TransformerStaging.prepare(). */
export interface StagedTensor { readonly length: number }

/** Weights handed into WebAssembly memory tensor by tensor (errors name 'staging' once used up or lost). */
export interface TransformerStaging {
  readonly values: number;  // floats staged so far
  tensor(values: Float32Array): StagedTensor;
  /** A tensor filled piece by piece; `rows` (the vocabulary) marks a token table, packed in place if tied. */
  tensorOf(length: number, options?: { rows?: number }): { tensor: StagedTensor; fill(offset: number, values: Float32Array): void };
  /** Room for `values` more floats, memory grown now (untouched) so the next staging does not grow it: true if made. */
  reserve(values: number): boolean;
  prepare(weights: PreparedTransformerWeights | Record<string, unknown>): PreparedTransformer;
  dispose(): void;
}

export interface NormTrace { output: Float32Array; mean: Float32Array; rstd: Float32Array }

export interface BlockTrace {
  input: Float32Array; norm1: NormTrace;
  attention: { output: Float32Array; concat: Float32Array; heads: Array<Record<string, Float32Array>> };
  attended: Float32Array; middle: Float32Array; norm2: NormTrace;
  mlpPre: Float32Array; mlpUp: Float32Array; mlpHidden: Float32Array; mlpOut: Float32Array;
  summed: Float32Array; output: Float32Array;
}

export interface TransformerResult {
  n: number; embedded: Float32Array; embeddingNorm: NormTrace; embeddings: Float32Array;
  layers: BlockTrace[]; finalNorm: NormTrace; output: Float32Array; logits: Float32Array;
}

/** flashAttention(): attention()'s options (without trace) and the tile size; docs/api.md#modern-attention-exact. */
export interface FlashOptions extends Omit<AttentionOptions, 'trace'> {
  tile: number;  // keys per tile, 1 … 4096
  /** One logit per head (gpt-oss's sinks); -Infinity: no sink; every one 0: "softmax + 1". */
  sinks?: Float32Array | number[];
}

/** One head's tiled pass; t counts tiles, (n, tiles) arrays are row-major. */
export interface FlashHead {
  runningMax: Float32Array;     // n × tiles: m after tile t
  runningSum: Float32Array;     // n × tiles: ℓ after tile t
  rescale: Float32Array;        // n × tiles: e^(m_old − m_new) of tile t (0 at a row's first visible tile)
  runningOutput: Float32Array;  // n × tiles × dV: o after tile t, not yet divided by ℓ
  z: Float32Array;              // n × dV: o / ℓ after the last tile
  weights: Float32Array;        // n × m: e^(s − m) / ℓ with the final m and ℓ
  sinkWeight: Float32Array;     // n: the share a row parks on its sink (0 without)
}

export interface FlashResult {
  shape: TracedAttentionResult['shape'];
  tile: number; tiles: number;
  /** one head's values: the full n × m scores, against one tile's n × B plus m, ℓ (n each) and o (n × dV) */
  memory: { fullValues: number; tiledValues: number };
  heads: FlashHead[];
  /** attention()'s traced result on the same options: q, k, v and the exact weights and z */
  exact: TracedAttentionResult;
}

/** kvCache(): attention()'s weights and modes without x, n or context; mask must be 'causal' (the default). */
export interface KvCacheOptions {
  capacity: number;  // tokens the cache can hold, 1 … 4096
  dModel: number; heads?: number; kvHeads?: number; dK?: number; dV?: number;
  wq?: Float32Array | number[]; wk?: Float32Array | number[]; wv?: Float32Array | number[]; wo?: Float32Array | number[];
  bq?: Float32Array | number[]; bk?: Float32Array | number[]; bv?: Float32Array | number[]; bo?: Float32Array | number[];
  scale?: 'sqrt_dk' | 'none' | number; mask?: 'causal';
  rotary?: { dims: number; theta?: number; firstPosition?: number };
  window?: number;
  /** StreamingLLM: keep at most `budget` tokens (1 … capacity), the first `sinks` (0 … budget − 1, default 0) and the most recent; not with a window */
  evict?: { sinks?: number; budget: number };
}

/** One decoded token: its row in every head, and the work and memory counted. */
export interface KvStep {
  position: number;    // rotary.firstPosition + its index
  firstKey: number;    // the first cached key it sees (window), keys firstKey … length − 1
  keyPositions: number[];  // the position of every key it reads (with evict: the sinks and the most recent)
  length: number; capacity: number;
  q: Float32Array;       // heads × dK, rotated
  k: Float32Array;       // kvHeads × dK appended (rotated)
  v: Float32Array;       // kvHeads × dV appended
  scores: Float32Array;  // heads × visible: q·kᵀ
  weights: Float32Array; // heads × visible
  z: Float32Array;       // heads × dV
  output: Float32Array;  // dOut
  multiplyAdds: number;      // this step's: projections, scores, weighted sum, output projection
  fullMultiplyAdds: number;  // the full causal pass over every token seen (no cache)
  cacheValues: number;       // length · kvHeads · (dK + dV)
  cacheBytes: number;        // cacheValues · 4 (float32)
}

export interface KvCache {
  readonly capacity: number;
  readonly length: number;
  /** The causal pass over the first tokens (x: n × dModel), traced; their k and v stay cached. Only on an empty cache. */
  prefill(x: Float32Array | number[]): TracedAttentionResult;
  /** One more token (x: dModel values). Throws RangeError 'capacity' when full; a refused step changes nothing. */
  step(x: Float32Array | number[]): KvStep;
  dispose(): void;
}

export interface AttentionEngine {
  /** learning: loaded with { learning: true }, so gradients() and createTrainer() work. */
  /**
   * simd: a SIMD build; build: which one, 'relaxed' (SIMD with relaxed SIMD's fused multiply-add in the
   * matrix products), 'simd' or 'scalar'.
   */
  readonly info: { readonly version: string; readonly simd: boolean; readonly build: 'relaxed' | 'simd' | 'scalar'; readonly learning: boolean };
  /** Throws TypeError or RangeError with `.field` naming the option at fault; the engine stays usable. */
  attention(options: AttentionOptions & { trace?: true }): TracedAttentionResult;
  /** trace: false, the fast path: output and dOut (no concat, no heads). */
  attention(options: AttentionOptions & { trace: false }): AttentionResult;
  attention(options: AttentionOptions): AttentionResult;
  /**
   * The backward pass: gradients of every input present. Errors as attention(), naming dOutput or dWeights.
   * Learning engine only (loadAttention({ learning: true })); on the default engine it throws an Error saying so.
   */
  gradients(options: GradientsOptions): Gradients;
  initWeights(options: InitWeightsOptions): Weights;
  /** One attention layer that learns inside WebAssembly. Learning engine only, as gradients(). */
  createTrainer(options: TrainerOptions): Trainer;
  /** A stack of transformer blocks that learns inside WebAssembly. Learning engine only, as gradients(). */
  createStackTrainer(options: StackTrainerOptions): StackTrainer;
  /** A stack of transformer blocks with every block's trace. Learning engine only, as gradients(). */
  transformer(options: TransformerOptions): TransformerResult;
  /** The stack's weights checked and packed once; run() takes ids (or x) and keeps no trace. Learning engine only. */
  prepareTransformer(weights: PreparedTransformerWeights): PreparedTransformer;
  /** Tensors handed into WebAssembly memory one by one (no second copy), then prepare(weights). Learning engine only. */
  stageTransformer(): TransformerStaging;
  /** Its gradients for every weight present, by the request's names, given dLogits (n × vocab) and/or dOutput (n × dModel). */
  transformerGradients(options: TransformerOptions & { dLogits?: Float32Array | number[]; dOutput?: Float32Array | number[] }):
    { trace: TransformerResult; gradients: TransformerGradients };
  /** FlashAttention's online softmax, tile by tile, with its trace and optional sinks. Learning engine only. */
  flashAttention(options: FlashOptions): FlashResult;
  /** A KV cache held in WebAssembly memory (errors name 'cache' once disposed or lost to a restart). Learning engine only. */
  kvCache(options: KvCacheOptions): KvCache;
  /** For many calls with the same weights: checks them once and keeps them in WebAssembly memory. */
  prepare(options: PrepareOptions): PreparedAttention;
  /** WebAssembly memory: the heap's size, the bytes allocated in it, and the stack pointer (steady between calls). */
  memory(): { heapBytes: number; allocatedBytes: number; stackPointer: number };
}

export declare function loadAttention(options?: {
  /**
   * 'auto' (default): the relaxed build where the runtime supports relaxed SIMD, else SIMD, else scalar.
   * 'relaxed' forces the relaxed build (a RangeError naming 'simd' where relaxed SIMD is missing), true
   * the SIMD one, false the scalar one.
   */
  simd?: 'auto' | 'relaxed' | boolean;
  /**
   * true: the larger build with the backward pass and trainer (attention-learn-*), for gradients()
   * and createTrainer(). Default false: the forward-only build every page loads.
   */
  learning?: boolean;
  /** The chosen build's .wasm bytes: no fetch. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** The folder holding attention-{,learn-}{relaxed,simd,scalar}.* (default: this file's folder). */
  baseUrl?: string | URL;
}): Promise<AttentionEngine>;

export interface EngineBuild {
  createModule: (options: object) => Promise<unknown>;
  wasmBinary: ArrayBuffer | Uint8Array;
}

/**
 * The engine from builds already in hand (a page that carries everything inside itself). 'learn-simd'
 * and 'learn-scalar' are needed only for { learning: true }; any build may be an async function
 * returning it, to load it only when asked.
 */
export declare function loadAttentionFrom(
  builds: Record<'simd' | 'scalar', EngineBuild | (() => Promise<EngineBuild>)> &
    Partial<Record<'relaxed' | 'learn-relaxed' | 'learn-simd' | 'learn-scalar', EngineBuild | (() => Promise<EngineBuild>)>>,
  options?: { simd?: 'auto' | 'relaxed' | boolean; learning?: boolean },
): Promise<AttentionEngine>;
