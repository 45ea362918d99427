// Types for `attention-lab/component`: importing it defines <attention-lab>.

/** A lab's controller (see web/src/app.mjs): its state, the last computation, and a few calls. */
export interface AttentionLab {
  readonly state: Record<string, unknown>;
  readonly view: Record<string, unknown> | null;
  /** How many times the tables were drawn. */
  readonly draws: number;
  setState(state: Record<string, unknown>): void;
  setViews(views: Set<string> | null): void;
  /** The lab's language: "en" or "hi". */
  readonly language: string;
  /** Shows every text in another language ("en", "hi"), keeping the state, edits and scroll. */
  setLanguage(language: string): void;
}

/**
 * <attention-lab>. Attributes: preset, sentence, context, d-model, heads, d-k, d-v, scale, mask,
 * weights, seed, wo, query, view, state (a link's "lab=…" part), theme ("light" | "dark" | "auto"),
 * compact, mode ("practice" | "explore"), lang ("en" | "hi"; another value shows English and says so).
 */
export declare class AttentionLabElement extends HTMLElement {
  readonly lab: AttentionLab | null;
}

declare global {
  interface HTMLElementTagNameMap {
    'attention-lab': AttentionLabElement;
  }
}
