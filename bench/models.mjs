// npm run bench:models [-- --rounds=N]: a model of GPT-2 small's real shape with random weights
// (vocabulary 50257, d_model 768, 12 layers, 12 heads, MLP 3072, 1024 positions: 124 M parameters,
// 474 MiB as F32), written once into build/bench-models/ as config.json and model.safetensors, then:
//   Node: openModel() with the engine (each tensor handed into WebAssembly memory as it is read,
//   prepared once), then runModel() (the prepared model's traced run, top 10) at 16 and 128 tokens;
//   headless Chromium: the page's own file input (#models-files) → the recognised model shown, then
//   the first run at 16 tokens (until the tokens show, until layer 1's tables are drawn), then
//   lab.models.run at 16 and 128 tokens (worker round trip and drawing included); peak RSS of
//   Chromium's processes, sampled every 100 ms from /proc, against the issue's targets; the page
//   served cross-origin isolated, performance.measureUserAgentSpecificMemory() sampled beside it.
// Figures, not a test: nothing here fails on a slow machine.
import { closeSync, existsSync, mkdirSync, openSync, openAsBlob, readFileSync, readdirSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { openBrowser } from '../tests/e2e/browser.mjs';
import { openModel, runModel } from '../web/src/models/open.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(root, 'build/bench-models/gpt2-small-50257');
const option = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const rounds = Number(option('rounds') ?? 3);
// --dist=A,B,…: the page's builds to compare, measured one after the other in this process (default dist/)
const dists = (option('dist') ?? 'dist').split(',').map((d) => path.resolve(root, d));
// --browser-only: no Node side; --trace-gc: V8 prints every collection of the page and of its worker
// (on Chromium's stdout: run with DEBUG=pw:browser to see it); --collect-each: forced collections in
// the worker and then on the page at the end of every phase (where the garbage is made; the figures
// after the first are then those of a page collected at each step, not the page as it runs); --dump:
// memory-infra's dumps (by process and allocator) when idle, opened, after each run at 128, before and
// after the forced collections at the end; --not-isolated: the page served without COOP and COEP (as
// before 2026-11-28 session 12), so without performance.measureUserAgentSpecificMemory; --cold: the
// files given without the pointer on the drop zone first (the reader and learning engine not loaded)
const flag = (name) => process.argv.includes(`--${name}`);
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const D = 768;
const LAYERS = 12;
const VOCAB = 50257;
const POSITIONS = 1024;
const log = (...args) => console.log(...args);

function tensorsOf() {
  const list = [['transformer.wte.weight', [VOCAB, D]], ['transformer.wpe.weight', [POSITIONS, D]]];
  for (let l = 0; l < LAYERS; l++) {
    const p = `transformer.h.${l}.`;
    list.push([`${p}ln_1.weight`, [D]], [`${p}ln_1.bias`, [D]], [`${p}attn.c_attn.weight`, [D, 3 * D]], [`${p}attn.c_attn.bias`, [3 * D]],
      [`${p}attn.c_proj.weight`, [D, D]], [`${p}attn.c_proj.bias`, [D]], [`${p}ln_2.weight`, [D]], [`${p}ln_2.bias`, [D]],
      [`${p}mlp.c_fc.weight`, [D, 4 * D]], [`${p}mlp.c_fc.bias`, [4 * D]], [`${p}mlp.c_proj.weight`, [4 * D, D]], [`${p}mlp.c_proj.bias`, [D]]);
  }
  list.push(['transformer.ln_f.weight', [D]], ['transformer.ln_f.bias', [D]]);
  return list;
}

// The model's files, written once: random weights (xorshift32, ±0.05; LayerNorm weights 1), tensor by tensor.
function writeModel() {
  if (existsSync(path.join(dir, 'model.safetensors'))) return;
  mkdirSync(dir, { recursive: true });
  const list = tensorsOf();
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, shape] of list) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = Buffer.from(JSON.stringify(header));
  const padded = Buffer.concat([json, Buffer.alloc((8 - (json.length % 8)) % 8, 0x20)]);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(padded.length));
  const fd = openSync(path.join(dir, 'model.safetensors'), 'w');
  writeSync(fd, length);
  writeSync(fd, padded);
  let state = 2463534242;
  for (const [name, shape] of list) {
    const values = new Float32Array(shape.reduce((a, b) => a * b, 1));
    const ones = /ln_.*weight$/.test(name);
    for (let i = 0; i < values.length; i++) {
      state ^= state << 13; state ^= state >>> 17; state ^= state << 5;
      values[i] = ones ? 1 : ((state >>> 0) / 4294967296 - 0.5) * 0.1;
    }
    writeSync(fd, new Uint8Array(values.buffer));
  }
  closeSync(fd);
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], n_embd: D, n_head: 12,
    n_layer: LAYERS, n_positions: POSITIONS, vocab_size: VOCAB, layer_norm_epsilon: 1e-5, activation_function: 'gelu_new' }, null, 2));
}

