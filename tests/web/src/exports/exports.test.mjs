// Exports against hostile reader text: each file is read back by an independent reader (an RFC 4180
// parser written here, markdown-it for Markdown, a scanner of LaTeX's specials) and must say exactly
// what the table holds, with no formula, link, heading, HTML, code, command or comment opened.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import MarkdownIt from 'markdown-it';

import { exportTable, latexText, markdownText, csvField, PRECISIONS } from '../../../../web/src/exports/formats.mjs';
import { setPrecision } from '../../../../web/src/shared/format.mjs';

// Texts an attacker would type as a sentence, a token or a label.
const HOSTILE = [
  '=1+2', '+SUM(A1:A9)', '-2+3', '@cmd', '\t=HYPERLINK("http://evil")', '\r=x', '=cmd|" /C calc"!A0',
  'a, "quoted", and more', 'line\nbreak', 'cr\rlf\r\nend', 'u\u2028sep\u2029par', '#', '# heading', '## h2', '[link](http://evil.example)',
  '![img](http://evil.example/x.png)', '<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '`code`', '```', '    indented',
  '*em* _em_ **b**', 'a|b|c', '\\', '\\input{/etc/passwd}', '%comment', '$x^2$', '&', '~', '^', '_', '{}', 'www.evil.example',
  'https://evil.example/path', '<https://evil.example>', '1. item', '- item', '> quote', '---', '&lt;b&gt;', '\\\\\\', 'naïve café', '🙂', '👩‍👩‍👧',
  '\u200b', '', ' padded ', "didn't", '-', '−∞',
];

function hostileTable() {
  const rowLabels = HOSTILE;
  const columnLabels = ['=c1', '+c2', '-c3', '@c4', 'a,b', '#5'];
  const values = Float32Array.from({ length: rowLabels.length * columnLabels.length }, (_, i) =>
    (i % 11 === 3 ? -Infinity : (i % 2 ? -1 : 1) * (0.0489 + i * 0.37)));
  return { caption: 'Weights (softmax) (head 1)', rowLabels, columnLabels, values };
}
const hostileSettings = { sentence: HOSTILE.join(' '), context: '=2+5\n# x', dModel: 6, heads: 1, scale: '÷ 2', preset: '[x](y)' };

// RFC 4180, independently: fields separated by commas, quoted fields may hold commas, quotes ("")
// and line breaks; a line that ends inside quotes is an error.
function parseCsv(text) {
  const rows = [];
  let row = [], field = '', quoted = false, i = 0, wasQuoted = false;
  const fieldEnd = () => { row.push({ text: field, quoted: wasQuoted }); field = ''; wasQuoted = false; };
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue; }
      if (c === '"') { quoted = false; i++; assert.ok(i >= text.length || ',\n'.includes(text[i]), `text after a closing quote at ${i}`); continue; }
      field += c; i++; continue;
    }
    if (c === '"') { assert.equal(field, '', `a quote inside an unquoted field at ${i}`); quoted = true; wasQuoted = true; i++; continue; }
    if (c === ',') { fieldEnd(); i++; continue; }
    if (c === '\n') { fieldEnd(); rows.push(row); row = []; i++; continue; }
    assert.notEqual(c, '\r', `a bare carriage return at ${i}`);
    field += c; i++;
  }
  assert.equal(quoted, false, 'the file ends inside a quoted field');
  assert.equal(field, '', 'the last line has no line break');
  return rows;
}

// What a spreadsheet would run: a cell that starts with = + - @ tab or CR and is not a number.
const FORMULA_START = /^\s*[=+\-@]|^[\t\r]/;
const SPREADSHEET_NUMBER = /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;
const isFormula = (cell) => FORMULA_START.test(cell) && !SPREADSHEET_NUMBER.test(cell);
// The text a neutralised cell stands for: the ' added before a formula start comes off again.
const meant = (cell) => (cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell);
// Line breaks inside a field become spaces: one line per record.
const oneLine = (text) => String(text).replace(/\r\n|[\r\n\u2028\u2029]/g, ' ');

describe('CSV export', () => {
  const table = hostileTable();
  const csv = exportTable(table, 'csv', hostileSettings);
  const rows = parseCsv(csv);

  it('every line is valid CSV and no cell is a formula', () => {
    for (const [r, row] of rows.entries()) {
      for (const cell of row) assert.ok(!isFormula(cell.text), `line ${r + 1}: ${JSON.stringify(cell.text)} would run as a formula`);
    }
    assert.equal(csv.split('\n').length - 1, rows.length, 'no line break inside a field: one line per row');
  });

  it('fields are exactly what was meant: labels, settings and numbers (negative numbers stay numbers)', () => {
    assert.deepEqual(rows[0].map((c) => c.text), ['# Attention Lab', 'Weights (softmax) (head 1)']);
    const settingRows = rows.slice(1, 1 + Object.keys(hostileSettings).length);
    assert.deepEqual(settingRows.map((row) => [row[0].text, meant(row[1].text)]),
      Object.entries(hostileSettings).map(([k, v]) => [`# ${k}`, oneLine(v)]));
    const header = rows[1 + settingRows.length];
    assert.deepEqual(header.map((c) => meant(c.text)), ['token', ...table.columnLabels]);
    const body = rows.slice(2 + settingRows.length);
    assert.equal(body.length, table.rowLabels.length);
    body.forEach((row, r) => {
      assert.equal(row.length, table.columnLabels.length + 1, `row ${r + 1} has every column`);
      assert.equal(meant(row[0].text), oneLine(table.rowLabels[r]));
      row.slice(1).forEach((cell, c) => {
        const value = table.values[r * table.columnLabels.length + c];
        if (value === -Infinity) return assert.equal(cell.text, '−∞');
        assert.ok(SPREADSHEET_NUMBER.test(cell.text) && !cell.quoted, `row ${r + 1} column ${c + 1}: ${cell.text} is a bare number`);
        assert.equal(Math.fround(Number(cell.text)), value);
      });
    });
    assert.ok(body.some((row) => row.slice(1).some((cell) => cell.text.startsWith('-'))), 'some numbers are negative');
  });

  it('csvField: numbers bare, formula starts neutralised and quoted', () => {
    assert.equal(csvField(-0.5), '-0.5');
    assert.equal(csvField('-0.5', { number: true }), '-0.5');
    assert.equal(csvField('-0.5'), '"\'-0.5"', 'text that looks like a number is still text');
    assert.equal(csvField('=1+2'), '"\'=1+2"');
    assert.equal(csvField('a"b'), '"a""b"');
    assert.equal(csvField('plain'), 'plain');
  });
});

