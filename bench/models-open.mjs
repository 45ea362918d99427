// node bench/models-open.mjs [--base=COMMIT] [--rounds=N]: openModel() in Node on bench/models.mjs's
// GPT-2-small-shaped model (written by it first), with this tree's reader and COMMIT's (its web/src,
// taken with git archive into build/bench-models/base-COMMIT), interleaved, each on a fresh engine of
// dist/: wall and CPU ms, the reader's read and stage phases, and the load average beside each figure.
// Figures, not a test.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, openAsBlob, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const option = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const base = option('base', 'integration');
const rounds = Number(option('rounds', 2));
const dir = path.join(root, 'build/bench-models/gpt2-small-50257');
if (!existsSync(path.join(dir, 'model.safetensors'))) throw new Error('no model: run node bench/models.mjs first (it writes the model)');
const commit = execFileSync('git', ['rev-parse', '--short', base], { cwd: root, encoding: 'utf8' }).trim();
const baseDir = path.join(root, `build/bench-models/base-${commit}`);
if (!existsSync(baseDir)) {
  mkdirSync(baseDir, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${commit} web/src | tar -x -C "${baseDir}"`], { cwd: root });
}
const { loadAttention } = await import(path.join(root, 'dist/lib/attention.node.mjs'));
const readers = { [commit]: await import(path.join(baseDir, 'web/src/models/open.mjs')), tree: await import(path.join(root, 'web/src/models/open.mjs')) };
const files = await Promise.all(['config.json', 'model.safetensors'].map(async (name) => {
  const blob = await openAsBlob(path.join(dir, name));
  return { name, size: blob.size, slice: (a, b) => blob.slice(a, b), text: () => blob.text() };
}));
const loads = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
for (let r = 0; r < rounds; r++) {
  for (const name of r % 2 === 0 ? [commit, 'tree'] : ['tree', commit]) {
    const engine = await loadAttention({ learning: true, simd: true });
    const t = performance.now();
    const c = process.cpuUsage();
    const timings = {};
    const model = await readers[name].openModel(files, { engine, timings });
    const u = process.cpuUsage(c);
    console.log(`${name}: openModel ${(performance.now() - t).toFixed(0)} ms, CPU ${((u.user + u.system) / 1000).toFixed(0)} ms (read ${timings.read.toFixed(0)}, stage ${timings.stage.toFixed(0)} ms wall); load average ${loads()}`);
    model.prepared.dispose();
  }
}