const ids = (n) => Array.from({ length: n }, (_, i) => (i * 7919) % VOCAB);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function nodeSide() {
  const { loadAttention } = await import(path.join(root, 'dist/lib/attention.node.mjs'));
  const engine = await loadAttention({ learning: true, simd: true });
  const files = await Promise.all(['config.json', 'model.safetensors'].map(async (name) => {
    const blob = await openAsBlob(path.join(dir, name));
    return { name, size: blob.size, slice: (a, b) => blob.slice(a, b), text: () => blob.text() };
  }));
  const start = performance.now();
  const cpu = process.cpuUsage();
  const timings = {};
  const model = await openModel(files, { engine, timings });
  const used = process.cpuUsage(cpu);
  const heap = engine.memory().heapBytes;
  const phases = Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
  log(`node: openModel, staged and prepared, ${(performance.now() - start).toFixed(0)} ms, CPU ${((used.user + used.system) / 1000).toFixed(0)} ms (phases, wall ms: ${phases}) (${(model.report.keptBytes / 2 ** 20).toFixed(0)} MiB of weights as F32; WebAssembly memory ${(heap / 2 ** 20).toFixed(0)} MiB, of it allocated ${(engine.memory().allocatedBytes / 2 ** 20).toFixed(0)} MiB; Node RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB)`);
  for (const n of [16, 128]) {
    const times = [];
    const cpus = [];
    for (let r = 0; r < rounds; r++) {
      const t = performance.now();
      const c = process.cpuUsage();
      runModel(engine, model, { ids: ids(n) });
      times.push(performance.now() - t);
      const u = process.cpuUsage(c);
      cpus.push((u.user + u.system) / 1000);
    }
    log(`node: forward (the prepared model's traced run, top 10) at ${n} tokens: median ${median(times).toFixed(0)} ms of ${rounds}, CPU ${median(cpus).toFixed(0)} ms`);
  }
  const after = engine.memory();
  log(`node: after the runs, WebAssembly memory ${(after.heapBytes / 2 ** 20).toFixed(0)} MiB (was ${(heap / 2 ** 20).toFixed(0)}), of it allocated ${(after.allocatedBytes / 2 ** 20).toFixed(0)} MiB`);
  model.prepared.dispose();
}

// Chromium's processes (the one launched with `tag`, and its descendants): their RSS in bytes, and
// by kind (`byKind`: browser, renderer, gpu-process, utility, …) when given an object to fill.
function chromiumProcesses(tag) {
  const procs = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cpu = (Number(fields[11]) + Number(fields[12])) * 10;  // utime + stime, in ms (100 ticks a second)
      return { pid: Number(pid), ppid, rss, cpu, cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8') };
    } catch {
      return null;
    }
  }).filter(Boolean);
  const tree = new Set(procs.filter((p) => p.cmd.includes(tag)).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!tree.has(p.pid) && tree.has(p.ppid)) { tree.add(p.pid); grew = true; }
  }
  return procs.filter((p) => tree.has(p.pid));
}

function chromiumRss(tag, byKind = null) {
  const mine = chromiumProcesses(tag);
  for (const p of byKind ? mine : []) {
    const kind = /--type=([\w-]+)/.exec(p.cmd)?.[1] ?? 'browser';
    byKind[kind] = (byKind[kind] ?? 0) + p.rss;
  }
  if (byKind) byKind.cpu = mine.reduce((sum, p) => sum + p.cpu, 0);
  return mine.reduce((sum, p) => sum + p.rss, 0);
}

