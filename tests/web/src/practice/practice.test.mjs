// Practice mode's pure core: reading answers, the tolerance, the typical mistakes, the exercise
// sequences and their true values, the practice settings in a link, and "try another".
// True values come from the lecture notes (002, 003) and hand arithmetic, not from the code under test.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { parseAnswer } from '../../../../web/src/practice/answer.mjs';
import { allowance, judge, judgeBlanks, DEFAULT_TOLERANCE } from '../../../../web/src/practice/check.mjs';
import { planBlanks, concealedBy, cellKey } from '../../../../web/src/practice/blanks.mjs';
import { defaultCells, buildExercises, cellFits, KINDS } from '../../../../web/src/practice/exercises.mjs';
import { checkPractice, practiceSettings, practiceAfterPresetChange } from '../../../../web/src/practice/spec.mjs';
import { withNewInputs } from '../../../../web/src/practice/inputs.mjs';
import { message, hasMessage } from '../../../../web/src/i18n/index.mjs';
import { EN } from '../../../../web/src/i18n/en.mjs';
import { HI } from '../../../../web/src/i18n/hi.mjs';
import { translator } from '../../../../web/src/i18n/page.mjs';

// Practice's message references ({ key, params }) name keys of the catalogue's 'practice.' namespace
// without that prefix; said here as the page says them, and refused when the catalogue lacks the key
// (message() would show the key itself).
function practiceText(key, params = {}, language = 'en') {
  assert.ok(hasMessage(`practice.${key}`), `no message "practice.${key}"`);
  return message(`practice.${key}`, params, language);
}
import { presetState, buildRequest, stateToFragment, stateFromFragment, columnsOf } from '../../../../web/src/state/index.mjs';
import { referenceAttention } from '../../reference.mjs';

// A lab view as app.mjs builds it, with the engine's result replaced by the independent float64
// reference rounded to float32 (the engine's precision).
function viewOf(state) {
  const built = buildRequest(state);
  assert.ok(!built.problems, JSON.stringify(built.problems));
  const { request, tokens, keyTokens } = built;
  const { dModel, heads, dK, dV } = request;
  const eye = (size) => Float32Array.from({ length: size * size }, (_, i) => (i % (size + 1) === 0 ? 1 : 0));
  const f32 = (values) => (values ? Float32Array.from(values) : null);
  const identity = request.weights.mode === 'identity';
  const weights = identity
    ? { wq: eye(dModel), wk: eye(dModel), wv: eye(dModel), wo: request.useWo ? eye(dModel) : null }
    : { wq: f32(request.weights.wq), wk: f32(request.weights.wk), wv: f32(request.weights.wv), wo: request.useWo ? f32(request.weights.wo) : null };
  const scale = request.scale === 'sqrt_dk' ? Math.sqrt(dK) : request.scale === 'none' ? 1 : request.scale;
  const ref = referenceAttention({ x: request.x, n: tokens.length, dModel, heads, dK, dV, ...weights, scale: request.scale, mask: request.mask });
  const result = {
    shape: { scale, dK, dV },
    heads: ref.heads.map((h) => Object.fromEntries(Object.entries(h).map(([name, values]) => [name, Float32Array.from(values)]))),
    concat: Float32Array.from(ref.concat), output: Float32Array.from(ref.output), dOut: weights.wo ? dModel : heads * dV,
  };
  return {
    tokens, keyTokens, columns: columnsOf(state), x: request.x, context: null, dModel, heads, dK, dV, m: keyTokens.length,
    self: true, scaleMode: state.scaleMode, identity, result, weights,
  };
}

const exerciseOf = (view, cell) => buildExercises(view, [cell])[0];
const mistakeKeys = (exercise) => exercise.mistakes.map((m) => m.key);

