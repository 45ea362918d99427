// Practice on a real model's layer (review 10, finding B): Qwen2's and Llama's layer 2 opened in the
// lab, in practice mode. Their norm is RMSNorm (no mean taken, no β, ε = 1e-6 from config.json): the
// sequence asks for the residual x + attention, the mean of its squares and one RMSNorm₂ output, names
// the model's layer 2, and checks the answers against numbers computed here from the folder's own
// files: reference.json's hidden_states[1] (x entering layer 2) and layers[1].output (its attention),
// and post_attention_layernorm.weight (γ) read from model.safetensors. LayerNorm's answer is named as
// the mistake it is, not as a missing ε.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { useLabPage } from './browser.mjs';
import { haveModels as have, openAndRun, tensorOf, dirOf } from './model-folders.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const STEP = (id) => `.practice-layers-step[data-id="${id}"]`;

async function answer(id, values) {
  const inputs = page().locator(`${STEP(id)} input`);
  for (let k = 0; k < values.length; k++) await inputs.nth(k).fill(String(values[k]));
  await page().click(`${STEP(id)} button >> nth=0`);
  const feedback = page().locator(`${STEP(id)} .feedback`);
  return { verdict: await feedback.getAttribute('data-verdict'), mistakes: await feedback.getAttribute('data-mistakes'), text: await feedback.textContent() };
}

describe('practice on a real model\'s RMSNorm layer', { skip: !have && 'no ../shared/models' }, () => {
  for (const name of ['qwen2', 'llama']) {
    it(`${name} layer 2: the residual, the mean of squares and RMSNorm₂'s output, from the folder's numbers`, async () => {
      const reference = await openAndRun(page(), name);
      const eps = JSON.parse(readFileSync(join(dirOf(name), 'config.json'), 'utf8')).rms_norm_eps;
      await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.models.openInLab(1, 0)));
      await lab.redrawn(() => page().evaluate(() => { const lab = globalThis.attentionLab; lab.setState({ ...lab.state, practice: {} }); }));
      await page().waitForSelector('.practice-layers:not([hidden])');
      const intro = await page().textContent('.practice-layers .hint');
      assert.match(intro, /^In layer 2, '.+' adds its attention.*reads RMSNorm₂ of that sum.*mean of its squares/, intro);
      assert.match(await page().textContent('.practice-layers-given caption'), /^Given: layer 2, /);
      const token = Number(await page().getAttribute('.practice-layers', 'data-token'));
      const d = 32;
      const row = (values) => values.slice(token * d, (token + 1) * d);
      const sum = row(reference.hidden_states[1]).map((x, c) => x + row(reference.layers[1].output)[c]);
      const meanSquare = sum.reduce((a, v) => a + v * v, 0) / d;
      assert.equal((await answer('sum', sum.map((v) => v.toFixed(6)))).verdict, 'correct');
      const mean = sum.reduce((a, v) => a + v, 0) / d;
      const variance = sum.reduce((a, v) => a + (v - mean) ** 2, 0) / d;
      assert.equal((await answer('meanSquare', [variance.toPrecision(7)])).mistakes, 'layers.mistake.centredSquares');
      assert.equal((await answer('meanSquare', [Math.sqrt(meanSquare).toPrecision(7)])).mistakes, 'layers.mistake.rootMeanSquare');
      assert.equal((await answer('meanSquare', [meanSquare.toPrecision(7)])).verdict, 'correct');
      const question = await page().textContent(`${STEP('normRms')} p`);
      assert.match(question, /RMSNorm₂ of the sum in column '.+': value \/ √\(mean of squares \+ ε\), times γ = .+ \(ε = 0\.000001; RMSNorm has no β\)/, question);
      const columns = await page().evaluate(() => globalThis.attentionLab.view.columns);
      const col = columns.indexOf(question.match(/column '([^']+)'/)[1]);
      const gamma = tensorOf(name, 'model.layers.1.post_attention_layernorm.weight').values[col];
      const truth = sum[col] / Math.sqrt(meanSquare + eps) * gamma;
      const layerNorm = (sum[col] - mean) / Math.sqrt(variance + eps) * gamma;
      const said = await answer('normRms', [layerNorm.toPrecision(7)]);
      assert.equal(said.mistakes, 'layers.mistake.centred', said.text);
      assert.equal((await answer('normRms', [truth.toPrecision(7)])).verdict, 'correct');
      // the note on what this step cannot tell apart speaks of RMSNorm's terms, not of a variance or β
      const note = (await page().locator(`${STEP('normRms')} .practice-note`).allTextContents()).join(' ');
      assert.doesNotMatch(note, /variance|β/, note);
      await lab.redrawn(() => page().evaluate(() => { const lab = globalThis.attentionLab; const { practice, ...rest } = lab.state; lab.setState({ ...rest, practice: null }); }));
    });
  }
});
