// <attention-lab>: the lab as a web component for any page.
//   <script type="module" src=".../attention-lab.js"></script>
//   <attention-lab preset="cat-sat" heads="2" view="weights"></attention-lab>
// Attributes: preset, sentence, context (a second sentence: cross-attention), d-model, heads, d-k,
// d-v, scale ("sqrt_dk", "none" or a divisor), mask ("none", "causal", "padding"), weights
// ("identity", "random"), seed, wo ("on", "off"), query (a token index), layers (1–6), block
// ("attention", "full"), norm ("pre", "post"), layer (the layer shown, from 1), view (a comma-separated
// list of views, e.g. "weights" or "steps,heatmap"; or "compare": two labs and their differences, the
// state attribute then a compare link's "lab=…&lab=…"), state (a link's "lab=…" fragment, for exact
// hand edits), theme ("light", the default, "dark" or "auto": the reader's system), compact (no
// notes and no hints), mode ("practice" blanks cells to work out; "explore", the default), lang
// ("en", the default, or "hi": every text of the lab in that language; another value shows English
// and says so).
// Changing an attribute updates the lab. Each instance lives in its own shadow root, so styles do
// not leak in or out; its text is sized in px from its own base, whatever the host page's root
// font; all instances share one engine connection.
// This file is the element; an entry defines it with a way to reach the engine: component.mjs (the
// served folder: a worker beside it), component-bundled.mjs (the npm package: everything inside).
import { createApp, parseViews } from '../lab/app.mjs';
import { stateFromSettings } from '../state/index.mjs';
import { resolveLanguage, problemOf } from '../i18n/page.mjs';
import { remToPx } from './component-style.mjs';
import { mountComparePair, statesOfCompareFragment } from './compare.mjs';
import css from '../../styles.css';

let connectEngine = null;
let sharedCompute = null;
let sharedSheet = null;

const THEMES = ['light', 'dark', 'auto'];

export class AttentionLabElement extends HTMLElement {
  static observedAttributes = ['preset', 'sentence', 'context', 'd-model', 'heads', 'd-k', 'd-v', 'scale', 'mask', 'weights', 'seed', 'wo', 'query', 'layers', 'block', 'norm', 'layer', 'kv-heads', 'rotary', 'rotary-dims', 'window', 'view', 'state', 'theme', 'compact', 'mode', 'lang'];

  #app = null;
  #compare = null;
  #pending = false;
  #relabelPending = false;

  connectedCallback() {
    if (this.#app) return;
    sharedCompute ??= connectEngine();
    if (!sharedSheet) {
      sharedSheet = new CSSStyleSheet();
      sharedSheet.replaceSync(remToPx(css));
    }
    // moved in the document: disconnected, then connected again, with its shadow root still there
    const shadow = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    shadow.adoptedStyleSheets = [sharedSheet];
    const container = document.createElement('div');
    shadow.replaceChildren(container);
    if (this.getAttribute('view') === 'compare') return this.#mountCompare(container);
    const { state, problems } = this.#stateFromAttributes();
    const { views, unknown } = parseViews(this.getAttribute('view'));
    const { language } = resolveLanguage(this.getAttribute('lang'));
    this.#app = createApp(container, { compute: sharedCompute, initialState: state, views, embedded: true, lang: language });
    container.classList.toggle('compact', this.hasAttribute('compact'));
    this.#report(problems, unknown);
  }

  // Removed from the page: the lab lets go of everything outside its own nodes (the colour-scheme
  // listener, answers still on their way from the shared engine), so nothing keeps it alive.
  disconnectedCallback() {
    this.#app?.destroy();
    this.#app = null;
    this.#compare = null;
  }

  // view="compare": two labs (each an <attention-lab> of its own) and their differences B − A; the
  // state attribute is a compare link's "lab=…&lab=…" (without it: money bank and river bank)
  #mountCompare(container) {
    container.className = 'compare';
    const { a, b, problems } = statesOfCompareFragment(this.getAttribute('state'));
    const { language } = resolveLanguage(this.getAttribute('lang'));
    this.#compare = mountComparePair(container, { states: { a, b }, language, theme: this.getAttribute('theme') ?? 'light' });
    if (problems.length) this.#compare.a.lab?.notice(problems);
  }

