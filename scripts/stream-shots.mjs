// Screenshots of the "Real models" additions (issue 24): the residual stream explained (a layer's
// parts and their check, the walk at its third step, the files), BERT's [MASK] guesses, a Llama layer's
// SwiGLU matrices and "About this example" in the lab, at 1280 and 375 px, light and dark, English and
// Hindi (for looking at, not a test):
//   node scripts/stream-shots.mjs [outdir]
import { readdirSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { openBrowser, redrawn } from '../tests/e2e/browser.mjs';

const out = process.argv[2] ?? '/tmp/stream-shots';
mkdirSync(out, { recursive: true });
const folder = (name) => fileURLToPath(new URL(`../../shared/models/${name}/`, import.meta.url));
const filesOf = (dir) => readdirSync(dir).filter((f) => f !== 'reference.json').map((f) => join(dir, f));
const browser = await openBrowser();

async function shoot(page, name, locator) {
  await locator.scrollIntoViewIfNeeded();
  await locator.screenshot({ path: `${out}/${name}.png` });
}

async function openRun(page, name, text) {
  await page.setInputFiles('#models-files', filesOf(folder(name)));
  await page.waitForFunction(() => !document.querySelector('section[data-view="models"]').hasAttribute('aria-busy') && !document.querySelector('#models-input').hidden);
  await page.fill('#models-text', text);
  const drawn = await page.evaluate(() => globalThis.attentionLab.models.drawn.length);
  await page.click('#models-run');
  await page.waitForFunction((count) => globalThis.attentionLab.models.drawn.length > count && !globalThis.attentionLab.models.result.partial, drawn);
}

for (const width of [1280, 375]) {
  for (const colorScheme of ['light', 'dark']) {
    for (const language of ['en', 'hi']) {
      const page = await browser.browser.newPage({ viewport: { width, height: 900 }, colorScheme });
      page.on('pageerror', (error) => console.log('page error', error.message));
      await page.goto(`${browser.url}index.html`);
      await page.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
      if (language !== 'en') await redrawn(page, () => page.selectOption('#language', language));
      const tag = `${width}-${colorScheme}-${language}`;
      await openRun(page, 'bert', 'The cat sat on the [MASK].');
      await shoot(page, `bert-masked-${tag}`, page.locator('#models-next'));
      await page.waitForFunction(() => document.querySelector('.model-stream-check')?.dataset.exact === 'true');
      await shoot(page, `bert-stream-${tag}`, page.locator('#models-stream'));
      await openRun(page, 'gpt2', 'The cat sat on the mat.');
      await page.selectOption('#models-stream-token', { value: '3' });
      await page.click('.model-stream-walk button[data-walk="start"]');
      await page.click('.model-stream-walk button[data-walk="next"]');
      await page.click('.model-stream-walk button[data-walk="next"]');
      await page.waitForFunction(() => document.querySelector('.model-stream-check')?.dataset.exact === 'true');
      await shoot(page, `gpt2-stream-${tag}`, page.locator('#models-stream'));
      await openRun(page, 'llama', 'The cat sat on the mat.');
      await redrawn(page, () => page.evaluate(() => globalThis.attentionLab.models.openInLab(1, 0)));
      await page.evaluate(() => { document.querySelector('.blocks-params').open = true; });
      await shoot(page, `llama-params-${tag}`, page.locator('.blocks-params'));
      await shoot(page, `llama-notes-${tag}`, page.locator('#notes'));
      console.log(tag, 'page width', await page.evaluate(() => document.documentElement.scrollWidth));
      await page.close();
    }
  }
}
await browser.close();
