// Languages in headless Chromium: the Hindi page (?lang=hi) in every view with no English left
// outside a short list of kept terms; <attention-lab lang="hi"> beside an English one; the language
// menu, which keeps the reader's edits and puts the language in the link; and a language that does
// not exist, which shows English and says so.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { openBrowser, redrawn } from './browser.mjs';
import { hostSite } from './host-site.mjs';
import { message } from '../../web/src/i18n/index.mjs';
import { KEPT_IN_ENGLISH } from '../../web/src/i18n/hi.mjs';

// Parts of the page left out of the Hindi checks: none (practice mode's sentences are in the one
// catalogue, i18n/hi.mjs, with the rest).
const NOT_CHECKED = [];

// Latin-script words the Hindi page may show: the terms the Hindi catalogue keeps in English (its
// KEPT_IN_ENGLISH, with the reason for each group), and on the page itself: each language's own name
// in the language menu, the optimiser Adam (a name, in the Train section's menu), the unit MB, Var
// of the scaling lab's Var(q·k), and the key Enter (practice mode's "press Enter", as Home, End, Esc).
const KEPT = new Set([...KEPT_IN_ENGLISH, 'english', 'adam', 'mb', 'var', 'enter']);

// Latin-script words in `text` that are neither kept terms nor the lab's data: the tokens and column
// names on screen, and words quoted as examples ('bank', "…", “…”). Variables (q, W_q, e1, d_k) and
// numbers are not words here.
function englishWords(text, data) {
  const unquoted = text.replace(/'[^'\n]*'|"[^"\n]*"|“[^”\n]*”|‘[^’\n]*’/g, ' ');
  const seen = new Set(data.map((word) => word.toLowerCase()));
  const words = unquoted.match(/[A-Za-z][A-Za-z0-9_\-ᵀ₀-₉]*/g) ?? [];
  return [...new Set(words.filter((word) => word.length > 1 && !/[0-9_₀-₉ᵀ]/.test(word)
    && !KEPT.has(word.toLowerCase()) && !seen.has(word.toLowerCase())))];
}

// What a reader sees or hears in `scope` (a document or a lab's shadow root): its rendered text, and
// the names, titles and placeholders of what is shown; and the lab's data (tokens and columns) that
// stays as typed.
function readerText(scope, notChecked = []) {
  const lab = (scope.querySelector?.('.lab') ?? document.querySelector('.lab'));
  const app = scope === document ? globalThis.attentionLab : scope.host.lab;
  const shown = (el) => el.getClientRects().length > 0;
  // the training's held-out sentences are its data set: read without them
  const hidden = [...lab.querySelectorAll(['#train-probe', ...notChecked].join(', '))];
  for (const el of hidden) el.style.setProperty('display', 'none', 'important');
  // sections far from the screen are skipped by the styles (content-visibility), and innerText with them
  const skipped = [...lab.querySelectorAll('section')];
  for (const el of skipped) el.style.setProperty('content-visibility', 'visible');
  const attributes = [...lab.querySelectorAll('[aria-label], [title], [placeholder]')].filter(shown)
    .flatMap((el) => ['aria-label', 'title', 'placeholder'].map((name) => el.getAttribute(name)).filter(Boolean));
  const text = scope === document ? document.body.innerText : lab.innerText;
  // text the styles add (::before, ::after content), which innerText leaves out
  const added = [...lab.querySelectorAll('*')].filter(shown).flatMap((el) => ['::before', '::after'].map((pseudo) => {
    const content = getComputedStyle(el, pseudo).content.replace(/attr\(([\w-]+)\)/g, (_, name) => JSON.stringify(el.getAttribute(name) ?? ''));
    return [...content.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]).join('');
  })).filter(Boolean);
  for (const el of hidden) el.style.removeProperty('display');
  for (const el of skipped) el.style.removeProperty('content-visibility');
  const view = app.view;
  return { text: [text, ...attributes, ...added].join('\n'), data: [...view.tokens, ...view.keyTokens, ...view.columns] };
}

