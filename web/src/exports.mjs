// The toolbar of a lab: copy a link to this exact state, embed snippets, and exports of every table
// (CSV, JSON, Markdown, LaTeX) and of the heatmap and token lines (SVG, PNG).
import { stateToFragment, linkCarriesWeights } from './state.mjs';
import { tablesOf, settingsOf, exportTable, FORMATS } from './export-formats.mjs';
import { weightColour } from './colour.mjs';
import { svgElement } from './render/svg.mjs';
import { message } from './messages.mjs';

// Styles an exported SVG needs once it leaves the page (light scheme, system fonts).
const SVG_STYLE = `text { font-family: system-ui, sans-serif; font-size: 12px; fill: #1c1c1e; }
.axis-title, .tick { fill: #5b5b63; font-size: 11px; } .token-hit { fill: none; }
.token-node text { font-family: ui-monospace, Menlo, Consolas, monospace; }`;

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

/** t(key, values): the lab's language; getLanguage(): its code, which the page's link and the snippets carry. */
export function setupExports({ root, getView, getState, links, showStatus, t, getLanguage }) {
  const $ = (id) => root.getElementById(id);
  const preview = $('export-preview');

  // what: 'link', 'snippet' or 'table' (a whole sentence each in the catalogue)
  async function copyText(text, what) {
    try {
      await navigator.clipboard.writeText(text);
      showStatus(t(`export.copied.${what}`));
    } catch {
      // no clipboard here (an insecure origin, a denied permission): show it to copy by hand
      preview.textContent = text;
      $('export-panel').hidden = false;
      showStatus(t(`export.byHand.${what}`));
    }
  }

  function download(name, blob) {
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.hidden = true;
    (root.body ?? root).append(a);  // a document's body, or the shadow root itself
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  const toggle = (button, panel, fill) => button.addEventListener('click', () => {
    const open = panel.hidden;
    panel.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    if (open) fill();
  });

  // ---- link and embed

  $('copy-link').hidden = !links?.page;
  // a page in another language than English says so in its links: ?lang=hi
  const languageQuery = () => (getLanguage() === 'en' ? '' : `?lang=${getLanguage()}`);
  const pageLink = () => links.page + languageQuery() + stateToFragment(getState());
  // weights too many for a link are left out of it, and the reader is told to save them as a file
  $('copy-link').addEventListener('click', () => copyText(pageLink(), linkCarriesWeights(getState()) ? 'link' : 'linkSettingsOnly'));

  $('embed-toggle').hidden = !links?.component;
  toggle($('embed-toggle'), $('embed-panel'), () => {
    const state = getState();
    $('embed-component').textContent = componentSnippet(links.component, state, getLanguage());
    $('embed-absolute').textContent = links.component;
    $('embed-iframe').textContent =
      `<iframe src="${links.embed}${languageQuery()}${stateToFragment(state)}" title="Attention Lab" style="width: 100%; border: 0" height="900"></iframe>\n` +
      '<script>addEventListener("message", (e) => { if (e.data && e.data.type === "attention-lab:height") for (const f of document.querySelectorAll("iframe[title=\'Attention Lab\']")) if (f.contentWindow === e.source) f.height = e.data.height; });</script>';
  });
  for (const button of root.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', () => copyText($(button.dataset.copy).textContent, 'snippet'));
  }

  // ---- tables

  const tables = () => tablesOf(getView(), t);
  function fillTableChoices() {
    const select = $('export-table');
    const chosen = select.value;
    select.replaceChildren(...tables().map((table) => {
      const option = document.createElement('option');
      option.value = table.id;
      option.textContent = table.caption;
      return option;
    }));
    if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
    showPreview();
  }
  function currentExport() {
    const table = tables().find((t) => t.id === $('export-table').value) ?? tables()[0];
    const format = $('export-format').value;
    const text = exportTable(table, format, settingsOf(getState(), getView(), t), { precision: $('export-precision').value });
    return { text, name: `attention-lab-${table.id}.${FORMATS[format].extension}`, type: FORMATS[format].type };
  }
  function showPreview() {
    if (!$('export-practising').hidden) return;  // practising: the tables would give the answers
    preview.textContent = currentExport().text;
  }
  toggle($('export-toggle'), $('export-panel'), fillTableChoices);
  $('export-table').addEventListener('change', showPreview);
  $('export-format').addEventListener('change', showPreview);
  $('export-precision').addEventListener('change', showPreview);
  $('export-download').addEventListener('click', () => {
    const { text, name, type } = currentExport();
    download(name, new Blob([text], { type }));
  });
  $('export-copy').addEventListener('click', () => copyText(currentExport().text, 'table'));

  // ---- pictures

  function pictureSvg() {
    const view = getView();
    const state = getState();
    const settings = settingsOf(state, view, t);
    let svg;
    if ($('export-picture').value === 'lines') {
      svg = $('token-lines').cloneNode(true);
      for (const line of svg.querySelectorAll('line')) line.style.removeProperty('display');
    } else {
      svg = heatmapSvg(view, Number($('heatmap').dataset.head ?? 0), t);
    }
    svg.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
    svg.removeAttribute('id');
    const style = svgElement('style', {}, null, SVG_STYLE);
    const description = svgElement('desc', {}, null, `Attention Lab: ${JSON.stringify(settings)}`);
    svg.prepend(description, style);
    return svg;
  }
  $('export-svg').addEventListener('click', () => {
    const text = new XMLSerializer().serializeToString(pictureSvg());
    download(`attention-lab-${$('export-picture').value}.svg`, new Blob([text], { type: 'image/svg+xml' }));
  });
  $('export-png').addEventListener('click', async () => {
    const svg = pictureSvg();
    const width = Number(svg.getAttribute('width')), height = Number(svg.getAttribute('height'));
    const image = new Image();
    const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(svg)], { type: 'image/svg+xml' }));
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = width * 2;
    canvas.height = height * 2;
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.drawImage(image, 0, 0, canvas.width, canvas.height);
    URL.revokeObjectURL(url);
    canvas.toBlob((blob) => download(`attention-lab-${$('export-picture').value}.png`, blob), 'image/png');
  });

  return {
    currentExport,
    pictureSvg,
    /**
     * Practice mode: the tables, pictures and preview would show the answers, so the panel says
     * so and offers nothing to export until the reader is back in Explore.
     */
    practising(on) {
      if (on === !$('export-practising').hidden) return;
      $('export-practising').hidden = !on;
      for (const part of $('export-panel').querySelectorAll('.export-row, #export-preview')) part.hidden = on;
      if (on) preview.textContent = '';
      else if (!$('export-panel').hidden && getView()) fillTableChoices();
    },
    /** The table menu and the preview again, in the lab's language now (when the panel is open). */
    relabel() {
      if (!$('export-panel').hidden && getView()) fillTableChoices();
    },
  };
}

