// Writes dist/file-notice.js: web/file-notice.js with the sentence page.needsServer of every
// catalogue written in (a classic script cannot import the catalogues). Run by build.sh.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EN } from '../web/src/i18n/en.mjs';
import { HI } from '../web/src/i18n/hi.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const template = readFileSync(path.join(root, 'web/file-notice.js'), 'utf8');
const marker = /\/\* MESSAGES \*\/ \{[^\n]*\};/;
if (!marker.test(template)) throw new Error('web/file-notice.js has no /* MESSAGES */ line to fill');
const messages = { en: EN['page.needsServer'], hi: HI['page.needsServer'] };
const json = JSON.stringify(messages).replace(/</g, '\\u003c');
writeFileSync(path.join(root, 'dist/file-notice.js'), template.replace(marker, () => `/* MESSAGES */ ${json};`));
console.log('file notice: dist/file-notice.js');
