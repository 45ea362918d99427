// Brings a drawn DOM tree up to date from a freshly built copy of it, writing only the text and
// attributes that differ: a table rebuilt on every edit would be styled, laid out and painted anew
// (and its sticky cells composited anew), where most of its cells have not changed.

/** True when `a` and `b` have the same elements and text nodes in the same places. */
function sameShape(a, b) {
  if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName || a.childNodes.length !== b.childNodes.length) return false;
  for (let i = 0; i < a.childNodes.length; i++) if (!sameShape(a.childNodes[i], b.childNodes[i])) return false;
  return true;
}

function patch(target, source) {
  if (target.nodeType === Node.TEXT_NODE) {
    if (target.data !== source.data) target.data = source.data;
    return;
  }
  for (const { name } of [...target.attributes]) if (!source.hasAttribute(name)) target.removeAttribute(name);
  for (const { name, value } of source.attributes) if (target.getAttribute(name) !== value) target.setAttribute(name, value);
  for (let i = 0; i < target.childNodes.length; i++) patch(target.childNodes[i], source.childNodes[i]);
}

/**
 * Makes `container`'s only child look like `fresh` (built by the caller and not in the document):
 * the drawn child is updated in place when it has the same shape, else `fresh` replaces it.
 * Only attributes and text are compared: the nodes must carry no listeners or properties of their own.
 */
export function replaceOrPatch(container, fresh) {
  const drawn = container.firstElementChild;
  if (drawn && container.childNodes.length === 1 && sameShape(drawn, fresh)) patch(drawn, fresh);
  else container.replaceChildren(fresh);
}