describe('practice: reading an answer', () => {
  const value = (text) => parseAnswer(text).value;
  const problem = (text) => parseAnswer(text).problem;
  it('reads decimals, signs, exponents, fractions and the Unicode minus', () => {
    assert.equal(value('0.42'), 0.42);
    assert.equal(value(' .5 '), 0.5);
    assert.equal(value('+2'), 2);
    assert.equal(value('−0.5'), -0.5);  // U+2212
    assert.equal(value('– 0.5'), -0.5);
    assert.equal(value('3e-2'), 0.03);
    assert.equal(value('1/3'), 1 / 3);
    assert.equal(value(' -2 / 7 '), -2 / 7);
    assert.equal(value('½'), 0.5);
    assert.equal(value('1½'), 1.5);
    assert.equal(value('−¾'), -0.75);
    assert.equal(value('1⁄4'), 0.25);  // the fraction slash
  });
  it('reads an answer written as the explanations write it (review 4, finding 11)', () => {
    const e = Math.E;
    assert.equal(value('e^1/(2e^1+e^2)'), e / (2 * e + e * e));
    assert.equal(value('e^1 / (e^1 + e^0 + e^1)'), e / (e + 1 + e));
    assert.equal(value('e^0.8209 / (e^-0.1183 + e^0.8209 + e^-0.2875)'), Math.exp(0.8209) / (Math.exp(-0.1183) + Math.exp(0.8209) + Math.exp(-0.2875)));
    assert.equal(value('2/√4'), 1);
    assert.equal(value('exp(1)/3'), e / 3);
    assert.equal(value('0.5 × 1 + 0.25 × 0'), 0.5);
    assert.equal(value('−e^2'), -(e * e));
    assert.equal(value('e^−1'), 1 / e);
    assert.equal(value('१/(१+e^०)'), 0.5);
    assert.equal(problem('2 3 + 1'), 'answer.space');
    for (const text of ['e^', '(1', 'e^1000', '(1/0)', 'e^1)', 'exp1']) assert.equal(problem(text), 'answer.notNumber', text);
  });
  it('the comma rule: a decimal comma, except where it could be a thousands separator', () => {
    assert.equal(value('0,5'), 0.5);
    assert.equal(value('2,75'), 2.75);
    assert.equal(value('−0,25'), -0.25);
    assert.equal(value('0,500'), 0.5);
    assert.equal(problem('1,000'), 'answer.ambiguousComma');
    assert.equal(problem('1,234.5'), 'answer.thousands');
    assert.equal(problem('1,2,3'), 'answer.thousands');
  });
  it('never a number for what is not one: a message about the format instead', () => {
    for (const [text, key] of [['abc', 'answer.notNumber'], ['', 'answer.empty'], ['   ', 'answer.empty'], ['3e', 'answer.exponent'],
      ['3e-', 'answer.exponent'], ['1/0', 'answer.zeroDenominator'], ['1/2/3', 'answer.notNumber'], ['0. 5', 'answer.space'],
      ['42%', 'answer.percent'], ['Infinity', 'answer.notNumber'], ['NaN', 'answer.notNumber'], ['0x10', 'answer.notNumber'],
      ['1e400', 'answer.notNumber'], ['--1', 'answer.notNumber'], ['x'.repeat(100), 'answer.tooLong']]) {
      const read = parseAnswer(text);
      assert.equal(read.value, undefined, `'${text}' gave a value`);
      assert.equal(read.problem, key, `'${text}'`);
      assert.ok(practiceText(read.problem, read.params).length > 10);
    }
    assert.equal(practiceText('answer.percent', parseAnswer('42%').params), 'Write it without %: 0.42.');
    assert.match(practiceText('answer.notNumber', parseAnswer('abc').params), /'abc' is not a number/);
  });
});

describe('practice: the tolerance and the verdict', () => {
  it('is max(1 % of the true value, 0.005)', () => {
    assert.equal(allowance(0.1), 0.005);
    assert.equal(allowance(10), 0.1);
    assert.equal(allowance(-10), 0.1);
    assert.equal(allowance(10, { relative: 0.05, absolute: 0 }), 0.5);
    const exercise = { truth: 10, mistakes: [{ key: 'mistake.noScaling', value: 20 }, { key: 'mistake.dividedByDk', value: 10.05 }] };
    assert.equal(judge(10.1, exercise).correct, true);
    assert.equal(judge(10.11, exercise).correct, false);
    assert.deepEqual(judge(19.9, exercise).mistakes.map((m) => m.key), ['mistake.noScaling']);
    assert.deepEqual(judge(30, exercise).mistakes, []);
    assert.deepEqual(DEFAULT_TOLERANCE, { relative: 0.01, absolute: 0.005 });
  });
});

