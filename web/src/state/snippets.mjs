// A state as HTML another page can paste: the web component's snippet. Shared by the export toolbar
// and practice mode's teacher panel (a feature may not import another feature).
import { stateToFragment } from './index.mjs';

/**
 * The web component's snippet for a state: the script by its path on this site (a page of another
 * origin cannot load it without CORS headers), and the whole state in the `state` attribute.
 */
export function componentSnippet(componentUrl, state, language = 'en') {
  const path = new URL(componentUrl).pathname;
  const link = stateToFragment(state).slice(1);  // "lab=…", as the attribute takes it
  const lang = language === 'en' ? '' : ` lang="${quoteAttribute(language)}"`;
  return `<script type="module" src="${quoteAttribute(path)}"></script>\n<attention-lab${lang} state="${quoteAttribute(link)}"></attention-lab>`;
}

function quoteAttribute(value) {
  return String(value).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
