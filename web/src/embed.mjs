// The iframe embed (embed.html?view=…#lab=…): one lab with minimal chrome for course platforms that
// only allow iframes. It reports its content height to the host page, which can size the frame:
//   { type: 'attention-lab:height', height } posted to window.parent whenever the height changes.
import { createApp, parseViews } from './app.mjs';
import { createCompute } from './compute.mjs';
import { stateFromFragment } from './state.mjs';

const params = new URLSearchParams(location.search);
const { views, unknown } = parseViews(params.get('view'));
const fromLink = stateFromFragment(location.hash);
const container = document.getElementById('lab');
const app = createApp(container, {
  compute: createCompute({
    workerUrl: new URL('./worker.js', import.meta.url),
    loadEngine: async () => (await import('./lib/attention.mjs')).loadAttention,
  }),
  initialState: fromLink.state ?? null,
  views,
  embedded: true,
});
const problems = [...(fromLink.problems ?? [])];
if (unknown.length) problems.push({ field: 'view', message: `Unknown view names in the link: ${unknown.join(', ')}` });
if (problems.length) app.notice(problems);

let reported = 0;
new ResizeObserver(() => {
  const height = Math.ceil(document.documentElement.scrollHeight);
  if (height === reported || window.parent === window) return;
  reported = height;
  window.parent.postMessage({ type: 'attention-lab:height', height }, '*');
}).observe(document.body);

globalThis.attentionLab = app;
