// RoPE and a model's layer in the lab as a first-time student meets them (review 9, findings 1, 3, 6,
// 7, 8), in headless Chromium, English and Hindi: Llama layer 2 opens on its last token (position 11,
// an angle above 0: the walk's rotation is a rotate-half of reference.json's RMSNorm₁(x) · q_proj
// computed here), a query the reader chose stays when another head opens, and a typed sentence keeps
// the query at its end; the formula strip and the step table's q and k say RoPE only on a layer that
// rotates; the status says the rotation, key/value heads and window in words; the walk panel shows the
// whole of its long steps (the rotation, softmax over 12 keys, RMSNorm₁) at 375 and 1280 px, light and
// dark; the Layers heading is Hindi in Hindi.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage, walkTo as walkToStep } from './browser.mjs';
import { haveModels as have, openAndRun as openFolderAndRun, tensorOf } from './model-folders.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;

const numbers = (text) => (text.replace(/−/g, '-').match(/-?\d+(\.\d+)?(e[-+]?\d+)?/g) ?? []).map(Number);
const close = (got, want, what) => assert.ok(Math.abs(got - want) <= 2e-3 * Math.max(1, Math.abs(want)), `${what}: ${got} vs ${want}`);
const open = (l, h) => lab.redrawn(() => page().evaluate(([l, h]) => globalThis.attentionLab.models.openInLab(l, h), [l, h]));
const labState = () => page().evaluate(() => globalThis.attentionLab.state);

// the walk from its start to the first step whose sentence matches `pattern` (browser.mjs)
const walkTo = (pattern) => walkToStep(page(), pattern);

// What the walk panel shows of its step: whether it scrolls inside; the "more below" line shown at the
// top and at the end of the scroll; the last arithmetic line's and the Next button's boxes against the
// panel's at the end (the panel scrolled to its end as a reader would)
async function panelEnds() {
  return page().evaluate(async () => {
    const panel = document.getElementById('walk');
    const more = panel.querySelector('.walk-more');
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    panel.scrollTop = 0;
    await frame();
    const overflows = panel.scrollHeight > panel.clientHeight + 1;
    const scrolls = ['auto', 'scroll'].includes(getComputedStyle(panel).overflowY);
    const moreAtTop = Boolean(more && !more.hidden && more.getBoundingClientRect().height > 0);
    panel.scrollTop = panel.scrollHeight;
    await frame();
    const box = panel.getBoundingClientRect();
    const last = [...panel.querySelectorAll('.walk-arithmetic li')].at(-1)?.getBoundingClientRect();
    const next = document.getElementById('walk-next').getBoundingClientRect();
    const wide = [...panel.querySelectorAll('.walk-arithmetic li, .walk-text')].some((el) => el.scrollWidth > el.clientWidth + 1);
    return { overflows, scrolls, moreAtTop, moreAtEnd: Boolean(more && !more.hidden), lastBottom: last?.bottom ?? 0, bottom: box.bottom, top: box.top, nextTop: next.top, nextBottom: next.bottom, wide };
  });
}

// One walk from its start, `check(name)` on the first step each of `steps` ([pattern, name]) matches
// (the same steps as a walk from the start to each in turn, in one walk instead of three). Returns
// where each was: { [name]: { index, position, stage, from } } (its stage's button, the stage's first step).
async function walkVisiting(steps, check) {
  if (await page().isVisible('#walk-stop')) await page().click('#walk-stop');
  await page().click('#walk-start');
  let left = [...steps];
  const found = {};
  const stageFrom = {};
  for (let i = 0; i < 80 && left.length; i++) {
    const [text, position, stage] = await page().evaluate(() => [document.querySelector('.walk-text').textContent,
      document.querySelector('.walk-position').textContent, document.querySelector('#formula button[aria-current="step"]').dataset.stage]);
    stageFrom[stage] ??= i;
    for (const [, name] of left.filter(([pattern]) => pattern.test(text))) {
      found[name] = { index: i, position, stage, from: stageFrom[stage] };
      await check(name);
    }
    left = left.filter(([pattern]) => !pattern.test(text));
    // the panel's own key for Next (a press, without a click's waits for a still, unhidden target)
    if (left.length) await page().press('#walk-next', 'ArrowRight');
  }
  assert.deepEqual(left.map(([, name]) => name), [], 'a walk step for each');
  return found;
}

