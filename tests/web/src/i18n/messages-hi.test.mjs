// The Hindi catalogue against the English one: every key, the same {slots}, the same symbols, Devanagari
// text, and no English word left in it outside the terms the Hindi keeps (KEPT_IN_ENGLISH).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { EN } from '../../../../web/src/i18n/en.mjs';
import { HI, KEPT_IN_ENGLISH } from '../../../../web/src/i18n/hi.mjs';

// The keys whose Hindi is the English itself, and why. Nothing else may be left as it is.
const SAME_AS_ENGLISH = {
  // formulas and symbols: the formula strip, the divisor, the arithmetic's label
  'walk.stage.x': 'a matrix name', 'walk.stage.qkv': 'a formula', 'walk.stage.scores': 'a formula',
  'walk.stage.scaled': 'a formula', 'walk.stage.weights': 'softmax, a kept term', 'walk.stage.z': 'a formula',
  'walk.stage.concat': 'a formula', 'walk.stage.output': 'a formula', 'walk.formula': 'the formulas of the paper',
  'walk.stage.rope': 'a formula', 'walk.formulaRope': 'the formulas of the paper, with RoPE',
  'explain.why.sqrt_dk': 'a formula', 'walk.arithmeticOf': 'a slot and a colon',
  // the tables' names: matrix letters, and the terms the formulas name them by
  'table.x': 'a matrix name', 'table.context': 'a matrix name', 'table.q': 'a matrix name', 'table.k': 'a matrix name',
  'table.v': 'a matrix name', 'table.z': 'a matrix name', 'table.wq': 'a matrix name', 'table.wk': 'a matrix name',
  'table.wv': 'a matrix name', 'table.wo': 'a matrix name',
  'table.scores': 'kept term', 'table.weights': 'kept term', 'table.concat': 'kept term',
  // the sizes' labels are the formulas' symbols (d_model, d_k, d_v), in messages too
  'controls.dModel': 'a symbol', 'controls.dK': 'a symbol', 'controls.dV': 'a symbol',
  // [models] the stream's parts table: the sums as formulas
  'models.streamPart.pre.computed': 'a formula', 'models.streamPart.post.computed': 'a formula', 'models.streamPart.post.norm1': 'a formula',
  // a control's label that is a kept term alone (the course's own word for the setting)
  'train.learningRate': 'kept term', 'train.optimizer': 'kept term', 'train.seed': 'kept term',
  'train.positions': 'kept term', 'train.parameter.embeddings': 'kept term', 'train.head': 'kept term and a number',
  'layers.layer': 'kept term', 'layers.heads': 'kept term', 'layers.layerOption': 'slots and d_model',
  // [i18n] the page's own keys: the product's name, settings that are a kept term alone, and tables'
  // captions made of matrix names, kept terms and sizes
  'page.name': "the product's name",
  // [models] the norms' names alone (LayerNorm, RMSNorm), as papers and transformers write them
  'models.norm.layernorm': "a norm's name", 'models.norm.rmsnorm': "a norm's name",
  // [models] a heatmap's caption, as the lab's own (train.head, caption.head): one word for head in Hindi (review 6)
  'models.head': 'kept term and a number',
  // [flash] the chapter's table: a kept term alone, and a formula
  'flash.col.tile': 'kept term', 'flash.col.keys': 'kept term', 'flash.col.rescale': 'a formula',
  'kv.col.token': 'kept term', 'kv.col.position': 'kept term',
  // [rope] the pair table's formulas and symbols, kept terms alone
  'rope.col.pair': 'a formula', 'rope.col.rate': 'a formula', 'rope.col.cos': 'a symbol', 'rope.col.sin': 'a symbol',
  // [gqa] the chapter's controls and columns: kept terms alone, the kinds of attention by their abbreviations
  'gqa.heads': 'kept terms', 'gqa.kvHeads': 'kept terms', 'gqa.dHead': 'a symbol', 'gqa.col.kvHead': 'kept terms', 'gqa.cache.kvHeads': 'kept terms',
  'gqa.kind.mha': 'an abbreviation', 'gqa.kind.gqa': 'an abbreviation', 'gqa.kind.mqa': 'an abbreviation', 'gqa.model.layers': 'kept term',
  'gqa.model.heads': 'kept terms', 'gqa.model.kvHeads': 'kept terms', 'gqa.model.dHead': 'a symbol',
  'rope.col.rotated': 'kept term', 'rope.col.key': 'kept term', 'rope.key': 'kept terms', 'rope.compare.models.rotary': "the models' names",
  'controls.attention': 'kept term', 'controls.attention.self': 'kept term', 'controls.attention.cross': 'kept term',
  'controls.heads': 'kept term', 'controls.scaleMode': 'kept term', 'controls.maskMode': 'kept term',
  'controls.mask.causal': 'kept term', 'controls.mask.padding': 'kept term', 'controls.weightsMode': 'kept term',
  'controls.weights.identity': 'kept term and a formula', 'controls.seed': 'kept term', 'controls.positions': 'kept term',
  'export.format.tex': 'a format', 'export.setting.identity': 'kept term', 'export.caption.perHead': 'slots and kept term',
  'section.parameters': 'kept term and matrix names', 'section.headTabs': 'kept term',
  'pictures.queries': 'kept term', 'pictures.keys': 'kept term',
  'caption.x': 'matrix name, sizes', 'caption.xQueries': 'matrix name, sizes, kept term', 'caption.weightBlock': 'matrix names, sizes',
  'caption.woBlock': 'matrix name, sizes', 'caption.perHead': 'slots and kept term', 'caption.scores': 'kept term and a formula',
  'caption.weights': 'kept terms', 'caption.z': 'a formula', 'caption.concat': 'kept term and a formula',
  'caption.output': 'a formula', 'caption.head': 'kept term and a number',
  'train.optimizer.sgd': "an optimiser's name", 'train.positions.sinusoidal': 'kept term', 'layers.layout.gpt2': "a model's name", 'layers.layout.pytorch': "a library's name", 'layers.mask.padding': 'kept term',
  // practice mode: its formulas, a verdict's "blank: problem", and the teacher's choices that are kept terms
  'practice.formula.q': 'a formula', 'practice.formula.scores': 'a formula', 'practice.formula.scaled': 'a formula',
  'practice.why.sqrtDk': 'a formula', 'practice.verdict.blankFormat': 'slots and a colon',
  'practice.teacher.query': 'kept terms', 'practice.teacher.key': 'kept terms', 'practice.teacher.head': 'kept term',
  // [blocks] the norms' placements by their names and a model's, a layer's number
  'blocks.norm.pre': "a placement's name and a model's", 'blocks.norm.post': "a placement's name and a model's",
  'blocks.layerOption': 'kept term and a number',
  // the SCORM package: a standard's name and number
  'practice.scorm.v12': "a standard's name",
  // Real models: a message that is the file's problem alone (the file's name and what is wrong)
  'contents.flash': "a method's name", 'contents.kvCache': "a method's name", 'contents.rope': "a method's name", 'contents.gqa': "a method's name",
  'models.problem': 'a slot alone', 'models.cellTip': 'kept terms and slots', 'models.nextToken': 'kept term', 'models.nextId': 'kept term',
};

