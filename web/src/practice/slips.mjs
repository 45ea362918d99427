// The notes' own slips as practice mistakes: while the lab shows a preset as the notes have it
// (nothing modified), an exercise on a weight the notes got wrong names the notes' value as their
// slip (issue 26, point 8: typing the notes' 0.53 for 'sat' says so). The values are the notes'
// (state/presets.mjs `slips`), never the engine's.
import { presetById } from '../state/presets.mjs';
import { modifiedAspects } from '../state/model.mjs';
import { formatNumber } from '../shared/format.mjs';
import { near } from './check.mjs';

/** The exercises with the preset's slips added as mistakes where an exercise asks for their weights. */
export function withNotesSlips(exercises, view, state, tolerance) {
  const preset = state.preset ? presetById(state.preset) : null;
  if (!preset?.slips || modifiedAspects(state).length > 0) return exercises;
  for (const slip of preset.slips) {
    if (slip.weights.length !== view.m) continue;
    const sum = slip.weights.reduce((a, b) => a + b, 0);
    const params = { query: view.tokens[slip.query], values: slip.weights.map((w) => formatNumber(w)).join(', '), sum: formatNumber(sum) };
    for (const exercise of exercises) {
      const { matrix, row } = exercise.cell;
      if (row !== slip.query || (matrix !== 'softmax' && matrix !== 'weights')) continue;
      const values = exercise.blanks.map((blank) => slip.weights[blank.cell.col]);
      if (near(values, exercise.blanks.map((blank) => blank.truth), tolerance)) continue;  // a slip that is not one here
      const mistake = { key: 'mistake.notesSlip', params, values };
      exercise.mistakes = [mistake, ...exercise.mistakes];
      if (exercise.truth !== undefined) mistake.value = values[0];
    }
  }
  return exercises;
}
