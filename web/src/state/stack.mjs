// A stack of blocks on the page (issue 23): what the engine is asked beyond one attention layer, and
// the problems that stop it, each naming its setting. The weights of layers 2 … are the reader's own
// (`layerWeights`) or follow layer 1's recipe with their own seed; the MLPs are seeded, the norms 1 and 0.
import { problemOf } from '../i18n/page.mjs';
import { PAGE_LIMITS } from './model.mjs';

export const BLOCKS = ['attention', 'full'];
export const NORMS = ['pre', 'post'];
/** The MLP's hidden width per d_model, as in GPT-2 and BERT. */
export const MLP_WIDTH = 4;

/**
 * The tables of a full block's own parameters a reader can type into, and their sizes for d_model:
 * w1 (d_model × hidden), w2 (hidden × d_model), ln1 and ln2 (2 × d_model: row 1 the weight γ, row 2
 * the bias β). A typed cell is kept as `blockEdits["layer:table:index"]` (layer 0-based, index row-major).
 */
export const BLOCK_TABLES = ['w1', 'w2', 'ln1', 'ln2'];
export const BLOCK_EDIT_KEY = /^(\d+):(w1|w2|ln1|ln2):(\d+)$/;
export const blockTableSize = (table, dModel, hidden = MLP_WIDTH * dModel) => (table === 'w1' || table === 'w2' ? dModel * hidden : 2 * dModel);

/**
 * The real model's block layer 1 takes (state.modelBlock, "Open this layer in the lab"), when the
 * state still asks for it: a full block of that arrangement; else null (seeded). Its sizes:
 * modelBlockProblems.
 */
export function modelBlockOf(state) {
  const block = state.modelBlock;
  return block && state.block === 'full' && state.norm === block.arrangement ? block : null;
}

/** The engine's arrangement of a block for a state: 'attention-only', 'pre' or 'post'. */
export const arrangementOf = (state) => (state.block === 'attention' ? 'attention-only' : state.norm);

/**
 * What the stack adds to a request: { layers, arrangement, hidden, recipes }, where recipes[l] is
 * layer l's weights recipe ({ mode, seed, wq, … } as the one-layer request's `weights`).
 */
export function stackOf(state) {
  const recipes = Array.from({ length: state.layers }, (_, l) => {
    if (l === 0) return null;  // the request's own `weights`
    const own = state.layerWeights?.[l - 1];
    if (own) return { mode: 'custom', ...own };
    if (state.weightsMode === 'identity') return { mode: 'identity' };
    return { mode: 'random', seed: state.seed + l };
  });
  // the typed cells of the layers there are: [layer][table] → [[index, value], …]
  const edits = Array.from({ length: state.layers }, () => ({}));
  for (const [key, value] of Object.entries(state.blockEdits ?? {})) {
    const [, layer, table, index] = key.match(BLOCK_EDIT_KEY) ?? [];
    if (Number(layer) < state.layers) (edits[Number(layer)][table] ??= []).push([Number(index), value]);
  }
  const model = modelBlockOf(state);
  return { layers: state.layers, arrangement: arrangementOf(state), hidden: MLP_WIDTH * state.dModel, seed: state.seed, recipes, edits, ...(model ? { model } : {}) };
}

// A stack keeps the stream d_model wide, reads one sentence, and masks nothing or the future.
function shapeProblems(state, { dModel, heads, dV }, problems) {
  if (state.attention === 'cross') problems.push(problemOf('layers', 'blocks.problem.cross', {}));
  if (state.maskMode === 'padding') problems.push(problemOf('layers', 'blocks.problem.padding', {}));
  if (!state.useWo && heads * dV !== dModel) problems.push(problemOf('layers', 'blocks.problem.width', { heads, dV, dModel }));
}

