// Writes dist/attention-lab.html: dist/index.html with its stylesheet and a bundle of
// web/src/hosts/single.mjs (engine, both WebAssembly builds, the page) inlined. Run by build.sh.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (name) => path.join(root, 'dist', name);
const [bundleFile] = process.argv.slice(2);

const page = readFileSync(dist('index.html'), 'utf8');
const css = readFileSync(dist('styles.css'), 'utf8');
// "</script" inside the code would end the element early; "<\/script" means the same to JavaScript
const js = readFileSync(bundleFile, 'utf8').replace(/<\/script/gi, '<\\/script');

const early = '<script src="lang-early.js"></script>';
const earlyCode = readFileSync(dist('lang-early.js'), 'utf8');
const stylesheet = '<link rel="stylesheet" href="styles.css">';
const script = '<script type="module" src="main.js"></script>';
if (!page.includes(stylesheet) || !page.includes(script) || !page.includes(early)) throw new Error('index.html no longer has the tags single-file.mjs replaces');
const single = page
  .replace(stylesheet, () => `<style>\n${css}</style>`)
  .replace(early, () => `<script>\n${earlyCode}</script>`)
  .replace(script, () => `<script type="module">\n${js}</script>`)
  // the icon inside too (a data: address): a page served with no icon link is asked /favicon.ico
  .replace('href="favicon.svg"', () => `href="data:image/svg+xml,${encodeURIComponent(readFileSync(dist('favicon.svg'), 'utf8'))}"`)
  .replace(/ {2}<link rel="modulepreload"[^>]*>\n/g, '')
  // the single file works from disk: no notice that it needs a server
  .replace(/ {2}<script src="file-notice\.js" defer><\/script>\n/, '')
  .replace('<title>Attention Lab: self-attention step by step</title>', '<title>Attention Lab (single file): self-attention step by step</title>');
writeFileSync(dist('attention-lab.html'), single);
console.log(`single file: dist/attention-lab.html (${(single.length / 1024).toFixed(0)} KB)`);
