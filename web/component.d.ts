// Types for `attention-lab/component`: importing it defines <attention-lab>.
import type { AttentionShape, HeadTrace } from '../lib/attention.js';

export type { AttentionShape, HeadTrace };

/** A copy of a lab's state, the object a copied link carries (docs/api.md#the-lab-in-javascript-tests-course-authors). */
export interface LabState {
  preset: string | null;
  sentence: string;
  contextSentence: string;
  attention: 'self' | 'cross';
  dModel: number; heads: number; dK: number; dV: number;
  scaleMode: 'sqrt_dk' | 'none' | 'custom';
  scaleDivisor: number;
  maskMode: 'none' | 'causal' | 'padding';
  padTo: number;
  weightsMode: 'identity' | 'random' | 'custom';
  seed: number;
  /** Hand-set weights (number arrays), when weightsMode is 'custom'. */
  custom: Partial<Record<'wq' | 'wk' | 'wv' | 'wo' | 'bq' | 'bk' | 'bv' | 'bo', number[] | null>> | null;
  positions: 'none' | 'sinusoidal';
  /** X given row by row (a loaded layer's hidden states) instead of the sentence. */
  inputs: { tokens: string[]; rows: number[][] } | null;
  useWo: boolean;
  xEdits: Record<string, number>;
  contextEdits: Record<string, number>;
  selectedToken: number;
  selectedHead: number | 'all';
  [field: string]: unknown;
}

/** The engine's last result as the lab drew it (always traced): read it, do not change it. */
export interface LabResult {
  /** n × dOut: concat·wo, or concat when wo is off. */
  output: Float32Array;
  dOut: number;
  shape: AttentionShape;
  /** n × (heads·dV). */
  concat: Float32Array;
  /** One per head: q, k, v, scores, scaled (−∞ where masked), weights, z. */
  heads: HeadTrace[];
}

/** `attention-lab:practice`'s detail (docs/practice.md#reporting-a-score). */
export interface PracticeResults {
  correct: number;
  total: number;
  hints: number;
  done: number;
  attempts: number;
  summary: string;
}

/** What "Real models" recognised in a folder (docs/models.md). */
export interface ModelReport {
  family: 'bert' | 'gpt2' | 'llama';
  modelType: string;
  architectures: string[];
  prefix: string;
  layers: number;
  dModel: number;
  heads: number;
  kvHeads: number;
  dK: number;
  vocab: number;
  causal: boolean;
  ropeLayout: string | null;
  windows: number[] | null;
  /** Learned positions (BERT, GPT-2): the most tokens a text may make; null with rotary positions. */
  maxTokens: number | null;
  files: string[];
  dtypes: string[];
  /** Bytes of the weights kept, as float32. */
  keptBytes: number;
  /** Integer and boolean tensors, skipped. */
  skipped: { name: string; dtype: string }[];
  unused: string[];
  /** config.json keys the lab does not read. */
  unread: string[];
  tokenizer: boolean;
  /** The MLP's activation ('gelu', 'gelu-tanh', 'relu', 'silu'). */
  activation?: string | null;
  /** True when a masked LM's head (BERT's cls.predictions) was read. */
  maskedHead?: boolean;
}

/** A real model's result on a sentence (docs/api.md#real-models). */
export interface ModelResult {
  tokens: string[];
  ids: number[];
  /** The positions of tokens that are only bytes of a longer character (their decoding alone is U+FFFD). */
  pieces: number[];
  n: number;
  layers: { input: Float32Array; output: Float32Array; hidden: Float32Array; heads: { weights: Float32Array }[] }[];
  /** null while only layer 1 is computed (partial). */
  hidden: Float32Array[] | null;
  /** Causal models: the 10 most likely next tokens; null for BERT (and while partial). */
  next: { id: number; token: string; text: string | null; probability: number; logit: number }[] | null;
  /** A masked LM (BertForMaskedLM): each [MASK] token's 10 most likely tokens; [] without a [MASK]; null for other models (and while partial). */
  masked?: { position: number; top: { id: number; token: string; text: string | null; probability: number; logit: number }[] }[] | null;
  /** Set while the page shows layer 1 alone, before the whole model's result. */
  partial?: { layers: number; of: number };
  /** Bytes of this result's arrays written into buffers of earlier results handed back (reused), and in new buffers (made). */
  memory: { reused: number; made: number };
}

export interface ModelProblem {
  error: { name: string; file: string | null; problem: string | null; message: string };
}

/** The "Real models" section of a lab. */
export interface LabModels {
  open(files: Iterable<File> | ArrayLike<File>): Promise<{ report: ModelReport } | ModelProblem | null>;
  run(input: { text: string } | { ids: number[] }): Promise<ModelResult | ModelProblem | null>;
  readonly report: ModelReport | null;
  readonly result: ModelResult | null;
  /** Layer `layer`, head `head` of the last result as the main lab's state (Llama, Qwen2, Mistral: { problem }). */
  openInLab(layer: number, head: number): Promise<{ state: Record<string, unknown>; status: string } | { problem: string } | null>;
  /** What was drawn, in order: layer 1 alone first, then every layer. */
  readonly drawn: { layers: number; of: number }[];
  /** The layers (0-based) whose block, norms and MLP, the stream's check holds: read only once the check is wanted. */
  readonly blocksHeld: number[];
}

/** A lab's controller (see web/src/lab/api.mjs): its state, the last computation, and a few calls. */
export interface AttentionLab {
  readonly state: LabState;
  readonly result: LabResult | null;
  readonly view: Record<string, unknown> | null;
  /** How many times the tables were drawn. */
  readonly draws: number;
  setState(state: Record<string, unknown>): void;
  setViews(views: Set<string> | null): void;
  /** The lab's language: "en" or "hi". */
  readonly language: string;
  /** Shows every text in another language ("en", "hi"), keeping the state, edits and scroll. */
  setLanguage(language: string): void;
  /** The "Real models" section: a Hugging Face folder opened and run (docs/api.md#real-models). */
  readonly models: LabModels;
}

/**
 * <attention-lab>. Attributes: preset, sentence, context, d-model, heads, d-k, d-v, scale, mask,
 * weights, seed, wo, query, view, state (a link's "lab=…" part), theme ("light" | "dark" | "auto"),
 * compact, mode ("practice" | "explore"), lang ("en" | "hi"; another value shows English and says so).
 */
export declare class AttentionLabElement extends HTMLElement {
  /** A copy of the lab's state (null before the element is connected). */
  readonly state: LabState | null;
  /** The engine's last result as drawn, or null before the first. */
  readonly result: LabResult | null;
  readonly lab: AttentionLab | null;
}

declare global {
  interface HTMLElementTagNameMap {
    'attention-lab': AttentionLabElement;
  }
  // dispatched by every lab, bubbling and composed: on the element, and on the document
  interface HTMLElementEventMap {
    'attention-lab:change': CustomEvent<{ draws: number }>;
    'attention-lab:practice': CustomEvent<PracticeResults>;
  }
  interface DocumentEventMap {
    'attention-lab:change': CustomEvent<{ draws: number }>;
    'attention-lab:practice': CustomEvent<PracticeResults>;
  }
}