// Each hand-set layer as long as the sizes need; the first that is not, named.
function layerWeightProblems(state, { dModel, heads, dK, dV }, problems) {
  const kv = state.kvHeads ?? heads;
  const sizes = { wq: heads * dModel * dK, wk: kv * dModel * dK, wv: kv * dModel * dV, wo: heads * dV * dModel };
  const names = ['wq', 'wk', 'wv', ...(state.useWo ? ['wo'] : [])];
  (state.layerWeights ?? []).slice(0, state.layers - 1).forEach((own, i) => {
    if (own === null) return;
    const wrong = names.find((name) => !Array.isArray(own[name]) || own[name].length !== sizes[name]);
    if (wrong) problems.push(problemOf('layers', 'blocks.problem.weights', { layer: i + 2, name: wrong, count: own[wrong]?.length ?? 0, need: sizes[wrong] }));
  });
}

// A typed cell of a block's MLP or norm: a key the page writes, at a place its table has
function blockEditProblems(state, problems) {
  const model = modelBlockOf(state);
  const wrong = Object.keys(state.blockEdits ?? {}).find((key) => {
    const [, layer, table, index] = key.match(BLOCK_EDIT_KEY) ?? [];
    const hidden = model && Number(layer) === 0 ? model.mlp.hidden : undefined;
    return !table || Number(index) >= blockTableSize(table, state.dModel, hidden);
  });
  if (wrong !== undefined) problems.push(problemOf('layers', 'blocks.problem.edit', { key: JSON.stringify(wrong).slice(0, 40), dModel: state.dModel }));
}

// A model's block (from a link, say) as long as d_model and its hidden width need; the first that is not, named.
function modelBlockProblems(state, problems) {
  const block = state.modelBlock;
  if (!block || state.block !== 'full' || state.norm !== block.arrangement) return;
  const { dModel: d } = state;
  const f = block.mlp.hidden;
  const need = { 'norm1.weight': d, 'norm1.bias': d, 'norm2.weight': d, 'norm2.bias': d, 'mlp.w1': d * f, 'mlp.b1': f, 'mlp.w2': f * d, 'mlp.b2': d, 'mlp.wGate': d * f, 'mlp.wUp': d * f, 'mlp.wDown': f * d };
  const wrong = Object.entries(need).find(([name, size]) => {
    const [part, key] = name.split('.');
    const values = block[part][key];
    return values !== null && values !== undefined && values.length !== size;
  });
  if (wrong) {
    const [part, key] = wrong[0].split('.');
    problems.push(problemOf('layers', 'blocks.problem.modelBlock', { name: wrong[0], count: block[part][key].length, need: wrong[1], dModel: d }));
  }
}

/** Problems of a stack's settings, pushed to `problems` (buildRequest's list). */
export function stackProblems(state, sizes, problems) {
  const { layers } = state;
  if (!Number.isInteger(layers) || layers < 1 || layers > PAGE_LIMITS.layers) {
    problems.push(problemOf('layers', 'blocks.problem.layers', { value: JSON.stringify(layers)?.slice(0, 40) ?? '', max: PAGE_LIMITS.layers }));
    return;
  }
  if (!BLOCKS.includes(state.block)) problems.push(problemOf('block', 'blocks.problem.block', { value: JSON.stringify(state.block)?.slice(0, 40) ?? '' }));
  if (!NORMS.includes(state.norm)) problems.push(problemOf('norm', 'blocks.problem.norm', { value: JSON.stringify(state.norm)?.slice(0, 40) ?? '' }));
  if (!(Number.isInteger(state.selectedLayer) && state.selectedLayer >= 0)) {
    problems.push(problemOf('layer', 'blocks.problem.layer', { value: JSON.stringify(state.selectedLayer)?.slice(0, 40) ?? '' }));
  }
  shapeProblems(state, sizes, problems);
  blockEditProblems(state, problems);
  modelBlockProblems(state, problems);
  if (state.weightsMode === 'custom') layerWeightProblems(state, sizes, problems);
}
