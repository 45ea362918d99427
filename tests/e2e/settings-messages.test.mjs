// Settings messages a student can read (review: first-time student, finding 2): each problem of a
// setting names it by the label its control shows (read from the page, in English and in Hindi), never
// by the code's name (dModel, padTo, …), and still names the value typed, isolated as text.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { openBrowser, redrawn } from './browser.mjs';
import { message } from '../../web/src/i18n/index.mjs';
import { PAGE_LIMITS } from '../../web/src/state/model.mjs';

const label = (id) => ({ key: `controls.${id}` });
// Each case: what to set first (selects and checkboxes), the field typed wrong, its text, and the
// message the lab must show (key and slots; the label slots are messages, said in the page's language).
const CASES = [
  { id: 'dModel', text: '0', key: 'problem.wholeNumber', values: { field: label('dModel'), value: '0' } },
  { id: 'dModel', text: '999', key: 'problem.aboveLimit', values: { field: label('dModel'), value: 999, limit: PAGE_LIMITS.dModel } },
  { id: 'heads', text: '0', key: 'problem.wholeNumber', values: { field: label('heads'), value: '0' } },
  { id: 'dK', text: '0', key: 'problem.wholeNumber', values: { field: label('dK'), value: '0' } },
  { id: 'dV', text: '200', key: 'problem.aboveLimit', values: { field: label('dV'), value: 200, limit: PAGE_LIMITS.dV } },
  { first: { maskMode: 'padding' }, id: 'padTo', text: '0', key: 'problem.wholeNumber', values: { field: label('padTo'), value: '0' } },
  { first: { weightsMode: 'random' }, id: 'seed', text: '-1', key: 'problem.seed', values: { field: label('seed'), value: '-1' } },
  { first: { scaleMode: 'custom' }, id: 'scaleDivisor', text: '0', key: 'problem.divisor', values: { field: label('scaleDivisor'), value: '"0"' } },
  // right-to-left text typed is isolated (U+2068 … U+2069) so it cannot turn the sentence around
  { first: { scaleMode: 'custom' }, id: 'scaleDivisor', text: 'אב', key: 'problem.divisor', values: { field: label('scaleDivisor'), value: '"אב"' },
    shown: '\u2068"אב"\u2069' },
  { id: 'kvHeads', text: '0', key: 'modern.problem.kvHeads', values: { field: label('kvHeads'), value: '0' } },
  { first: { weightsMode: 'random', heads: '2' }, id: 'kvHeads', text: '3', key: 'modern.problem.kvDivide',
    values: { field: label('kvHeads'), value: 3, headsField: label('heads'), heads: 2 } },
  { first: { rotary: true }, id: 'rotaryTheta', text: '1', key: 'modern.problem.theta', values: { field: label('rotaryTheta'), value: '1' } },
  { first: { rotary: true }, id: 'rotaryDims', text: '3', key: 'modern.problem.dimsOdd', values: { field: label('rotaryDims'), value: 3 } },
  { id: 'window', text: '-1', key: 'modern.problem.window', values: { field: label('window'), value: '-1' } },
];
// the code's names that are not also the label's words
const CODE_NAMES = /\b(dModel|dK|dV|padTo|scaleDivisor|kvHeads|rotaryTheta|rotaryDims)\b/;

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

async function setFirst(page, first = {}) {
  for (const [id, value] of Object.entries(first)) {
    if (value === true) await redrawn(page, () => page.check(`#${id}`));
    else if (await page.$eval(`#${id}`, (el) => el.tagName === 'SELECT')) await redrawn(page, () => page.selectOption(`#${id}`, value));
    else await redrawn(page, () => page.fill(`#${id}`, value));
  }
}

// What a reset must bring back: the lab's state, every field's text, no field marked, no message.
const fieldsNow = (page) => page.evaluate(() => ({
  state: globalThis.attentionLab.state,
  values: Object.fromEntries([...document.querySelectorAll('#settings input, #settings select')].map((el) => [el.id, el.type === 'checkbox' ? el.checked : el.value])),
  invalid: [...document.querySelectorAll('.field.invalid')].map((field) => field.dataset.field),
  messages: [...document.querySelectorAll('#messages p')].map((p) => p.textContent),
}));

for (const language of ['en', 'hi']) {
  describe(`settings messages name the control's label (${language})`, () => {
    let tab;
    let fresh;
    before(async () => {
      tab = await browser.newPage();
      await tab.page.goto(`${browser.url}?lang=${language}&preset=cat-sat`);
      await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
      await tab.page.evaluate(() => { document.getElementById('settings').open = true; });
      fresh = await fieldsNow(tab.page);
    });
    after(() => {
      assert.deepEqual(tab.problems, [], 'no console or page errors');
      assert.deepEqual(tab.foreignRequests, [], 'no request left the origin');
    });

    for (const c of CASES) {
      it(`${c.id} = ${c.text}: ${c.key}`, async () => {
        const page = tab.page;
        // each case from the page as it loaded: the lab's state put back through its API (the page is
        // not loaded again: 0.4-0.6 s a load against 0.1 s), and checked to be the page as it loaded
        await redrawn(page, () => page.evaluate((state) => globalThis.attentionLab.setState(state), fresh.state));
        assert.deepEqual(await fieldsNow(page), fresh, 'every field as the page loaded it, none marked, no message');
        await setFirst(page, c.first);
        await page.fill(`#${c.id}`, c.text);
        await page.waitForSelector(`.field[data-field="${c.id}"].invalid`);
        const shownLabel = (await page.textContent(`label[for="${c.id}"]`)).trim();
        const text = await page.$$eval('#messages p', (ps) => ps.map((p) => p.textContent));
        const expected = message(c.key, c.values, language);
        assert.ok(text.includes(expected), `${JSON.stringify(text)} has ${JSON.stringify(expected)}`);
        const said = text.find((line) => line === expected);
        assert.ok(said.startsWith(shownLabel), `the message starts with the label shown, ${JSON.stringify(shownLabel)}`);
        assert.ok(said.includes(c.shown ?? String(c.values.value)), 'the value typed is named');
        assert.doesNotMatch(said, CODE_NAMES);
        if (language === 'hi') assert.match(said, /[\u0900-\u097F]{3}/, 'said in Hindi');
        // the message is text: no markup came from it
        assert.equal(await page.$$eval('#messages p *', (els) => els.filter((el) => el.tagName !== 'BDI').length), 0);
      });
    }
  });
}
