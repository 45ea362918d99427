// Types for `attention-lab/component`: importing it defines <attention-lab>.

/** A lab's controller (see web/src/app.mjs): its state, the last computation, and a few calls. */
export interface AttentionLab {
  readonly state: Record<string, unknown>;
  readonly view: Record<string, unknown> | null;
  /** How many times the tables were drawn. */
  readonly draws: number;
  setState(state: Record<string, unknown>): void;
  setViews(views: Set<string> | null): void;
}

/**
 * <attention-lab>. Attributes: preset, sentence, context, d-model, heads, d-k, d-v, scale, mask,
 * weights, seed, wo, query, view, state (a link's "lab=…" part), theme ("light" | "dark" | "auto"),
 * compact.
 */
export declare class AttentionLabElement extends HTMLElement {
  readonly lab: AttentionLab | null;
}

declare global {
  interface HTMLElementTagNameMap {
    'attention-lab': AttentionLabElement;
  }
}