const DEVANAGARI = /[\u0900-\u097F]/;
// Each text of a key as [name, Hindi, English]: one for a sentence; one per form of a plural (against
// the English form of the same category, else its 'other').
function textsOf(key) {
  const [hi, en] = [HI[key], EN[key]];
  if (typeof hi === 'string') return [[key, hi, en]];
  return Object.entries(hi).filter(([form]) => form !== 'plural')
    .map(([form, text]) => [`${key} (${form})`, text, typeof en === 'object' ? en[form] ?? en.other : en]);
}
const TEXTS = () => Object.keys(EN).filter((key) => Object.hasOwn(HI, key)).flatMap(textsOf);
const slotsOf = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
// symbols of the formulas, which the Hindi keeps as they are, as often as the English has them
const SYMBOLS = ['√', '∞', '−', 'ᵀ', '·', '×', 'Σ', '→', '←', '÷', '₁', '|', '…', '%', '='];
const count = (text, symbol) => text.split(symbol).length - 1;

/** The Latin-letter words of a Hindi string that are words, not symbols: slots, quoted example words
 *  ('it', “The dog…”, "tokens") and names with digits, underscores or ᵀ (W_q, GPT-2, head₁, QKᵀ) are left out. */
function latinWords(text) {
  const prose = text
    .replace(/\{\w+\}/g, ' ')
    .replace(/“[^”]*”/g, ' ')
    .replace(/"[^"]*"/g, ' ')
    .replace(/'[^'\s][^']*'/g, ' ')
    .replace(/\[PAD\]/g, ' ');
  return [...prose.matchAll(/[A-Za-z][A-Za-z0-9_\-ᵀ₀-₉]*/g)].map((m) => m[0])
    .filter((word) => word.length > 1 && !/[0-9_₀-₉ᵀ]/.test(word));
}

