// The RoPE chapter (web/src/rope/, view "rope"): every number it shows against a float64 rotation
// written here (rotate-half, θ_c = θ^(−2c/r), as transformers' Llama applies it) of the q and k the
// lab's own trace shows (its pass has no positions); shift invariance, reversal, the picture's score,
// the step-through by keyboard; Hindi; 375 px; axe-core.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { useChapterPage } from './browser.mjs';

const require = createRequire(import.meta.url);
const SUPERSCRIPT = { '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9', '⁻': '-' };
// a number as formatNumber writes it ("0.1234", "1.2 × 10⁻⁵", "−3")
const parse = (text) => {
  const [mantissa, exponent] = text.trim().replace(/−/g, '-').split(' × 10');
  return Number(mantissa) * 10 ** (exponent ? Number([...exponent].map((c) => SUPERSCRIPT[c]).join('')) : 0);
};
const pair = (text) => text.replace(/[()]/g, '').split(', ').map(parse);
// shown to 4 significant digits; float32 rounding beside
const near = (shown, want, what, scale = 1) => assert.ok(Math.abs(shown - want) <= 6e-4 * Math.max(scale, Math.abs(want)), `${what}: shows ${shown}, float64 ${want}`);

// Row `row` of a (rows × d) array turned to position p in float64: pairs (c, c + r/2).
function rotate(values, row, d, p, theta) {
  const r = Math.floor(d / 2) * 2, half = r / 2;
  const v = Array.from(values.slice(row * d, (row + 1) * d));
  const out = [...v];
  for (let c = 0; c < half; c++) {
    const angle = p * theta ** (-2 * c / r);
    out[c] = v[c] * Math.cos(angle) - v[c + half] * Math.sin(angle);
    out[c + half] = v[c + half] * Math.cos(angle) + v[c] * Math.sin(angle);
  }
  return out;
}
const dot = (a, b) => a.reduce((sum, value, c) => sum + value * b[c], 0);

function checkPairs(s, { key, theta }) {
  const qAfter = rotate(s.q, s.query, s.dK, s.query, theta), kAfter = rotate(s.k, key, s.dK, key, theta);
  const half = s.pairs.length;
  s.pairs.forEach(([, rate, qAngle, cos, sin, qBefore, qTurned, kAngle, kBefore, kTurned], c) => {
    near(parse(rate), theta ** (-2 * c / (2 * half)), `θ_${c}`);
    near(parse(qAngle), s.query * theta ** (-2 * c / (2 * half)), `q angle ${c}`);
    near(parse(cos), Math.cos(s.query * theta ** (-2 * c / (2 * half))), `cos ${c}`);
    near(parse(sin), Math.sin(s.query * theta ** (-2 * c / (2 * half))), `sin ${c}`);
    near(parse(kAngle), key * theta ** (-2 * c / (2 * half)), `k angle ${c}`);
    pair(qBefore).forEach((v, i) => near(v, s.q[s.query * s.dK + c + i * half], `q before ${c}`));
    pair(kBefore).forEach((v, i) => near(v, s.k[key * s.dK + c + i * half], `k before ${c}`));
    pair(qTurned).forEach((v, i) => near(v, qAfter[c + i * half], `q after ${c}`));
    pair(kTurned).forEach((v, i) => near(v, kAfter[c + i * half], `k after ${c}`));
  });
}

