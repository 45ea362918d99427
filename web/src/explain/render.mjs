// The explanation panel (#explain): a cell's title, the arithmetic line by line, and its value.
// Pure drawing: text only, never markup.

/** explanation: { title, lines, value (text or null) }, or null to hide the panel. */
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
}
