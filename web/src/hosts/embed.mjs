// The iframe embed (embed.html?view=…&theme=…&compact=1#lab=…): one lab with minimal chrome for
// course platforms that only allow iframes.
//   ?view=     the views to show (as the component's view attribute), or compare: two labs and
//              their differences B − A, the pair in the fragment (#lab=…&lab=…)
//   ?theme=    light (the default: most course pages are white), dark, or auto (the reader's system)
//   ?compact=1 no notes and no hints
//   ?lang=     en (the default) or hi: the lab's language
// It reports the height of its content to the host page, which can size the frame, whenever it
// changes, larger or smaller, in two forms:
//   { type: 'attention-lab:height', height }  for a host page's own script (the Embed snippet);
//   { subject: 'lti.frameResize', height }    which Canvas pages act on with no script of their own.
// ?mode=practice opens practice mode; after each answer it posts
//   { type: 'attention-lab:practice', correct, total, hints, done, attempts, summary }.
import { createApp, parseViews } from '../lab/app.mjs';
import { createCompute } from '../engine/compute.mjs';
import { stateFromSettings, settingsOfAddress } from '../state/index.mjs';
import { resolveLanguage, translator, problemOf } from '../i18n/page.mjs';
import { mountCompare } from './compare.mjs';

const THEMES = ['light', 'dark', 'auto'];

const params = new URLSearchParams(location.search);
// ?view=compare: the compare view (two labs and their differences B − A, hosts/compare.mjs)
const comparing = params.get('view') === 'compare';
const { views, unknown } = parseViews(comparing ? null : params.get('view'));
const { state: opened, problems: settingsProblems } = stateFromSettings(settingsOfAddress(location.href));
const asked = resolveLanguage(params.get('lang'));
const problems = [...(asked.problem ? [asked.problem] : []), ...settingsProblems];
if (unknown.length) problems.push(problemOf('view', 'problem.unknownViewsLink', { names: unknown.join(', ') }));
document.documentElement.lang = asked.language;
document.title = translator(asked.language)('page.titleEmbedded');
document.querySelector('h1').textContent = translator(asked.language)('page.name');

const theme = params.get('theme') ?? 'light';
if (!THEMES.includes(theme)) problems.push(problemOf('theme', 'problem.theme', { value: theme.slice(0, 40) }));
const chosenTheme = THEMES.includes(theme) ? theme : 'light';
if (chosenTheme !== 'auto') document.documentElement.dataset.theme = chosenTheme;
else delete document.documentElement.dataset.theme;
document.querySelector('meta[name="color-scheme"]').content = chosenTheme === 'auto' ? 'light dark' : chosenTheme;

const container = document.getElementById('lab');
const compact = params.get('compact');
container.classList.toggle('compact', compact !== null && compact !== '0' && compact !== 'false');
const compute = createCompute({
  workerUrl: new URL('./worker.js', import.meta.url),
  loadEngine: async () => (await import('./lib/attention.mjs')).loadAttention,
  models: () => import('../models/open.mjs'),
});
const app = comparing ? null : createApp(container, { compute, initialState: opened, views, embedded: true, lang: asked.language });
if (comparing) globalThis.attentionCompare = mountCompare(container, { compute, language: asked.language, theme: chosenTheme, menu: false });
if (problems.length) (app ?? globalThis.attentionCompare.a.lab)?.notice(problems);

// The content's height, not the document's scroll height: that is never less than the frame's own
// height, so a frame once grown could never shrink again.
const content = document.querySelector('main');
let reported = 0;
new ResizeObserver(() => {
  const height = Math.ceil(content.getBoundingClientRect().height);
  if (height === reported || window.parent === window) return;
  reported = height;
  window.parent.postMessage({ type: 'attention-lab:height', height }, '*');
  window.parent.postMessage({ subject: 'lti.frameResize', height }, '*');
}).observe(content);

// practice results go to the host page too (a SCORM wrapper or an LMS page can record the score)
container.addEventListener('attention-lab:practice', (event) => {
  if (window.parent !== window) window.parent.postMessage({ type: 'attention-lab:practice', ...event.detail }, '*');
});

if (app) globalThis.attentionLab = app;
