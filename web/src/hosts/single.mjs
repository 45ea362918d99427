// attention-lab.html: the whole page in one file that works opened from disk, with no server and
// no network. Both learning builds (inline-engine.mjs) and their WebAssembly travel inside it; the
// engine runs on the page (a page opened from file:// cannot start a worker from a file).
import { createApp } from '../lab/app.mjs';
import { createCompute } from '../engine/compute.mjs';
import { stateToFragment, stateFromSettings, settingsOfAddress, defaultState } from '../state/index.mjs';
import { loadInlineAttention } from '../engine/inline.mjs';
import { resolveLanguage, showPageLanguage, addressWithLanguage } from '../i18n/page.mjs';

const compute = createCompute({ workerUrl: null, loadEngine: async () => loadInlineAttention });

// In the SCORM package (scorm-package.mjs) exercise.js and scorm-api.js come first: the state
// opens where the last session left it, else on the teacher's; a link's own #lab=… still wins.
const scorm = globalThis.attentionLabScorm ?? null;
const startFrom = location.hash ? null : scorm?.resumed?.state ?? scorm?.settings?.start ?? null;
const address = startFrom ? location.href.replace(/#.*$/, '') + startFrom : location.href;
const { state: opened, problems: settingsProblems } = stateFromSettings(settingsOfAddress(address));
const asked = resolveLanguage(new URLSearchParams(location.search).get('lang'));
showPageLanguage(asked.language);
const app = createApp(document.getElementById('lab'), {
  compute,
  lang: asked.language,
  onLanguage(language) {
    showPageLanguage(language);
    history.replaceState(null, '', addressWithLanguage(location.href, language));
  },
  // a graded launch opens in practice mode (exam mode hides its Explore)
  initialState: scorm?.available && !opened?.practice ? { ...(opened ?? defaultState()), practice: opened?.practice ?? {} } : opened,
  onChange: (state) => history.replaceState(null, '', stateToFragment(state)),
});
const problems = [...(asked.problem ? [asked.problem] : []), ...settingsProblems];
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