  attributeChangedCallback(name) {
    if (this.#compare) {
      // the compare view is made again from its attributes, once for changes made in one go
      if (this.#pending) return;
      this.#pending = true;
      queueMicrotask(() => {
        this.#pending = false;
        if (!this.#compare) return;
        if (this.getAttribute('view') === 'compare') this.#mountCompare(this.shadowRoot.firstElementChild);
        else this.#remount();
      });
      return;
    }
    if (!this.#app) return;
    if (name === 'lang') {
      // the texts only: the state, the edits and the chosen token and head stay. A relabel redraws
      // every text (about 40 ms), so changes in one go give one, on the next frame, in the last language.
      if (this.#relabelPending) return;
      this.#relabelPending = true;
      const nextFrame = typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (run) => setTimeout(run, 16);
      nextFrame(() => {
        this.#relabelPending = false;
        if (!this.#app) return;
        this.#app.setLanguage(resolveLanguage(this.getAttribute('lang')).language);
        this.#report(this.#stateFromAttributes().problems, parseViews(this.getAttribute('view')).unknown);
      });
      return;
    }
    if (name === 'theme' || name === 'compact') {
      // the look only: styles follow the attribute by themselves; canvases are redrawn in the new ink
      this.shadowRoot.querySelector('.lab').classList.toggle('compact', this.hasAttribute('compact'));
      this.#app.restyle();
      this.#report(this.#stateFromAttributes().problems, parseViews(this.getAttribute('view')).unknown);
      return;
    }
    if (this.#pending) return;
    // several attributes set in one go give one update
    this.#pending = true;
    queueMicrotask(() => {
      this.#pending = false;
      if (!this.#app) return;
      if (this.getAttribute('view') === 'compare') {
        this.#app.destroy();
        this.#app = null;
        return this.connectedCallback();
      }
      const { state, problems } = this.#stateFromAttributes();
      const { views, unknown } = parseViews(this.getAttribute('view'));
      this.#app.setViews(views, { redraw: false });  // setState draws
      this.#app.setState(state);
      this.#report(problems, unknown);
    });
  }

  /** A copy of the lab's state, the object a link carries (null before the lab is connected). */
  get state() {
    return this.#app?.state ?? null;
  }

  /** The engine's last result as drawn, or null (read it, do not change it). */
  get result() {
    return this.#app?.result ?? null;
  }

  /** The lab: { state, result, view, draws, setState, … } (lab/api.mjs); null in the compare view. */
  get lab() {
    return this.#app;
  }

  /** The compare view (view="compare"): { a, b, update } (its two <attention-lab> elements), else null. */
  get compare() {
    return this.#compare;
  }

  // from the compare view back to one lab (view changed): connected anew
  #remount() {
    this.#compare = null;
    this.connectedCallback();
  }

  #report(problems, unknown) {
    const all = [...problems];
    if (unknown.length) all.push(problemOf('view', 'problem.unknownViews', { names: unknown.join(', ') }));
    const theme = this.getAttribute('theme');
    if (theme !== null && !THEMES.includes(theme)) all.push(problemOf('theme', 'problem.theme', { value: theme.slice(0, 40) }));
    const { problem: language } = resolveLanguage(this.getAttribute('lang'));
    if (language) all.push(language);
    this.#app.notice(all);  // none: an attribute put right takes its message away
  }

  #stateFromAttributes() {
    return stateFromSettings((name) => this.getAttribute(name));
  }
}

/** Defines <attention-lab>, its labs reaching the engine through `connect()` (a compute.mjs connection, made once). */
export function defineAttentionLab(connect) {
  connectEngine = connect;
  if (!customElements.get('attention-lab')) customElements.define('attention-lab', AttentionLabElement);
}