// The steps walkVisiting found, reached again by the formula strip's stage buttons (a stage's first
// step) and Next from there: each the same step (its position and sentence) at the same index.
async function jumpVisiting(steps, found, check) {
  if (await page().isVisible('#walk-stop')) await page().click('#walk-stop');
  await page().click('#walk-start');
  for (const [pattern, name] of steps) {
    const { position, stage, index, from } = found[name];
    await page().click(`#formula button[data-stage="${stage}"]`);
    for (let i = from; i < index; i++) await page().press('#walk-next', 'ArrowRight');
    assert.equal(await page().textContent('.walk-position'), position, `${name}: the step walked to`);
    assert.match(await page().textContent('.walk-text'), pattern, name);
    await check(name);
  }
}

function assertWhole(ends, what) {
  assert.equal(ends.wide, false, `${what}: a line is cut sideways`);
  if (ends.overflows) {
    assert.ok(ends.scrolls, `${what}: the panel holds more than it shows and does not scroll`);
    assert.ok(ends.moreAtTop, `${what}: the panel holds more than it shows and does not say so`);
    assert.equal(ends.moreAtEnd, false, `${what}: "more below" still shown at the end`);
  }
  assert.ok(ends.lastBottom <= ends.bottom + 0.5, `${what}: the last line ends at ${ends.lastBottom}, below the panel's ${ends.bottom}`);
  assert.ok(ends.nextTop >= ends.top - 0.5 && ends.nextBottom <= ends.bottom + 0.5, `${what}: Next is out of the panel at the end of the step`);
}