describe('Markdown export, read by markdown-it', () => {
  const table = hostileTable();
  const md = new MarkdownIt({ html: true, linkify: true });
  const text = exportTable(table, 'md', hostileSettings);
  const tokens = md.parse(text, {});
  const all = tokens.flatMap((t) => [t, ...(t.children ?? [])]);

  it('reader text opens no link, image, heading, HTML or code', () => {
    const forbidden = ['link_open', 'image', 'heading_open', 'html_block', 'html_inline', 'code_inline', 'code_block', 'fence',
      'blockquote_open', 'bullet_list_open', 'ordered_list_open', 'hr'];
    for (const token of all) assert.ok(!forbidden.includes(token.type), `${token.type}: ${JSON.stringify(token.content ?? '')}`);
    const html = md.render(text);
    assert.doesNotMatch(html, /<(a|img|h\d|script|code|pre)\b/);
  });

  it('the table stays one table: a header, every row, every column, the labels as typed', () => {
    assert.equal(all.filter((t) => t.type === 'table_open').length, 1);
    const rows = [];
    let cells = null;
    for (const token of tokens) {
      if (token.type === 'tr_open') cells = [];
      if (token.type === 'inline' && cells) cells.push(token.children.map((c) => c.content).join(''));
      if (token.type === 'tr_close') { rows.push(cells); cells = null; }
    }
    assert.equal(rows.length, table.rowLabels.length + 1);
    for (const row of rows) assert.equal(row.length, table.columnLabels.length + 1);
    const asShown = (label) => label.replace(/\r\n|[\r\n\u2028\u2029]/g, ' ').trim();
    assert.deepEqual(rows[0].slice(1), table.columnLabels);
    rows.slice(1).forEach((row, r) => assert.equal(row[0], asShown(table.rowLabels[r]), `row ${r + 1}`));
  });

  it('the caption line keeps the whole sentence as text', () => {
    const first = tokens.find((t) => t.type === 'inline');
    const shown = first.children.map((c) => c.content).join('');
    assert.ok(shown.includes(HOSTILE.slice(0, 5).join(' ').replace(/[\r\n\t]/g, (c) => (c === '\t' ? '\t' : ' '))) || shown.includes('=1+2 +SUM(A1:A9)'));
    assert.equal(markdownText('a\nb'), 'a b');
  });
});

