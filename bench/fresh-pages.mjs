// npm run bench:pages: what a new result array costs, in Node and in headless Chromium. A call that
// returns a new Float32Array (the engine's plain run(), ONNX Runtime Web's session.run()) writes
// into memory the process may not have touched yet; each such 4 KB page costs a fault. This prints:
//   1. the cost of a first touch per 4 KB page, from fresh WebAssembly memory (grown, then written
//      one float per page), against a second touch of the same pages;
//   2. the extra time per call of a new array of each size, written whole, over writing one array
//      kept across calls, at about a millisecond of other work per call (the benchmark's rate);
//      the variants run in turn, round after round, and each figure is a median.
// Figures are µs; "per KB" divides by the array's size. No assertion: a benchmark, not a test.
import { chromium } from 'playwright-core';

const SIZES_KB = [16, 64, 256, 512];

// Runs in Node and in the page alike (passed to page.evaluate as a function): no closure over the module.
function measure({ sizesKb, rounds }) {
  const median = (values) => values.slice().sort((a, b) => a - b)[values.length >> 1];
  const faults = () => {
    const pages = 4096;  // 16 MB
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1024 });
    memory.grow(256);
    const view = new Float32Array(memory.buffer);
    const pass = (value) => {
      const start = performance.now();
      for (let p = 0; p < pages; p++) view[p * 1024] = value;
      return (performance.now() - start) * 1000 / pages;
    };
    const first = pass(1);
    return { first, second: pass(2) };
  };
  const touches = [faults(), faults(), faults()];
  const work = () => {
    let s = 0;
    for (let i = 0; i < 300000; i++) s += Math.sqrt(i);
    return s;
  };
  const source = new Float32Array(sizesKb.at(-1) * 256).fill(0.5);
  const variants = [['none', () => 0]];
  for (const kb of sizesKb) {
    const count = kb * 256;
    const kept = new Float32Array(count);
    variants.push([`${kb} kept`, () => {
      kept.set(source.subarray(0, count));
      return kept[1];
    }]);
    variants.push([`${kb} new`, () => {
      const fresh = new Float32Array(count);
      fresh.set(source.subarray(0, count));
      return fresh[1];
    }]);
  }
  const times = Object.fromEntries(variants.map(([name]) => [name, []]));
  let sink = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [name, call] of variants) {
      const start = performance.now();
      let calls = 0;
      while (performance.now() - start < 60) {
        sink += work() + call();
        calls++;
      }
      if (round >= 2) times[name].push((performance.now() - start) * 1000 / calls);
    }
  }
  const medians = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)]));
  const arrays = sizesKb.map((kb) => ({ kb, kept: medians[`${kb} kept`] - medians.none, fresh: medians[`${kb} new`] - medians.none }));
  return { first: median(touches.map((t) => t.first)), second: median(touches.map((t) => t.second)), arrays, sink: sink > 0 };
}

function report(host, { first, second, arrays }) {
  console.log(`${host}: first touch of a 4 KB page ${first.toFixed(2)} µs, second touch ${second.toFixed(3)} µs (median of 3 × 4096 pages)`);
  console.log(`${host}: | array | kept and rewritten, µs per call | new each call, µs per call | new: µs per KB |`);
  for (const { kb, kept, fresh } of arrays) {
    console.log(`${host}: | ${kb} KB | ${kept.toFixed(1)} | ${fresh.toFixed(1)} | ${(fresh / kb).toFixed(2)} |`);
  }
}

const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 12);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage();
  await page.goto('about:blank');
  // Node and Chromium one after the other, twice, so that a busy spell of the machine shows
  for (let pass = 1; pass <= 2; pass++) {
    report(`node (pass ${pass})`, measure({ sizesKb: SIZES_KB, rounds }));
    report(`chromium (pass ${pass})`, await page.evaluate(measure, { sizesKb: SIZES_KB, rounds }));
  }
} finally {
  await browser.close();
}
