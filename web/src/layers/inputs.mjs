// Inputs X for the lab, pasted or from a file (text or .npy): the lab's state with them, or a message.
import { parseInputs, inputsFromTensor, MAX_FILE_BYTES } from './load.mjs';
import { parseNpy } from './formats.mjs';
import { stateWithInputs } from './apply.mjs';
import { say } from './status.mjs';
import { isolate } from '../shared/bidi.mjs';

/** result: parseInputs' { rows } or { problem }. */
export function applyInputs(layers, result) {
  const { t } = layers;
  if (result.problem) {
    say(layers, t('layers.inputsProblem', { problem: result.problem }));
    return;
  }
  say(layers, null, t('layers.inputsUsed', { n: result.rows.length }));
  layers.useState(stateWithInputs(layers.getState(), result), t('layers.inputsUsed', { n: result.rows.length }));
}

/** The pasted text as inputs. */
export function applyPasted(layers) {
  applyInputs(layers, parseInputs(layers.$('layers-inputs-text').value, layers.getState().dModel));
}

export async function readInputsFile(layers, file) {
  const dModel = layers.getState().dModel;
  if (file.size > MAX_FILE_BYTES) return applyInputs(layers, { problem: `${isolate(file.name)} is larger than ${MAX_FILE_BYTES >> 20} MB` });
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (bytes[0] === 0x93) {
    try {
      return applyInputs(layers, inputsFromTensor(parseNpy(bytes, file.name), dModel));
    } catch (error) {
      return applyInputs(layers, { problem: error.message });
    }
  }
  const text = new TextDecoder().decode(bytes);
  layers.$('layers-inputs-text').value = text.slice(0, 200_000);
  applyInputs(layers, parseInputs(text, dModel));
}
