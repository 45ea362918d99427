// The lab's step table caption and walk say the formula they compute (review 8, findings 1, 5, 8),
// on real model layers opened in the lab, in headless Chromium: Llama layer 2's caption says
// q = RoPE(RMSNorm₁(x) · W_q) at position 5 (row 6), and the walk's rotation step shows a pair of
// features whose numbers are a rotate-half of reference.json's layers[1].input · q_proj.weight
// computed here; GPT-2 layer 1's caption says + b_q, its numbers LN₁(x)·W_q + b_q from c_attn here;
// score steps name the key's row and call a score the causal mask removes masked.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage, walkTo as walkToStep } from './browser.mjs';
import { haveModels as have, openAndRun as openFolderAndRun, tensorOf } from './model-folders.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;


// the numbers of a text, with the page's minus sign (−) read as '-'
const numbers = (text) => (text.replace(/−/g, '-').match(/-?\d+(\.\d+)?(e[-+]?\d+)?/g) ?? []).map(Number);
// the caption's vector: the numbers in its last [ … ]
const captionVector = (caption) => numbers(caption.slice(caption.lastIndexOf('= ['), caption.lastIndexOf(']')));
const close = (got, want, what) => assert.ok(Math.abs(got - want) <= 2e-3 * Math.max(1, Math.abs(want)), `${what}: ${got} vs ${want}`);

async function openLayer(name, l, h, token) {
  const reference = await openFolderAndRun(page(), name);
  await lab.redrawn(() => page().evaluate(([l, h]) => globalThis.attentionLab.models.openInLab(l, h), [l, h]));
  await lab.redrawn(() => page().evaluate((token) => {
    const lab = globalThis.attentionLab;
    lab.setState({ ...lab.state, selectedToken: token });
  }, token));
  return reference;
}

// the walk from its start to the first step whose sentence matches `pattern` (browser.mjs)
const walkTo = (pattern) => walkToStep(page(), pattern);

describe('the step table and the walk say the formula computed', { skip: !have && 'no ../shared/models' }, () => {
  it('llama layer 2, head 1, query \'at\' (row 6): RoPE in the caption and a rotation step that is a rotate-half of RMSNorm₁(x)·W_q at position 5', async () => {
    const reference = await openLayer('llama', 1, 0, 5);
    const caption = await page().textContent('#steps table caption');
    assert.match(caption, /^Layer 2 of 2: query 'at' \(row 6\), head 1: pre-LN, so q = RoPE\(RMSNorm₁\(x\) · W_q\) = \[/);
    assert.match(caption, /RoPE turns q at position 5 \(row 6: positions count from 0\)/);
    // q = RMSNorm₁(x) · W_qᵀ (q_proj.weight is (out, in)); reference layers[1].input is RMSNorm₁(x)
    const d = 32;
    const x = reference.layers[1].input.slice(5 * d, 6 * d);
    const { values: wq } = tensorOf('llama', 'model.layers.1.self_attn.q_proj.weight');
    const q = Array.from({ length: 8 }, (_, c) => x.reduce((s, xi, i) => s + xi * wq[c * d + i], 0));
    // rotate-half at position 5, θ = 10000 over the head's 8 features: pair c with c + 4
    const angle = (c) => 5 * 10000 ** (-2 * c / 8);
    const rotated = q.map((v, c) => (c < 4 ? v * Math.cos(angle(c)) - q[c + 4] * Math.sin(angle(c)) : v * Math.cos(angle(c - 4)) + q[c - 4] * Math.sin(angle(c - 4))));
    captionVector(caption).forEach((v, c) => close(v, rotated[c], `caption q${c + 1}`));
    const q0 = await walkTo(/^q = /);
    assert.match(q0.text, /^q = RoPE\(RMSNorm₁\(x\) · W_q\) for 'at', head 1/);
    const { text, lines } = await walkTo(/^RoPE turns q/);
    console.log(`# llama layer 2 walk, rotation: ${lines.join(' | ')}`);
    assert.match(text, /position p = 5 \(row 6: positions count from 0\)/);
    assert.match(text, /feature i \+ 4/);
    // "θ_i = 10000^(−2·c/8) = …;  5·θ_i = angle", then the pair's two lines and their results
    const c = Number(lines[0].match(/\^\(−2·(\d+)\/8\)/)[1]);
    close(numbers(lines[0]).at(-1), angle(c), 'angle');
    const [, a, cosOf, b] = numbers(lines[1]);
    close(a, q[c], `q${c + 1} before rotation`);
    close(cosOf, angle(c), 'cos of the angle');
    close(b, q[c + 4], `q${c + 5} before rotation`);
    close(numbers(lines[2])[0], rotated[c], `q${c + 1} rotated`);
    close(numbers(lines[4])[0], rotated[c + 4], `q${c + 5} rotated`);
    await page().click('#walk-stop');
  });

  it('llama: the score steps name the key\'s row; the keys after \'at\' (row 6) are masked, not used', async () => {
    const row4 = await walkTo(/^Score of 'at' with 'at' \(row 4\)/);
    assert.match(row4.text, /: q · k, a sum/);
    assert.match((await walkTo(/^Score of 'at' with 'at' \(row 6\)/)).text, /: q · k, a sum/);
    assert.match((await walkTo(/^Score of 'at' with 'on' \(row 8\)/)).text, /: masked, not used/);
    await page().click('#walk-stop');
  });

  it('gpt2 layer 1, head 1: the caption says q = LN₁(x) · W_q + b_q, its numbers those of c_attn', async () => {
    const reference = await openLayer('gpt2', 0, 0, 1);
    const caption = await page().textContent('#steps table caption');
    assert.match(caption, /pre-LN, so q = LN₁\(x\) · W_q \+ b_q = \[/);
    const d = 32;
    const x = reference.layers[0].input.slice(d, 2 * d);  // LN₁(x) of row 2
    const { values: w } = tensorOf('gpt2', 'transformer.h.0.attn.c_attn.weight');  // Conv1D: (d, 3d)
    const { values: bias } = tensorOf('gpt2', 'transformer.h.0.attn.c_attn.bias');
    const q = Array.from({ length: 8 }, (_, c) => x.reduce((s, xi, i) => s + xi * w[i * 3 * d + c], 0) + bias[c]);
    captionVector(caption).forEach((v, c) => close(v, q[c], `caption q${c + 1}`));
    assert.match((await walkTo(/^q = /)).text, /^q = LN₁\(x\) · W_q \+ b_q for '[^']+', head 1: .* Then the bias b_q is added/);
    await page().click('#walk-stop');
  });
});