// CPU time (user + system, ms) of Chromium's processes so far
function chromiumCpu(tag) {
  const kinds = {};
  chromiumRss(tag, kinds);
  return kinds.cpu;
}

const mib = (bytes) => (bytes / 2 ** 20).toFixed(0);

// Where the renderer's memory is (the page and its worker live in it): the renderer's RSS, the page's
// JavaScript heap (V8's used size; Blink's, the embedder's; ArrayBuffers' backing stores) by the
// DevTools protocol, at the end of each phase (say); garbage() forces a collection in the worker (gc(),
// --expose-gc) and then on the page (HeapProfiler.collectGarbage), and says what each gave back.
async function memoryParts(page, tag) {
  const session = await page.context().newCDPSession(page);
  const renderer = () => {
    const kinds = {};
    chromiumRss(tag, kinds);
    return kinds.renderer ?? 0;
  };
  const heap = async () => {
    const h = await session.send('Runtime.getHeapUsage');
    return `page's heap: V8 ${mib(h.usedSize)} of ${mib(h.totalSize)}, Blink ${mib(h.embedderHeapUsedSize)}, ArrayBuffers ${mib(h.backingStorageSize ?? 0)} MiB`;
  };
  return {
    // the page's ArrayBuffers (MiB), for the timeline
    buffers: async () => (await session.send('Runtime.getHeapUsage')).backingStorageSize ?? 0,
    async say(label) {
      log(`chromium: memory ${label}: renderer RSS ${mib(renderer())} MiB; ${await heap()}`);
    },
    async garbage(when = 'at the end') {
      const before = renderer();
      await Promise.all(page.workers().map((worker) => worker.evaluate(() => globalThis.gc?.())));
      const worker = renderer();
      await session.send('HeapProfiler.collectGarbage');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const after = renderer();
      log(`chromium: garbage ${when}: renderer RSS ${mib(before)} MiB; a collection in the worker gave back ${mib(before - worker)}, then one on the page ${mib(worker - after)}: ${mib(after)} MiB; ${await heap()}`);
    },
  };
}

// --dump: Chromium's own account of its memory (memory-infra, through the DevTools protocol's tracing
// on the browser's session), by process and allocator: v8 (the JavaScript heaps, page and worker),
// blink_gc (DOM objects), partition_alloc (Blink's strings, layout, buffers: ArrayBuffers' bytes are in
// partition_alloc/partitions/array_buffer), malloc, skia and canvas (pixels), web_cache; with the page's
// DOM counters (Memory.getDOMCounters). Sizes are the allocators' own figures (effective size where
// a child's bytes are in its parent's too), not RSS; and from /proc, each renderer's mappings of 8 MiB
// resident or more (the WebAssembly memory is one anonymous mapping of several GiB reserved).
const hexBytes = (attr) => (attr ? parseInt(attr.value, 16) : 0);
async function memoryDump(browser, page, tag) {
  const session = await browser.newBrowserCDPSession();
  const events = [];
  session.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  const complete = new Promise((resolve) => session.once('Tracing.tracingComplete', resolve));
  await session.send('Tracing.start', { transferMode: 'ReportEvents',
    traceConfig: { includedCategories: ['disabled-by-default-memory-infra'], memoryDumpConfig: { triggers: [] } } });
  const { success } = await session.send('Tracing.requestMemoryDump', { deterministic: false, levelOfDetail: 'detailed' });
  await session.send('Tracing.end');
  await complete;
  await session.detach();
  const names = {};
  for (const e of events) if (e.ph === 'M' && e.name === 'process_name') names[e.pid] = e.args.name;
  const processes = {};
  for (const e of events) {
    const allocators = e.ph === 'v' ? e.args?.dumps?.allocators : null;
    if (!allocators) continue;
    const sizes = {};
    for (const [name, { attrs = {} }] of Object.entries(allocators)) {
      const size = hexBytes(attrs.size);
      if (size) sizes[name] = size;
    }
    processes[names[e.pid] ?? e.pid] = { sizes, resident: hexBytes(e.args.dumps.process_totals?.resident_set_bytes) };
  }
  const pageSession = await page.context().newCDPSession(page);
  const dom = await pageSession.send('Memory.getDOMCounters');
  await pageSession.detach();
  return { success, processes, dom, tag };
}

