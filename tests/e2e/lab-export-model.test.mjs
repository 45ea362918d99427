// Review 10, findings E and F, in headless Chromium: Qwen2's layer 2 opened in the lab from Real
// models. Its Markdown and LaTeX exports are slide-ready: titled with the model, layer and head, the
// numbers as the lab shows them (4 significant digits) by default and equal to transformers' own
// (reference.json, layers[1].probs) to those digits, no backslash before ( : . =, and a weights line
// that says how many cells were typed; CSV stays exact; a Numbers the reader chose is kept. The Layers
// heading names the model and the Example menu says where the tokens came from, in English and Hindi.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { useLabPage } from './browser.mjs';
import { haveModels as have, openAndRun } from './model-folders.mjs';

const lab = useLabPage({ before, after, assert });
const page = () => lab.tab.page;
const setLanguage = (language) => lab.redrawn(() => page().evaluate((l) => globalThis.attentionLab.setLanguage(l), language));

async function exported(format) {
  await page().selectOption('#export-format', format);
  return page().textContent('#export-preview');
}
const significant = (text) => text.replace(/^-?0*\.?0*/, '').replace(/e.*$/, '').replace('.', '').length;
// a 4-significant-digit number against transformers' float32: within half a unit of its 4th digit
// (and 1e-6 for the two computations' own float32 difference)
function assertFourDigits(cells, want, what) {
  assert.equal(cells.length, want.length, `${what}: cells`);
  cells.forEach((text, i) => {
    assert.ok(significant(text) <= 4, `${what} [${i}]: ${text} has more than 4 significant digits`);
    const unit = want[i] === 0 ? 0 : 10 ** (Math.floor(Math.log10(Math.abs(want[i]))) - 3);
    assert.ok(Math.abs(Number(text) - want[i]) <= unit / 2 + 1e-6, `${what} [${i}]: ${text} vs ${want[i]}`);
  });
}

describe('a model layer\'s exports, heading and menu (review 10, E and F)', { skip: !have && 'no ../shared/models' }, () => {
  let reference;
  let n;
  before(async () => {
    reference = await openAndRun(page(), 'qwen2');
    n = reference.ids.length;
    await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.models.openInLab(1, 0)));
    if (await page().locator('#export-panel').isHidden()) await page().click('#export-toggle');
    await page().selectOption('#export-table', 'weights-0');
  });

  it('en: Markdown and LaTeX titled "qwen2, layer 2 of 2, head 1", 4 significant digits = reference.json; CSV exact; a chosen Numbers kept', async () => {
    const want = reference.layers[1].probs.slice(0, n * n);
    const md = (await exported('md')).trim().split('\n');
    assert.equal(await page().inputValue('#export-precision'), 'display');
    assert.match(md[0], /^\*\*qwen2, layer 2 of 2, head 1: Weights \(softmax\)\*\* \(sentence: The cat sat on the mat\.; /);
    assert.match(md[0], /scale: ÷ √d_k = 2\.828427; /);
    assert.match(md[0], /weights: the qwen2 model's layer 2 of 2, read from its folder; no cell edited/);
    assert.doesNotMatch(md[0], /\\[(:.=)]/);
    assertFourDigits(md.slice(4).flatMap((line) => line.split(/(?<!\\)\|/).slice(2, -1).map((c) => c.trim())), want, 'Markdown');
    const tex = (await exported('tex')).trim().split('\n');
    assert.equal(tex[0], '% Attention Lab: qwen2, layer 2 of 2, head 1: Weights (softmax)');
    const rows = tex.filter((line) => / \\\\$/.test(line)).slice(1);
    assertFourDigits(rows.flatMap((line) => line.replace(/ \\\\$/, '').split(' & ').slice(1)), want, 'LaTeX');
    // CSV and JSON: every float32 digit, as before
    const csv = (await exported('csv')).trim().split('\n');
    assert.equal(await page().inputValue('#export-precision'), 'shortest');
    const cells = csv.slice(-n).flatMap((line) => line.split(',').slice(-n));
    assert.ok(cells.some((c) => significant(c) > 4), 'CSV keeps the float32 digits');
    const weights = await page().evaluate(() => [...globalThis.attentionLab.result.heads[0].weights]);
    cells.forEach((c, i) => assert.equal(Math.fround(Number(c)), weights[i], `CSV [${i}]`));
    // the reader's choice stays when the format changes
    await page().selectOption('#export-precision', 'full');
    await exported('md');
    assert.equal(await page().inputValue('#export-precision'), 'full');
    await page().selectOption('#export-precision', 'display');
  });

  it('en: the weights line counts the cells typed: a W_q cell typed twice and a W_O cell make "2 cells edited"', async () => {
    await page().click('#weights details[data-block="head-0"] summary');
    await page().waitForSelector('td[data-matrix="wq"][data-head="0"] input');
    await lab.redrawn(() => page().locator('td[data-matrix="wq"][data-head="0"] input').first().fill('0.25'));
    await lab.redrawn(() => page().locator('td[data-matrix="wq"][data-head="0"] input').first().fill('0.75'));
    await page().click('#weights details[data-block="wo"] summary');
    await page().waitForSelector('td[data-matrix="wo"] input');
    await lab.redrawn(() => page().locator('td[data-matrix="wo"] input').nth(3).fill('1.5'));
    await page().selectOption('#export-table', 'weights-0');
    const md = (await exported('md')).split('\n')[0];
    assert.match(md, /weights: the qwen2 model's layer 2 of 2, read from its folder; 2 cells edited/);
    // back to the model's own numbers
    await lab.redrawn(() => page().evaluate(() => globalThis.attentionLab.models.openInLab(1, 0)));
    await page().selectOption('#export-table', 'weights-0');
    assert.match((await exported('md')).split('\n')[0], /no cell edited/);
  });

  it('en: the Layers heading names qwen2; the Example menu says the tokens are its layer 2\'s, and choosing it changes nothing', async () => {
    assert.equal(await page().textContent('#blocks-title'), "Layers: the qwen2 model's layer 2 of 2");
    const menu = await page().$eval('#preset', (select) => ({ value: select.value, text: select.selectedOptions[0]?.textContent, disabled: select.selectedOptions[0]?.disabled }));
    assert.deepEqual(menu, { value: 'model-layer', text: 'qwen2 model, layer 2 (from Real models)', disabled: true });
    const before = await page().evaluate(() => JSON.stringify(globalThis.attentionLab.state.inputs.tokens));
    await page().$eval('#preset', (select) => select.dispatchEvent(new Event('input', { bubbles: true })));
    assert.equal(await page().evaluate(() => JSON.stringify(globalThis.attentionLab.state.inputs.tokens)), before);
  });

  it('hi: the heading, the menu and the Markdown title in Hindi, the model\'s name as config.json has it', async () => {
    await setLanguage('hi');
    try {
      assert.equal(await page().textContent('#blocks-title'), 'परतें (layers): qwen2 मॉडल की 2 में से layer 2');
      assert.equal(await page().$eval('#preset', (select) => select.selectedOptions[0].textContent), 'qwen2 मॉडल, layer 2 (असली मॉडल से)');
      const md = (await exported('md')).split('\n')[0];
      assert.match(md, /^\*\*qwen2, 2 में से layer 2, head 1: /);
      assert.match(md, /कोई संख्या नहीं बदली गई/);
    } finally {
      await setLanguage('en');
    }
  });
});
