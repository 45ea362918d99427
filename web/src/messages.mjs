// Text the reader sees, looked up by key. Whole sentences with named slots ({word}), never
// assembled from fragments in code, so that another language can order its words its own way.
// (Most strings that predate this module still live beside their code: the presets' notes, the
// static markup of app.html, older messages. New ones, and the explanations, are here.)
const EN = {
  // hints on the controls (shown on hover and focus)
  'hint.dModel': 'd_model: how many numbers describe each token (the columns of X).',
  'hint.heads': 'heads: how many attentions run side by side, each with its own W_q, W_k, W_v.',
  'hint.dK': 'd_k: the length of each query and key; scores are divided by √d_k.',
  'hint.dV': 'd_v: the length of each value, so of each head\'s output row.',
  'hint.maskMode': 'mask: keys a query may not see get score −∞ (causal: no later tokens; padding: no [PAD]).',
  'hint.attention': 'cross: queries from the sentence, keys and values from a second sentence (the context).',
  'hint.useWo': 'W_O: the output projection, (heads · d_v) × d_model, mixing the concatenated heads back to d_model.',

  // the example and how it was changed
  'preset.modified': 'Modified from "{title}": {aspects} changed. Notes that no longer hold are dimmed; choose the example again to restore it.',
  'preset.aspect.sentence': 'the sentence',
  'preset.aspect.attention': 'self or cross attention',
  'preset.aspect.sizes': 'the sizes',
  'preset.aspect.scaling': 'the scaling',
  'preset.aspect.mask': 'the mask',
  'preset.aspect.parameters': 'the parameters',
  'preset.aspect.inputs': 'cells of X',
  'preset.sourceTitle': 'Source',
  'preset.source': 'Lecture notes, file {source}.',
  'preset.action.oneHead': 'One head only',
  'preset.action.restore': 'Back to the example',
  'weights.replaced': 'The sizes changed, so the hand-set parameters no longer fit: they were replaced by seeded random ones (seed {seed}). Choose the example again to get them back.',
  'weights.replacedForWo': 'W_O was turned on, but a hand-set W_O must be (heads · d_v) × d_model = {rows} × {cols} and the concatenation is not as wide as d_model, so the hand-set parameters were replaced by seeded random ones (seed {seed}). Choose the example again to get them back.',

  // the engine, in a details element
  'engine.computed': 'Computed in {ms} ms by the {build} WebAssembly engine.',
  'engine.computedOnPage': 'Computed in {ms} ms by the {build} WebAssembly engine, on the page (no worker here).',
  // the opening example, whose result comes with the page (first-result.mjs)
  'engine.shipped': 'Computed in advance, when the page was built, by the {build} WebAssembly engine.',
  'engine.shippedOnPage': 'Computed in advance, when the page was built, by the {build} WebAssembly engine; it now runs on the page (no worker here).',

  // the formula strip and the guided walk
  'walk.stage.x': 'X',
  'walk.stage.qkv': 'Q, K, V = X·W',
  'walk.stage.scores': 'QKᵀ',
  'walk.stage.scaled': '÷ √d_k',
  'walk.stage.weights': 'softmax',
  'walk.stage.z': '· V',
  'walk.stage.concat': 'Concat(head₁…head_h)',
  'walk.stage.output': '· W_O',
  'walk.formula': 'Attention(Q, K, V) = softmax(QKᵀ / √d_k) · V      MultiHead = Concat(head₁ … head_h) · W_O',
  'walk.jump': 'Show this stage\'s table',
  'walk.intro': 'the chosen token\'s computation, one operation at a time, with the arithmetic.',
  'walk.position': 'Step {step} of {count}',
  'walk.start': 'Step through',
  'walk.next': 'Next',
  'walk.back': 'Back',
  'walk.stop': 'Stop',
  'walk.keys': 'Keys: → or N next, ← or P back, Home and End the first and last step, Esc stop.',
  'walk.q': "q = x · W_q for '{token}', head {head}: row '{token}' of X times each column of W_q.",
  'walk.k': 'K = {source} · W_k, head {head}: every token\'s key, each row of {source} times W_k. The arithmetic is shown for \'{key}\', the key this query weighs most.',
  'walk.v': 'V = {source} · W_v, head {head}: every token\'s value, each row of {source} times W_v. The arithmetic is shown for \'{key}\'.',
  'walk.score': "Score of '{token}' with '{key}': q · k, a sum over the {dK} dimensions.",
  'walk.scale': "Scaling: every score of '{token}' divided by {divisor}.",
  'walk.scaleNone': "No scaling: the scores of '{token}' go into softmax as they are.",
  'walk.softmax': "softmax over the row of '{token}': e^s / Σ e^s, so the weights are positive and sum to 1.",
  'walk.weighted': "Weighted value: weight('{token}' → '{key}') × v of '{key}'.",
  'walk.sum': "z of '{token}', head {head}: the sum of the weighted values.",
  'walk.concat': "The concatenation: the heads' z rows of '{token}' side by side, [z₁ | … | z_h].",
  'walk.wo': "Z_f = concat · W_O for '{token}': the concatenated row times each column of W_O.",
  'walk.noWo': "No W_O: the output of '{token}' is its concatenated row.",
  'walk.arithmeticOf': '{cell}:',

  // the step table and the heatmap options
  'steps.scaleToggle': 'divide by √d_k',
  'heatmap.numbers': 'numbers in the cells',
  'heatmap.rowScale': "stretch each row's colours to its own range",
  'heatmap.rowMin': "row's least",
  'heatmap.rowMax': "row's most",
  'heatmap.legend': 'Colour legend: light is weight 0, dark is weight 1; hatched cells are masked',
  'heatmap.legendStretched': "Colour legend: in each row, lightest is the row's smallest weight and darkest its largest; hatched cells are masked",

  // explanations
  'table.x': 'X', 'table.context': 'C', 'table.q': 'Q', 'table.k': 'K', 'table.v': 'V', 'table.scores': 'Scores',
  'table.scaled': 'Scaled scores', 'table.weights': 'Weights', 'table.z': 'Z', 'table.concat': 'Concatenation',
  'table.output': 'Output', 'table.wq': 'W_q', 'table.wk': 'W_k', 'table.wv': 'W_v', 'table.wo': 'W_O',
  'explain.title': "{table}: row '{row}', column '{col}'",
  'explain.titleHead': "{table}, head {head}: row '{row}', column '{col}'",
  'explain.input': "An input: the embedding of '{row}' in column '{col}', from the vocabulary, the example, or typed by you.",
  'explain.projection': "{table} = {source} · {weights}: row '{row}' of {source} times column '{col}' of {weights}.",
  'explain.score': "q·k: row '{token}' of Q times row '{key}' of K, a sum over the {dK} columns of the head.",
  'explain.masked': "Masked: '{key}' is hidden from '{token}', so its score is set to −∞ and its weight will be e^−∞ = 0.",
  'explain.scaledBy': 'The score divided by {why} = {divisor}.',
  'explain.why.sqrt_dk': '√d_k = √{dK}',
  'explain.why.none': 'nothing (scaling is off)',
  'explain.why.custom': 'the chosen divisor',
  'explain.allMasked': 'Every key is masked for this query: the row has no weight anywhere and its output is zero.',
  'explain.softmax': "softmax over the row of '{token}': e^s / Σ e^s over its {count} keys.",
  'explain.maskedTerms': '({count} masked: e^−∞ = 0, left out)',
  'explain.z': "The weighted sum of the values: Σ over the keys of weight('{token}' → key) × V[key, '{col}'].",
  'explain.concat': "Column '{col}' of the concatenation [Z_1 | … | Z_{heads}] is column '{headCol}' of Z, head {head}.",
  'explain.noWo': 'There is no W_O: the output is the concatenation of the heads.',
  'explain.wo': "Z_f = concat · W_O: row '{token}' of the concatenation times column '{col}' of W_O.",
  'explain.parameter': 'A parameter: set by the parameters mode (identity, seeded random), by the example, or typed by you.',
  'explain.inSteps': "In the step table: row '{row}', column '{col}'.",
  'explain.zeros': '({count} zero terms left out)',
  'explain.zero': '(1 zero term left out)',
  'explain.allZero': 'every term is 0',
};

const CATALOGUES = { en: EN };

/** The text for `key` with its {slots} filled from `values`; an unknown key shows itself. */
export function message(key, values = {}, language = 'en') {
  const template = CATALOGUES[language]?.[key] ?? EN[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (slot, name) => (Object.hasOwn(values, name) ? String(values[name]) : slot));
}
