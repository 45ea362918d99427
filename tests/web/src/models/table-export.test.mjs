// Real models' tables as files (review 10, findings D and G): file names from a model's name (reader
// text: [a-z0-9-] only), the guesses' table through the lab's CSV writer, and a head's weights written
// by one rule (× 10ⁿ under 0.001). Expected texts written by hand.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { fileStem, guessesTable, settingsFor, weightsTable } from '../../../../web/src/models/table-export.mjs';
import { exportTable, markdownText } from '../../../../web/src/exports/formats.mjs';
import { weightText } from '../../../../web/src/models/view.mjs';
import { setPrecision } from '../../../../web/src/shared/format.mjs';

describe('models: tables as files', () => {
  it('a model\'s name keeps only a-z, 0-9 and - in a file name', () => {
    assert.equal(fileStem('qwen2'), 'qwen2');
    assert.equal(fileStem('Qwen2'), 'qwen2');
    assert.equal(fileStem('../<b>x</b>\u202e.exe'), 'b-x-b-exe');
    assert.equal(fileStem('模型'), 'model');
    assert.equal(fileStem(undefined), 'model');
  });

  it('the guesses as CSV: id and probability, a token and a sentence that start with = made safe', () => {
    const table = guessesTable([{ id: 387, token: '=cmd', probability: 0.25 }, { id: 29, token: 'Ġcat', probability: Math.fround(0.1) }], 'next', (t) => t.replace('Ġ', '·'));
    const csv = exportTable(table, 'csv', settingsFor({ model: 'qwen2', sentence: '=1+1 <b>x</b>\u2067' }));
    assert.equal(csv, '# Attention Lab,next\n# model,qwen2\n# sentence,"\'=1+1 <b>x</b>"\ntoken,id,probability\n"\'=cmd",387,0.25\n·cat,29,0.1\n');
  });

  it('a head\'s weights as Markdown: the tokens escaped, each weight the shortest float32', () => {
    const md = exportTable(weightsTable(Float32Array.of(1, 0, 0.25, 0.75), ['<b>', 'x'], 'w'), 'md', settingsFor({ model: 'bert', sentence: 's' }, { layer: 1, head: 2 }));
    // the settings' line as the lab's Markdown writes it (exports/formats.mjs: its own escaping)
    assert.equal(md, `**w** (${markdownText('model: bert; sentence: s; layer: 1; head: 2')})\n\n| token | \\<b\\> | x |\n|---|---:|---:|\n| \\<b\\> | 1 | 0 |\n| x | 0.25 | 0.75 |\n`);
  });

  it('a weight under 0.001 always as × 10ⁿ, at the lab\'s digits (review 10, finding G\'s row)', () => {
    setPrecision(4);
    assert.deepEqual([8.706e-8, 0.0004411, 2.368e-8, 0.05806, 1.66e-6, 0.3046, 0.000003084, 0, 1].map(weightText),
      ['8.706 × 10⁻⁸', '4.411 × 10⁻⁴', '2.368 × 10⁻⁸', '0.05806', '1.66 × 10⁻⁶', '0.3046', '3.084 × 10⁻⁶', '0', '1']);
  });
});