describe('practice: cat-sat (002) in numbers from the notes', () => {
  const view = viewOf(presetState('cat-sat'));
  it('the default sequence follows the computation for the query token', () => {
    const cells = defaultCells(view, { query: 0 });
    // W = I: a q entry would only copy a number of X, so none is asked (issue 26, point 8)
    assert.deepEqual(cells.map((c) => c.matrix), ['scores', 'scaled', 'softmax', 'z']);
    // 'The' weighs 'sat' as much as itself (0.4223 each): the key other than itself is 'sat'
    assert.deepEqual(cells.slice(0, 2).map((c) => c.col), [2, 2]);
  });
  it('true values are the notes\': q·k = 2, scaled 1, weights e/(2e+1) = 0.4223 and 1/(2e+1), z 0.8446', () => {
    const [q, score, scaled, row, z] = buildExercises(view, [{ matrix: 'q', head: 0, row: 0, col: 0 }, ...defaultCells(view, { query: 0 }).slice(0, 3), { matrix: 'z', head: 0, row: 0, col: 0 }]);
    assert.equal(q.truth, 1);
    assert.equal(score.truth, 2);
    assert.equal(scaled.truth, 1);
    // the whole row of 'The': scaled scores [1, 0, 1]
    assert.deepEqual(row.blanks.map((b) => b.cell.col), [0, 1, 2]);
    const e = Math.E;
    row.blanks.forEach((blank, j) => assert.ok(Math.abs(blank.truth - [e, 1, e][j] / (2 * e + 1)) < 1e-12));
    assert.ok(Math.abs(row.blanks[0].truth - 0.4223) < 5e-5);
    assert.ok(Math.abs(z.truth - 0.8446) < 5e-5);
    assert.ok(Math.abs(Number(z.shown) - 0.8446) < 5e-5, 'the engine\'s value, shown as it holds it');
  });
  it('names the typical mistakes with their values', () => {
    const scaled = exerciseOf(view, { matrix: 'scaled', head: 0, row: 0, col: 2 });
    assert.deepEqual(scaled.mistakes.map((m) => [m.key, m.value]), [['mistake.noScaling', 2], ['mistake.dividedByDk', 0.5], ['mistake.rootOfTwo', 2 / Math.SQRT2]]);
    assert.equal(judge(2 / 1.414, scaled).mistakes[0].key, 'mistake.rootOfTwo');  // the 000 notes' √2 carried over (d_k = 4 here)
    // z of 'sat', column 1: only the term of 'sat' (weight e²/(2e + e²) × v = 1), the other words' terms not added
    const z = exerciseOf(view, { matrix: 'z', head: 0, row: 2, col: 0 });
    const sat = Math.exp(2) / (2 * Math.E + Math.exp(2));
    assert.deepEqual(judge(0.5761, z).mistakes.map((m) => [m.key, m.params.key]), [['mistake.oneTerm', 'sat']]);
    assert.ok(Math.abs(z.mistakes.find((m) => m.params.key === 'sat').value - sat) < 1e-12);
    assert.equal(judge(sat + Math.E / (2 * Math.E + Math.exp(2)), z).correct, true);  // 'The' (v = 1) + 'sat'; 'cat' has v = 0
    const weight = exerciseOf(view, { matrix: 'weights', head: 0, row: 0, col: 2 });
    const byKey = Object.fromEntries(weight.mistakes.map((m) => [m.key, m.value]));
    assert.ok(Math.abs(byKey['mistake.unnormalised'] - Math.E) < 1e-12);           // e^1
    assert.ok(Math.abs(byKey['mistake.wrongAxis'] - 0.2119) < 5e-5);                // e / (e + e + e²), down the column
    assert.ok(Math.abs(byKey['mistake.noScaling'] - Math.exp(2) / (2 * Math.exp(2) + 1)) < 1e-12);  // softmax([2, 0, 2])
    assert.equal(judge(0.21, weight).mistakes[0].key, 'mistake.wrongAxis');
    assert.equal(judge(0.423, weight).correct, true);
    // q = k here, so swapping query and key changes nothing: that mistake is not offered
    assert.ok(!mistakeKeys(exerciseOf(view, { matrix: 'scores', head: 0, row: 0, col: 2 })).includes('mistake.swapped'));
  });
  it('three hints: the sources, the formula with their values, the explanation', () => {
    const score = exerciseOf(view, { matrix: 'scores', head: 0, row: 0, col: 2 });
    assert.deepEqual(score.sources.map((s) => s.key), ['source.qRow', 'source.kRow']);
    // hint 1 lights row 'The' of Q and row 'sat' of K in the tables
    assert.deepEqual(score.sourceCells.map(({ matrix, row, col }) => `${matrix}${row}${col}`), ['q00', 'q01', 'q02', 'q03', 'k20', 'k21', 'k22', 'k23']);
    assert.equal(score.formula.params.terms[0], '1×1 + 0×1 + 1×1 + 0×1');
    const lines = score.explanation(translator('en'));
    assert.ok(lines.length >= 2);
    // in Hindi the arithmetic is the same, its sentences are not
    const hindi = score.explanation(translator('hi'));
    assert.equal(hindi.length, lines.length);
    const numbers = (text) => text.match(/\d+(\.\d+)?/g);
    assert.deepEqual(hindi.map(numbers), lines.map(numbers));
    assert.notEqual(hindi[0], lines[0]);
    assert.match(hindi[0], /[\u0900-\u097F]/);
  });
});

