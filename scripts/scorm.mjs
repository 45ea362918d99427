// Writes the SCORM 1.2 package that Moodle, Canvas and other platforms import as an activity:
//   node scripts/scorm.mjs build/attention-lab-scorm.zip [--start '#lab=…']
// In the zip: imsmanifest.xml and the built folder (dist/ without source maps or the npm package's
// files). It launches attention-lab.html, the page in one file, which also works opened from disk
// (index.html needs a server: a page from file:// cannot load module scripts or start a worker),
// with web/scorm-api.js added to talk to the platform. --start opens a chosen state (a copied
// link's #lab=… part), passed as the item's launch parameters. Run by pack.sh.
import { readFileSync, readdirSync, writeFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync, strToU8 } from 'fflate';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
export const LAUNCH = 'attention-lab.html';

const args = process.argv.slice(2);
const out = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--start');
const start = args.includes('--start') ? args[args.indexOf('--start') + 1] : null;
if (!out) throw new Error('usage: node scripts/scorm.mjs OUT.zip [--start "#lab=…"]');
if (start !== null && !/^#lab=/.test(start)) throw new Error(`--start must be a link's #lab=… part, got "${start.slice(0, 40)}"`);

const xml = (text) => String(text).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function filesUnder(dir, prefix = '') {
  return readdirSync(dir).sort().flatMap((name) => {
    const full = path.join(dir, name);
    const relative = prefix + name;
    if (statSync(full).isDirectory()) return relative === 'npm' ? [] : filesUnder(full, `${relative}/`);
    return name.endsWith('.map') ? [] : [relative];
  });
}

const files = {};
for (const name of filesUnder(dist)) files[name] = readFileSync(path.join(dist, name));

// the launch page: the single file, with the SCORM script before its own
const page = files[LAUNCH].toString('utf8');
const head = page.indexOf('</head>');
if (head < 0) throw new Error(`${LAUNCH} has no </head> to put the SCORM script before`);
files[LAUNCH] = strToU8(`${page.slice(0, head)}  <script src="scorm-api.js"></script>\n${page.slice(head)}`);
files['scorm-api.js'] = readFileSync(path.join(root, 'web/scorm-api.js'));

const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const listed = Object.keys(files).sort();
const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="attention-lab-${xml(version)}" version="${xml(version)}"
    xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
    xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
  <organizations default="attention-lab">
    <organization identifier="attention-lab">
      <title>Attention Lab</title>
      <item identifier="lab" identifierref="lab-page" isvisible="true"${start ? ` parameters="${xml(start)}"` : ''}>
        <title>Attention Lab: self-attention step by step</title>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="lab-page" type="webcontent" adlcp:scormtype="sco" href="${LAUNCH}">
${listed.map((name) => `      <file href="${xml(name)}"/>`).join('\n')}
    </resource>
  </resources>
</manifest>
`;

const zip = zipSync({ 'imsmanifest.xml': strToU8(manifest), ...files }, { level: 9 });
writeFileSync(out, zip);
console.log(`scorm: ${path.relative(process.cwd(), out)} (${Math.round(zip.length / 1024)} KB, ${listed.length + 1} files, launches ${LAUNCH}${start ? start.slice(0, 30) + '…' : ''})`);
