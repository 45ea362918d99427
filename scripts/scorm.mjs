// Writes the SCORM package that Moodle, Canvas and other platforms import as an activity:
//   node scripts/scorm.mjs build/attention-lab-scorm.zip [--scorm 1.2|2004] [--start '#lab=…']
//     [--mastery 80] [--scoring best|last] [--hint-cost 0.25] [--exam on|off] [--allow explore,export,walk,reveal]
//     [--title 'Attention Lab']
// In the zip: imsmanifest.xml (SCORM 1.2, or 2004 4th edition), ADL's schemas beside it, the launch
// page attention-lab.html (the page in one file, which also works opened from disk) with
// exercise.js (the teacher's settings and the state it opens on: a file, so no length limit) and
// scorm-api.js (web/scorm-api.js: talks to the platform). The same files as the page's
// "Download SCORM package" (web/src/practice/scorm-package.mjs). Run by pack.sh; `npm run build` first.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync, strToU8 } from 'fflate';
import { checkScormSettings, scormFiles, SCHEMAS, LAUNCH } from '../web/src/practice/scorm-package.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

const OPTIONS = { '--scorm': 'version', '--start': 'start', '--mastery': 'mastery', '--scoring': 'scoring', '--hint-cost': 'hintCost', '--exam': 'exam', '--allow': 'allow', '--title': 'title' };
const USAGE = 'usage: node scripts/scorm.mjs OUT.zip [--scorm 1.2|2004] [--start "#lab=…"] [--mastery 0-100] [--scoring best|last] [--hint-cost 0-1] [--exam on|off] [--allow explore,export,walk,reveal] [--title text]';

function readArguments(args) {
  const given = {};
  let out = null;
  for (let i = 0; i < args.length; i++) {
    const name = OPTIONS[args[i]];
    if (!name && args[i].startsWith('--')) throw new Error(`unknown option ${args[i]}\n${USAGE}`);
    if (!name) {
      out = args[i];
      continue;
    }
    const value = args[++i];
    if (value === undefined) throw new Error(`${args[i - 1]} needs a value\n${USAGE}`);
    if (name === 'mastery' || name === 'hintCost') given[name] = value.trim() === '' ? NaN : Number(value);
    else if (name === 'exam') given.exam = value === 'on' ? true : value === 'off' ? false : value;
    else if (name === 'allow') given.allow = value.split(',').map((item) => item.trim()).filter(Boolean);
    else given[name] = value;
  }
  if (!out) throw new Error(USAGE);
  return { out, given };
}

const { out, given } = readArguments(process.argv.slice(2));
const checked = checkScormSettings(given);
if (checked.problems) throw new Error(`scorm: ${checked.problems.join('; ')}`);
const { settings } = checked;
const read = (...parts) => readFileSync(path.join(dist, ...parts));
const schemas = Object.fromEntries(SCHEMAS[settings.version].map((name) => [name, read('scorm', settings.version, name)]));
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const files = scormFiles(settings, { single: read(LAUNCH).toString('utf8'), api: read('scorm', 'scorm-api.js').toString('utf8'), schemas, version });
const zip = zipSync(Object.fromEntries(Object.entries(files).map(([name, data]) => [name, typeof data === 'string' ? strToU8(data) : new Uint8Array(data)])), { level: 9 });
writeFileSync(out, zip);
console.log(`scorm: ${path.relative(process.cwd(), out)} (SCORM ${settings.version}, ${Math.round(zip.length / 1024)} KB, ${Object.keys(files).length} files, mastery ${settings.mastery}, ${settings.scoring} score, exam ${settings.exam ? 'on' : 'off'})`);