// A dump as lines: per process its resident size and its allocators (top level, and the named children
// worth a look) of at least 0.5 MiB, in MiB
const DUMP_DETAIL = /^(v8\/(main|workers)(\/[^/]+)?|blink_gc\/(main|workers)(\/[^/]+)?|partition_alloc\/partitions\/[^/]+|malloc\/[^/]+|canvas\/[^/]+|skia\/[^/]+|gpu\/[^/]+|web_cache\/[^/]+|cc\/[^/]+)$/;
function largeMappings(tag) {
  const lines = [];
  for (const { pid, cmd } of chromiumProcesses(tag)) {
    if (!cmd.includes('--type=renderer')) continue;
    const found = [];
    let size = 0;
    try {
      for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
        const kb = /^(Size|Rss):\s+(\d+) kB/.exec(line);
        if (kb?.[1] === 'Size') size = Number(kb[2]) * 1024;
        if (kb?.[1] === 'Rss' && Number(kb[2]) * 1024 >= 8 * 2 ** 20) found.push(`${mib(Number(kb[2]) * 1024)} of ${mib(size)}`);
      }
    } catch {
      continue;
    }
    lines.push(`  renderer ${pid}'s mappings of 8 MiB resident or more (MiB resident of mapped): ${found.join(', ')}`);
  }
  return lines;
}

// Where the opening's time went in the worker, where its files were read, and the renderers' large
// mappings once opened (the reader's 8 MiB pieces among them while they are kept)
async function openingLines(page, tag) {
  const { timings = {}, reads } = await page.evaluate(() => globalThis.attentionLab.models.report ?? {});
  const where = reads === 'worker' ? 'in a reading worker' : 'in the engine\'s worker';
  return [`chromium: the worker's opening, wall ms: ${Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}; the weights read ${where}`,
    ...largeMappings(tag).map((line) => `${line} (once opened)`)];
}

// The readings of the opened model. The bench's own readings (memory, /proc's mappings) take 0.1–0.5 s
// that are not the page's: taken after the first run (the function returned) unless a diagnostic asks
// for them here (--dump, --collect-each).
async function onceOpened(browser, page, tag, parts) {
  const lines = async () => {
    await parts.say('opened');
    (await openingLines(page, tag)).forEach((line) => log(line));
  };
  if (!flag('dump') && !flag('collect-each')) return lines;
  await lines();
  if (flag('dump')) dumpLines('opened', await memoryDump(browser.browser, page, tag)).forEach((line) => log(line));
  if (flag('collect-each')) await parts.garbage('once opened');
  return async () => {};
}

function dumpLines(label, { success, processes, dom, tag }) {
  const lines = [`chromium: memory-infra ${label}${success ? '' : ' (the dump failed)'}: DOM counters ${Object.entries(dom).map(([k, v]) => `${k} ${v}`).join(', ')}`, ...largeMappings(tag)];
  // the page's renderer and the GPU process (the browser's and the services' do not move with the page)
  for (const [name, { sizes, resident }] of Object.entries(processes).filter(([k]) => /^(Renderer|GPU Process)$/.test(k))) {
    const shown = Object.entries(sizes).filter(([k, v]) => v >= 2 ** 19 && (!k.includes('/') || DUMP_DETAIL.test(k))).sort(([a], [b]) => (a < b ? -1 : 1));
    lines.push(`  ${name} (resident ${mib(resident)} MiB): ${shown.map(([k, v]) => `${k} ${(v / 2 ** 20).toFixed(1)}`).join(', ')}`);
  }
  return lines;
}

