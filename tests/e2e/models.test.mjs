// "Real models" in headless Chromium, through the page's own file input: each Hugging Face folder of
// ../shared/models chosen as files, the reference sentence typed, and the page's public result
// (attentionLab.models.result) compared with what transformers computed (reference.json): token ids
// and strings, every layer's attention input, weights per head and output, every hidden state to
// 1e-4 relative, the next-token top 5 in order. A bad folder gets a message naming the file, then a
// good one opens.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

import { useLabPage } from './browser.mjs';
import { safetensors } from './safetensors.mjs';
import { MODELS, tempRoot, writeFolder, textFiles } from '../web/src/models/copies.mjs';

const have = existsSync(new URL('gpt2/reference.json', MODELS));
const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const filesOf = (dir) => readdirSync(dir).filter((name) => name !== 'reference.json').map((name) => join(dir, name));

function relativeError(got, want) {
  assert.equal(got.length, want.length);
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < want.length; i++) {
    diff += (got[i] - want[i]) ** 2;
    norm += want[i] ** 2;
  }
  return Math.sqrt(diff) / Math.sqrt(norm);
}

// Opens `dir` through #models-files; resolves with the status line or the message.
async function choose(dir) {
  await page().setInputFiles('#models-files', filesOf(dir));
  // a folder is read while the section is busy (the model opened before stays shown meanwhile)
  await page().waitForFunction(() => !document.querySelector('section[data-view="models"]').hasAttribute('aria-busy') && (!document.querySelector('#models-input').hidden || document.querySelector('#models-messages').textContent !== ''));
}

// The page's result, as plain arrays
const pageResult = () => page().evaluate(() => {
  const r = globalThis.attentionLab.models.result;
  return { tokens: r.tokens, ids: r.ids, next: r.next, hidden: r.hidden.map((h) => [...h]),
    layers: r.layers.map((l) => ({ input: [...l.input], output: [...l.output], probs: l.heads.flatMap((h) => [...h.weights]) })) };
});

