// What the tables' renderers share: a table's holder, and the check that spares an unchanged rebuild.

// The scrolling holder of one table inside `parent`, made on first use and kept after.
export function slotIn(parent, name) {
  let div = parent.querySelector(`[data-slot="${name}"]`);
  if (!div) {
    div = document.createElement('div');
    div.className = 'scroll';
    div.dataset.slot = name;
    parent.append(div);
  }
  return div;
}

// True when `container` already shows what `signature` describes; otherwise records it. Rebuilding
// unchanged content would make the browser lay out and paint it again on every edit.
export function unchanged(container, signature) {
  if (container.dataset.signature === signature) return true;
  container.dataset.signature = signature;
  return false;
}
