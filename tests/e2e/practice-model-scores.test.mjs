// Practice on a real model's layer (review 10, finding C): the attention's blanks (a score q·k and its
// scaled value) opened from Real models must take the answer the model's own numbers give. Each true
// value is computed here, in float64, from the folder's files: reference.json's layers[l].input (what
// the attention reads), the q/k projections and their biases from model.safetensors, and for Qwen2
// rotary positions (rotate-half, θ from config.json) and its grouped key/value heads. Before the fix
// the practice's own float64 pass left the biases out, so every such answer was "Not quite". Run one after
// the other in one page, the second model also checks that the first one's exercises are not kept for it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { useLabPage } from './browser.mjs';
import { haveModels as have, openAndRun, tensorOf, dirOf } from './model-folders.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;

const MODELS = {
  bert: { l: 0, name: (l, m) => `bert.encoder.layer.${l}.attention.self.${{ q: 'query', k: 'key' }[m]}` },
  qwen2: { l: 1, name: (l, m) => `model.layers.${l}.self_attn.${m}_proj` },
};

// row i of the attention's input times W (out × in) + b, the features of head `head` (width dK)
function projected(input, i, d, w, b, head, dK) {
  return Array.from({ length: dK }, (_, c) => {
    const o = head * dK + c;
    return input.slice(i * d, (i + 1) * d).reduce((s, x, t) => s + x * w[o * d + t], b[o]);
  });
}

// rotate-half at 0-based position p over all dK features
const rope = (v, p, theta) => {
  const half = v.length / 2;
  return v.map((x, c) => {
    const k = c % half, a = p * theta ** (-2 * k / v.length);
    return c < half ? x * Math.cos(a) - v[c + half] * Math.sin(a) : x * Math.cos(a) + v[c - half] * Math.sin(a);
  });
};

function scoreOf(model, reference, config, { head, row, col }) {
  const { l, name } = MODELS[model];
  const d = config.hidden_size, heads = config.num_attention_heads, dK = d / heads;
  const group = heads / (config.num_key_value_heads ?? heads);
  const input = reference.layers[l].input;
  const [wq, bq, wk, bk] = ['q', 'k'].flatMap((m) => [tensorOf(model, `${name(l, m)}.weight`).values, tensorOf(model, `${name(l, m)}.bias`).values]);
  let q = projected(input, row, d, wq, bq, head, dK);
  let k = projected(input, col, d, wk, bk, Math.floor(head / group), dK);
  if (model === 'qwen2') {
    const theta = config.rope_parameters?.rope_theta ?? config.rope_theta ?? 10000;
    [q, k] = [rope(q, row, theta), rope(k, col, theta)];
  }
  return { score: q.reduce((s, v, c) => s + v * k[c], 0), dK };
}

describe('practice on a real model\'s layer: the attention\'s blanks', { skip: !have && 'no ../shared/models' }, () => {
  for (const model of Object.keys(MODELS)) {
    it(`${model}: a score and its scaled value, computed from the folder, are marked correct`, async () => {
      const reference = await openAndRun(page(), model);
      const config = JSON.parse(readFileSync(join(dirOf(model), 'config.json'), 'utf8'));
      await lab.redrawn(() => page().evaluate((l) => globalThis.attentionLab.models.openInLab(l, 0), MODELS[model].l));
      await lab.redrawn(() => page().evaluate(() => { const lab = globalThis.attentionLab; lab.setState({ ...lab.state, practice: {} }); }));
      await page().waitForFunction(() => globalThis.attentionLab.practice?.exercises?.length > 0);
      const cells = await page().evaluate(() => globalThis.attentionLab.practice.exercises.map((e) => e.cell));
      const scoreAt = cells.findIndex((c) => c.matrix === 'scores');
      const scaledAt = cells.findIndex((c) => c.matrix === 'scaled');
      assert.ok(scoreAt >= 0 && scaledAt > scoreAt, JSON.stringify(cells));
      const { score, dK } = scoreOf(model, reference, config, cells[scoreAt]);
      for (let k = 0; k < scoreAt; k++) await page().click(`.exercise[data-index="${k}"] .reveal-button`);
      const answer = async (index, value) => {
        const input = page().locator(`.practice-input[data-exercise="${index}"]`).first();
        await input.fill(value.toPrecision(6));
        await input.press('Enter');
        return page().locator(`.exercise[data-index="${index}"] .feedback`).evaluate((p) => `${p.dataset.verdict}: ${p.textContent}`);
      };
      assert.match(await answer(scoreAt, score), /^correct/, `score ${score}`);
      for (let k = scoreAt + 1; k < scaledAt; k++) await page().click(`.exercise[data-index="${k}"] .reveal-button`);
      assert.match(await answer(scaledAt, score / Math.sqrt(dK)), /^correct/, `scaled ${score / Math.sqrt(dK)}`);
      await lab.redrawn(() => page().evaluate(() => { const lab = globalThis.attentionLab; const { practice, ...rest } = lab.state; lab.setState({ ...rest, practice: null }); }));
    });
  }
});