describe('RoPE and a model\'s layer in the lab (review 9)', { skip: !have && 'no ../shared/models' }, () => {
  it('llama layer 2 opens on its last token: q turned by position 11, a row of weights over 12 keys; a chosen query stays', async () => {
    const reference = await openFolderAndRun(page(), 'llama');
    const n = reference.ids.length;
    await open(1, 0);
    let state = await labState();
    assert.equal(state.maskMode, 'causal');
    assert.equal(state.selectedToken, n - 1);
    assert.match(await page().textContent('#steps table caption'), new RegExp(`query '\\.' \\(row ${n}\\).*RoPE turns q at position ${n - 1} \\(row ${n}`));
    // the rotation step: a pair of the query's features turned by 11·θ_c, a rotate-half of
    // RMSNorm₁(x) · W_qᵀ (reference layers[1].input is RMSNorm₁(x); q_proj.weight is (out, in))
    const d = 32;
    const x = reference.layers[1].input.slice((n - 1) * d, n * d);
    const { values: wq } = tensorOf('llama', 'model.layers.1.self_attn.q_proj.weight');
    const q = Array.from({ length: 8 }, (_, c) => x.reduce((s, xi, i) => s + xi * wq[c * d + i], 0));
    const angle = (c) => (n - 1) * 10000 ** (-2 * c / 8);
    const { text, lines } = await walkTo(/^RoPE turns q/);
    assert.match(text, new RegExp(`position p = ${n - 1} \\(row ${n}`));
    assert.equal(await page().getAttribute('#formula button[aria-current="step"]', 'data-stage'), 'rope');
    const c = Number(lines[0].match(/\^\(−2·(\d+)\/8\)/)[1]);
    close(numbers(lines[0]).at(-1), angle(c), 'the angle');
    assert.ok(Math.abs(Math.sin(angle(c))) > 0.05, `the pair shown is turned (angle ${angle(c)})`);
    close(numbers(lines[2])[0], q[c] * Math.cos(angle(c)) - q[c + 4] * Math.sin(angle(c)), `q${c + 1} turned`);
    await page().click('#walk-stop');
    // the query sees all 12 keys (the first token saw itself alone), with layer 2 head 1's weights
    const row = await page().evaluate((n) => [...globalThis.attentionLab.result.heads[0].weights.slice((n - 1) * n, n * n)], n);
    const want = reference.layers[1].probs.slice((n - 1) * n, n * n);
    row.forEach((w, j) => close(w, want[j], `weight of key ${j + 1}`));
    assert.ok(row.every((w) => w > 0), `weights ${row}`);
    // a query the reader chose stays when another head of the same text opens
    await lab.redrawn(() => page().click('#tokens [data-index="3"]'));
    await open(1, 1);
    state = await labState();
    assert.deepEqual([state.selectedToken, state.selectedHead], [3, 1]);
  });

  it('the formula strip, the step table and the status say the rotation on llama, and not on gpt2', async () => {
    await open(1, 0);
    assert.match(await page().textContent('#formula .formula-text'), /softmax\(RoPE\(Q\) · RoPE\(K\)ᵀ \/ √d_k\)/);
    const stages = () => page().$$eval('#formula .stages li:not([hidden]) button', (bs) => bs.map((b) => b.textContent));
    assert.deepEqual((await stages()).slice(0, 4), ['X', 'Q, K, V = X·W', 'RoPE(Q), RoPE(K)', 'QKᵀ']);
    const headers = () => page().$$eval('#steps thead th', (ths) => ths.slice(1, 3).map((th) => th.textContent));
    assert.deepEqual(await headers(), ['q (rotated)', 'k (rotated)']);
    // in words: rotation, 2 key/value heads for 4 query heads (config.json), no window
    const status = await page().textContent('#models-status');
    assert.match(status, /Positions by rotation \(RoPE, θ = 10,?000: q and k turned by their position, 8 features of each head\); 2 key\/value heads shared by 4 query heads; no sliding window\./);
    assert.doesNotMatch(status, /rotary: on|window: none/);
    await openFolderAndRun(page(), 'gpt2');
    await open(0, 0);
    assert.equal(await labState().then((s) => s.rotary), false);
    assert.doesNotMatch(await page().textContent('#formula .formula-text'), /RoPE/);
    assert.deepEqual((await stages()).slice(0, 3), ['X', 'Q, K, V = X·W', 'QKᵀ']);
    assert.deepEqual(await headers(), ['q', 'k']);
    assert.match(await page().textContent('#models-status'), /No rotation of q and k \(RoPE off\); each of the 4 query heads with its own keys and values; no sliding window\./);
  });

  it('a sentence typed over llama\'s layer keeps the query at its end: not the first token, weight 1 on itself', async () => {
    await openFolderAndRun(page(), 'llama');
    await open(1, 0);
    await lab.redrawn(() => page().fill('#sentence', 'My dog likes long walks'));
    const state = await labState();
    assert.equal(state.inputs, null);
    assert.equal(state.selectedToken, 4);
    const summary = await page().textContent('#summary');
    assert.match(summary, /^Strongest link: 'walks' attends most to '/);
    const weight = numbers(summary.slice(summary.indexOf('(weight')))[0];
    assert.ok(weight < 1, summary);
  });

});

describe('the walk panel and the Layers heading on llama\'s layer (review 9)', { skip: !have && 'no ../shared/models' }, () => {
  it('the walk panel shows the whole of its longest steps at 375 and 1280 px, light and dark, English and Hindi', async () => {
    await openFolderAndRun(page(), 'llama');
    await open(1, 0);
    const steps = [[/^(RoPE turns q|RoPE '.*' के q को)/, 'rotation'], [/^(softmax over the row|'.*' की पंक्ति पर softmax)/, 'softmax'], [/RMSNorm₁/, 'RMSNorm']];
    try {
      for (const language of ['en', 'hi']) {
        if (language === 'hi') await lab.redrawn(() => page().selectOption('#language', 'hi'));
        let found = null;
        for (const [width, scheme] of [[375, 'dark'], [375, 'light'], [1280, 'light'], [1280, 'dark']]) {
          await page().setViewportSize({ width, height: 800 });
          await page().emulateMedia({ colorScheme: scheme });
          const check = async (name) => assertWhole(await panelEnds(), `${language} ${width} ${scheme}, ${name} step`);
          // each language's first size walked step by step; the others go to the same steps by the formula strip
          if (!found) found = await walkVisiting(steps, check);
          else await jumpVisiting(steps, found, check);
          await page().click('#walk-stop');
        }
      }
      // the check above can fail: the rotation step at 375 px holds more than the panel shows
      await page().setViewportSize({ width: 375, height: 800 });
      await walkTo(/^RoPE '.*' के q को/);
      assert.equal((await panelEnds()).overflows, true);
      await page().click('#walk-stop');
    } finally {
      await page().setViewportSize({ width: 1280, height: 800 });
      await page().emulateMedia({ colorScheme: 'light' });
    }
  });

  it('Hindi: the Layers heading is Hindi, the model\'s layer and the typed sentence both', async () => {
    await open(1, 0);
    const heading = () => page().textContent('#blocks-title');
    assert.match(await heading(), /^परतें \(layers\): llama मॉडल की 2 में से layer 2$/);
    await lab.redrawn(() => page().fill('#sentence', 'My dog likes long walks'));
    assert.match(await heading(), /^परतें \(layers\): llama मॉडल की layer 2 के weights वाला एक block, आपके वाक्य पर$/);
    await lab.redrawn(() => page().selectOption('#language', 'en'));
  });
});