describe('practice: the softmax of a row (cat-sat, 002)', () => {
  const view = viewOf(presetState('cat-sat'));
  const row = exerciseOf(view, { matrix: 'softmax', head: 0, row: 0, col: 0 });
  const e = Math.E;
  const truths = [e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)];
  it('every weight is a blank; the row is right when all are', () => {
    assert.deepEqual(judgeBlanks(truths, row), { correct: true, right: [true, true, true], mistakes: [] });
    const oneWrong = judgeBlanks([truths[0], 0.3, truths[2]], row);
    assert.equal(oneWrong.correct, false);
    assert.deepEqual(oneWrong.right, [true, false, true]);
    assert.deepEqual(oneWrong.mistakes, []);
  });
  it('names the row\'s mistakes: unnormalised e^x, softmax down the column, no scaling', () => {
    // e^1, e^0, e^1 as they are
    assert.deepEqual(judgeBlanks([e, 1, e], row).mistakes.map((m) => m.key), ['mistake.unnormalised']);
    // down the columns of the reference's scaled scores
    const scaled = view.result.heads[0].scaled;
    const column = (j) => Math.exp(scaled[j]) / [0, 1, 2].reduce((sum, r) => sum + Math.exp(scaled[r * 3 + j]), 0);
    assert.deepEqual(judgeBlanks([0, 1, 2].map(column), row).mistakes.map((m) => m.key), ['mistake.wrongAxis']);
    // softmax of the scores [2, 0, 2] without the division by √4
    const e2 = Math.exp(2);
    assert.deepEqual(judgeBlanks([e2 / (2 * e2 + 1), 1 / (2 * e2 + 1), e2 / (2 * e2 + 1)], row).mistakes.map((m) => m.key), ['mistake.noScaling']);
  });
});

describe('practice: mistakes that cannot be told apart', () => {
  const view = viewOf(presetState('cat-sat'));
  it("with W = I, q = k, and 'The' and 'sat' have the same x: their own key and the swap give the true score", () => {
    const score = exerciseOf(view, { matrix: 'scores', head: 0, row: 0, col: 2 });
    assert.deepEqual(score.blind.map((m) => [m.key, m.like]), [['mistake.wrongKeyRow', null], ['mistake.swapped', null]]);
    assert.ok(!mistakeKeys(score).includes('mistake.swapped'));
  });
  it('the generator prefers a query with fewer mistakes that cannot be told apart', () => {
    const cells = defaultCells(view, { query: 0, anyQuery: true });
    const blind = buildExercises(view, cells).reduce((sum, e) => sum + e.blind.length, 0);
    const fixed = buildExercises(view, defaultCells(view, { query: 0 })).reduce((sum, e) => sum + e.blind.length, 0);
    assert.ok(blind <= fixed, `${blind} blind with any query, ${fixed} with 'The'`);
  });
});

describe('practice: the blanks in the tables', () => {
  const view = viewOf(presetState('telescope'));
  const exercises = buildExercises(view, defaultCells(view, { query: 7 }));
  it('an unanswered q hides its row of scores, scaled scores and weights, and everything after them', () => {
    const keys = new Set(concealedBy(view, exercises[0]).map(cellKey));
    const h = exercises[0].cell.head;
    for (let j = 0; j < view.m; j++) for (const name of ['scores', 'scaled', 'weights']) assert.ok(keys.has(`${name}:${h}:7:${j}`));
    assert.ok(keys.has(`weights:${h}:7:${view.m}`), 'and the row sum');
    assert.ok(!keys.has(`scores:${h}:6:0`), 'not another query\'s row');
    for (let c = 0; c < view.dModel; c++) assert.ok(keys.has(`output::7:${c}`));
  });
  it("a score hides the key's score with the query (the same number when Q = K), its scaled score, and the query's weights", () => {
    const { head: h, row: i, col: j } = exercises[1].cell;
    const keys = new Set(concealedBy(view, exercises[1]).map(cellKey));
    for (const key of [`scores:${h}:${j}:${i}`, `scaled:${h}:${j}:${i}`, `scaled:${h}:${i}:${j}`, `weights:${h}:${i}:0`]) assert.ok(keys.has(key), key);
    assert.ok(!keys.has(`scores:${h}:${i}:${(j + 1) % view.m}`), 'not the rest of its row');
  });
  it('one asked weight hides the rest of its row and its Σ (1 minus the others is the answer)', () => {
    const [weight] = buildExercises(view, [{ matrix: 'weights', head: 0, row: 7, col: 2 }]);
    const keys = new Set(concealedBy(view, weight).map(cellKey));
    for (let j = 0; j <= view.m; j++) assert.ok(keys.has(`weights:0:7:${j}`), `weights:0:7:${j}`);
    const plan = planBlanks(view, [weight], () => 'open');
    assert.deepEqual(plan.get('weights:0:7:2'), { exercise: 0, blank: 0 }, 'the asked weight is the blank');
    assert.deepEqual(plan.get('weights:0:7:3'), { hidden: true });
    assert.deepEqual(plan.get(`weights:0:7:${view.m}`), { hidden: true });
  });
  it('a teacher choosing one weight and its row gets the row', async () => {
    const { cellsFromChoices } = await import('../../../../web/src/practice/teacher.mjs');
    assert.deepEqual(cellsFromChoices(view, { kinds: ['weights', 'softmax'], query: 7, key: 2, head: 0, column: 0 }), [{ matrix: 'softmax', head: 0, row: 7, col: 0 }]);
  });
  it('the plan: blanks stay blanks; what an answered exercise hid is shown', () => {
    const status = (answered) => (index) => (index < answered ? 'correct' : index === answered ? 'open' : 'locked');
    const before = planBlanks(view, exercises, status(0));
    const score = exercises[1].blanks[0].cell;
    assert.deepEqual(before.get(cellKey(score)), { exercise: 1, blank: 0 });
    const other = `scores:${score.head}:7:${(score.col + 1) % view.m}`;
    assert.deepEqual(before.get(other), { hidden: true });
    const after = planBlanks(view, exercises, status(1));
    assert.equal(after.get(other), undefined, 'the q answered: the other scores of its row show');
    assert.deepEqual(after.get(`scaled:${score.head}:7:${score.col}`), { exercise: 2, blank: 0 });
    const done = planBlanks(view, exercises, () => 'correct');
    assert.equal([...done.values()].filter((entry) => entry.hidden).length, 0);
  });
});