// Chromium's RSS sampled every 100 ms (all its processes, and the renderer's) and the page's
// ArrayBuffers every 300 ms (once `parts` is set), by phase (`phase`, set by the caller); stop() ends it.
function sampling(tag) {
  const s = {
    phase: 'idle', peak: 0, peakKinds: {}, peakPhase: 'idle', parts: null,
    starts: [],  // [time, phase] where each phase was first sampled
    peaks: {},  // the largest RSS in each phase
    rendererPeaks: {},  // the largest renderer RSS in each phase
    timeline: {},  // the renderer's RSS in each phase, every sample (100 ms)
    buffers: {},  // the page's ArrayBuffers in each phase, every 300 ms
  };
  const bufferSampler = setInterval(() => {
    const now = s.phase;
    s.parts?.buffers().then((bytes) => (s.buffers[now] ??= []).push(bytes), () => {});
  }, 300);
  const sampler = setInterval(() => {
    const kinds = {};
    const rss = chromiumRss(tag, kinds);
    delete kinds.cpu;
    if (s.starts.at(-1)?.[1] !== s.phase) s.starts.push([Date.now(), s.phase]);
    s.peaks[s.phase] = Math.max(s.peaks[s.phase] ?? 0, rss);
    s.rendererPeaks[s.phase] = Math.max(s.rendererPeaks[s.phase] ?? 0, kinds.renderer ?? 0);
    (s.timeline[s.phase] ??= []).push(kinds.renderer ?? 0);
    if (rss > s.peak) [s.peak, s.peakKinds, s.peakPhase] = [rss, kinds, s.phase];
  }, 100);
  s.stop = () => {
    clearInterval(sampler);
    clearInterval(bufferSampler);
  };
  return s;
}

// performance.measureUserAgentSpecificMemory() (cross-origin-isolated pages only), one request pending
// at a time from the idle page to the end, each result kept on the page with its time. A request
// resolves at V8's next full garbage collection (or one Chromium forces when none came for a while:
// 7–18 s on the idle page here; the forced collections at the end resolve the last), so each sample
// is what that collection found live, by realm (page, worker) and type (JavaScript, DOM, Canvas,
// Shared): garbage is never in it. Chromium's ForceEagerMeasureMemory (a measurement at once, a
// collection of its own) was tried: the page then did not finish opening the model in 4 minutes.
function measuring(page) {
  return page.evaluate(() => {
    if (!globalThis.crossOriginIsolated) return 'the page is not cross-origin isolated';
    const samples = globalThis.benchMemorySamples = [];
    const next = () => performance.measureUserAgentSpecificMemory().then((m) => {
      samples.push({ at: Date.now(), bytes: m.bytes, breakdown: m.breakdown.filter((b) => b.bytes > 0).map((b) => ({ bytes: b.bytes,
        what: `${b.attribution.map((a) => a.scope.replace('GlobalScope', '')).join('+') || 'page'} ${b.types.join('+')}` })) });
      next();
    }, (error) => samples.push({ at: Date.now(), error: String(error) }));
    next();
    return null;
  });
}

// The samples by phase (`starts`: [time, phase] in order): the largest of each, and the largest of all
// with its breakdown, in MiB
async function measuredLines(page, starts, refused) {
  if (refused) return [`chromium: measureUserAgentSpecificMemory not sampled: ${refused}`];
  const samples = await page.evaluate(() => globalThis.benchMemorySamples);
  const failed = samples.find((m) => m.error);
  const good = samples.filter((m) => !m.error);
  const phaseAt = (at) => starts.filter(([t]) => t <= at).at(-1)?.[1] ?? 'idle';
  const largest = {};
  for (const m of good) largest[phaseAt(m.at)] = Math.max(largest[phaseAt(m.at)] ?? 0, m.bytes);
  const count = (phase) => good.filter((m) => phaseAt(m.at) === phase).length;
  const peak = good.reduce((a, m) => (m.bytes > (a?.bytes ?? -1) ? m : a), null);
  return [`chromium: measureUserAgentSpecificMemory, ${good.length} samples${failed ? ` (then it failed: ${failed.error})` : ''}; the largest in each phase (MiB, samples): ${Object.entries(largest).map(([k, v]) => `${k} ${mib(v)} (${count(k)})`).join(', ')}`,
    `chromium: measureUserAgentSpecificMemory's peak ${peak ? mib(peak.bytes) : '–'} MiB while ${peak ? phaseAt(peak.at) : '–'}: ${(peak?.breakdown ?? []).sort((a, b) => b.bytes - a.bytes).map((b) => `${b.what} ${(b.bytes / 2 ** 20).toFixed(1)}`).join(', ')}`];
}

