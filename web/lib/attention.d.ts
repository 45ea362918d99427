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
  /** heads × dModel × dK each. Omitted: identity (needs heads = 1 and dK = dModel). */
  wq?: Matrix;
  wk?: Matrix;
  /** heads × dModel × dV. Omitted: identity (needs heads = 1 and dV = dModel). */
  wv?: Matrix;
  /** (heads·dV) × dModel. Omitted: the output is the concatenation of the heads. */
  wo?: Matrix;
  /** 'sqrt_dk' (default) divides the scores by √dK, 'none' leaves them, a number divides by it. */
  scale?: 'sqrt_dk' | 'none' | number;
  /** 'none' (default), 'causal', or n × m keep flags (1 keep, 0 masked). */
  mask?: 'none' | 'causal' | Uint8Array | ArrayLike<0 | 1 | boolean>;
  /** Keep every intermediate (default true). false: only output and dOut, the fast path. */
  trace?: boolean;
}

export interface HeadTrace {
  q: Float32Array;        // n × dK
  k: Float32Array;        // m × dK
  v: Float32Array;        // m × dV
  scores: Float32Array;   // n × m, q·kᵀ
  scaled: Float32Array;   // n × m, scores / scale, -Infinity where masked
  weights: Float32Array;  // n × m, row softmax; a fully masked row is all zero
  z: Float32Array;        // n × dV, weights·v
}

export interface AttentionShape {
  n: number; m: number; dModel: number; heads: number; dK: number; dV: number; dOut: number;
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
  /** x: n × dModel. Returns a copy the caller owns, the same bits as attention() with trace: false. */
  run(options: { x: Float32Array | number[]; n: number }): { output: Float32Array; dOut: number };
  /** Frees the model's WebAssembly memory; run() then throws. Safe to call twice. */
  dispose(): void;
}

export interface AttentionEngine {
  readonly info: { readonly version: string; readonly simd: boolean };
  /** Throws TypeError or RangeError with `.field` naming the option at fault; the engine stays usable. */
  attention(options: AttentionOptions): AttentionResult;
  initWeights(options: InitWeightsOptions): Weights;
  /** For many calls with the same weights: checks them once and keeps them in WebAssembly memory. */
  prepare(options: PrepareOptions): PreparedAttention;
  /** WebAssembly memory: the heap's size and the bytes allocated in it. */
  memory(): { heapBytes: number; allocatedBytes: number };
}

export declare function loadAttention(options?: {
  simd?: 'auto' | boolean;
  /** The chosen build's .wasm bytes: no fetch. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** The folder holding attention-simd.* and attention-scalar.* (default: this file's folder). */
  baseUrl?: string | URL;
}): Promise<AttentionEngine>;

/** The engine from builds already in hand (a page that carries everything inside itself). */
export declare function loadAttentionFrom(
  builds: Record<'simd' | 'scalar', { createModule: (options: object) => Promise<unknown>; wasmBinary: ArrayBuffer | Uint8Array }>,
  options?: { simd?: 'auto' | boolean },
): Promise<AttentionEngine>;
