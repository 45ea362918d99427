// The Python package in a notebook, as a course author would use it: the wheel `npm run pack` builds
// (scripts/wheel.sh), installed into a fresh venv of Debian's Python (--system-site-packages: numpy
// and torch as Debian ships them), a notebook executed by Debian's `jupyter nbconvert --execute`,
// and the HTML it wrote opened in Chromium, where each lab, an iframe of the single file (srcdoc),
// must show the numbers of the notes (002, 'The cat sat', W = I):
//   the scores of 'sat' are [2, 2, 4] / √4, so its weights are softmax([1, 1, 2]) = 0.2119, 0.2119, 0.5761,
//   and the row of 'The' is softmax([1, 0, 1]) = 0.4223, 0.1554, 0.4223.
// Uses the dist/ the suite has just built (scripts/test.sh).
import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { openBrowser } from './browser.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-notebook-'));
const PYTHON = process.env.PYTHON || '/usr/bin/python3';

const SAT = [0.2119, 0.2119, 0.5761];
const THE = [0.4223, 0.1554, 0.4223];
// text that would be markup if it reached the page as such
const HOSTILE = '</script><b id="pwn">x</b> & "quoted" \' <!--';

// The notebook's cells. X is typed from the notes, not computed by the lab; the attention weights
// given to show_attention are computed by PyTorch.
const CELLS = [
  `import attention_lab, numpy as np, torch
X = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]]   # The, cat, sat (notes 002)
tokens = ["The", "cat", "sat"]`,
  'attention_lab.show(preset="telescope", view="steps,heatmap")',
  `x = torch.tensor(X, dtype=torch.float32)
weights = torch.softmax(x @ x.T / 2, dim=-1)        # softmax(Q Kᵀ / √d_k), W = I
attentions = (weights[None, None], weights.flip(0)[None, None])   # 2 layers of (batch 1, 1 head, 3, 3)
attention_lab.show_attention(attentions, ["[CLS]", "cat", "sat"], view="steps,heatmap")`,
  'a = np.array(X, dtype=np.float32)\nattention_lab.show_layer(a, a, a, tokens=tokens)',
  `attention_lab.show(sentence=${JSON.stringify(HOSTILE)}, view="tokens")`,
  // x and weights, two heads (x @ w, head h in columns 2h, 2h + 1): W = I, d_k = 2
  'eye = np.eye(4)\nattention_lab.show_layer(x=a, wq=eye, wk=eye, wv=eye, heads=2, tokens=tokens)',
];

// Bad input, in the venv's Python: each call and the words its message must hold.
const BAD_INPUT = [
  ['attention_lab.show_attention([[0.5, 0.6], [0.5, 0.5]], ["a", "b"])', 'ValueError', 'head 1, row 1'],
  ['attention_lab.show_attention([[0.5, 0.5], [0.5, 0.5]], ["a"])', 'ValueError', 'tokens has 1 entries'],
  ['attention_lab.show_attention([[[0.5, 0.5], [1.0]]], ["a", "b"])', 'ValueError', 'ragged'],
  ['attention_lab.show_attention((torch.ones(1, 1, 2, 2) / 2,), ["a", "b"], layer=3)', 'ValueError', 'layer must be'],
  ['attention_lab.show_layer([[1.0, float("nan")]], [[1.0, 0.0]], [[1.0]])', 'ValueError', 'q holds nan'],
  ['attention_lab.show_layer([[1.0, 0.0]], [[1.0]], [[1.0]])', 'ValueError', 'k has 1 columns; expected 2'],
  ['attention_lab.show_layer(x=[[1.0, 2.0, 3.0]], wq=np.eye(3), wk=np.eye(3), wv=np.eye(3), heads=2)', 'ValueError', 'wq has 3 columns'],
  ['attention_lab.show_attention(np.full((1, 65, 65), 1 / 65), ["w"] * 65)', 'ValueError', 'at most 64 tokens'],
  ['attention_lab.show(preset=3)', 'TypeError', 'preset must be a string'],
  ['attention_lab.show(height=10)', 'ValueError', 'height must be'],
];

