// The residual stream's files (web/src/models/stream-export.mjs) with hostile token strings: every CSV
// record has its fields (an RFC 4180 reader written here), a token cell starting with = + - @ is
// neutralised with a leading ' (and quoted), line breaks never split a record, and JSON gives the
// tokens back exactly; every number reads back as the same float32.
import { it } from 'node:test';
import assert from 'node:assert/strict';

import { streamCsv, streamJson } from '../../../../web/src/models/stream-export.mjs';

// RFC 4180 records: quoted fields with "" for a quote; '#' lines are comments
function parseCsv(text) {
  const records = [];
  let field = '', record = [], quoted = false;
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (quoted) {
      if (c === '"' && text[k + 1] === '"') { field += '"'; k++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { record.push(field); field = ''; } else if (c === '\n') { record.push(field); records.push(record); record = []; field = ''; } else field += c;
  }
  return records.filter((r) => !r[0].startsWith('#'));
}

const TOKENS = ['=HYPERLINK("http://x")', '+1', '-2', '@SUM(A1)', 'a,"b"', '\u202Eevil', 'line\nbreak', ' =spaced', 'plain'];
const d = 3;
const n = TOKENS.length;
const hidden = [0, 1, 2].map((s) => Float32Array.from({ length: n * d }, (_, k) => Math.fround((k + 1) * (s + 1) * 0.1 - 0.35)));
// the last layer's state before the final norm (result.layers[1].hidden): its own numbers, not a hidden state's
const beforeNorm = Float32Array.from({ length: n * d }, (_, k) => Math.fround(k * 0.7 + 5.25));
const result = { tokens: TOKENS, ids: TOKENS.map((_, i) => i + 10), n, hidden, layers: [{ hidden: hidden[1] }, { hidden: beforeNorm }] };
// a pre-LN model's stages: the embeddings, layer 1, layer 2 before the final norm, after it
const stages = [hidden[0], hidden[1], beforeNorm, hidden[2]];
const report = { family: 'gpt2', modelType: 'gpt2', architectures: ['GPT2LMHeadModel'], layers: 2 };

it('CSV: one record per token and stage, dangerous token cells neutralised, numbers the float32s', () => {
  const records = parseCsv(streamCsv(result, report));
  const [header, ...rows] = records;
  assert.deepEqual(header, ['token index', 'token', 'id', 'stage', 'stage name', 'e1', 'e2', 'e3']);
  assert.equal(rows.length, n * stages.length);
  for (const row of rows) {
    assert.equal(row.length, 5 + d);
    const i = Number(row[0]) - 1, s = Number(row[3]);
    const token = TOKENS[i].replace(/\n/g, ' ');
    // a spreadsheet formula start (after spaces too) gets a ' first
    assert.equal(row[1], /^\s*[=+\-@]/.test(token) ? `'${token}` : token);
    assert.equal(Number(row[2]), i + 10);
    row.slice(5).forEach((v, j) => assert.equal(Math.fround(Number(v)), stages[s][i * d + j]));
  }
  assert.deepEqual(rows.slice(0, 4).map((row) => row[4]), ['embeddings', 'after layer 1', 'after layer 2 (before the final norm)', 'after the final norm (hidden state 2)']);
  assert.equal(Number(rows[2][5]), Math.fround(5.25));
});

it('JSON: the tokens exactly, every number the same float32', () => {
  const json = JSON.parse(streamJson(result, report));
  assert.deepEqual(json.tokens, TOKENS);
  assert.deepEqual(json.stages, ['embeddings', 'after layer 1', 'after layer 2 (before the final norm)', 'after the final norm (hidden state 2)']);
  assert.equal(json.hidden.length, 4);
  json.hidden.forEach((stage, s) => stage.forEach((row, i) => row.forEach((v, j) => assert.equal(Math.fround(v), stages[s][i * d + j]))));
});

it('BERT (post-LN, no final norm): the hidden states alone, the last one "after layer L"', () => {
  const json = JSON.parse(streamJson(result, { ...report, family: 'bert' }));
  assert.deepEqual(json.stages, ['embeddings', 'after layer 1', 'after layer 2']);
  json.hidden.forEach((stage, s) => stage.forEach((row, i) => row.forEach((v, j) => assert.equal(Math.fround(v), hidden[s][i * d + j]))));
});