describe('LaTeX export', () => {
  const table = hostileTable();
  const tex = exportTable(table, 'tex', hostileSettings);

  // A scanner of LaTeX's specials, written from the TeXbook's category codes: outside the escapes
  // this file writes, none of \ { } $ & # ^ _ % ~ may appear in reader text.
  const ESCAPES = ['\\textbackslash{}', '\\textasciitilde{}', '\\textasciicircum{}', '\\textless{}', '\\textgreater{}', '\\textbar{}',
    '\\&', '\\%', '\\$', '\\#', '\\_', '\\{', '\\}', '$-\\infty$', '$-$', '$\\infty$', '{[}', '{]}', '{}'];
  function unescapedSpecial(cell) {
    let rest = cell;
    for (const escape of ESCAPES) rest = rest.split(escape).join('');
    return rest.match(/[\\{}$&#^_%~\r\n\u2028\u2029[\]]/)?.[0] ?? null;
  }

  it('no reader text leaves a special character unescaped, and no comment or line is broken open', () => {
    for (const label of [...HOSTILE, hostileSettings.sentence]) {
      const escaped = latexText(label);
      assert.equal(unescapedSpecial(escaped), null, `${JSON.stringify(label)} → ${escaped}`);
    }
    const lines = tex.trimEnd().split('\n');
    const comments = lines.filter((line) => line.startsWith('%'));
    assert.equal(comments.length, 1 + Object.keys(hostileSettings).length, 'one comment line per setting: no line break escaped a comment');
    const body = lines.filter((line) => line.endsWith('\\\\'));
    assert.equal(body.length, table.rowLabels.length + 1);
    for (const line of body) {
      assert.doesNotMatch(line, /^\s*[[*]/, 'after the previous row\'s \\\\, a [ or * would be read as its argument');
      const cells = line.slice(0, -2).split(' & ');
      assert.equal(cells.length, table.columnLabels.length + 1, line);
      for (const cell of cells) assert.equal(unescapedSpecial(cell), null, `${line}: ${cell}`);
    }
  });

  it('escapes read back to the text: specials, line breaks as spaces, characters past Latin-1 by code point', () => {
    assert.equal(latexText('a_b & 50% #1 {x} ~ ^ \\'), 'a\\_b \\& 50\\% \\#1 \\{x\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{}');
    assert.equal(latexText('a\nb\r\nc\u2028d\u2029e'), 'a b c d e');
    assert.equal(latexText('café 🙂 ð'), 'café {[}U+1F642{]} {[}U+00F0{]}');
    assert.equal(latexText('*x'), '{}*x');
  });

  // Not a dependency of the tests: where pdflatex is installed, the hostile export must compile.
  const pdflatex = ['/usr/bin/pdflatex', '/usr/local/bin/pdflatex'].find((file) => existsSync(file));
  it('compiles with pdflatex as it is', { skip: !pdflatex && 'pdflatex is not installed' }, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'attention-lab-tex-'));
    const rows = [...HOSTILE, Array.from({ length: 96 }, (_, i) => String.fromCharCode(0xa0 + i)).join('')];
    const wide = { ...table, rowLabels: rows, values: new Float32Array(rows.length * table.columnLabels.length).fill(0.25) };
    writeFileSync(path.join(dir, 'table.tex'), exportTable(wide, 'tex', hostileSettings));
    writeFileSync(path.join(dir, 'doc.tex'), '\\documentclass{article}\n\\begin{document}\n\\input{table.tex}\n\\end{document}\n');
    execFileSync(pdflatex, ['-interaction=nonstopmode', '-halt-on-error', '-no-shell-escape', 'doc.tex'], { cwd: dir, stdio: 'pipe', timeout: 60_000 });
    assert.ok(existsSync(path.join(dir, 'doc.pdf')));
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('numbers in exports', () => {
  // float32 values whose shortest decimal is short, and random ones
  const values = [0.0489, 0.1, 1 / 3, -2.5e-8, 123456.789, 0.3, -0.7071067811865476];
  let seed = 7;
  for (let i = 0; i < 500; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    values.push((seed / 2 ** 31 - 0.5) * 10 ** ((seed % 13) - 6));
  }
  const singles = values.map(Math.fround);

  it('by default, the shortest decimal that reads back as the same float32 (0.0489, not 0.048900004)', () => {
    assert.equal(PRECISIONS.shortest(Math.fround(0.0489)), '0.0489');
    for (const v of singles) {
      const text = PRECISIONS.shortest(v);
      assert.equal(Math.fround(Number(text)), v, `${text} reads back as ${v}`);
      const digits = text.replace(/^-/, '').replace(/e.*$/, '').replace('.', '').replace(/^0+/, '').length;
      if (digits > 1) {
        // one significant digit fewer no longer reads back
        assert.notEqual(Math.fround(Number(v.toPrecision(digits - 1))), v, `${text} is not the shortest`);
      }
    }
  });

  it('full float32 precision: nine significant digits that read back; display: the lab\'s Digits (issue 26, point 6)', () => {
    assert.equal(PRECISIONS.full(Math.fround(0.0489)), '0.0489000008');
    for (const v of singles) assert.equal(Math.fround(Number(PRECISIONS.full(v))), v);
    const table = { caption: 'T', rowLabels: ['a'], columnLabels: ['x', 'y'], values: Float32Array.from([0.0489, -1 / 3]) };
    assert.match(exportTable(table, 'csv', {}, { precision: 'full' }), /^a,0\.0489000008,-0\.333333343$/m);
    assert.match(exportTable(table, 'csv', {}), /^a,0\.0489,-0\.33333334$/m);
    try {
      // 4 significant digits, as the lab shows by default; then 6; then every float32 digit
      assert.equal(setPrecision(4), 4);
      assert.equal(PRECISIONS.display(Math.fround(0.0489)), '0.0489');
      assert.match(exportTable(table, 'csv', {}, { precision: 'display' }), /^a,0\.0489,-0\.3333$/m);
      assert.deepEqual(JSON.parse(exportTable(table, 'json', {}, { precision: 'display' })).values, [[0.0489, -0.3333]]);
      assert.equal(PRECISIONS.display(Math.fround(1.68e-7)), '1.68e-7', 'plain notation a spreadsheet reads');
      setPrecision(6);
      assert.match(exportTable(table, 'csv', {}, { precision: 'display' }), /^a,0\.0489,-0\.333333$/m);
      setPrecision(0);
      assert.match(exportTable(table, 'csv', {}, { precision: 'display' }), /^a,0\.0489,-0\.33333334$/m);
    } finally {
      setPrecision(4);
    }
  });

  it("format and precision names are looked up as own names: 'toString' is unknown", () => {
    const table = { caption: 'T', rowLabels: ['a'], columnLabels: ['x'], values: Float32Array.from([1]) };
    for (const name of ['toString', '__proto__', 'constructor', 'valueOf']) {
      assert.throws(() => exportTable(table, name, {}), /unknown export format/);
      assert.throws(() => exportTable(table, 'csv', {}, { precision: name }), /unknown precision/);
    }
  });
});
