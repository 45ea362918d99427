// "Download SCORM package" in the teacher's panel: the exercise the panel describes, packed in the
// browser (fflate) with the teacher's SCORM choices (version, mastery score, score kept, hint cost,
// exam mode and what it allows). The parts come from the page's own folder (attention-lab.html,
// scorm/scorm-api.js, scorm/<version>/ with ADL's schemas), the zip from scorm-package.mjs: the same
// files as `npm run pack`. Nothing leaves the page but the download.
import { element } from './render.mjs';
import { parseAnswer } from './answer.mjs';
import { ALLOWABLE, LAUNCH, SCHEMAS, checkScormSettings, scormFiles } from './scorm-package.mjs';
import { stateToFragment } from '../state/index.mjs';

/**
 * The section's fields and button, built with the panel's `say(node, key)` (its words follow the
 * language). exerciseState() is the state the panel's choices give, or null (it said why).
 */
export function buildScormSection(teacher, say, exerciseState) {
  const id = (name) => `${teacher.prefix}-scorm-${name}`;
  const choice = (name, values) => {
    const select = element('select', { attributes: { id: id(name), 'data-field': `scorm-${name}` } });
    select.append(...values.map(([value, key]) => say(element('option', { attributes: { value } }), key)));
    return select;
  };
  const fields = {
    version: choice('version', [['1.2', 'practice.scorm.v12'], ['2004', 'practice.scorm.v2004']]),
    mastery: element('input', { attributes: { id: id('mastery'), type: 'text', inputmode: 'decimal', autocomplete: 'off', value: '80', 'data-field': 'scorm-mastery' } }),
    scoring: choice('scoring', [['best', 'practice.scorm.best'], ['last', 'practice.scorm.last']]),
    hintCost: element('input', { attributes: { id: id('hintCost'), type: 'text', inputmode: 'decimal', autocomplete: 'off', value: '0.25', 'data-field': 'scorm-hintCost' } }),
  };
  const exam = element('input', { attributes: { type: 'checkbox', id: id('exam'), 'data-field': 'scorm-exam' } });
  exam.checked = true;
  const allow = ALLOWABLE.map((name) => element('input', { attributes: { type: 'checkbox', value: name, id: id(`allow-${name}`) } }));
  const button = say(element('button', { attributes: { type: 'button', 'data-role': 'scorm-download' } }), 'practice.scorm.download');
  const status = element('p', { className: 'hint scorm-status', attributes: { role: 'status', 'data-role': 'scorm-status' } });
  const field = (name, key) => element('div', { className: 'field' }, [say(element('label', { attributes: { for: id(name) } }), key), fields[name]]);
  const section = element('div', { className: 'teacher-scorm' }, [
    say(element('h4'), 'practice.scorm.title'),
    say(element('p', { className: 'hint' }), 'practice.scorm.intro'),
    element('div', { className: 'teacher-fields' }, [field('version', 'practice.scorm.version'), field('mastery', 'practice.scorm.mastery'), field('scoring', 'practice.scorm.scoring'), field('hintCost', 'practice.scorm.hintCost')]),
    element('label', { className: 'check' }, [exam, ' ', say(element('span'), 'practice.scorm.exam')]),
    element('fieldset', { className: 'teacher-kinds' }, [
      say(element('legend'), 'practice.scorm.allow'),
      ...ALLOWABLE.map((name, i) => element('label', {}, [allow[i], ' ', say(element('span'), `practice.scorm.allow.${name}`)])),
    ]),
    element('div', { className: 'practice-actions' }, [button]),
    status,
  ]);
  const parts = { fields, exam, allow, status };
  button.addEventListener('click', () => download(teacher, parts, exerciseState));
  return section;
}

// a number typed in a field: its value in [0, max], or null after saying what is wrong (naming the field)
function readNumber(teacher, input, labelKey, max, status) {
  const read = parseAnswer(input.value);
  if (read.value === undefined || read.value < 0 || read.value > max) {
    status.textContent = teacher.t('practice.teacher.badTolerance', { field: teacher.t(labelKey), max, text: input.value.slice(0, 40) });
    input.setAttribute('aria-invalid', 'true');
    return null;
  }
  input.removeAttribute('aria-invalid');
  return read.value;
}

async function download(teacher, { fields, exam, allow, status }, exerciseState) {
  const { t } = teacher;
  status.textContent = '';
  const mastery = readNumber(teacher, fields.mastery, 'practice.scorm.mastery', 100, status);
  const hintCost = mastery === null ? null : readNumber(teacher, fields.hintCost, 'practice.scorm.hintCost', 1, status);
  if (mastery === null || hintCost === null) return;
  const state = exerciseState();
  if (!state) return;
  const checked = checkScormSettings({
    version: fields.version.value, mastery, hintCost, scoring: fields.scoring.value, exam: exam.checked,
    allow: allow.filter((box) => box.checked).map((box) => box.value), start: stateToFragment(state),
  });
  if (checked.problems) {
    status.textContent = t('practice.scorm.failed', { why: checked.problems.join('; ') });
    return;
  }
  const { settings } = checked;
  try {
    const zip = await buildZip(teacher.links, settings);
    const url = URL.createObjectURL(new Blob([zip], { type: 'application/zip' }));
    const link = element('a', { attributes: { href: url, download: 'attention-lab-scorm.zip' } });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    status.textContent = t('practice.scorm.made', { file: 'attention-lab-scorm.zip', size: Math.round(zip.length / 1024), version: settings.version, mastery: settings.mastery });
  } catch (error) {
    status.textContent = t('practice.scorm.failed', { why: String(error?.message ?? error).slice(0, 200) });
  }
  teacher.announce(status.textContent);
}

// The zip's bytes: the parts fetched from the page's folder (same origin), packed by fflate (which
// the page's host gives as links.zip(), so that the hosts without a teacher's panel do not carry it).
async function buildZip({ page, zip }, settings) {
  const fetchText = async (name) => {
    const response = await fetch(new URL(name, page));
    if (!response.ok) throw new Error(`${name}: ${response.status} ${response.statusText}`);
    return response.text();
  };
  const [single, api, ...texts] = await Promise.all([LAUNCH, 'scorm/scorm-api.js', ...SCHEMAS[settings.version].map((name) => `scorm/${settings.version}/${name}`)].map(fetchText));
  const schemas = Object.fromEntries(SCHEMAS[settings.version].map((name, i) => [name, texts[i]]));
  const files = scormFiles(settings, { single, api, schemas });
  const { zipSync, strToU8 } = await zip();
  return zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])), { level: 9 });
}
