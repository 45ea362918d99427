// The contents bar (issue 25): one line of links to the lab's chapters (Basics from the notes,
// Layers, Modern attention and its chapters, Train, Real models), each a link to `?view=<name>` that
// index.html lands on (hosts/page.mjs jumpToView). On a page that holds the chapter, following a link
// scrolls to it and moves the focus there without a reload; a chapter this lab does not have (a view
// not built yet, or left out by the host's `view`) is a plain link on the full page and nothing inside
// an embed. Hidden with every other section when a host shows only some views (data-view "contents").
import { element } from '../shared/chapter.mjs';

// [key of the label, view name, chapters under it]
const ENTRIES = [
  ['contents.basics', 'learn'],
  ['contents.layers', 'blocks'],
  ['contents.modern', 'flash', [['contents.flash', 'flash'], ['contents.kvCache', 'kv-cache'], ['contents.rope', 'rope'], ['contents.gqa', 'gqa'],
    ['contents.window', 'window'], ['contents.sinks', 'sinks']]],
  ['contents.train', 'train'],
  ['contents.models', 'models'],
];

function linkTo(ctx, view) {
  const link = element('a');
  link.dataset.contents = view;
  link.addEventListener('click', (event) => {
    const section = ctx.section(view);
    if (!section || section.hidden) {
      if (ctx.embedded || !ctx.links?.page) event.preventDefault();  // inside an embed: no page to go to
      return;
    }
    event.preventDefault();
    section.tabIndex = -1;
    section.scrollIntoView({ block: 'start' });
    section.focus({ preventScroll: true });
  });
  return link;
}

function build(ctx) {
  const nav = element('nav', 'contents');
  nav.dataset.view = 'contents';
  const list = element('ul');
  const labels = [];
  for (const [key, view, chapters] of ENTRIES) {
    const item = element('li');
    const link = linkTo(ctx, view);
    labels.push([link, key, view]);
    item.append(link);
    if (chapters) {
      const inner = element('ul');
      for (const [chapterKey, chapterView] of chapters) {
        const chapterItem = element('li');
        const chapterLink = linkTo(ctx, chapterView);
        labels.push([chapterLink, chapterKey, chapterView]);
        chapterItem.append(chapterLink);
        inner.append(chapterItem);
      }
      item.append(inner);
    }
    list.append(item);
  }
  nav.append(list);
  ctx.container.prepend(nav);
  return { nav, labels };
}

// `?view=<name>` on the lab's own page (with its language), or on this document's address in a host's page
function hrefOf(ctx, view) {
  const url = new URL(ctx.links?.page ?? globalThis.location?.href ?? 'http://localhost/');
  url.search = '';
  url.hash = '';
  url.searchParams.set('view', view);
  if (ctx.language() !== 'en') url.searchParams.set('lang', ctx.language());
  return url.href;
}

function relabel(ctx, parts) {
  parts.nav.setAttribute('aria-label', ctx.t('contents.label'));
  for (const [link, key, view] of parts.labels) {
    link.textContent = ctx.t(key);
    link.href = hrefOf(ctx, view);
  }
}

/** mount(ctx): the feature contract (docs/architecture.md). */
export function mount(ctx) {
  const parts = build(ctx);
  relabel(ctx, parts);
  return {
    relabel: () => relabel(ctx, parts),
    destroy: () => parts.nav.remove(),
  };
}
