// The two-layer lab the block tests share (block-params.test.mjs, practice-layers.test.mjs): five
// tokens with typed rows of d_model 4 (sines rounded to 2 places), 2 heads of 2, causal, seeded
// random weights, a full block; labOf gives its state, setLab sets part of a state and waits for the draw.
export const TOKENS = ['the', 'bank', 'by', 'the', 'river'];
export const D = 4;
export const N = TOKENS.length;
export const ROWS = TOKENS.map((_, i) => Array.from({ length: D }, (__, c) => Math.round(100 * Math.sin(1 + 3 * i + c)) / 100));
// the sizes as stack64.mjs takes them
export const SIZES = { heads: 2, dK: 2, dV: 2, causal: true };

/** The state of the two-layer full-block lab, `norm` 'pre' or 'post', with `extra` over it. */
export const labOf = (norm, extra = {}) => ({
  preset: null, sentence: TOKENS.join(' '), inputs: { tokens: TOKENS, rows: ROWS }, xEdits: {},
  dModel: D, heads: 2, dK: 2, dV: 2, useWo: true, maskMode: 'causal', scaleMode: 'sqrt_dk', positions: 'none',
  weightsMode: 'random', seed: 5, custom: null, layerWeights: null, layers: 2, block: 'full', norm, selectedLayer: 0, blockEdits: {}, ...extra,
});

/** Sets `change` over the lab's state on `tab` and waits for the draw (`lab` from useLabPage). */
export async function setLab(lab, tab, change) {
  await lab.redrawn(() => tab.page.evaluate((c) => {
    const l = globalThis.attentionLab;
    l.setState({ ...l.state, ...c });
  }, change));
}
