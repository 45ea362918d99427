// The types say what the docs say: every ```js and ```ts example of docs/api.md, docs/embedding.md and
// the README, each as a module of its own, compiles with `tsc --strict --noEmit` against the package's own types,
// found as a consumer finds them: `attention-lab` resolved through package.json "exports" (its
// "types" conditions, dist/lib/attention.d.ts and dist/npm/component.d.ts, as the suite built them).
// The docs' placeholders (x, n, dModel, wq, …: "Float32Array or number[]") are declared once, with
// the types the docs give them; './lib/attention.mjs' (the folder copied beside a page) is 'attention-lab'.
import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-types-'));

const PLACEHOLDERS = `// the names docs/api.md uses for "your data" (a script: global)
declare const x: Float32Array, context: Float32Array, out: Float32Array;
declare const n: number, m: number, dModel: number, heads: number, dK: number, dV: number, seed: number;
declare const wq: Float32Array, wk: Float32Array, wv: Float32Array, wo: Float32Array;
declare const bq: Float32Array, bk: Float32Array, bv: Float32Array, bo: Float32Array;
declare const scale: 'sqrt_dk' | 'none' | number, mask: 'none' | 'causal';
declare const dOutput: Float32Array, dWeights: Float32Array;
declare const request: import('attention-lab').AttentionOptions;
declare const heldOut: import('attention-lab').TrainingExample[];
declare const engine: import('attention-lab').AttentionEngine, learner: import('attention-lab').AttentionEngine;
`;

/** The ```js and ```ts blocks of a Markdown file: { name, code }. */
function examples(file) {
  const text = readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(/^```(js|ts)\n([\s\S]*?)^```/gm)].map((match) => ({
    name: `${file}:${text.slice(0, match.index).split('\n').length}`,
    language: match[1],
    code: match[2].replaceAll("'./lib/attention.mjs'", "'attention-lab'"),
  }));
}

const blocks = [...examples('README.md'), ...examples('docs/api.md'), ...examples('docs/embedding.md')];
let output = '';
let status = 0;

before(() => {
  // the package as a consumer's node_modules holds it
  mkdirSync(path.join(scratch, 'node_modules'));
  symlinkSync(root, path.join(scratch, 'node_modules/attention-lab'), 'dir');
  writeFileSync(path.join(scratch, 'placeholders.d.ts'), PLACEHOLDERS);
  const files = blocks.map((block, i) => {
    // a js example is checked as JavaScript (its JSDoc types count), a ts one as TypeScript
    const name = `example-${i}.${block.language}`;
    writeFileSync(path.join(scratch, name), `// ${block.name}\n${block.code}\nexport {};\n`);
    return name;
  });
  writeFileSync(path.join(scratch, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, allowJs: true, checkJs: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler',
      lib: ['es2022', 'dom', 'dom.iterable'], types: [], noUnusedLocals: false,
    },
    // the component's types in every example: its global tag and event maps
    files: ['placeholders.d.ts', 'node_modules/attention-lab/dist/npm/component.d.ts', ...files],
  }));
  try {
    output = execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', scratch], { cwd: scratch, encoding: 'utf8' });
  } catch (error) {
    status = error.status;
    output = `${error.stdout}${error.stderr}`;
  }
});
after(() => rmSync(scratch, { recursive: true, force: true }));

it('finds the examples: README\'s two, docs/api.md\'s three and docs/embedding.md\'s', () => {
  assert.ok(blocks.length >= 7, blocks.map((b) => b.name).join(', '));
});

it('tsc --strict --noEmit compiles every example against the package\'s types', () => {
  // which example each error is in, by its file
  const named = output.replace(/example-(\d+)\.[jt]s/g, (_, i) => blocks[Number(i)].name);
  assert.equal(status, 0, named);
});