describe('Hindi catalogue (i18n/hi.mjs)', () => {
  it('has every English key, and no key English lacks', () => {
    const missing = Object.keys(EN).filter((key) => !Object.hasOwn(HI, key));
    const extra = Object.keys(HI).filter((key) => !Object.hasOwn(EN, key));
    assert.deepEqual(missing, [], `keys with no Hindi: ${missing.join(', ')}`);
    assert.deepEqual(extra, [], `Hindi keys English lacks: ${extra.join(', ')}`);
    assert.ok(Object.keys(EN).length > 150, 'the English catalogue is read in full');
  });

  it('fills the same {slots} as the English, each as often', () => {
    for (const [key, hi, en] of TEXTS()) {
      assert.deepEqual(slotsOf(hi), slotsOf(en), `slots of ${key}: "${hi}"`);
    }
  });

  it('keeps the symbols of the formulas, each as often as the English', () => {
    for (const [key, hi, en] of TEXTS()) {
      for (const symbol of SYMBOLS) {
        assert.equal(count(hi, symbol), count(en, symbol), `"${symbol}" in ${key}: "${hi}"`);
      }
    }
  });

  it('is Hindi: Devanagari in every string not allowed to stay English, and only those equal the English', () => {
    for (const key of Object.keys(EN)) {
      if (Object.hasOwn(SAME_AS_ENGLISH, key)) continue;
      for (const [name, hi, en] of textsOf(key)) {
        assert.notEqual(hi, en, `${name} is still the English`);
        assert.match(hi, DEVANAGARI, `${name} has no Devanagari: "${hi}"`);
      }
    }
  });

  it('allows only keys that exist and are really the same as the English (no stale entry)', () => {
    for (const key of Object.keys(SAME_AS_ENGLISH)) {
      assert.ok(Object.hasOwn(EN, key), `${key} is not an English key`);
      assert.equal(HI[key], EN[key], `${key} is allowed to stay English but differs; drop it from the list`);
    }
  });

  it('leaves no English word outside the kept terms', () => {
    const kept = new Set(KEPT_IN_ENGLISH);
    const left = [];
    for (const [key, hi] of TEXTS()) {
      for (const word of latinWords(hi)) if (!kept.has(word.toLowerCase())) left.push(`${key}: ${word}`);
    }
    assert.deepEqual(left, []);
  });

  it('finds English left in a string (the check above can fail)', () => {
    const kept = new Set(KEPT_IN_ENGLISH);
    const unkept = (text) => latinWords(text).filter((word) => !kept.has(word.toLowerCase()));
    assert.deepEqual(unkept("'{token}' की पंक्ति पर softmax, then the sum of W_q"), ['then', 'the', 'sum', 'of']);
    assert.deepEqual(unkept("“The dog didn't cross” में 'it' और [PAD]"), []);
  });

  it('starts the Layers heading with a Hindi word, not the English label "Layers:" (review 9, finding 7)', () => {
    for (const key of ['blocks.title', 'blocks.titleModel', 'blocks.titleModelTyped']) {
      assert.match(HI[key], /^[\u0900-\u097F]/, `${key}: "${HI[key]}"`);
      assert.doesNotMatch(HI[key], /^Layers\b/, key);
    }
  });

  it('writes numbers in Western digits', () => {
    for (const [key, hi] of TEXTS()) assert.doesNotMatch(hi, /[०-९]/, `${key} has Devanagari digits`);
  });

  it('lists each kept term once, in lower case', () => {
    assert.equal(new Set(KEPT_IN_ENGLISH).size, KEPT_IN_ENGLISH.length);
    for (const term of KEPT_IN_ENGLISH) assert.equal(term, term.toLowerCase());
  });
});

describe('Hindi catalogue: the word for model', () => {
  it('writes “मॉडल”, never the Latin “model” in running Hindi (review 7, finding 7): only file names and code names keep it (model.safetensors, d_model, {model})', () => {
    const latin = [];
    for (const [key, hi] of TEXTS()) {
      for (const match of hi.matchAll(/(?<![\w{_.\-/])models?(?![\w}_.\-/])/giu)) latin.push(`${key}: …${hi.slice(Math.max(0, match.index - 20), match.index + 20)}…`);
    }
    assert.deepEqual(latin, []);
    assert.match(HI['blocks.titleModel'], /\{model\} मॉडल की/u);
    assert.match(HI['models.intro'], /model\.safetensors/u);
  });
});
