// What the lab says about itself: the problems with the input (each marks its control), the status
// line, and how the last computation ran.
//   page: { root, $(id) }

/** problems: [{ field, message }] with the message already in the lab's language. */
export function renderMessages({ root, $ }, problems) {
  const container = $('messages');
  container.replaceChildren(...problems.map(({ message }) => {
    const p = document.createElement('p');
    p.textContent = message;
    return p;
  }));
  for (const field of root.querySelectorAll('#controls .field')) {
    const bad = problems.some((p) => p.field === field.dataset.field);
    field.classList.toggle('invalid', bad);
    for (const input of field.querySelectorAll('input, select')) {
      if (bad) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    }
  }
}

export function renderStatus({ $ }, text) {
  $('status').textContent = text;
}

// How the last computation ran: kept out of the reader's way, in a details element.
export function renderEngine({ $ }, text) {
  $('engine-status').textContent = text;
}
