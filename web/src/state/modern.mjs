// Attention as real models have it, in the lab (issues 23, 24): grouped-query attention (kvHeads key
// and value heads shared by heads / kvHeads query heads each), rotary positions (RoPE, rotate-half,
// θ and the rotated features of each head) and a sliding window. What the engine is asked for them
// (the core's attention() options kvHeads, rotary, window: docs/api.md) and the problems that stop
// it, each naming its field.
import { problemOf } from '../i18n/page.mjs';
import { kvHeadsOf } from './model.mjs';

// a setting's name as its control's label says it (request.mjs labelOf; not imported: request.mjs imports this file)
const labelOf = (field) => ({ key: `controls.${field}` });

const shown = (value) => JSON.stringify(value)?.slice(0, 40) ?? String(value);

// kvHeads: a whole number ≥ 1 dividing heads (null: as many as heads)
function kvHeadsProblems(state, heads, problems) {
  if (state.kvHeads === null) return;
  const kv = state.kvHeads;
  if (!Number.isInteger(kv) || kv < 1) problems.push(problemOf('kvHeads', 'modern.problem.kvHeads', { field: labelOf('kvHeads'), value: shown(kv) }));
  else if (Number.isInteger(heads) && heads >= 1 && heads % kv !== 0) problems.push(problemOf('kvHeads', 'modern.problem.kvDivide', { field: labelOf('kvHeads'), value: kv, headsField: labelOf('heads'), heads }));
}

// rotary: on or off; θ a finite number above 1; the rotated features even, from 0 to d_k
function rotaryProblems(state, dK, problems) {
  if (typeof state.rotary !== 'boolean') problems.push(problemOf('rotary', 'modern.problem.rotary', { value: shown(state.rotary) }));
  if (!state.rotary) return;
  const theta = state.rotaryTheta;
  if (typeof theta !== 'number' || !Number.isFinite(theta) || !(theta > 1)) problems.push(problemOf('rotaryTheta', 'modern.problem.theta', { field: labelOf('rotaryTheta'), value: shown(theta) }));
  const dims = state.rotaryDims;
  if (dims === null) return;
  if (!Number.isInteger(dims) || dims < 0) problems.push(problemOf('rotaryDims', 'modern.problem.dims', { field: labelOf('rotaryDims'), value: shown(dims) }));
  else if (dims % 2 !== 0) problems.push(problemOf('rotaryDims', 'modern.problem.dimsOdd', { field: labelOf('rotaryDims'), value: dims }));
  else if (Number.isInteger(dK) && dims > dK) problems.push(problemOf('rotaryDims', 'modern.problem.dimsAbove', { field: labelOf('rotaryDims'), value: dims, dK }));
}

/** Problems of the kvHeads, rotary and window settings, pushed to `problems` (buildRequest's list). */
export function modernProblems(state, { heads, dK }, problems) {
  kvHeadsProblems(state, heads, problems);
  rotaryProblems(state, dK, problems);
  if (!Number.isInteger(state.window) || state.window < 0) problems.push(problemOf('window', 'modern.problem.window', { field: labelOf('window'), value: shown(state.window) }));
  if (state.rotary === true && state.positions === 'sinusoidal' && state.layers !== 1) {
    problems.push(problemOf('rotary', 'modern.problem.stackPositions', {}));
  }
}

/** The request's kvHeads, rotary ({ dims, theta }) and window: only those that are not plain attention. */
export function modernRequest(state) {
  const kvHeads = kvHeadsOf(state);
  return {
    ...(kvHeads !== state.heads ? { kvHeads } : {}),
    ...(state.rotary ? { rotary: { dims: state.rotaryDims ?? state.dK, theta: state.rotaryTheta } } : {}),
    ...(state.window > 0 ? { window: state.window } : {}),
  };
}

/** The query heads that read key/value head g: [first, last] (0-based). */
export function queryHeadsOf(g, heads, kvHeads) {
  const group = heads / kvHeads;
  return [g * group, (g + 1) * group - 1];
}

/** The key/value head query head h reads. */
export const kvHeadOf = (h, heads, kvHeads) => Math.floor(h / (heads / kvHeads));
