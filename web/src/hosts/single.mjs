// attention-lab.html: the whole page in one file that works opened from disk, with no server and
// no network. Both learning builds (inline-engine.mjs) and their WebAssembly travel inside it; the
// engine runs on the page (a page opened from file:// cannot start a worker from a file).
import { createApp, parseViews } from '../lab/app.mjs';
import { createCompute } from '../engine/compute.mjs';
import { stateToFragment, stateFromSettings, settingsOfAddress } from '../state/index.mjs';
import { loadInlineAttention } from '../engine/inline.mjs';
import { resolveLanguage, showPageLanguage, addressWithLanguage, problemOf } from '../i18n/page.mjs';

const compute = createCompute({ workerUrl: null, loadEngine: async () => loadInlineAttention });

// The settings: the address's (?preset=…&view=…&lang=…#lab=…), or, where a page has no address of
// its own to give (an iframe's srcdoc: the Python package, python/attention_lab), the same names in
// a JSON element written into the file: <script type="application/json" id="attention-lab-settings">
// {"view": "steps,heatmap", "state": "lab=…"}. A name it does not give comes from the address.
const fromAddress = settingsOfAddress(location.href);
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
  initialState: opened,
  views,
  // against the document's own address: an iframe's srcdoc resolves '#…' against its parent's
  onChange: (state) => history.replaceState(null, '', new URL(stateToFragment(state), location.href).href),
});
const problems = [...(asked.problem ? [asked.problem] : []), ...settingsProblems];
if (settingsElementProblem) problems.push(settingsElementProblem);
if (unknown.length) problems.push(problemOf('view', 'problem.unknownViewsLink', { names: unknown.join(', ') }));
if (problems.length) app.notice(problems);

// In the SCORM package this page is the launch page, with scorm-api.js beside it: practice results
// go to the learning platform as a score out of 100 (nothing happens without a platform).
document.addEventListener('attention-lab:practice', ({ detail }) => {
  if (detail.total > 0) globalThis.attentionLabScorm?.reportScore(Math.round((100 * detail.correct) / detail.total));
});

globalThis.attentionLab = app;

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