describe('practice: a value in a sentence', () => {
  it('a float32 neighbour of a short decimal is followed by it; other values are as they are', async () => {
    const { withNearest } = await import('../../../../web/src/practice/exercises.mjs');
    assert.equal(withNearest('6.2999997'), '6.2999997 (≈ 6.3)');   // 2.1 × 3 in float32
    assert.equal(withNearest('0.77000004'), '0.77000004 (≈ 0.77)');  // the notes' 003 score
    assert.equal(withNearest('0.42231882'), '0.42231882');
    assert.equal(withNearest('2'), '2');
    assert.equal(withNearest('-1.0000001'), '-1.0000001 (≈ -1)');
    assert.equal(withNearest('1.75e-7'), '1.75e-7');
    assert.equal(withNearest('−∞'), '−∞');
  });
});

describe('practice: no cell near a blank gives it away', () => {
  // a plain scan, independent of the plan's code: anywhere in the blank's own table, and in its
  // token's row where its number is carried on (a q's K and V rows in self-attention, a z's
  // concatenation and output rows, a concatenation entry's output row), a shown number that the
  // blank would accept is allowed only when the open exercise is made from it, or when 0 would pass
  const near = (view, cell) => {
    const n = view.tokens.length;
    const out = [];
    // q: the token's K and V rows; z: all of the concatenation, and of the output without W_O (its token's row with it)
    const wholeOutput = !view.weights.wo;
    const rowsOf = { q: ['k', 'v'], z: wholeOutput ? [] : ['output'], concat: wholeOutput ? [] : ['output'] }[cell.matrix] ?? [];
    const wholesOf = { z: ['concat', ...(wholeOutput ? ['output'] : [])], concat: wholeOutput ? ['output'] : [] }[cell.matrix] ?? [];
    const scan = (name, head, rows, cols, values, byToken = true) => {
      const sameHead = head === undefined || head === cell.head;
      const own = (name === cell.matrix || wholesOf.includes(name)) && sameHead;
      const along = rowsOf.includes(name) && byToken && sameHead;
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) if (own || (along && r === cell.row)) out.push([`${name}:${head ?? ''}:${r}:${c}`, values[r * cols + c]]);
      }
    };
    view.result.heads.forEach((trace, h) => {
      for (const [name, rows, cols] of [['q', n, view.dK], ['k', view.m, view.dK], ['v', view.m, view.dV], ['scores', n, view.m], ['scaled', n, view.m], ['weights', n, view.m], ['z', n, view.dV]]) {
        scan(name, h, rows, cols, trace[name], name === 'k' || name === 'v' ? view.self : true);
      }
    });
    scan('concat', undefined, n, view.heads * view.dV, view.result.concat);
    scan('output', undefined, n, view.result.output.length / n, view.result.output);
    return out;
  };
  // every preset but 'action', whose seeded random weights only the page makes (the Chromium test covers it)
  for (const id of ['cat-sat', 'animal-it', 'animal-it-works', 'money-bank', 'river-bank', 'money-bank-scaling', 'kids-lions', 'telescope']) {
    it(`${id}: at every step of the sequence`, () => {
      const view = viewOf(presetState(id));
      const exercises = buildExercises(view, defaultCells(view, { anyQuery: true }));
      let hiddenLookalikes = 0;
      for (let step = 0; step <= exercises.length; step++) {
        const status = (index) => (index < step ? 'correct' : index === step ? 'open' : 'locked');
        const plan = planBlanks(view, exercises, status);
        const needed = new Set(step < exercises.length ? exercises[step].sourceCells.map(cellKey) : []);
        for (const exercise of exercises.slice(step)) {
          for (const blank of exercise.blanks) {
            if (judge(0, { truth: blank.truth, mistakes: [] }).correct) continue;
            for (const [key, value] of near(view, blank.cell)) {
              if (!judge(value, { truth: blank.truth, mistakes: [] }).correct) continue;
              if (plan.has(key)) {
                hiddenLookalikes += 1;
                continue;
              }
              assert.ok(needed.has(key), `step ${step + 1}: ${key} shows ${value}, which ${exercise.id} would accept (${blank.truth})`);
            }
          }
        }
      }
      if (id === 'cat-sat' || id === 'kids-lions') assert.ok(hiddenLookalikes > 0, 'the look-alikes the plan hides are counted');
    });
  }
  it("cat-sat (W = I): the q asked of 'sat' hides its row of V, the same numbers, until it is answered", () => {
    const view = viewOf(presetState('cat-sat'));
    const [q] = buildExercises(view, [{ matrix: 'q', head: 0, row: 2, col: 0 }]);
    assert.equal(q.truth, view.x[2 * view.dModel]);
    const hidden = planBlanks(view, [q], () => 'open');
    for (let c = 0; c < view.dV; c++) if (judge(view.result.heads[0].v[2 * view.dV + c], q).correct) assert.deepEqual(hidden.get(`v:0:2:${c}`), { hidden: true });
    assert.equal(planBlanks(view, [q], () => 'correct').get('v:0:2:0'), undefined, 'shown once answered');
  });
});