function checkScores(s, { theta, shift }) {
  // the scores of the query's row: the largest score sets the rounding of all
  const scale = Math.max(...s.scores.map((row) => Math.abs(parse(row[2]))));
  const qAt = (p) => rotate(s.q, s.query, s.dK, p, theta);
  s.scores.forEach(([, distance, plain, rotated, shifted, plainReversed, rotatedReversed], j) => {
    const kAt = (p) => rotate(s.k, j, s.dK, p, theta);
    assert.equal(Number(distance), s.query - j);
    near(parse(plain), dot(s.q.slice(s.query * s.dK, (s.query + 1) * s.dK), s.k.slice(j * s.dK, (j + 1) * s.dK)), `plain ${j}`, scale);
    near(parse(rotated), dot(qAt(s.query), kAt(j)), `RoPE ${j}`, scale);
    near(parse(shifted), dot(qAt(s.query + shift), kAt(j + shift)), `shifted ${j}`, scale);
    assert.equal(plainReversed, plain, `no positions: reversing moves the score with its tokens (${j})`);
    near(parse(rotatedReversed), dot(qAt(s.n - 1 - s.query), kAt(s.n - 1 - j)), `reversed RoPE ${j}`, scale);
  });
  return { scale, qAt };
}

function checkPropertyAndPicture(s, { key, theta, shift }, scale, qAt) {
  // the property over the whole head, against float64's largest change under reversal
  let reversal = 0;
  for (let i = 0; i < s.n; i++) {
    for (let j = 0; j < s.n; j++) {
      const a = dot(rotate(s.q, i, s.dK, i, theta), rotate(s.k, j, s.dK, j, theta));
      const b = dot(rotate(s.q, i, s.dK, s.n - 1 - i, theta), rotate(s.k, j, s.dK, s.n - 1 - j, theta));
      reversal = Math.max(reversal, Math.abs(a - b));
    }
  }
  const [, shiftChange, plainChange, ropeChange] = /shifted by \d+: .*? is (.+?) \(float32.* the largest change is (.+?) \(.*; with RoPE it is (.+?)(?: too)?[,:] /.exec(s.property) ?? [];
  assert.ok(shiftChange, s.property);
  assert.ok(parse(shiftChange) <= 1e-4 * Math.max(1, scale) * Math.max(1, shift / 100), `shift ${shift}: ${shiftChange}`);
  assert.equal(parse(plainChange), 0);
  near(parse(ropeChange), reversal, 'reversal with RoPE', scale);
  // a reversal float64 finds changing nothing is said so, and one that changes scores is not
  assert.equal(/no score changes when its distance changes sign/.test(s.property), reversal < 1e-5 * scale, s.property);
  // the picture: 64 distances; the dot's score is the pair's RoPE score at distance query − key
  assert.equal(s.points, 64);
  if (key > s.query) {  // the key after the query: outside the picture, said so
    assert.match(s.note, new RegExp(`without RoPE, \\S+: .* \\(distance ${s.query - key}\\), outside the picture\\.$`));
    assert.equal(s.dots, 0);
    return reversal;
  }
  const [, plainNote, distance, score] = /without RoPE, (\S+): .* distance, (\d+): score (\S+)\.$/.exec(s.note) ?? [];
  assert.ok(plainNote, s.note);
  assert.equal(Number(distance), s.query - key);
  assert.equal(s.dots, 1);
  near(parse(score), dot(qAt(s.query - key), rotate(s.k, key, s.dK, 0, theta)), 'the picture at the distance', scale);
  near(parse(plainNote), parse(s.scores[key][2]), 'the dashed line: q·k without RoPE', scale);
  return reversal;
}

let browser, tab;
const { open } = useChapterPage({ before, after, assert, onReady: (opened, launched) => { tab = opened; browser = launched; } });

async function setLab(change) {
  const draws = await tab.page.evaluate(() => globalThis.attentionLab.draws);
  await tab.page.evaluate((c) => globalThis.attentionLab.setState({ ...globalThis.attentionLab.state, ...c }), change);
  await tab.page.waitForFunction((n) => globalThis.attentionLab.draws > n, draws);
}

async function rotateWith({ key, theta, shift }) {
  await tab.page.selectOption('[data-rope="key"]', String(key));
  await tab.page.fill('[data-rope="theta"]', String(theta));
  await tab.page.fill('[data-rope="shift"]', String(shift));
  await tab.page.click('[data-rope="run"]');
  await tab.page.waitForFunction(([t, s]) => document.querySelector('[data-rope="table"] caption')?.textContent.includes(`θ = ${t}`)
    && document.querySelector('[data-rope="scores"] thead')?.textContent.includes(`+ ${s}`), [theta, shift]);
}

async function shown() {
  return tab.page.evaluate(() => {
    const { view, state } = globalThis.attentionLab;
    const cells = (selector) => [...document.querySelectorAll(`${selector} tbody tr`)].map((tr) => [...tr.children].map((c) => c.textContent));
    const head = state.selectedHead === 'all' ? 0 : state.selectedHead;
    const h = view.result.heads[head];
    return {
      n: view.tokens.length, dK: view.dK, query: state.selectedToken, q: Array.from(h.q), k: Array.from(h.k),
      pairs: cells('[data-rope="table"]'), scores: cells('[data-rope="scores"]'),
      property: document.querySelector('[data-rope="property"]').textContent,
      note: document.querySelector('[data-rope="curve-note"]').textContent,
      points: document.querySelector('[data-rope="curve"] polyline').getAttribute('points').split(' ').length,
      dots: document.querySelectorAll('[data-rope="curve"] circle').length,
      arithmetic: document.querySelector('[data-rope="arithmetic"]').textContent,
    };
  });
}

async function checkPractice(s) {
  const question = await tab.page.textContent('[data-rope-practice="question"]');
  const [, position, pairNumber] = /is at position (\d+)\. Its pair (\d+) /.exec(question) ?? [];
  assert.equal(Number(position), s.query + 7, question);
  const c = Number(pairNumber) - 1;
  const answer = async (value) => {
    await tab.page.fill('[data-rope-practice="answer"]', String(value));
    await tab.page.press('[data-rope-practice="answer"]', 'Enter');
    return tab.page.textContent('[data-rope-practice="feedback"]');
  };
  const want = rotate(s.q, s.query, s.dK, s.query + 7, 10000)[c];
  assert.match(await answer(want.toPrecision(4)), /^Right: the engine gives /);
  assert.match(await answer(rotate(s.q, s.query, s.dK, s.query, 10000)[c].toPrecision(5)), /^Not yet: \S+ is what you get by rotating by the wrong position\. Try again\.$/);
  assert.match(await answer(s.q[s.query * s.dK + c]), /by not rotating at all\./);
  assert.equal(await answer('twelve'), 'Your answer: type a number, such as 0.25 or -1.5e-3.');
}

describe('the RoPE chapter', () => {
  it('shows each pair turned as a float64 rotation turns it, and the scores with and without RoPE, shifted and reversed', async () => {
    await open('view=rope');
    const reversals = [];
    for (const [lab, setting] of [[{ selectedToken: 2 }, { key: 0, theta: 10000, shift: 5 }],
      [{ weightsMode: 'random', seed: 3, selectedToken: 2 }, { key: 0, theta: 10000, shift: 5 }],
      [{ weightsMode: 'random', seed: 5, selectedToken: 1 }, { key: 2, theta: 100, shift: 1000 }]]) {
      await setLab(lab);
      await rotateWith(setting);
      const s = await shown();
      const { key } = setting;
      assert.notEqual(s.query, key, 'a query and a key at different positions');
      assert.equal(s.pairs.length, Math.floor(s.dK / 2));
      checkPairs(s, setting);
      const { scale, qAt } = checkScores(s, setting);
      reversals.push(checkPropertyAndPicture(s, setting, scale, qAt));
    }
    assert.ok(reversals.at(-1) > 1e-2, 'random weights: reversing changes RoPE scores');
  });

  it('steps through the pairs with the keyboard, the arithmetic done by hand giving the core pair', async () => {
    await rotateWith({ key: 0, theta: 10000, shift: 5 });
    const s = await shown();
    const check = (text, c) => {
      const [, first, second, core] = /= (\S+), and .* = (\S+)\. The core gives (\(.*\))\.$/.exec(text) ?? [];
      assert.ok(first, text);
      const want = rotate(s.q, s.query, s.dK, s.query, 10000);
      near(parse(first), want[c], `pair ${c + 1} by hand`);
      near(parse(second), want[c + s.pairs.length], `pair ${c + 1} by hand`);
      pair(core).forEach((v, i) => near(v, want[c + i * s.pairs.length], `the core's pair ${c + 1}`));
    };
    assert.match(s.arithmetic, new RegExp(`^Pair 1 of ${s.pairs.length} \\(features 1 and ${s.pairs.length + 1}\\)`));
    check(s.arithmetic, 0);
    await tab.page.focus('[data-rope="next"]');
    await tab.page.keyboard.press('Enter');
    const second = await tab.page.textContent('[data-rope="arithmetic"]');
    assert.match(second, new RegExp(`^Pair 2 of ${s.pairs.length} `));
    check(second, 1);
    for (let i = 0; i < s.pairs.length; i++) await tab.page.keyboard.press('Enter');  // stops at the last pair
    assert.match(await tab.page.textContent('[data-rope="arithmetic"]'), new RegExp(`^Pair ${s.pairs.length} of `));
    assert.equal(await tab.page.isDisabled('[data-rope="next"]'), true);
  });

  it('practice: turning the query at its shifted position, checked against float64, the typical mistakes named', async () => {
    await rotateWith({ key: 0, theta: 10000, shift: 7 });
    await tab.page.focus('[data-rope="prev"]');
    while (!(await tab.page.isDisabled('[data-rope="prev"]'))) await tab.page.keyboard.press('Enter');  // pair 1: θ_c = 1, a large turn
    const s = await shown();
    await checkPractice(s);
  });

  it('names the field of a d_k too small to rotate, and stays usable', async () => {
    await setLab({ dModel: 1, dK: 1, dV: 1 });
    const status = 'section[data-view="rope"] .flash-status';
    await tab.page.waitForFunction((at) => /^RoPE could not run: .*d_k must be at least 2, got 1$/.test(document.querySelector(at)?.textContent), status);
    await setLab({ dModel: 10, dK: 10, dV: 10 });
    await rotateWith({ key: 0, theta: 10000, shift: 5 });
    assert.equal(await tab.page.textContent(status), '');
  });

  it('in Hindi at 375 px: the Hindi texts, the same numbers, no page overflow, and axe-core finds nothing serious', async () => {
    await tab.page.setViewportSize({ width: 375, height: 800 });
    await open('view=rope&lang=hi');
    await rotateWith({ key: 0, theta: 10000, shift: 5 });
    assert.match(await tab.page.textContent('section[data-view="rope"] h2'), /q और k को उनकी position से घुमाना/);
    const s = await shown();
    const want = rotate(s.q, s.query, s.dK, s.query, 10000);
    pair(s.pairs[0][6]).forEach((v, i) => near(v, want[i * s.pairs.length], 'q after in Hindi'));
    const overflow = await tab.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than 375`);
    await tab.page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = await tab.page.evaluate(async () => {
      const result = await globalThis.axe.run(document.querySelector('section[data-view="rope"]'), { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.length}`);
    });
    assert.deepEqual(violations, []);
  });
});

describe('links to the chapters', () => {
  it('index.html?view=rope and ?view=gqa land on that chapter, the whole page around it', async () => {
    await tab.page.setViewportSize({ width: 1280, height: 800 });
    for (const view of ['rope', 'gqa']) {
      await tab.page.goto(`${browser.url}index.html?view=${view}`);
      await tab.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
      await tab.page.waitForTimeout(100);
      const { top, end, height } = await tab.page.$eval(`section[data-view="${view}"]`, (section) => ({
        top: section.getBoundingClientRect().top,
        end: scrollY + innerHeight >= document.documentElement.scrollHeight - 2,
        height: innerHeight,
      }));
      assert.ok(top > -1 && (top < 80 || (end && top < height / 2)), `${view}: the chapter's top is at ${top} px`);
      assert.equal(await tab.page.locator('section[data-view="steps"]').count(), 1, 'the rest of the page is there');
    }
  });
});
