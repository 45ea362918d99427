// Adds <link rel="modulepreload"> for every shared chunk (but the lazy ones) to dist/index.html and dist/embed.html, so
// the browser fetches them beside the entry script rather than after it has parsed it. Run by build.sh.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
// the tokenizer of "Real models" (web/src/models/tokenizer.mjs) is imported only when a model folder
// is opened: not preloaded
const LAZY = /^tokenizers-/;
const chunks = readdirSync(path.join(dist, 'chunks')).filter((name) => name.endsWith('.js') && !LAZY.test(name));
for (const page of ['index.html', 'embed.html']) {
  const file = path.join(dist, page);
  const html = readFileSync(file, 'utf8');
  const links = chunks.map((name) => `  <link rel="modulepreload" href="chunks/${name}">\n`).join('');
  const anchor = html.indexOf('  <script type="module"');
  if (anchor < 0) throw new Error(`${page} has no module script to put the preloads before`);
  writeFileSync(file, html.slice(0, anchor) + links + html.slice(anchor));
}