describe("practice: the 'it' example (003)", () => {
  const state = presetState('animal-it');
  const view = viewOf(state);
  it("score of 'it' with 'animal' is the notes' 0.77; the wrong vectors give 0.74, 0.92 and 0.39", () => {
    const it = view.tokens.indexOf('it');
    const score = exerciseOf(view, { matrix: 'scores', head: 0, row: it, col: 1 });
    assert.ok(Math.abs(score.truth - 0.77) < 1e-6);
    const byKey = Object.fromEntries(score.mistakes.map((m) => [m.key, m.value]));
    assert.ok(Math.abs(byKey['mistake.swapped'] - 0.74) < 1e-6);       // q_animal · k_it
    assert.ok(Math.abs(byKey['mistake.wrongKeyRow'] - 0.92) < 1e-6);   // q_it · k_it
    assert.ok(Math.abs(byKey['mistake.kNotTransposed'] - 0.39) < 1e-6);  // q_it · (column 2 of K)
    assert.equal(practiceText(score.label.key, score.label.params), "score of 'it' with 'animal', head 1");
    assert.equal(score.label.key, 'label.scores');
  });
  it('no scaling in this example: no scaling step in the sequence', () => {
    const cells = defaultCells(view, { query: view.tokens.indexOf('it') });
    // W_q picks X's e1…e3 (the notes' q): a q entry would only copy a number of X, so none is asked (issue 26, point 8)
    assert.deepEqual(cells.map((c) => c.matrix), ['scores', 'softmax', 'z']);
    assert.equal(view.keyTokens[cells[0].col], 'tired', "'it' weighs 'tired' most (the notes' q and k)");
  });
});

describe('practice: telescope (000), two heads and W_O', () => {
  const view = viewOf(presetState('telescope'));
  it('adds a concatenation entry from the other head and an output entry', () => {
    const cells = defaultCells(view, { query: 7 });
    assert.deepEqual(cells.map((c) => c.matrix), ['q', 'scores', 'scaled', 'softmax', 'z', 'concat', 'output']);
    const exercises = buildExercises(view, cells);
    const concat = exercises[5];
    const other = 1 - cells[0].head;
    assert.equal(concat.cell.head, other);
    assert.ok(Math.abs(concat.truth - view.result.heads[other].z[7 * view.dV + (cells[5].col - other * view.dV)]) < 1e-6);
    const output = exercises[6];
    // output = concat · W_O, by hand from the concatenation and W_O
    const c = cells[6].col;
    const width = view.heads * view.dV;
    let want = 0;
    for (let t = 0; t < width; t++) want += view.result.concat[7 * width + t] * view.weights.wo[t * view.dModel + c];
    assert.ok(Math.abs(output.truth - want) < 1e-6);
  });
  it('cells outside the lab are refused', () => {
    assert.equal(cellFits(view, { matrix: 'z', head: 2, row: 0, col: 0 }), false);
    assert.equal(cellFits(view, { matrix: 'scores', head: 0, row: 8, col: 0 }), false);
    assert.equal(cellFits(view, { matrix: 'output', head: 0, row: 0, col: view.dModel }), false);
    assert.equal(cellFits(view, { matrix: 'output', head: 0, row: 0, col: 0 }), true);
  });
});

