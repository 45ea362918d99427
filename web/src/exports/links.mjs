// The toolbar's link to this exact state and its embed snippets (the web component, an iframe).
import { copyText, toggle } from './toolbar.mjs';
import { stateToFragment, linkCarriesWeights } from '../state/index.mjs';
import { componentSnippet } from '../state/snippets.mjs';


// a page in another language than English says so in its links: ?lang=hi
const languageQuery = ({ getLanguage }) => (getLanguage() === 'en' ? '' : `?lang=${getLanguage()}`);

function fillEmbed(toolbar) {
  const { $, links, getState, getLanguage } = toolbar;
  const state = getState();
  $('embed-component').textContent = componentSnippet(links.component, state, getLanguage());
  $('embed-absolute').textContent = links.component;
  $('embed-iframe').textContent =
    `<iframe src="${links.embed}${languageQuery(toolbar)}${stateToFragment(state)}" title="Attention Lab" style="width: 100%; border: 0" height="900"></iframe>\n` +
    '<script>addEventListener("message", (e) => { if (e.data && e.data.type === "attention-lab:height") for (const f of document.querySelectorAll("iframe[title=\'Attention Lab\']")) if (f.contentWindow === e.source) f.height = e.data.height; });</script>';
}

export function wireLinks(toolbar) {
  const { $, root, links } = toolbar;
  $('copy-link').hidden = !links?.page;
  const pageLink = () => links.page + languageQuery(toolbar) + stateToFragment(toolbar.getState());
  // weights too many for a link are left out of it, and the reader is told to save them as a file;
  // a real model's layer made a link of 130 000 characters, which a course page or an LMS will not take:
  // no link carries it (state/link.mjs MODEL_LINK), and Copy link says why, copying nothing (issue #24)
  $('copy-link').addEventListener('click', () => {
    const link = pageLink();
    const state = toolbar.getState();
    if (state.modelBlock?.source && !linkCarriesWeights(state)) {
      toolbar.showStatus(toolbar.t('models.noLink'));
      return;
    }
    copyText(toolbar, link, linkCarriesWeights(state) ? 'link' : 'linkSettingsOnly');
  });
  $('embed-toggle').hidden = !links?.component;
  toggle($('embed-toggle'), $('embed-panel'), () => fillEmbed(toolbar));
  for (const button of root.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', () => copyText(toolbar, $(button.dataset.copy).textContent, 'snippet'));
  }
}
