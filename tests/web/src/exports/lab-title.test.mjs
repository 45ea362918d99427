// The lab's exports of a model's layer, slide-ready (review 10, findings E 1 to 3): Markdown escapes
// only what CommonMark needs where it stands, read back by markdown-it (linkify on, as GitHub's
// autolinks); a table's title names the model, the layer and the head; the weights line says how
// many cells the reader typed over the model's numbers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';

import { markdownText, titleOf, settingsOf, editedCells, exportTable } from '../../../../web/src/exports/formats.mjs';
import { message } from '../../../../web/src/i18n/index.mjs';
import { defaultState, withWeightEdit } from '../../../../web/src/state/model.mjs';

const md = new MarkdownIt({ html: true, linkify: true });
// markdown-it's tokens of one line as inline Markdown, with their children
const inline = (text) => md.parseInline(text, {})[0].children;
const FORBIDDEN = ['link_open', 'image', 'html_inline', 'code_inline', 'em_open', 'strong_open', 's_open', 'softbreak', 'hardbreak'];

describe('markdownText: inert, and no backslash a slide does not need', () => {
  it('texts of a model layer\'s title and settings come out as typed (no \\( \\: \\. \\=)', () => {
    for (const text of ['Weights (softmax) (head 1)', 'qwen2, layer 2 of 2, head 1: Weights (softmax)',
      'scale: ÷ √d_k = 2.828427; mask: causal', 'The cat sat on the mat.', 'dModel: 896; heads: 14', "the qwen2 model's layer 2 of 2, read from its folder; no cell edited"]) {
      assert.equal(markdownText(text), text);
    }
  });

  // hostile text: each renders back to exactly what was typed (line breaks as spaces), opening nothing
  const HOSTILE = ['[link](http://evil.example)', '![img](http://evil.example/x.png)', '<script>alert(1)</script>', '<https://evil.example>',
    '`code`', '*em* _em_ **b** __b__', 'a|b|c', '\\', '\\*not em\\*', '~~struck~~', '$x^2$', '&lt;b&gt; &#60;', 'https://evil.example/path',
    'www.evil.com', 'mail me@evil.com', 'see evil.com now', '# heading', '## h2', '1. item', '2) item', '- item', '+ item', '> quote', '---', '===',
    '!important', 'snake_case_name', '_lead', 'trail_', 'line\nbreak', 'R&D', 'a (b) [c] {d}'];
  for (const text of HOSTILE) {
    it(`${JSON.stringify(text)}: read back as typed, no markup`, () => {
      const children = inline(markdownText(text));
      for (const token of children) assert.ok(!FORBIDDEN.includes(token.type), `${token.type} in ${markdownText(text)}`);
      assert.equal(children.map((c) => c.content).join(''), text.replace(/\n/g, ' '));
      // as a whole document (block level too: headings, lists, quotes, rules) one paragraph, the text as typed
      const blocks = md.parse(markdownText(text), {});
      assert.deepEqual(blocks.map((b) => b.type), ['paragraph_open', 'inline', 'paragraph_close']);
      assert.doesNotMatch(md.render(markdownText(text)), /<(?!\/?p>)/);
    });
  }

  it('escapes precisely: what markup needs, nothing around it', () => {
    assert.equal(markdownText('a_b *c* [d](e) <f> |g| `h` \\ ~i~ $j$'), 'a_b \\*c\\* \\[d\\](e) \\<f\\> \\|g\\| \\`h\\` \\\\ \\~i\\~ \\$j\\$');
    assert.equal(markdownText('_x_ y_'), '\\_x\\_ y\\_');
    assert.equal(markdownText('https://a.com 2.5 x.y'), 'https\\://a\\.com 2.5 x\\.y');
    assert.equal(markdownText('&amp; & a@b @c'), '\\&amp; & a\\@b \\@c');
    assert.equal(markdownText('# x'), '\\# x');
    assert.equal(markdownText('12. x'), '12\\. x');
  });
});

const qwen = (extra = {}) => ({ ...defaultState(), modelBlock: { source: { model: 'qwen2', architectures: 'Qwen2ForCausalLM', layer: 2, layers: 2 } }, ...extra });
const headTable = { caption: 'Weights (softmax) (head 1)', name: 'Weights (softmax)', head: 1 };
const hi = (key, values) => message(key, values, 'hi');

