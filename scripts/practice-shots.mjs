// Screenshots of practice mode at 1280 and 375 px, light and dark (for looking at, not a test):
//   node scripts/practice-shots.mjs [outdir] [preset] [language]
// With a language ('hi'), the page is switched to it with the language menu after the answers, so
// that the shots show practice mode as that switch leaves it.
import { openBrowser, redrawn } from '../tests/e2e/browser.mjs';

const out = process.argv[2] ?? '/tmp/practice-shots';
const preset = process.argv[3] ?? 'telescope';
const language = process.argv[4] ?? null;
const browser = await openBrowser();
const hash = `#lab=${encodeURIComponent(JSON.stringify({ preset, practice: {} }))}`;
for (const width of [1280, 375]) {
  for (const colorScheme of ['light', 'dark']) {
    const page = await browser.browser.newPage({ viewport: { width, height: 900 }, colorScheme });
    page.on('pageerror', (error) => console.log('page error', error.message));
    page.on('console', (message) => { if (message.type() === 'error') console.log('console', message.text()); });
    await page.goto(`${browser.url}index.html${hash}`);
    await page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    // answer the exercises before the softmax row, type the row half wrong and take a hint, so that
    // every part shows
    const exercises = await page.evaluate(() => globalThis.attentionLab.practice.exercises.map((e) => ({ kind: e.cell.matrix, truths: e.blanks.map((b) => b.truth) })));
    const row = exercises.findIndex((e) => e.kind === 'softmax');
    for (let k = 0; k <= row; k++) {
      const inputs = page.locator(`.practice-input[data-exercise="${k}"]`);
      for (let b = 0; b < exercises[k].truths.length; b++) await inputs.nth(b).fill(String(k === row && b === 0 ? 0.5 : exercises[k].truths[b]));
      await inputs.last().press('Enter');
    }
    await page.locator(`.exercise[data-index="${row}"] .hint-button`).click();
    if (language) {
      await redrawn(page, () => page.selectOption('#language', language));
    }
    await page.locator(`.exercise[data-index="${row}"]`).scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${out}/practice-${preset}${language ? `-${language}` : ''}-${width}-${colorScheme}.png`, fullPage: false });
    await page.screenshot({ path: `${out}/practice-${preset}${language ? `-${language}` : ''}-${width}-${colorScheme}-full.png`, fullPage: true });
    console.log(width, colorScheme, await page.evaluate(() => document.documentElement.scrollWidth));
    await page.close();
  }
}
await browser.close();