function notebook() {
  const cell = (source) => ({ cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source });
  return { nbformat: 4, nbformat_minor: 5, metadata: { kernelspec: { name: 'attention-lab-venv', display_name: 'venv', language: 'python' } }, cells: CELLS.map(cell) };
}

let browser;
let frames;
let tab;
let badInput;
before(async () => {
  const run = (command, args, env = {}) => execFileSync(command, args, { cwd: scratch, stdio: 'pipe', env: { ...process.env, ...env } });
  run('bash', [path.join(root, 'scripts/wheel.sh'), path.join(scratch, 'wheel')]);
  const wheel = path.join(scratch, 'wheel', readdirSync(path.join(scratch, 'wheel')).find((name) => name.endsWith('.whl')));
  const venv = path.join(scratch, 'venv');
  run(PYTHON, ['-m', 'venv', '--system-site-packages', venv]);
  run(path.join(venv, 'bin/python'), ['-m', 'pip', 'install', '--no-index', '--no-deps', '--quiet', wheel]);
  // a kernel that runs the venv's Python (Debian's own "python3" kernel runs /usr/bin/python3)
  run(path.join(venv, 'bin/python'), ['-m', 'ipykernel', 'install', '--prefix', venv, '--name', 'attention-lab-venv']);
  writeFileSync(path.join(scratch, 'week3.ipynb'), JSON.stringify(notebook()));
  run('jupyter', ['nbconvert', '--to', 'html', '--execute', 'week3.ipynb'], { JUPYTER_PATH: path.join(venv, 'share/jupyter') });
  const check = BAD_INPUT.map(([call, kind, words]) => `try:
    ${call}
    raise SystemExit("no error: " + ${JSON.stringify(call)})
except ${kind} as error:
    if ${JSON.stringify(words)} not in str(error): raise SystemExit(f"{str(error)!r} lacks " + ${JSON.stringify(words)})
`).join('');
  badInput = run(path.join(venv, 'bin/python'), ['-c', `import attention_lab, numpy as np, torch\n${check}print("all refused")`]).toString();
  browser = await openBrowser({ dir: scratch });
  tab = await browser.newPage();
  await tab.page.goto(`${browser.url}week3.html`);
  await tab.page.waitForFunction(() => document.querySelectorAll('iframe').length === 5);
  frames = [];
  for (const element of await tab.page.$$('iframe')) {
    const frame = await element.contentFrame();
    await frame.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle, null, { timeout: 20000 });
    frames.push(frame);
  }
});
after(async () => {
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const near = (found, expected, what) => found.forEach((w, i) => assert.ok(Math.abs(w - expected[i]) <= 5e-5, `${what}[${i}]: ${w} vs ${expected[i]}`));
const row = (frame, head, i) => frame.evaluate(([h, r]) => {
  const { weights } = globalThis.attentionLab.result.heads[h];
  const n = Math.sqrt(weights.length);
  return Array.from(weights.subarray(r * n, (r + 1) * n));
}, [head, i]);

// The step table of the weights of head 1, as text: one array of cells per row.
const shownRows = (frame) => frame.$$eval('[data-slot="head-0-weights"] tbody tr', (trs) => trs.map((tr) => Array.from(tr.cells).slice(1).map((c) => c.textContent)));

it('show(preset="telescope", view="steps,heatmap") opens that example with those views only', async () => {
  const { preset, shown } = await frames[0].evaluate(() => ({
    preset: globalThis.attentionLab.state.preset,
    shown: [...document.querySelectorAll('[data-view]')].filter((s) => !s.hidden).map((s) => s.dataset.view),
  }));
  assert.equal(preset, 'telescope');
  // the heatmap is drawn inside the pictures' section
  assert.deepEqual(shown.sort(), ['heatmap', 'pictures', 'steps']);
});

it('show_attention takes a Hugging Face–shaped tuple of PyTorch tensors: the heatmap shows the notes\' weights', async () => {
  near(await row(frames[1], 0, 2), SAT, 'sat');
  near(await row(frames[1], 0, 0), THE, 'The');
  // the weights table as a reader sees it, and the tokens cleaned as the lab's ("[CLS]" → "CLS")
  assert.deepEqual((await shownRows(frames[1]))[2].slice(0, 3), SAT.map((w) => w.toPrecision(4)));
  assert.deepEqual(await frames[1].evaluate(() => globalThis.attentionLab.state.inputs.tokens), ['CLS', 'cat', 'sat']);
});

it('show_layer(q, k, v) with numpy arrays computes the notes\' weights in the lab', async () => {
  near(await row(frames[2], 0, 2), SAT, 'sat');
  near(await row(frames[2], 0, 0), THE, 'The');
  assert.deepEqual((await shownRows(frames[2]))[0].slice(0, 3), THE.map((w) => w.toPrecision(4)));
  assert.deepEqual(await frames[2].evaluate(() => globalThis.attentionLab.state.inputs.tokens), ['The', 'cat', 'sat']);
});

it('text given in Python reaches the lab as text, never as markup', async () => {
  assert.equal(await frames[3].evaluate(() => globalThis.attentionLab.state.sentence), HOSTILE);
  assert.equal(await frames[3].evaluate(() => document.getElementById('pwn')), null);
  assert.equal(await tab.page.evaluate(() => document.getElementById('pwn')), null);
  // each lab in an origin of its own, not the notebook's
  const sandboxes = await tab.page.$$eval('iframe', (frames) => frames.map((f) => f.getAttribute('sandbox')));
  assert.ok(sandboxes.every((s) => s.includes('allow-scripts') && !s.includes('allow-same-origin')), sandboxes.join(' | '));
  // the only problems on the page: nbconvert's template asks a CDN for require.js and MathJax (blocked here)
  assert.deepEqual(tab.problems.filter((p) => !/ERR_FAILED|Failed to load resource|require|MathJax/i.test(p)), []);
  assert.ok(tab.foreignRequests.every((url) => /cdnjs|jsdelivr|unpkg|mathjax/i.test(url)), tab.foreignRequests.join(' '));
});

it('show_layer(x=…, wq=…, heads=2) splits the columns into heads as x @ w: each head\'s weights match a float64 reference', async () => {
  const X = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]];
  for (const head of [0, 1]) {
    const part = X.map((r) => r.slice(2 * head, 2 * head + 2));
    for (let i = 0; i < 3; i++) {
      const scores = part.map((k) => (part[i][0] * k[0] + part[i][1] * k[1]) / Math.SQRT2);
      const top = Math.max(...scores);
      const e = scores.map((s) => Math.exp(s - top));
      const sum = e.reduce((a, b) => a + b, 0);
      near(await row(frames[4], head, i), e.map((v) => v / sum), `head ${head + 1}, row ${i + 1}`);
    }
  }
});

it('bad input in Python is refused with a message naming the argument', () => {
  assert.match(badInput, /all refused/);
});

it('the single file refuses a settings element that is not an object of texts, says so, and opens without it', async () => {
  const page = readFileSync(path.join(root, 'dist/attention-lab.html'), 'utf8')
    .replace('</head>', '<script type="application/json" id="attention-lab-settings">{"view": ["steps"]}</script></head>');
  writeFileSync(path.join(scratch, 'bad-settings.html'), page);
  const bad = await browser.newPage();
  await bad.page.goto(`${browser.url}bad-settings.html`);
  await bad.page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
  assert.match(await bad.page.evaluate(() => document.body.innerText), /#attention-lab-settings\) are not a JSON object of texts/);
  assert.equal(await bad.page.evaluate(() => globalThis.attentionLab.state.preset), 'cat-sat', 'the default example');
  assert.deepEqual(bad.problems, []);
  await bad.page.close();
});
