// The full page (index.html): one lab in the document, its state kept in the URL fragment so a
// link opens exactly what was on screen. A broken or hostile fragment gives a message and the
// first example, never a broken page. ?lang=hi shows it in Hindi; the language menu changes it and
// the address (so a copied link keeps it). ?mode=practice opens practice mode.
import { createApp } from '../lab/app.mjs';
import { createCompute } from '../engine/compute.mjs';
import { withFirstResult } from '../engine/first-result.mjs';
import firstResult from '../../../build/first-result.json';
import { stateFromFragment, stateToFragment, stateFromSettings, settingsOfAddress } from '../state/index.mjs';
import { resolveLanguage, showPageLanguage, addressWithLanguage } from '../i18n/page.mjs';
import { mountCompare } from './compare.mjs';
import { VIEW_NAMES } from '../lab/views.mjs';

const here = new URL('.', location.href);
// the opening example is drawn from its reply shipped with the page, while the worker starts
const compute = withFirstResult(createCompute({
  workerUrl: new URL('./worker.js', import.meta.url),
  loadEngine: async () => (await import('./lib/attention.mjs')).loadAttention,
  models: () => import('../models/open.mjs'),
}), firstResult);

// the address's settings (?preset=…&heads=…&mode=practice#lab=…), read as the component reads its attributes
const { state: opened, problems: settingsProblems } = stateFromSettings(settingsOfAddress(location.href));
const params = new URLSearchParams(location.search);
const asked = resolveLanguage(params.get('lang'));
showPageLanguage(asked.language);
// ?mode=practice opens practice mode, as in the embed; the fragment carries the mode from then on,
// so the parameter leaves the address (a reload after switching to Explore stays in Explore)
if (params.get('mode') !== null) {
  params.delete('mode');
  history.replaceState(null, '', `${location.pathname}${params.toString() ? `?${params}` : ''}${location.hash}`);
}

// ?view=compare: two labs side by side and their differences (hosts/compare.mjs), instead of one lab
if (params.get('view') === 'compare') {
  const host = document.getElementById('lab');
  host.className = 'compare';
  const links = { page: new URL(location.pathname, location.href).href, embed: new URL('embed.html', here).href };
  globalThis.attentionCompare = mountCompare(host, { compute, language: asked.language, links });
} else {
  mountLab();
}

// the one lab of the page, its state in the fragment
function mountLab() {
  const app = createApp(document.getElementById('lab'), {
    lang: asked.language,
    onLanguage(language) {
      showPageLanguage(language);
      history.replaceState(null, '', addressWithLanguage(location.href, language));
    },
    compute,
    initialState: opened,
    links: {
      page: new URL(location.pathname, location.href).href, embed: new URL('embed.html', here).href, component: new URL('attention-lab.js', here).href,
      // the zip library for "Download SCORM package", loaded when a teacher asks (a chunk of its own)
      zip: () => import('fflate'),
    },
    // keep the fragment in step with the state, without filling the history
    onChange: (state) => history.replaceState(null, '', stateToFragment(state)),
  });
  const problems = [...(asked.problem ? [asked.problem] : []), ...settingsProblems];
  if (problems.length) app.notice(problems);

  addEventListener('hashchange', () => {
    const next = stateFromFragment(location.hash);
    // a fragment that cannot be shown, typed over an open lab: its message, and what is on screen stays
    if (next.problems) {
      app.notice(next.problems);
    } else if (next.state) {
      app.setState(next.state);
    }
  });

  // ?view=models, or a plain anchor #models: the page lands on that section
  jumpToView(params.get('view') ?? (/^#[a-z-]+$/.test(location.hash) ? location.hash.slice(1) : null));
  // for tests and the curious
  globalThis.attentionLab = app;
}

// ?view=flash (any one section's name) on the full page: the whole page, scrolled to that section once
// the lab has drawn, and kept there while the sections above it are still drawn (they grow), until the
// reader scrolls, types or clicks, or 3 s have passed; so a course's link to one chapter lands on it
function jumpToView(name) {
  if (name === null) return;
  const host = document.getElementById('lab');
  const section = VIEW_NAMES.includes(name) ? host.querySelector(`section[data-view="${name}"]`) : null;
  if (!section) return;
  section.tabIndex = -1;
  const land = () => section.scrollIntoView({ block: 'start' });
  const resized = new ResizeObserver(land);
  const done = () => resized.disconnect();
  host.addEventListener('attention-lab:change', () => {
    land();
    section.focus({ preventScroll: true });
    resized.observe(host);
    setTimeout(done, 3000);
  }, { once: true });
  for (const event of ['wheel', 'touchstart', 'keydown', 'pointerdown']) addEventListener(event, done, { once: true, passive: true });
}