describe('practice: settings in a link', () => {
  it('round-trip through the fragment', () => {
    const practice = { cells: [{ matrix: 'weights', head: 0, row: 1, col: 2 }], relative: 0.02, absolute: 0.01, hints: false, integer: true, seed: 3 };
    const state = { ...presetState('cat-sat'), practice };
    const back = stateFromFragment(stateToFragment(state));
    assert.deepEqual(back.state.practice, practice);
    assert.equal(stateFromFragment(stateToFragment(presetState('cat-sat'))).state.practice, null);
  });
  it('refuses unknown keys, wrong types and inherited names', () => {
    const read = (practice) => stateFromFragment(`#lab=${encodeURIComponent(JSON.stringify({ practice }))}`);
    for (const [practice, pattern] of [
      [{ foo: 1 }, /unknown practice setting "foo"/],
      [{ constructor: 1 }, /unknown practice setting "constructor"/],
      [{ relative: '1' }, /"relative" is not valid/],
      [{ relative: 2 }, /"relative" is not valid/],
      [{ hints: 'no' }, /"hints" is not valid/],
      [{ cells: [] }, /"cells" is not valid/],
      [{ cells: [{ matrix: 'toString', head: 0, row: 0, col: 0 }] }, /"cells" is not valid/],
      [{ cells: [{ matrix: 'q', head: 0, row: 0, col: -1 }] }, /"cells" is not valid/],
      [{ cells: [{ matrix: 'q', head: 0, row: 0, col: 0, extra: 1 }] }, /"cells" is not valid/],
      [[1], /not an object/],
    ]) {
      const got = read(practice);
      assert.ok(got.problems, `accepted ${JSON.stringify(practice)}`);
      assert.match(got.problems[0].message, pattern);
    }
    const raw = stateFromFragment(`#lab=${encodeURIComponent('{"practice":{"__proto__":{"hints":false}}}')}`);
    assert.ok(raw.problems);
    assert.equal(checkPractice({}), true);
  });
  it('fills defaults and keeps the mode across a change of example', () => {
    assert.deepEqual(practiceSettings({}), { cells: null, tolerance: { relative: 0.01, absolute: 0.005 }, hints: true, integer: false, seed: 0 });
    assert.deepEqual(practiceAfterPresetChange({ cells: [{ matrix: 'q', head: 0, row: 0, col: 0 }], hints: false, seed: 2 }), { hints: false });
    assert.equal(practiceAfterPresetChange(null), null);
  });
});

describe('practice: try another', () => {
  it('draws new inputs from the seed: the same seed, the same inputs; whole numbers on request', () => {
    const state = { ...presetState('action'), practice: {} };
    const view = viewOf(state);
    const a = withNewInputs(state, view, 5);
    const b = withNewInputs(state, view, 5);
    const c = withNewInputs(state, view, 6);
    assert.deepEqual(a, b);
    assert.notDeepEqual(a.xEdits, c.xEdits);
    assert.equal(Object.keys(a.xEdits).length, 3 * 64);
    assert.ok(Object.values(a.xEdits).every((v) => v >= -1 && v <= 1 && Math.abs(v * 10 - Math.round(v * 10)) < 1e-9));
    const whole = withNewInputs(state, view, 5, { integer: true });
    assert.ok(Object.values(whole.xEdits).every((v) => Number.isInteger(v) && v >= -1 && v <= 2));
    assert.equal(whole.weightsMode, 'custom');
    assert.ok(whole.custom.wq.every((v) => [-1, 0, 1].includes(v)));
    assert.deepEqual(whole.practice, { seed: 5, integer: true });
    // the new inputs are what the engine gets
    const x = buildRequest(whole).request.x;
    assert.equal(x[0], whole.xEdits[`0:${view.tokens[0]}:0`]);
    // and the exercises' true values follow: q = x · W_q, by hand
    const newView = viewOf(whole);
    const [q] = buildExercises(newView, [{ matrix: 'q', head: 0, row: 0, col: 0 }]);
    let want = 0;
    for (let t = 0; t < 64; t++) want += x[t] * whole.custom.wq[t * 64];
    assert.equal(q.truth, want);
    assert.ok(Number.isInteger(q.truth));
  });
});