describe('Real models on the page', { skip: !have && 'no ../shared/models' }, () => {
  let root;
  before(() => { root = tempRoot(); });
  after(() => rmSync(root, { recursive: true, force: true }));

  for (const name of ['bert', 'gpt2', 'llama', 'qwen2']) {
    it(`${name}: the page's tokens, heads, hidden states and next tokens are transformers'`, async () => {
      const dir = fileURLToPath(new URL(name, MODELS));
      const reference = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
      await choose(dir);
      assert.equal(await page().textContent('#models-messages'), '');
      assert.match(await page().textContent('#models-report'), new RegExp(`Recognised: ${reference.architecture[0].startsWith('Bert') ? 'bert' : name}`));
      await page().fill('#models-text', reference.text);
      await page().click('#models-run');
      await page().waitForFunction((ids) => JSON.stringify(globalThis.attentionLab.models.result?.ids) === ids && !globalThis.attentionLab.models.result.partial, JSON.stringify(reference.ids));
      const result = await pageResult();
      assert.deepEqual(result.tokens, reference.tokens);
      let worst = 0;
      const check = (got, want, what) => {
        const error = relativeError(got, want);
        assert.ok(error <= 1e-4, `${what}: ${error}`);
        worst = Math.max(worst, error);
      };
      reference.hidden_states.forEach((want, i) => check(result.hidden[i], want, `hidden_states[${i}]`));
      reference.layers.forEach((want, l) => {
        check(result.layers[l].input, want.input, `layers[${l}].input`);
        check(result.layers[l].probs, want.probs, `layers[${l}].probs`);
        check(result.layers[l].output, want.output, `layers[${l}].output`);
      });
      if (name === 'bert') assert.equal(result.next, null);
      else assert.deepEqual(result.next.slice(0, 5).map((t) => t.id), reference.next_token_top5.map(([id]) => id));
      // what the reader sees: the tokens, every head of the first layer drawn, the next-token table
      assert.equal(await page().locator('#models-tokens .model-token').count(), reference.ids.length);
      // a space mark the tokenizer wrote (Ġ, ▁), written · as in the lab (review 8, #9), is explained once, and only when the tokens have one
      const marks = [...new Set(reference.tokens.join('').match(/[Ġ▁]/gu) ?? [])];
      const note = await page().locator('#models-tokens p.hint').allTextContents();
      if (marks.length) assert.match(note.join(' '), new RegExp(`^· in a token stands for the space before a word \\(the tokenizer writes it ${marks.join(' ')} `));
      else assert.deepEqual(note, []);
      assert.equal(await page().locator('#models-layers details[open] figure canvas').count(), reference.layers[0].probs.length / reference.ids.length ** 2);
      assert.equal(await page().locator('#models-next tr').count(), name === 'bert' ? 0 : 11);
      assert.ok(worst < 1e-4);
    });
  }

  it('a bad folder: the message names config.json and the problem, the model opened before stays; the next good folder opens', async () => {
    const config = JSON.parse(textFiles('gpt2')['config.json']);
    const bad = writeFolder(root, 'unknown', { ...textFiles('gpt2'), 'config.json': { ...config, model_type: 'mamba', architectures: ['MambaForCausalLM'] },
      'model.safetensors': readFileSync(new URL('gpt2/model.safetensors', MODELS)) });
    await choose(bad);
    assert.match(await page().textContent('#models-messages'), /^The file config\.json says this model is model_type "mamba", architectures MambaForCausalLM: the lab does not read that kind of model/);
    // the model opened before (qwen2) is still shown, under the message (review 5, finding 16)
    assert.equal(await page().isVisible('#models-input'), true);
    assert.match(await page().textContent('#models-status'), /^The qwen2 model opened before is still shown\./);
    await choose(fileURLToPath(new URL('gpt2', MODELS)));
    assert.equal(await page().textContent('#models-messages'), '');
    assert.equal(await page().isVisible('#models-input'), true);
  });

  it('Bring your own layer: a PyTorch nn.MultiheadAttention layer after a GPT-2 one is not causal, and the status line says mask, scale and head split', async () => {
    const d = 8;
    const values = (n, k) => Array.from({ length: n }, (_, i) => Math.fround(Math.sin(i * 0.7 + k) * 0.4));
    const gpt2 = { 'h.0.attn.c_attn.weight': { shape: [d, 3 * d], data: values(3 * d * d, 1) }, 'h.0.attn.c_proj.weight': { shape: [d, d], data: values(d * d, 2) } };
    const pytorch = { 'self_attn.in_proj_weight': { shape: [3 * d, d], data: values(3 * d * d, 3) }, 'self_attn.in_proj_bias': { shape: [3 * d], data: values(3 * d, 4) },
      'self_attn.out_proj.weight': { shape: [d, d], data: values(d * d, 5) }, 'self_attn.out_proj.bias': { shape: [d], data: values(d, 6) } };
    const load = async (name, tensors) => {
      await page().setInputFiles('#layers-file', { name, mimeType: 'application/octet-stream', buffer: safetensors(tensors) });
      await page().waitForFunction((name) => document.querySelector('#layers-status').textContent.startsWith(name), name);
      await page().fill('#layers-heads', '2');
      await lab.redrawn(() => page().click('#layers-load'));
      return { state: await page().evaluate(() => globalThis.attentionLab.state), status: await page().textContent('#status') };
    };
    const first = await load('gpt2.safetensors', gpt2);
    assert.equal(first.state.maskMode, 'causal');
    assert.match(first.status, /d_model 8, 2 heads of d_k 4 \(the 8 projection columns split into 2 blocks of 4\); causal mask .*; scores divided by √d_k = 2\./);
    const second = await load('mha.safetensors', pytorch);
    assert.equal(second.state.maskMode, 'none');
    assert.equal(second.state.scaleMode, 'sqrt_dk');
    assert.match(second.status, /Loaded self_attn from mha\.safetensors: d_model 8, 2 heads of d_k 4 \(the 8 projection columns split into 2 blocks of 4\); no mask \(every token attends to every token\); scores divided by √d_k = 2\./);
  });
});