describe('the title of a model layer\'s table', () => {
  it('names the model, the layer and the head (en, hi); a lab without a model keeps the caption', () => {
    assert.equal(titleOf(headTable, qwen()), 'qwen2, layer 2 of 2, head 1: Weights (softmax)');
    assert.equal(titleOf({ caption: 'Concatenation of the heads' }, qwen()), 'qwen2, layer 2 of 2: Concatenation of the heads');
    assert.equal(titleOf(headTable, defaultState()), 'Weights (softmax) (head 1)');
    assert.equal(titleOf(headTable, qwen(), hi), 'qwen2, 2 में से layer 2, head 1: Weights (softmax)');
  });

  it('a right-to-left model name is isolated; in Markdown it stays text', () => {
    const state = qwen();
    state.modelBlock.source.model = 'نموذج*[x](y)';
    const title = titleOf(headTable, state);
    assert.ok(title.startsWith('\u2068نموذج*[x](y)\u2069, layer 2 of 2'), title);
    const text = exportTable({ ...headTable, caption: title, rowLabels: ['a'], columnLabels: ['a'], values: Float32Array.of(1) }, 'md', {});
    const kinds = md.parse(text, {}).flatMap((t) => [t.type, ...(t.children ?? []).map((c) => c.type)]);
    assert.ok(!kinds.includes('link_open') && !kinds.includes('em_open'), kinds.join(' '));
  });
});

describe('the weights line says how many cells were typed', () => {
  const view = { tokens: ['a', 'b'], self: true, dModel: 2, heads: 1, dK: 2, dV: 2, result: { shape: { scale: 1.4142135 } }, weights: {} };
  const weightsLine = (state, t) => settingsOf({ ...state, weightsMode: 'custom' }, view, t).weights;

  it('none, one, three (X, the block\'s MLP, W_q), in English and Hindi', () => {
    assert.equal(weightsLine(qwen()), "the qwen2 model's layer 2 of 2, read from its folder; no cell edited");
    assert.equal(weightsLine(qwen({ xEdits: { '0:a:1': 0.5 } })), "the qwen2 model's layer 2 of 2, read from its folder; 1 cell edited");
    const three = qwen({ xEdits: { '0:a:1': 0.5 }, blockEdits: { '0:w1:7': 2 } });
    three.modelBlock.weightEdits = { 'wq:3': true };
    assert.equal(editedCells(three), 3);
    assert.equal(weightsLine(three), "the qwen2 model's layer 2 of 2, read from its folder; 3 cells edited");
    assert.equal(weightsLine(three, hi), 'qwen2 मॉडल की 2 में से layer 2, उसकी फ़ाइलों से पढ़ी गई; 3 संख्याएँ बदली गईं');
    assert.equal(weightsLine(qwen(), hi), 'qwen2 मॉडल की 2 में से layer 2, उसकी फ़ाइलों से पढ़ी गई; कोई संख्या नहीं बदली गई');
  });

  it('a typed W_q or W_O cell of a model\'s layer is counted once however often typed; without a model nothing is kept', () => {
    const d = 2;
    const weights = { wq: new Float32Array(d * d), wk: new Float32Array(d * d), wv: new Float32Array(d * d), wo: new Float32Array(d * d) };
    const base = qwen({ dModel: d, heads: 1, dK: d, dV: d, weightsMode: 'custom', custom: { wq: [0, 0, 0, 0], wk: [0, 0, 0, 0], wv: [0, 0, 0, 0], wo: [0, 0, 0, 0] } });
    let state = withWeightEdit(base, weights, { matrix: 'wq', head: 0, row: 1, col: 0 }, 0.25);
    state = withWeightEdit(state, weights, { matrix: 'wq', head: 0, row: 1, col: 0 }, 0.5);
    state = withWeightEdit(state, weights, { matrix: 'wo', head: 0, row: 0, col: 1 }, 1);
    assert.deepEqual(state.custom.wq, [0, 0, 0.5, 0]);
    assert.equal(editedCells(state), 2);
    const plain = withWeightEdit({ ...base, modelBlock: null }, weights, { matrix: 'wq', head: 0, row: 1, col: 0 }, 0.25);
    assert.equal(plain.modelBlock, null);
  });
});
