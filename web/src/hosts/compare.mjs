// The compare view (index.html?view=compare, embed.html?view=compare, <attention-lab view="compare">;
// issue 23): two labs side by side, A and B,
// each an <attention-lab> in its own shadow root (so their tables keep their ids), one engine
// connection for both, and the difference tables B − A under them (blocks/compare.mjs). The link
// carries both: "#lab=…&lab=…" (each part a lab's own fragment, whose JSON is percent-encoded and so
// holds no '&'). Without a fragment: the notes' money bank (A) and river bank (B).
import { VIEW_NAMES } from '../lab/views.mjs';
import { defineAttentionLab } from './element.mjs';
import { renderDifferences } from '../blocks/compare.mjs';
import { stateFromFragment, stateToFragment, presetState } from '../state/index.mjs';
import { translator, addressWithLanguage } from '../i18n/page.mjs';
import { message, LANGUAGES } from '../i18n/index.mjs';

/** The two states a compare link describes, or the default pair; problems of a part that cannot be read. */
export function statesOfCompareFragment(hash) {
  const parts = String(hash ?? '').replace(/^#/, '').split('&').filter(Boolean);
  const read = parts.map((part) => stateFromFragment(part));
  const problems = read.flatMap((r) => r.problems ?? []);
  const [a, b] = read.map((r) => r.state ?? null);
  return { a: a ?? presetState('money-bank'), b: b ?? (a ? structuredClone(a) : presetState('river-bank')), problems };
}

/** The link of a pair of states. */
export const compareFragment = (a, b) => `${stateToFragment(a)}&${stateToFragment(b).replace(/^#/, '')}`;

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// The page's language menu for the compare view (the labs take the language when mounted): a choice
// reloads the address with ?lang=…, the fragment (both labs) kept.
function languageMenu(language) {
  const label = element('label', 'language-menu');
  const menu = element('select');
  menu.id = 'compare-language';
  menu.append(...LANGUAGES.map((code) => {
    const option = element('option', null, message('language.name', {}, code));
    option.value = code;
    option.lang = code;
    return option;
  }));
  menu.value = language;
  menu.addEventListener('change', () => location.replace(addressWithLanguage(location.href, menu.value)));
  label.append(element('span', null, message('language.menu', {}, language)), ' ', menu);
  return label;
}

// Copies `text`, or, with no clipboard here, shows it in `box` to copy by hand; says which in `status`
async function copyOrShow(text, { box, status, t, what }) {
  try {
    await navigator.clipboard.writeText(text);
    box.hidden = true;
    status.textContent = t(`export.copied.${what}`);
  } catch {
    box.value = text;
    box.hidden = false;
    box.select();
    status.textContent = t(`export.byHand.${what}`);
  }
}

// "Copy link" and "Embed" for both labs (review 5, finding 8): the page's address with the pair's
// fragment, and an iframe of embed.html?view=compare with it. `links`: { page, embed } (addresses).
function shareBar(t, links, language, fragment) {
  const bar = element('div', 'compare-share');
  bar.setAttribute('role', 'group');
  bar.setAttribute('aria-label', t('blocks.compare.share'));
  const copy = element('button', null, t('toolbar.copyLink'));
  const embed = element('button', null, t('toolbar.embed'));
  [copy.id, embed.id] = ['compare-copy-link', 'compare-embed'];
  for (const button of [copy, embed]) button.type = 'button';
  embed.setAttribute('aria-expanded', 'false');
  const note = element('div', 'hint', t('blocks.compare.linkNote'));  // not a p.hint: that is the tables' note
  note.id = 'compare-link-note';
  const box = element('textarea', 'compare-share-text');
  Object.assign(box, { id: 'compare-share-text', readOnly: true, rows: 3, hidden: true });
  box.setAttribute('aria-label', t('blocks.compare.share'));
  const status = element('p', 'status');
  status.id = 'compare-share-status';
  status.setAttribute('role', 'status');
  const query = (base) => `${base}?view=compare${language === 'en' ? '' : `&lang=${language}`}`;
  const iframe = () => `<iframe src="${query(links.embed)}${fragment()}" title="Attention Lab" style="width: 100%; border: 0" height="1400"></iframe>`;
  copy.addEventListener('click', () => copyOrShow(query(links.page) + fragment(), { box, status, t, what: 'link' }));
  embed.addEventListener('click', () => {
    const open = embed.getAttribute('aria-expanded') !== 'true';
    embed.setAttribute('aria-expanded', String(open));
    status.textContent = open ? t('embed.iframeHint') : '';
    Object.assign(box, { value: open ? iframe() : '', hidden: !open });
  });
  bar.append(copy, embed, note, status, box);  // what the box holds, said above it
  return bar;
}

// "Show layer in both labs" (review 5, finding 9): one picker setting both labs' shown layer, when
// both are stacks; it says so when they show different layers. Returns { box, follow(a, b) }.
function layerPicker(t, labs) {
  const box = element('div', 'field compare-layer');
  const label = element('label', null, t('blocks.compare.showLayer'));
  const select = element('select');
  select.id = 'compare-layer';
  label.htmlFor = select.id;
  box.append(label, select);
  box.hidden = true;
  select.addEventListener('change', () => {
    if (select.value === '') return;
    for (const lab of labs) lab.lab.setState({ ...lab.lab.state, selectedLayer: Number(select.value) });
  });
  const follow = (a, b) => {
    const count = Math.min(a.layers, b.layers);
    box.hidden = !(count > 1);
    if (box.hidden) return;
    const differ = a.selectedLayer !== b.selectedLayer;
    select.replaceChildren(...(differ ? [element('option', null, t('blocks.compare.layersDiffer'))] : []),
      ...Array.from({ length: count }, (_, l) => element('option', null, t('blocks.layerOption', { layer: l + 1 }))));
    [...select.options].forEach((option, i) => { option.value = differ && i === 0 ? '' : String(differ ? i - 1 : i); });
    select.value = differ ? '' : String(a.selectedLayer);
  };
  return { box, follow };
}

/**
 * The compare view's parts in `host`: the two <attention-lab> elements for `states` ({ a, b }), the
 * difference tables, and `update()` drawing them; `onChange(a, b)` after each (the states). `menu`:
 * the page's language menu, or none (an embed, a component). Shared by the page, the embed and
 * <attention-lab view="compare"> (element.mjs).
 */
export function mountComparePair(host, { states, language, theme = 'auto', menu = false, links = null, onChange = null }) {
  const t = translator(language);
  const side = element('div', 'compare-labs');
  const labs = [['A', states.a], ['B', states.b]].map(([name, state]) => {
    const column = element('section', 'compare-lab');
    column.setAttribute('aria-label', t('blocks.compare.lab', { name }));
    column.append(element('h2', null, t('blocks.compare.lab', { name })));
    const lab = document.createElement('attention-lab');
    lab.setAttribute('state', stateToFragment(state).replace(/^#/, ''));
    lab.setAttribute('lang', language);
    lab.setAttribute('theme', theme);  // the page's (the reader's light or dark, as the page around it)
    // every section but the contents bar: the page's chapters are not in a lab of the comparison
    lab.setAttribute('view', VIEW_NAMES.filter((name) => name !== 'contents').join(','));
    column.append(lab);
    side.append(column);
    return lab;
  });
  const section = element('section', 'compare-difference');
  const title = element('h2', null, t('blocks.compare.title'));
  title.id = 'compare-title';
  section.setAttribute('aria-labelledby', title.id);
  const parts = {
    note: element('p', 'hint'), weights: element('div', 'scroll compare-weights'), output: element('div', 'scroll compare-output'),
    stream: element('div', 'scroll compare-stream'),
  };
  const [a, b] = labs;
  const fragment = () => (a.lab?.state && b.lab?.state ? compareFragment(a.lab.state, b.lab.state) : compareFragment(states.a, states.b));
  const share = links ? [shareBar(t, links, language, fragment)] : [];
  const picker = layerPicker(t, labs);
  section.append(...(menu ? [languageMenu(language)] : []), ...share, title, parts.note, picker.box, parts.weights, parts.output, parts.stream);
  // the differences first: on a phone the two labs stack, and the table they are compared by stays in reach
  host.replaceChildren(section, side);
  const update = () => {
    if (!a.lab?.view || !b.lab?.view) return;
    renderDifferences(parts, { state: a.lab.state, view: a.lab.view }, { state: b.lab.state, view: b.lab.view }, t);
    const shown = (lab) => ({ layers: lab.view.result.layers?.length ?? 1, selectedLayer: lab.view.layer ?? 0 });
    picker.follow(shown(a.lab), shown(b.lab));
    onChange?.(a.lab.state, b.lab.state);
  };
  side.addEventListener('attention-lab:change', update);
  return { a, b, update };
}

/** Mounts the compare view of a page (index.html, embed.html) in `host`, its pair in the address's fragment; returns { a, b, update }. */
export function mountCompare(host, { compute, language, theme = 'auto', menu = true, links = null }) {
  defineAttentionLab(() => compute);
  const { a: stateA, b: stateB, problems } = statesOfCompareFragment(location.hash);
  const pair = mountComparePair(host, {
    states: { a: stateA, b: stateB }, language, theme, menu, links,
    onChange: (a, b) => history.replaceState(null, '', compareFragment(a, b)),
  });
  const { a, b } = pair;
  // a compare link typed over the open page: both labs take its states (a part that cannot be read, said)
  addEventListener('hashchange', () => {
    const next = statesOfCompareFragment(location.hash);
    if (next.problems.length) return a.lab.notice(next.problems);
    a.lab.setState(next.a);
    b.lab.setState(next.b);
  });
  // a part of the link that could not be read: said in lab A (its labs are up once connected)
  if (problems.length) a.lab?.notice(problems);
  return pair;
}
