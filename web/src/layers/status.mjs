// What the layers section says: a problem (in its messages) or a status line, never both.

/** problem: a text or null; status: the line under it ('' for none). */
export function say({ $ }, problem, status = '') {
  $('layers-messages').replaceChildren(...(problem ? [Object.assign(document.createElement('p'), { textContent: problem })] : []));
  $('layers-status').textContent = status;
}
