// attention-lab.html: the whole page in one file that works opened from disk, with no server and
// no network. Both learning builds (inline-engine.mjs) and their WebAssembly travel inside it; the
// engine runs on the page (a page opened from file:// cannot start a worker from a file).
import { createApp } from '../lab/app.mjs';
import { createCompute } from '../engine/compute.mjs';
import { stateToFragment, stateFromSettings, settingsOfAddress } from '../state/index.mjs';
import { loadInlineAttention } from '../engine/inline.mjs';
import { resolveLanguage, showPageLanguage, addressWithLanguage } from '../i18n/page.mjs';

const compute = createCompute({ workerUrl: null, loadEngine: async () => loadInlineAttention });

const { state: opened, problems: settingsProblems } = stateFromSettings(settingsOfAddress(location.href));
const asked = resolveLanguage(new URLSearchParams(location.search).get('lang'));
showPageLanguage(asked.language);
const app = createApp(document.getElementById('lab'), {
  compute,
  lang: asked.language,
  onLanguage(language) {
    showPageLanguage(language);
    history.replaceState(null, '', addressWithLanguage(location.href, language));
  },
  initialState: opened,
  onChange: (state) => history.replaceState(null, '', stateToFragment(state)),
});
const problems = [...(asked.problem ? [asked.problem] : []), ...settingsProblems];
if (problems.length) app.notice(problems);

// In the SCORM package this page is the launch page, with scorm-api.js beside it: practice results
// go to the learning platform as a score out of 100 (nothing happens without a platform).
document.addEventListener('attention-lab:practice', ({ detail }) => {
  if (detail.total > 0) globalThis.attentionLabScorm?.reportScore(Math.round((100 * detail.correct) / detail.total));
});

globalThis.attentionLab = app;