describe('practice: messages', () => {
  it('every key used by the core exists in the English catalogue', () => {
    const view = viewOf(presetState('telescope'));
    const exercises = buildExercises(view, defaultCells(view, { query: 7 }));
    const keys = new Set();
    const walk = (value) => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        if (typeof value.key === 'string' && 'params' in value) keys.add(value.key);
        Object.values(value).forEach(walk);
      }
    };
    walk(exercises);
    assert.deepEqual([...keys].filter((key) => !Object.hasOwn(EN, `practice.${key}`)), []);
    assert.ok(keys.size > 20);
    assert.deepEqual(KINDS.filter((k) => !Object.hasOwn(EN, `practice.label.${k}`)), []);
  });
});

describe('practice: Hindi', () => {
  const slots = (template) => [...new Set([...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]))].sort();
  const forms = (value) => (typeof value === 'object' ? Object.entries(value).filter(([form]) => form !== 'plural') : [['', value]]);
  const PRACTICE = Object.keys(EN).filter((key) => key.startsWith('practice.'));
  it('every English key has a Hindi entry with the same {slots} (each plural form too)', () => {
    assert.ok(PRACTICE.length > 100, 'practice mode\'s keys are in the catalogue');
    const missing = PRACTICE.filter((key) => !Object.hasOwn(HI, key));
    assert.deepEqual(missing, []);
    assert.deepEqual(Object.keys(HI).filter((key) => key.startsWith('practice.') && !Object.hasOwn(EN, key)), [], 'no Hindi key English lacks');
    for (const key of PRACTICE) {
      const [en, hi] = [EN[key], HI[key]];
      assert.equal(typeof hi, typeof en, key);
      const want = slots(forms(en).map(([, text]) => text).join(' '));
      if (typeof en === 'object') {
        assert.equal(hi.plural, en.plural, `${key}: counts the same value`);
        assert.ok(typeof hi.other === 'string', `${key}: has the 'other' form`);
      }
      for (const [form, text] of forms(hi)) assert.deepEqual(slots(text), want, `${key}${form ? ` (${form})` : ''}: {slots}`);
    }
  });
  it('keeps query, key and softmax in English, and Western digits', () => {
    assert.match(HI['practice.label.scores'], /score/);
    assert.match(HI['practice.mistake.swapped'], /query/);
    assert.match(HI['practice.mistake.wrongAxis'], /softmax/);
    for (const key of PRACTICE) {
      for (const [, text] of forms(HI[key])) assert.doesNotMatch(text, /[\u0966-\u096F]/, `${key}: Devanagari digits`);
    }
    assert.equal(message('practice.summary', { correct: 5, total: 6, hints: 2 }, 'hi'), '5/6 सही, 2 संकेत');
    assert.equal(message('practice.verdict.correct', { value: '0.4223' }, 'hi'), 'सही। मान 0.4223 है।');
  });
});

describe('practice: plural forms', () => {
  it('one hint, two hints', () => {
    assert.equal(message('practice.summary', { correct: 5, total: 6, hints: 2 }), '5/6 correct, 2 hints');
    assert.equal(message('practice.summary', { correct: 1, total: 6, hints: 1 }), '1/6 correct, 1 hint');
    assert.equal(message('practice.summary', { correct: 0, total: 6, hints: 0 }), '0/6 correct, 0 hints');
  });
});

describe('practice: progress', () => {
  it('counts right answers once, hints up to three, reveals as not correct, and opens cards in order', async () => {
    const { createProgress } = await import('../../../../web/src/practice/progress.mjs');
    const progress = createProgress();
    progress.reset(['a', 'b', 'c']);
    assert.deepEqual(progress.unlocked(), [['a', true], ['b', false], ['c', false]]);
    progress.wrong('a');
    assert.equal(progress.hint('a'), 1);
    assert.equal(progress.hint('a'), 2);
    assert.equal(progress.hint('a'), 3);
    assert.equal(progress.hint('a'), null);
    assert.equal(progress.correct('a'), true);
    assert.equal(progress.correct('a'), false, 'a second right answer is not counted again');
    assert.deepEqual(progress.unlocked(), [['a', true], ['b', true], ['c', false]]);
    progress.reveal('b');
    assert.equal(progress.correct('b'), false, 'an answer shown first stays revealed');
    assert.equal(progress.status('b'), 'revealed');
    assert.deepEqual(progress.totals(), { correct: 1, total: 3, hints: 3, done: 2, attempts: 1 });
    assert.deepEqual(progress.unlocked().map(([, open]) => open), [true, true, true]);
  });
});
