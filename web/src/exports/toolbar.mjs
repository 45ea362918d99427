// What the toolbar's parts share: copying a text (or showing it to copy by hand), downloading a file,
// and a button that opens its panel. Each takes the toolbar's object (index.mjs).

/** what: 'link', 'snippet' or 'table' (a whole sentence each in the catalogue). */
export async function copyText({ $, preview, showStatus, t }, text, what) {
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

export function download({ root }, name, blob) {
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

/** The button opens and closes the panel; fill() writes it each time it opens. */
export const toggle = (button, panel, fill) => button.addEventListener('click', () => {
  const open = panel.hidden;
  panel.hidden = !open;
  button.setAttribute('aria-expanded', String(open));
  if (open) fill();
});
