// attention-lab.html: the whole page in one file that works opened from disk, with no server and
// no network. Both learning builds (inline-engine.mjs) and their WebAssembly travel inside it; the
// engine runs on the page (a page opened from file:// cannot start a worker from a file).
import { createApp, parseViews } from '../lab/app.mjs';
import { createCompute } from '../engine/compute.mjs';
import { stateToFragment, stateFromSettings, settingsOfAddress, defaultState } from '../state/index.mjs';
import { loadInlineAttention } from '../engine/inline.mjs';
import { resolveLanguage, showPageLanguage, addressWithLanguage, problemOf } from '../i18n/page.mjs';

const compute = createCompute({ workerUrl: null, loadEngine: async () => loadInlineAttention, models: () => import('../models/open.mjs') });

// In the SCORM package (scorm-package.mjs) exercise.js and scorm-api.js come first: the state
// opens where the last session left it, else on the teacher's; a link's own #lab=… still wins.
const scorm = globalThis.attentionLabScorm ?? null;
const startFrom = location.hash ? null : scorm?.resumed?.state ?? scorm?.settings?.start ?? null;
const address = startFrom ? location.href.replace(/#.*$/, '') + startFrom : location.href;
// The settings: the address's (?preset=…&view=…&lang=…#lab=…), or, where a page has no address of
// its own to give (an iframe's srcdoc: the Python package, python/attention_lab), the same names in
// a JSON element written into the file: <script type="application/json" id="attention-lab-settings">
// {"view": "steps,heatmap", "state": "lab=…"}. A name it does not give comes from the address.
const fromAddress = settingsOfAddress(address);
const { settings: given, problem: settingsElementProblem } = embeddedSettings(document.getElementById('attention-lab-settings'));
const setting = (name) => (Object.hasOwn(given, name) ? given[name] : fromAddress(name));
const { state: opened, problems: settingsProblems } = stateFromSettings(setting);
const asked = resolveLanguage(setting('lang'));
const { views, unknown } = parseViews(setting('view'));
showPageLanguage(asked.language);
const app = createApp(document.getElementById('lab'), {
  compute,
  lang: asked.language,
  onLanguage(language) {
    showPageLanguage(language);
    // an iframe's srcdoc (about:srcdoc) may change its fragment only
    if (location.protocol !== 'about:') history.replaceState(null, '', addressWithLanguage(location.href, language));
  },
  // a graded launch opens in practice mode (exam mode hides its Explore)
  initialState: scorm?.available && !opened?.practice ? { ...(opened ?? defaultState()), practice: opened?.practice ?? {} } : opened,
  views,
  // against the document's own address: an iframe's srcdoc resolves '#…' against its parent's
  onChange: (state) => history.replaceState(null, '', new URL(stateToFragment(state), location.href).href),
});
const problems = [...(asked.problem ? [asked.problem] : []), ...settingsProblems];
if (settingsElementProblem) problems.push(settingsElementProblem);
if (unknown.length) problems.push(problemOf('view', 'problem.unknownViewsLink', { names: unknown.join(', ') }));
if (problems.length) app.notice(problems);

globalThis.attentionLab = app;
if (scorm?.available) graded(scorm, app);

// A launch by a learning platform: practice mode (exam mode hides Explore, Export, the walk and
// "Show the answer" unless the teacher allowed them), each answer, hint or reveal recorded
// (scorm-api.js: status, score, suspend data), and a relaunch's saved work put back once its
// exercises are on screen.
function graded(api, lab) {
  const container = document.getElementById('lab');
  if (api.exam) {
    container.classList.add('exam');
    for (const part of ['explore', 'export', 'walk', 'reveal']) container.classList.toggle(`exam-no-${part}`, !api.settings.allow.includes(part));
  }
  const record = () => {
    const work = lab.practice?.work ?? [];
    if (work.length) api.record({ state: stateToFragment(lab.state), exercises: work });
  };
  let pending = api.resumed?.exercises?.length ? api.resumed.exercises : null;
  document.addEventListener('attention-lab:change', () => {
    if (!pending || !lab.practice?.exercises?.length) return;
    const saved = pending;
    pending = null;
    lab.practice.resume(saved);
    record();
  });
  document.addEventListener('attention-lab:practice', record);
  api.beforeFinish = record;
}

// The JSON of the settings element: { settings } (an object of texts), or a problem saying it is not one.
function embeddedSettings(element) {
  if (!element) return { settings: {} };
  try {
    const value = JSON.parse(element.textContent);
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string')) {
      return { settings: value };
    }
  } catch {
    // not JSON: said below, as for any other value
  }
  return { settings: {}, problem: problemOf('settings', 'problem.settingsElement') };
}
