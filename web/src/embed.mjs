// The iframe embed (embed.html?view=…#lab=…): one lab with minimal chrome for course platforms that
// only allow iframes. It reports its content height to the host page, which can size the frame:
//   { type: 'attention-lab:height', height } posted to window.parent whenever the height changes;
//   { type: 'attention-lab:practice', correct, total, hints, done, attempts, summary } after each
//   answer in practice mode (embed.html?mode=practice).
import { createApp, parseViews } from './app.mjs';
import { createCompute } from './compute.mjs';
import { stateFromFragment, defaultState } from './state.mjs';

const params = new URLSearchParams(location.search);
const { views, unknown } = parseViews(params.get('view'));
const fromLink = stateFromFragment(location.hash);
const mode = params.get('mode');
if (mode === 'practice' && fromLink.state) fromLink.state.practice ??= {};
const container = document.getElementById('lab');
const app = createApp(container, {
  compute: createCompute({
    workerUrl: new URL('./worker.js', import.meta.url),
    loadEngine: async () => (await import('./lib/attention.mjs')).loadAttention,
  }),
  initialState: fromLink.state ?? (mode === 'practice' ? { ...defaultState(), practice: {} } : null),
  views,
  embedded: true,
});
const problems = [...(fromLink.problems ?? [])];
if (mode !== null && mode !== 'practice' && mode !== 'explore') problems.push({ field: 'mode', message: `mode must be practice or explore, got "${mode.slice(0, 40)}"` });
if (unknown.length) problems.push({ field: 'view', message: `Unknown view names in the link: ${unknown.join(', ')}` });
if (problems.length) app.notice(problems);

let reported = 0;
new ResizeObserver(() => {
  const height = Math.ceil(document.documentElement.scrollHeight);
  if (height === reported || window.parent === window) return;
  reported = height;
  window.parent.postMessage({ type: 'attention-lab:height', height }, '*');
}).observe(document.body);

// practice results go to the host page too (a SCORM wrapper or an LMS page can record the score)
container.addEventListener('attention-lab:practice', (event) => {
  if (window.parent !== window) window.parent.postMessage({ type: 'attention-lab:practice', ...event.detail }, '*');
});

globalThis.attentionLab = app;
