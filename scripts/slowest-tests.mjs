// Prints the slowest top-level tests and suites of a node:test TAP log (the top-level "ok N - name" entries and the
// duration_ms under each): usage `node scripts/slowest-tests.mjs LOG [COUNT]`.
import { readFileSync } from 'node:fs';

const [log, count = '10'] = process.argv.slice(2);
const lines = readFileSync(log, 'utf8').split('\n');
const files = [];
for (let i = 0; i < lines.length; i++) {
  const entry = /^(?:not )?ok \d+ - (.+)$/.exec(lines[i]);
  if (!entry) continue;
  for (let j = i + 1; j < Math.min(i + 6, lines.length); j++) {
    const duration = /^ {2}duration_ms: ([\d.]+)/.exec(lines[j]);
    if (duration) {
      files.push({ file: entry[1], seconds: Number(duration[1]) / 1000 });
      break;
    }
  }
}
files.sort((a, b) => b.seconds - a.seconds);
const total = files.reduce((sum, f) => sum + f.seconds, 0);
console.log(`slowest of ${files.length} top-level tests and suites (their wall times add to ${total.toFixed(0)} s; two files run at once):`);
for (const { file, seconds } of files.slice(0, Number(count))) console.log(`  ${seconds.toFixed(1).padStart(7)} s  ${file}`);