// `rounds` runs of lab.models.run at n tokens, their wall times (ms); with --dump at 128 tokens, run one
// by one with memory-infra's dump (`dump(label)`) after each
// --free-old (a diagnostic, not the page's behaviour): after each run the bench itself frees the result
// shown before it (its buffers detached with ArrayBuffer.prototype.transfer(0)), to measure what the
// earlier results, left to the page's collector, add to the peak.
async function timedRuns(page, n, dump) {
  const runs = (count) => page.evaluate(async ({ list, count, freeOld }) => {
    const out = [];
    const buffersOf = (result) => [...(result?.hidden ?? []), ...(result?.layers ?? []).flatMap((l) => [l.input, l.output, l.hidden, ...l.heads.map((h) => h.weights)])]
      .map((a) => a?.buffer).filter((b) => b instanceof ArrayBuffer && !b.detached);
    for (let r = 0; r < count; r++) {
      const before = globalThis.attentionLab.models.result;
      const t = performance.now();
      await globalThis.attentionLab.models.run({ ids: list });
      out.push(performance.now() - t);
      if (freeOld && before !== globalThis.attentionLab.models.result) for (const buffer of new Set(buffersOf(before))) buffer.transfer(0);
    }
    return out;
  }, { list: ids(n), count, freeOld: flag('free-old') });
  if (!flag('dump') || n !== 128) return runs(rounds);
  const times = [];
  for (let r = 0; r < rounds; r++) {
    times.push(...await runs(1));
    await dump(`after run ${r + 1} at ${n}`);
  }
  return times;
}

// The pointer reaches the drop zone first, as a reader's must before a file dialog opens: the page
// then loads the reader and the learning engine (models/index.mjs wire: warm), which a dialog's
// seconds cover; timed, then the files given. --cold: the files given with nothing loaded.
async function warmFirst(page) {
  if (flag('cold')) {
    log('chromium: --cold: the files given with the reader and learning engine not loaded');
    return;
  }
  const t = Date.now();
  await page.hover('#models-drop');
  const warmed = await page.evaluate(() => globalThis.attentionLab.models.warming);
  log(`chromium: the pointer on the drop zone: the reader and learning engine loaded in ${Date.now() - t} ms (${JSON.stringify(warmed)}), before the files were given`);
}