/** The heatmap of one head as SVG: a rect per cell filled with the weight's colour, labels as text. */
export function heatmapSvg(view, head, t = message) {
  const cell = 26, left = 90, top = 80;
  const { tokens, keyTokens, m } = view;
  const trace = view.result.heads[head];
  const width = left + m * cell + 60, height = top + tokens.length * cell + 10;
  const svg = svgElement('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': t('export.headWeights', { head: head + 1 }) });
  tokens.forEach((token, r) => {
    svgElement('text', { x: left - 6, y: top + r * cell + cell / 2, 'text-anchor': 'end', 'dominant-baseline': 'middle' }, svg, token);
    for (let c = 0; c < m; c++) {
      const masked = trace.scaled[r * m + c] === -Infinity;
      const weight = trace.weights[r * m + c];
      svgElement('rect', {
        x: left + c * cell, y: top + r * cell, width: cell, height: cell,
        fill: masked ? '#d6d6dc' : weightColour(weight).background, 'data-weight': masked ? 'masked' : weight,
      }, svg);
    }
  });
  keyTokens.forEach((token, c) => {
    svgElement('text', { x: left + c * cell + cell / 2, y: top - 6, transform: `rotate(-45 ${left + c * cell + cell / 2} ${top - 6})` }, svg, token);
  });
  return svg;
}
