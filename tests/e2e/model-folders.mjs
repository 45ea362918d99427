// The Hugging Face folders of ../shared/models as the models tests give them to the page
// (tests/e2e/models*.test.mjs): where each is, its files for the page's file input (reference.json
// left out), its reference.json, and a folder opened and run through the page's own controls.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

import { MODELS } from '../web/src/models/copies.mjs';

/** Whether the folders are there (the tests that need them are skipped otherwise). */
export const haveModels = existsSync(new URL('gpt2/reference.json', MODELS));
export const dirOf = (name) => fileURLToPath(new URL(name, MODELS));
export const filesOf = (dir) => readdirSync(dir).filter((name) => name !== 'reference.json').map((name) => join(dir, name));
export const referenceOf = (name) => JSON.parse(readFileSync(join(dirOf(name), 'reference.json'), 'utf8'));

/** Waits until the section has opened a folder (or said why not), asserts it said nothing; the report's text. */
export async function opened(page) {
  // a folder is read while the section is busy (the model opened before stays shown meanwhile)
  await page.waitForFunction(() => !document.querySelector('section[data-view="models"]').hasAttribute('aria-busy') && (!document.querySelector('#models-input').hidden || document.querySelector('#models-messages').textContent !== ''));
  assert.equal(await page.textContent('#models-messages'), '');
  return page.textContent('#models-report');
}

/** Opens folder `name` through the files input and runs its reference sentence; returns its reference.json. */
export async function openAndRun(page, name) {
  const reference = referenceOf(name);
  await page.setInputFiles('#models-files', filesOf(dirOf(name)));
  assert.match(await opened(page), new RegExp(`^Recognised: ${name}`));
  await page.fill('#models-text', reference.text);
  await page.click('#models-run');
  await page.waitForFunction((ids) => {
    const result = globalThis.attentionLab.models.result;
    return result && !result.partial && JSON.stringify(result.ids) === ids;
  }, JSON.stringify(reference.ids));
  return reference;
}

/**
 * A GPT-2 token's text, by GPT-2's byte-level alphabet (Radford et al.'s bytes_to_unicode), written
 * here, not taken from the page: the token's characters back to bytes, then UTF-8 as the browser
 * decodes them (a lone byte of a longer character → U+FFFD).
 */
export function byteLevelText(token) {
  const printable = [...Array.from({ length: 94 }, (_, i) => 33 + i), ...Array.from({ length: 12 }, (_, i) => 161 + i), ...Array.from({ length: 82 }, (_, i) => 174 + i)];
  const toByte = new Map(printable.map((b) => [String.fromCodePoint(b), b]));
  let extra = 0;
  for (let b = 0; b < 256; b++) if (!printable.includes(b)) toByte.set(String.fromCodePoint(256 + extra++), b);
  return new TextDecoder().decode(Uint8Array.from([...token].map((c) => toByte.get(c))));
}

// A tensor of a folder's model.safetensors, read here from the file's own header (F32 only), not
// through the page: what the lab must say it read from the folder.
export function tensorOf(name, tensor) {
  const bytes = readFileSync(join(dirOf(name), 'model.safetensors'));
  const size = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + size).toString('utf8'));
  const { dtype, shape, data_offsets: [from, to] } = header[tensor];
  assert.equal(dtype, 'F32');
  const data = bytes.subarray(8 + size + from, 8 + size + to);
  return { shape, values: Array.from({ length: data.length / 4 }, (_, i) => data.readFloatLE(i * 4)) };
}

/** Where cell (row, col) of a head's heatmap `canvas` (a locator) is on the screen, by the canvas's own layout (view.mjs). */
export const cellPoint = (canvas, row, col) => canvas.evaluate((node, [r, c]) => {
  const box = node.getBoundingClientRect(), scale = box.width / parseFloat(node.style.width);
  const { left, top, cell } = node.dataset;
  return { x: box.left + (Number(left) + (c + 0.5) * Number(cell)) * scale, y: box.top + (Number(top) + (r + 0.5) * Number(cell)) * scale };
}, [row, col]);

/** Types `text` into Real models and runs it; waits for that sentence's whole result (not a partial one). */
export async function runText(page, text) {
  await page.fill('#models-text', text);
  const before = await page.evaluate(() => globalThis.attentionLab.models.drawn.length);
  await page.click('#models-run');
  await page.waitForFunction((count) => {
    const { models } = globalThis.attentionLab;
    return models.drawn.length > count && models.result && !models.result.partial;
  }, before);
}