async function browserSide(distDir, run) {
  const tag = `--bench-models-${process.pid}-${run}`;
  log(`chromium: the page from ${path.relative(root, distDir) || '.'} (${distDir}); load average ${loads()}`);
  // --expose-gc: the collections forced at the end, which tell the garbage from what is kept
  const args = [tag, `--js-flags=--expose-gc${flag('trace-gc') ? ' --trace-gc' : ''}`];
  const browser = await openBrowser({ dir: distDir, args, headers: flag('not-isolated') ? undefined : ISOLATION });
  const s = sampling(tag);
  try {
    const { page } = await browser.newPage();
    await page.goto(browser.url);
    await page.waitForFunction(() => globalThis.attentionLab?.draws > 0);
    const parts = s.parts = await memoryParts(page, tag);
    const refused = flag('not-isolated') ? 'the page was served without COOP and COEP (--not-isolated)' : await measuring(page);
    const idle = chromiumRss(tag);
    await parts.say('idle');
    if (flag('dump')) dumpLines('idle', await memoryDump(browser.browser, page, tag)).forEach((line) => log(line));
    await warmFirst(page);
    const cpu0 = chromiumCpu(tag);
    const start = Date.now();
    s.phase = 'opening';
    await page.setInputFiles('#models-files', ['config.json', 'model.safetensors'].map((f) => path.join(dir, f)));
    await page.waitForFunction(() => !document.querySelector('#models-input').hidden || document.querySelector('#models-messages').textContent, null, { timeout: 600_000 });
    const message = await page.textContent('#models-messages');
    if (message) throw new Error(`the page refused the model: ${message}`);
    const opened = Date.now() - start;
    const openedCpu = chromiumCpu(tag) - cpu0;
    const later = await onceOpened(browser, page, tag, parts);
    s.phase = 'first run';
    await page.fill('#models-text', ids(16).join(' '));
    await page.click('#models-run');
    await page.waitForFunction(() => document.querySelector('#models-tokens').childElementCount > 0, null, { timeout: 600_000 });
    const tokens = Date.now() - start;
    await page.waitForSelector('#models-layers details[open] canvas', { timeout: 600_000 });
    const firstLayer = Date.now() - start;
    const firstCpu = chromiumCpu(tag) - cpu0;
    await later();
    await parts.say('after the first run');
    if (flag('collect-each')) await parts.garbage('after the first run');
    log(`chromium: model opened (read, converted, handed into WebAssembly memory and prepared in the worker) ${opened} ms after the files were given (CPU of Chromium's processes ${openedCpu} ms); at 16 tokens the tokens ${tokens} ms, layer 1's tables ${firstLayer} ms (target 5000 ms; CPU ${firstCpu} ms)`);
    for (const n of [16, 128]) {
      s.phase = `runs at ${n}`;
      const runCpu = chromiumCpu(tag);
      const times = await timedRuns(page, n, (label) => memoryDump(browser.browser, page, tag).then((dump) => dumpLines(label, dump).forEach((line) => log(line))));
      const cpuEach = (chromiumCpu(tag) - runCpu) / rounds;
      log(`chromium: lab.models.run at ${n} tokens (worker forward, copy back, drawing): median ${median(times).toFixed(0)} ms of ${rounds}${n === 16 ? ' (target 1000 ms)' : ''}; CPU of Chromium's processes ${cpuEach.toFixed(0)} ms a run (mean)`);
      await parts.say(`after the runs at ${n}`);
      if (flag('collect-each') && n === 16) await parts.garbage('after the runs at 16');
    }
    log(`chromium: the renderer's largest RSS in each phase (MiB): ${Object.entries(s.rendererPeaks).map(([k, v]) => `${k} ${(v / 2 ** 20).toFixed(0)}`).join(', ')}`);
    // the renderer's RSS through the runs, every 0.3 s (the largest of each 3 samples), MiB
    for (const name of ['first run', 'runs at 16', 'runs at 128']) {
      const series = s.timeline[name] ?? [];
      const steps = Array.from({ length: Math.ceil(series.length / 3) }, (_, i) => mib(Math.max(...series.slice(3 * i, 3 * i + 3))));
      log(`chromium: the renderer while ${name}, every 0.3 s (MiB): ${steps.join(' ')}; the page's ArrayBuffers: ${(s.buffers[name] ?? []).map(mib).join(' ')}`);
    }
    if (flag('dump')) dumpLines('after the runs, before any forced collection', await memoryDump(browser.browser, page, tag)).forEach((line) => log(line));
    s.phase = 'forced collections';
    await parts.garbage();
    await new Promise((resolve) => setTimeout(resolve, 500));  // the measurement they resolve
    (await measuredLines(page, s.starts, refused)).forEach((line) => log(line));
    if (flag('dump')) dumpLines('after the forced collections', await memoryDump(browser.browser, page, tag)).forEach((line) => log(line));
    const weights = 4 * (VOCAB * D + POSITIONS * D + LAYERS * (4 * D * D + 8 * D * D)) / 2 ** 20;
    log(`chromium: peak RSS of its processes ${(s.peak / 2 ** 20).toFixed(0)} MiB, ${((s.peak - idle) / 2 ** 20).toFixed(0)} MiB above the ${(idle / 2 ** 20).toFixed(0)} MiB before the model (weights ${weights.toFixed(0)} MiB as F32; target ≤ 1.2 × weights + 100 = ${(1.2 * weights + 100).toFixed(0)} MiB); the peak while ${s.peakPhase}; by process kind: ${Object.entries(s.peakKinds).map(([k, v]) => `${k} ${(v / 2 ** 20).toFixed(0)}`).join(', ')} MiB; the largest in each phase: ${Object.entries(s.peaks).map(([k, v]) => `${k} ${(v / 2 ** 20).toFixed(0)}`).join(', ')} MiB`);
  } finally {
    s.stop();
    await browser.close();
  }
}

writeModel();
const loads = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
log(`model: ${dir} (GPT-2 small's shape, vocabulary ${VOCAB}); node ${process.version}; ${new Date().toISOString()}; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
if (!flag('browser-only')) await nodeSide();
for (const [run, distDir] of dists.entries()) await browserSide(distDir, run);
log(`load average at the end ${loads()}`);
