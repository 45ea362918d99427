// The page's two timings, shared by bench/run.mjs (--page-only) and bench/page.mjs (interleaved builds).
// First table: when the tables in view of the opening example are drawn (the 'attention-lab:visible'
// measure), in ms after a cold navigation. An edit: from the input event to the end of the first frame
// that begins after the tables in view are redrawn (an animation-frame callback at each frame's start
// looks for the redraw; a task it queues runs once that frame is rendered).

const words = 'the quick brown fox jumps over the lazy dog by the river bank'.split(' ');

/** ms from navigation start to the first tables drawn, for one cold navigation to `url`. */
export async function firstTableMs(browser, url) {
  const page = await browser.newPage();
  await page.goto(`${url}index.html`);
  await page.waitForFunction(() => performance.getEntriesByName('attention-lab:visible').length > 0);
  const ms = await page.evaluate(() => {
    const drawn = performance.getEntriesByName('attention-lab:visible')[0];
    return drawn.startTime + drawn.duration;
  });
  await page.close();
  return ms;
}

/**
 * `edits` timed edits of one cell of X (after `warmup` untimed ones) at `tokens` tokens, d_model
 * `dModel`, `heads` heads (8 unless given), W_O on, seeded random weights, and `stack`'s settings
 * (a stack of layers: { layers, block, norm }; X is layer 1's input); returns the times in ms.
 */
export async function editTimes(browser, url, { tokens, dModel, heads = 8, stack = {}, edits, warmup }) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const sentence = Array.from({ length: tokens }, (_, i) => words[i % words.length]).join(' ');
  const state = { preset: null, sentence, dModel, heads, dK: dModel / heads, dV: dModel / heads, weightsMode: 'random', seed: 3, useWo: true, ...stack };
  await page.goto(`${url}index.html#lab=${encodeURIComponent(JSON.stringify(state))}`);
  await page.waitForFunction((h) => globalThis.attentionLab?.view?.heads === h, heads);
  await page.waitForTimeout(300);  // the page's own copy of the engine loads after the worker's (compute.mjs)
  const times = await page.evaluate(async (count) => {
    const out = [];
    for (let i = 0; i < count; i++) {
      const input = document.querySelector('#x-table td[data-row="3"][data-col="5"] input');
      const before = performance.getEntriesByName('attention-lab:visible').length;
      const drawsBefore = globalThis.attentionLab.draws;
      const start = performance.now();
      input.value = String(0.1 + i / 100);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await new Promise((resolve) => {
        const frame = () => {
          if (performance.getEntriesByName('attention-lab:visible').length === before) requestAnimationFrame(frame);
          else setTimeout(resolve, 0);
        };
        requestAnimationFrame(frame);
      });
      out.push(performance.now() - start);
      // the sections out of view are drawn after the frame: let them finish before the next edit
      while (globalThis.attentionLab.draws === drawsBefore) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 30));
    }
    return out;
  }, warmup + edits);
  await page.close();
  return times.slice(warmup);
}