let browser;
// the built folder on its own (the host site's lab/, served at the root here), with a page of two labs
const hosting = hostSite();
const site = path.join(hosting.dir, 'lab');
before(async () => {
  writeFileSync(path.join(site, 'two-languages.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Two labs, two languages</title>
<script type="module" src="attention-lab.js"></script></head>
<body><attention-lab id="hindi" lang="hi" preset="cat-sat" view="steps,notes,heatmap"></attention-lab>
<attention-lab id="english" preset="cat-sat" view="steps,notes,heatmap"></attention-lab>
<attention-lab id="hostile" lang="&lt;script&gt;alert(1)&lt;/script&gt;" preset="cat-sat" view="steps"></attention-lab></body></html>`);
  browser = await openBrowser({ dir: site });
});
after(async () => {
  await browser?.close();
  hosting.remove();
});

async function openPage(query, { viewport = { width: 1280, height: 800 } } = {}) {
  const tab = await browser.newPage();
  await tab.page.setViewportSize(viewport);
  await tab.page.goto(`${browser.url}${query}`);
  await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
  return tab;
}

async function assertHindi(page, where, notChecked = NOT_CHECKED, mustRead = ['section.lab', 'train.title', 'layers.title']) {
  const { text, data } = await page.evaluate(`(${readerText})(document, ${JSON.stringify(notChecked)})`);
  const english = englishWords(text, data);
  assert.deepEqual(english, [], `${where}: English words on the Hindi page`);
  assert.match(text, /[\u0900-\u097F]{3}/, `${where}: Devanagari on the page`);
  assert.doesNotMatch(text, /[०-९]/, `${where}: numbers in Western digits`);
  assert.match(text, /[0-9]/, `${where}: numbers shown`);
  // every section was read, the last ones too
  for (const key of mustRead) assert.ok(text.includes(message(key, {}, 'hi')), `${where}: ${key} read`);
}

describe('the Hindi page (?lang=hi)', () => {
  let tab;
  before(async () => {
    tab = await openPage('?lang=hi');
  });
  after(async () => {
    assert.deepEqual(tab.problems, [], 'no console or page errors');
    assert.deepEqual(tab.foreignRequests, [], 'no request left the origin');
    await tab.page.close();
  });

  it('says it is Hindi to screen readers and fonts: <html lang="hi"> and the lab\'s own lang', async () => {
    assert.equal(await tab.page.evaluate(() => document.documentElement.lang), 'hi');
    assert.equal(await tab.page.evaluate(() => document.querySelector('.lab').lang), 'hi');
    assert.equal(await tab.page.title(), message('page.title', {}, 'hi'));
  });

  it('the calculator: no English outside the kept terms, numbers in Western digits', async () => {
    // the explanation of a number is part of it
    await tab.page.click('td[data-matrix="weights"][data-row="0"][data-col="1"]');
    await tab.page.waitForSelector('#explain:not([hidden])');
    await assertHindi(tab.page, 'calculator');
    assert.equal(await tab.page.textContent('#steps-title'), message('section.steps', {}, 'hi'));
  });

  it('the guided walk, opened and stepped through', async () => {
    await tab.page.click('#walk-start');
    for (let i = 0; i < 4; i++) await tab.page.click('#walk-next');
    assert.ok(await tab.page.evaluate(() => globalThis.attentionLab.draws > 0));
    await assertHindi(tab.page, 'walk');
    await tab.page.click('#walk-stop');
  });

  it('the Train section, shown and prepared', async () => {
    await tab.page.locator('[data-view="train"]').scrollIntoViewIfNeeded();
    await tab.page.waitForFunction(() => globalThis.attentionLab.training.run?.snapshot, null, { timeout: 60_000 });
    await assertHindi(tab.page, 'train');
  });

  it('Bring your own layer', async () => {
    await tab.page.locator('[data-view="layers"]').scrollIntoViewIfNeeded();
    await assertHindi(tab.page, 'layers');
  });

  it('practice mode, opened', async () => {
    const before = await tab.page.evaluate(() => globalThis.attentionLab.draws);
    await tab.page.evaluate(() => globalThis.attentionLab.setState({ ...globalThis.attentionLab.state, practice: {} }));
    await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, before);
    await tab.page.waitForSelector('section.practice:not([hidden])');
    // practice mode hides the sections it does not use (the scaling lab, Train, layers)
    await assertHindi(tab.page, 'practice', [], []);
  });
});

describe('before the script has run', () => {
  it('?lang=hi: the page\'s own words never show in English first; they show anyway if the script fails', async () => {
    const tab = await browser.newPage();
    // the page's script held back: what a reader sees until it runs
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    await tab.page.route('**/main.js', async (route) => { await held; await route.continue(); });
    // (the document's parsing ends only after its module script has run: wait for the footer and the styles)
    const parsed = (page) => page.waitForFunction(() => document.querySelector('.footer p') && [...document.styleSheets].some((sheet) => sheet.cssRules.length));
    await tab.page.goto(`${browser.url}?lang=hi`, { waitUntil: 'commit' });
    await parsed(tab.page);
    const seen = () => tab.page.evaluate(() => ['h1', '.masthead p', '.footer p'].map((s) => getComputedStyle(document.querySelector(s)).visibility));
    assert.deepEqual(await seen(), ['hidden', 'hidden', 'hidden'], 'the English words are hidden while the script is away');
    release();
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    assert.deepEqual(await seen(), ['visible', 'visible', 'visible']);
    assert.equal(await tab.page.textContent('h1'), message('page.name', {}, 'hi'));
    await tab.page.close();

    // a script that never comes: the words show after 3 s, in English
    const broken = await browser.newPage();
    await broken.page.route('**/main.js', (route) => route.abort());
    await broken.page.goto(`${browser.url}?lang=hi`, { waitUntil: 'commit' });
    await parsed(broken.page);
    assert.equal(await broken.page.evaluate(() => getComputedStyle(document.querySelector('h1')).visibility), 'hidden');
    await broken.page.waitForFunction(() => getComputedStyle(document.querySelector('h1')).visibility === 'visible', null, { timeout: 6000 });
    await broken.page.close();

    // English hides nothing
    const english = await browser.newPage();
    await english.page.route('**/main.js', (route) => route.abort());
    await english.page.goto(browser.url, { waitUntil: 'commit' });
    await parsed(english.page);
    assert.equal(await english.page.evaluate(() => getComputedStyle(document.querySelector('h1')).visibility), 'visible');
    await english.page.close();
  });
});

// What practice mode's card k shows, and its blanks in the tables.
function practiceCard(page, k) {
  return page.evaluate((k) => {
    const el = document.querySelector(`.exercise[data-index="${k}"]`);
    const feedback = el.querySelector('.feedback');
    return {
      heading: el.querySelector('h3').textContent,
      verdict: feedback.dataset.verdict ?? '',
      feedback: feedback.textContent,
      hints: [...el.querySelectorAll('.hints > li')].map((li) => li.textContent),
      hintButton: el.querySelector('.hint-button').textContent,
      values: [...document.querySelectorAll(`.practice-input[data-exercise="${k}"]`)].map((input) => input.value),
      labels: [...document.querySelectorAll(`.practice-input[data-exercise="${k}"]`)].map((input) => input.getAttribute('aria-label')),
      // each blank is in its table's cell, not only on the card
      inTable: [...document.querySelectorAll(`.practice-input[data-exercise="${k}"]`)].every((input) => input.closest('td[data-matrix]') !== null),
    };
  }, k);
}

describe('the language menu', () => {
  menuOnThePageTests();
  menuInPracticeTests();
  it('is on the full page only: the iframe embed and the component choose with ?lang= and lang', async () => {
    const tab = await browser.newPage();
    await tab.page.goto(`${browser.url}embed.html?lang=hi`);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    assert.equal(await tab.page.evaluate(() => document.documentElement.lang), 'hi');
    assert.equal(await tab.page.isVisible('#language'), false);
    assert.equal(await tab.page.textContent('#steps-title'), message('section.steps', {}, 'hi'));
    await assertHindi(tab.page, 'embed.html?lang=hi');
    assert.deepEqual(tab.problems, []);
    await tab.page.close();
  });
});

// the menu on the full page: the lab's texts and edits
function menuOnThePageTests() {
  it('switches the texts and keeps the edits, the chosen token and head, and the scroll; the link carries lang', async () => {
    const tab = await openPage('#lab=' + encodeURIComponent(JSON.stringify({ preset: 'telescope' })));
    const { page } = tab;
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    // a cell typed, a token and a head chosen
    const cell = 'td[data-matrix="x"][data-row="1"][data-col="0"] input';
    await page.fill(cell, '0.625');
    await page.waitForFunction(() => globalThis.attentionLab.state.weightsMode !== undefined && globalThis.attentionLab.view.x[10] === 0.625);
    await page.click('#tokens button[data-index="2"]');
    await page.click('#tab-1');
    // and a cell typed wrong: it keeps its text and its message, which is said in the new language
    const wrong = 'td[data-matrix="x"][data-row="0"][data-col="1"] input';
    await page.fill(wrong, 'abc');
    await page.waitForFunction(() => document.getElementById('messages').textContent.includes("'abc'"));
    await page.evaluate(() => window.scrollTo(0, 900));
    const before = await page.evaluate(() => ({ state: globalThis.attentionLab.state, scroll: window.scrollY, draws: globalThis.attentionLab.draws }));

    await page.selectOption('#language', 'hi');
    await page.waitForFunction((n) => globalThis.attentionLab.draws > n, before.draws);
    const after = await page.evaluate(() => ({ state: globalThis.attentionLab.state, scroll: window.scrollY }));
    assert.deepEqual(after.state, before.state, 'the state is the same');
    assert.equal(await page.inputValue(cell), '0.625');
    assert.equal(after.state.selectedToken, 2);
    assert.equal(after.state.selectedHead, 1);
    assert.equal(await page.inputValue(wrong), 'abc');
    assert.equal(await page.getAttribute(wrong, 'aria-invalid'), 'true');
    assert.equal(await page.textContent('#messages'), message('problem.cellNotNumber', { table: 'X', row: 1, col: 2, value: 'abc' }, 'hi'));
    assert.ok(Math.abs(after.scroll - before.scroll) < 2, `scroll kept (${before.scroll} → ${after.scroll})`);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'hi');
    assert.equal(await page.textContent('#steps-title'), message('section.steps', {}, 'hi'));
    assert.equal(await page.textContent('#notes li'), message('preset.telescope.note1', {}, 'hi'));
    assert.equal(await page.textContent('#tab-1'), message('caption.head', { head: 2 }, 'hi'));
    assert.equal(await page.$eval('#preset', (select) => select.selectedOptions[0].textContent), message('preset.telescope.title', {}, 'hi'));
    // the address, and so a copied link, says Hindi; so do the embed snippets
    const url = new URL(await page.evaluate(() => location.href));
    assert.equal(url.searchParams.get('lang'), 'hi');
    assert.match(url.hash, /^#lab=/);
    await page.click('#embed-toggle');
    assert.match(await page.textContent('#embed-component'), /<attention-lab lang="hi" state=/);
    assert.match(await page.textContent('#embed-iframe'), /embed\.html\?lang=hi#lab=/);
    await page.click('#embed-toggle');
    // the exports' captions and settings too
    await page.click('#export-toggle');
    const exported = await page.textContent('#export-preview');
    assert.ok(exported.startsWith(`# Attention Lab,${message('export.caption.x', {}, 'hi')}\n`), exported.slice(0, 80));
    assert.match(exported, new RegExp(`# weights,${message('export.setting.custom', {}, 'hi')}\n`));
    await page.click('#export-toggle');

    // the copied link opens the same lab, in Hindi
    const again = await openPage(url.search + url.hash);
    assert.equal(await again.page.evaluate(() => document.documentElement.lang), 'hi');
    assert.equal(await again.page.inputValue(cell), '0.625');
    await again.page.close();

    // and back
    const draws = await page.evaluate(() => globalThis.attentionLab.draws);
    await page.selectOption('#language', 'en');
    await page.waitForFunction((n) => globalThis.attentionLab.draws > n, draws);
    assert.equal(await page.textContent('#steps-title'), message('section.steps'));
    assert.equal(new URL(await page.evaluate(() => location.href)).searchParams.get('lang'), null);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    assert.deepEqual(tab.problems, []);
    await page.close();
  });
}

// the menu in practice mode
function menuInPracticeTests() {
  it('practice mode follows it: panel, cards, verdicts and hints change language; answers, hints taken and progress stay', async () => {
    const tab = await openPage('#lab=' + encodeURIComponent(JSON.stringify({ preset: 'cat-sat', practice: {} })));
    const { page } = tab;
    await page.waitForSelector('.practice-input[data-exercise="0"]');
    const truth = (k) => page.evaluate((k) => globalThis.attentionLab.practice.exercises[k].blanks[0].truth, k);
    const card = (k) => practiceCard(page, k);
    const enter = async (k, text) => {
      const input = page.locator(`.practice-input[data-exercise="${k}"]`).last();
      await input.fill(String(text));
      await input.press('Enter');
    };
    // exercise 1 right; exercise 2 wrong, two hints, and a new answer typed but not checked
    await enter(0, await truth(0));
    await page.waitForSelector('.exercise[data-index="0"] .feedback[data-verdict="correct"]');
    const second = await truth(1);
    await enter(1, second + 100);
    await page.waitForSelector('.exercise[data-index="1"] .feedback[data-verdict="wrong"], .exercise[data-index="1"] .feedback[data-verdict="mistake"]');
    for (let i = 0; i < 2; i++) await page.click('.exercise[data-index="1"] .hint-button');
    await page.locator('.practice-input[data-exercise="1"]').last().fill('7');
    const english = {
      cards: [await card(0), await card(1)], results: await page.evaluate(() => globalThis.attentionLab.practice.results),
      title: await page.textContent('.practice h2'), lit: await page.locator('td.practice-source').count(),
    };
    assert.equal(english.cards[1].hints.length, 2);
    assert.deepEqual(english.results.correct, 1);

    await redrawn(page, () => page.selectOption('#language', 'hi'));
    const hindi = [await card(0), await card(1)];
    assert.equal(await page.textContent('.practice h2'), message('practice.title', {}, 'hi'));
    assert.equal(await page.textContent('.mode-switch button[data-mode="practice"]'), message('practice.mode.practice', {}, 'hi'));
    assert.deepEqual(await page.evaluate(() => globalThis.attentionLab.practice.results), { ...english.results, summary: message('practice.summary', english.results, 'hi') });
    for (const k of [0, 1]) {
      const [before, now] = [english.cards[k], hindi[k]];
      assert.equal(now.verdict, before.verdict, `card ${k + 1}: the same verdict`);
      assert.deepEqual(now.values, before.values, `card ${k + 1}: the answers typed stay`);
      assert.equal(now.hints.length, before.hints.length, `card ${k + 1}: the hints taken stay`);
      assert.ok(now.inTable, `card ${k + 1}: its blanks are in the tables`);
      for (const [what, text] of [['heading', now.heading], ['verdict', now.feedback], ['label', now.labels[0]], ...now.hints.map((hint) => ['hint', hint])]) {
        assert.match(text, /[\u0900-\u097F]{2}/, `card ${k + 1}: ${what} in Hindi: ${text}`);
      }
    }
    assert.equal(hindi[0].feedback, message('practice.verdict.correct', { value: await page.evaluate(() => globalThis.attentionLab.practice.exercises[0].shown) }, 'hi'));
    assert.equal(hindi[1].hintButton, message('practice.exercise.nextHint', {}, 'hi'));
    // the first hint's cells stay lit
    assert.equal(await page.locator('td.practice-source').count(), english.lit);
    assert.ok(english.lit > 0);
    // the teacher's panel too (read with the rest: nothing left in English, the whole page read;
    // practice mode hides the sections it does not use), and what it writes opens the exercise in Hindi
    await page.click('[data-role="teacher"]');
    await assertHindi(page, 'practice after the switch', [], []);
    await page.click('[data-role="write"]');
    const [link, iframe, component] = await page.locator('.teacher code').allTextContents();
    assert.equal(new URL(link).searchParams.get('lang'), 'hi');
    assert.match(iframe, /embed\.html\?mode=practice&lang=hi#lab=/);
    assert.match(component, /<attention-lab lang="hi" state=/);

    // the answer checked in Hindi, then back to English: the same sentences as before
    await enter(1, second);
    await page.waitForSelector('.exercise[data-index="1"] .feedback[data-verdict="correct"]');
    assert.match(await page.textContent('.exercise[data-index="1"] .feedback'), /^सही/);
    await redrawn(page, () => page.selectOption('#language', 'en'));
    assert.equal(await page.textContent('.practice h2'), english.title);
    const back = await card(0);
    assert.equal(back.feedback, english.cards[0].feedback);
    assert.equal(back.heading, english.cards[0].heading);
    assert.deepEqual(tab.problems, []);
    await page.close();
  });
}

describe('two components, two languages', () => {
  let tab;
  before(async () => {
    tab = await browser.newPage();
    await tab.page.goto(`${browser.url}two-languages.html`);
    for (const id of ['hindi', 'english', 'hostile']) await tab.page.waitForFunction((el) => document.getElementById(el)?.lab?.draws > 0, id);
  });
  after(async () => {
    assert.deepEqual(tab.problems, [], 'no console or page errors');
    await tab.page.close();
  });

  const textOf = (id) => tab.page.evaluate((el) => document.getElementById(el).shadowRoot.querySelector('.lab').innerText, id);

  it('each in its own language, on one page', async () => {
    const { text, data } = await tab.page.evaluate(`(${readerText})(document.getElementById("hindi").shadowRoot)`);
    assert.deepEqual(englishWords(text, data), [], 'no English in the Hindi lab');
    assert.match(text, new RegExp(message('preset.cat-sat.note2', {}, 'hi').slice(0, 20)));
    const english = await textOf('english');
    assert.doesNotMatch(english, /[\u0900-\u097F]/, 'no Devanagari in the English lab');
    assert.match(english, /The notes round the weights/);
    assert.equal(await tab.page.evaluate(() => document.getElementById('hindi').shadowRoot.querySelector('.lab').lang), 'hi');
    assert.equal(await tab.page.evaluate(() => document.getElementById('english').shadowRoot.querySelector('.lab').lang), 'en');
  });

  it('lang changed on the element: its texts follow, its state stays; the other lab is untouched', async () => {
    await tab.page.evaluate(() => { document.getElementById('english').lab.setState({ ...document.getElementById('english').lab.state, selectedToken: 2 }); });
    await tab.page.waitForFunction(() => document.getElementById('english').lab.state.selectedToken === 2);
    const draws = await tab.page.evaluate(() => document.getElementById('english').lab.draws);
    await tab.page.evaluate(() => document.getElementById('english').setAttribute('lang', 'hi'));
    await tab.page.waitForFunction((n) => document.getElementById('english').lab.draws > n, draws);
    assert.match(await textOf('english'), /[\u0900-\u097F]{3}/);
    assert.equal(await tab.page.evaluate(() => document.getElementById('english').lab.state.selectedToken), 2);
    await tab.page.evaluate(() => document.getElementById('english').removeAttribute('lang'));
    await tab.page.waitForFunction(() => !/[\u0900-\u097F]/.test(document.getElementById('english').shadowRoot.querySelector('.lab').innerText));
    assert.match(await textOf('hindi'), /[\u0900-\u097F]{3}/, 'the Hindi lab stays Hindi');
  });

  it('a component in practice mode follows its lang attribute too, keeping what was typed', async () => {
    let draws = await tab.page.evaluate(() => document.getElementById('english').lab.draws);
    await tab.page.evaluate(() => document.getElementById('english').setAttribute('mode', 'practice'));
    await tab.page.waitForFunction((n) => document.getElementById('english').lab.draws > n && document.getElementById('english').shadowRoot.querySelector('.practice-input'), draws);
    const read = () => tab.page.evaluate(() => {
      const root = document.getElementById('english').shadowRoot;
      return { title: root.querySelector('[data-view="practice"] h2').textContent, typed: root.querySelector('.practice-input').value, label: root.querySelector('.practice-input').getAttribute('aria-label') };
    });
    await tab.page.evaluate(() => { document.getElementById('english').shadowRoot.querySelector('.practice-input').value = '1/3'; });
    const before = await read();
    assert.equal(before.title, message('practice.title', {}, 'en'));
    draws = await tab.page.evaluate(() => document.getElementById('english').lab.draws);
    await tab.page.evaluate(() => document.getElementById('english').setAttribute('lang', 'hi'));
    await tab.page.waitForFunction((n) => document.getElementById('english').lab.draws > n, draws);
    const after = await read();
    assert.equal(after.title, message('practice.title', {}, 'hi'));
    assert.equal(after.typed, '1/3', 'what was typed stays');
    assert.match(after.label, /[\u0900-\u097F]/);
    assert.notEqual(after.label, before.label);
    await tab.page.evaluate(() => { const el = document.getElementById('english'); el.removeAttribute('lang'); el.removeAttribute('mode'); });
    await tab.page.waitForFunction(() => !document.getElementById('english').shadowRoot.querySelector('.practice-input') && !/[\u0900-\u097F]/.test(document.getElementById('english').shadowRoot.querySelector('.lab').innerText));
  });

  it('lang="<script>…": English, a message naming the value as text, and a working lab', async () => {
    const lab = await tab.page.evaluate(() => {
      const shadow = document.getElementById('hostile').shadowRoot;
      return { lang: shadow.querySelector('.lab').lang, messages: shadow.getElementById('messages').textContent,
        scripts: shadow.querySelectorAll('#messages script, #messages *:not(p)').length, steps: shadow.getElementById('steps').textContent };
    });
    assert.equal(lab.lang, 'en');
    assert.equal(lab.messages, message('language.unknown', { value: '<script>alert(1)</script>' }));
    assert.equal(lab.scripts, 0, 'the value stayed text');
    assert.match(lab.steps, /0\.4223/, 'the lab computed');
  });
});

describe('a language that does not exist', () => {
  for (const value of ['xx', '<img src=x onerror=alert(1)>']) {
    it(`?lang=${value}: English, a message naming the value, the page keeps working`, async () => {
      const tab = await openPage(`?lang=${encodeURIComponent(value)}`);
      const { page } = tab;
      let dialogs = 0;
      page.on('dialog', (dialog) => { dialogs++; dialog.dismiss(); });
      assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
      assert.equal(await page.textContent('#messages'), message('language.unknown', { value }));
      assert.equal(await page.$$eval('#messages img, #messages script', (nodes) => nodes.length), 0);
      assert.equal(await page.textContent('#steps-title'), message('section.steps'));
      // and it still computes: an edit redraws
      const draws = await page.evaluate(() => globalThis.attentionLab.draws);
      await page.fill('#sentence', 'money bank grows');
      await page.waitForFunction((n) => globalThis.attentionLab.draws > n, draws);
      assert.equal(await page.evaluate(() => globalThis.attentionLab.view.tokens.join(' ')), 'money bank grows');
      assert.equal(dialogs, 0);
      assert.deepEqual(tab.problems, []);
      await page.close();
    });
  }

  it('embed.html?lang=xx: English and the message, in the iframe too', async () => {
    const tab = await browser.newPage();
    await tab.page.goto(`${browser.url}embed.html?lang=xx`);
    await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    assert.equal(await tab.page.evaluate(() => document.documentElement.lang), 'en');
    assert.equal(await tab.page.textContent('#messages'), message('language.unknown', { value: 'xx' }));
    assert.equal(await tab.page.textContent('#steps-title'), message('section.steps'));
    assert.deepEqual(tab.problems, []);
    await tab.page.close();
  });
});
