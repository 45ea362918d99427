// Screenshots of the lab's key/value heads, rotary and window settings and of a Llama layer opened in
// the lab, at 1280 and 375 px, light and dark, English and Hindi (for looking at, not a test):
//   node scripts/modern-shots.mjs [outdir]
import { readdirSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { openBrowser, redrawn } from '../tests/e2e/browser.mjs';

const out = process.argv[2] ?? '/tmp/modern-shots';
mkdirSync(out, { recursive: true });
const llama = fileURLToPath(new URL('../../shared/models/llama/', import.meta.url));
const browser = await openBrowser();
const state = { preset: null, sentence: 'the cat sat on the mat', dModel: 4, heads: 2, dK: 4, dV: 4, weightsMode: 'random', seed: 3, maskMode: 'causal', kvHeads: 1, rotary: true, rotaryTheta: 100, window: 3, selectedHead: 1 };
const hash = `#lab=${encodeURIComponent(JSON.stringify(state))}`;

// the element, and its first 700 px (a long table panel) as the reader sees it
async function shoot(page, name, locator) {
  await locator.scrollIntoViewIfNeeded();
  await locator.screenshot({ path: `${out}/${name}.png` });
  const box = await locator.boundingBox();
  const top = await page.evaluate(() => scrollY);
  const width = page.viewportSize().width;
  await page.screenshot({ path: `${out}/${name}-top.png`, fullPage: true, clip: { x: 0, y: top + box.y, width, height: Math.min(700, box.height) } });
}

for (const width of [1280, 375]) {
  for (const colorScheme of ['light', 'dark']) {
    for (const language of ['en', 'hi']) {
      const page = await browser.browser.newPage({ viewport: { width, height: 900 }, colorScheme });
      page.on('pageerror', (error) => console.log('page error', error.message));
      await page.goto(`${browser.url}index.html${hash}`);
      await page.waitForFunction(() => globalThis.attentionLab?.draws > 0 && globalThis.attentionLab.idle);
      if (language !== 'en') await redrawn(page, () => page.selectOption('#language', language));
      await page.evaluate(() => { document.getElementById('settings').open = true; });
      const tag = `${width}-${colorScheme}-${language}`;
      await shoot(page, `settings-${tag}`, page.locator('#settings'));
      await shoot(page, `heads-${tag}`, page.locator('#head-panel'));
      // the Llama folder, layer 1 head 2 opened in the lab
      await page.setInputFiles('#models-files', readdirSync(llama).filter((f) => f !== 'reference.json').map((f) => join(llama, f)));
      await page.waitForFunction(() => !document.querySelector('#models-input').hidden || document.querySelector('#models-messages').textContent !== '');
      await page.fill('#models-text', 'The river bank was steep');
      await page.click('#models-run');
      await page.waitForFunction(() => globalThis.attentionLab.models.result && !globalThis.attentionLab.models.result.partial);
      await redrawn(page, () => page.evaluate(() => globalThis.attentionLab.models.openInLab(0, 1)));
      await shoot(page, `llama-status-${tag}`, page.locator('#models-status'));
      await shoot(page, `llama-heads-${tag}`, page.locator('#head-panel'));
      console.log(tag, 'page width', await page.evaluate(() => document.documentElement.scrollWidth));
      await page.close();
    }
  }
}
await browser.close();
