// The explanation panel (#explain): a cell's title, the arithmetic line by line, and its value.
// Pure drawing: text only, never markup.

/** explanation: { title, lines, value (text or null), links? ([{ text }]) }, or null to hide the panel. */
export function renderExplanation(root, explanation) {
  const $ = (id) => root.getElementById(id);
  const panel = $('explain');
  if (!explanation) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  $('explain-cell').textContent = explanation.title;
  $('explain-lines').replaceChildren(...explanation.lines.map((line) => {
    const li = document.createElement('li');
    li.textContent = line;
    return li;
  }));
  $('explain-value').textContent = explanation.value === null ? '' : `= ${explanation.value}`;
  // where the terms come from, across layers (shared/explain-layers.mjs): buttons, by their index
  const links = explanation.links ?? [];
  $('explain-links').hidden = links.length === 0;
  $('explain-links').replaceChildren(...links.map((link, index) => {
    const li = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.link = String(index);
    button.textContent = link.text;
    li.append(button);
    return li;
  }));
}
