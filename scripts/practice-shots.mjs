// Screenshots of practice mode at 1280 and 375 px, light and dark (for looking at, not a test):
//   node scripts/practice-shots.mjs [outdir] [preset]
import { openBrowser } from '../tests/e2e/browser.mjs';

const out = process.argv[2] ?? '/tmp/practice-shots';
const preset = process.argv[3] ?? 'telescope';
const browser = await openBrowser();
const hash = `#lab=${encodeURIComponent(JSON.stringify({ preset, practice: {} }))}`;
for (const width of [1280, 375]) {
  for (const colorScheme of ['light', 'dark']) {
    const page = await browser.browser.newPage({ viewport: { width, height: 900 }, colorScheme });
    page.on('pageerror', (error) => console.log('page error', error.message));
    page.on('console', (message) => { if (message.type() === 'error') console.log('console', message.text()); });
    await page.goto(`${browser.url}index.html${hash}`);
    await page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    // answer the first exercise, type a wrong second one and take a hint, so that every part shows
    const first = page.locator('.practice-input').first();
    await first.fill(String(await page.evaluate(() => globalThis.attentionLab.practice.exercises[0].blanks[0].truth)));
    await first.press('Enter');
    const second = page.locator('.practice-input').nth(1);
    await second.fill('7');
    await second.press('Enter');
    await page.locator('.exercise .hint-button').nth(1).click();
    await page.locator('[data-view="matrices"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${out}/practice-${preset}-${width}-${colorScheme}.png`, fullPage: false });
    await page.screenshot({ path: `${out}/practice-${preset}-${width}-${colorScheme}-full.png`, fullPage: true });
    console.log(width, colorScheme, await page.evaluate(() => document.documentElement.scrollWidth));
    await page.close();
  }
}
await browser.close();
