// Real models' boxes that scroll sideways (a wide heatmap, the stream's tables) say so.

// A box that scrolls sideways shows it (review 7, finding 2): its edge fades on each side with more
// to see (data-more: 'left', 'right' or both, models.css), and its line ("scroll sideways for all n
// tokens") shows only while it overflows. Returns the update, run again whenever it is drawn anew.
export function scrollCue(box, line) {
  const update = () => {
    const more = box.scrollWidth - box.clientWidth;
    const overflows = box.clientWidth > 0 && more > 1;
    box.dataset.more = [overflows && box.scrollLeft > 1 && 'left', overflows && box.scrollLeft < more - 1 && 'right'].filter(Boolean).join(' ');
    line.hidden = !overflows;
  };
  line.hidden = true;
  box.addEventListener('scroll', update, { passive: true });
  return update;
}

/**
 * scrollCue for a box whose contents are drawn anew by others (the stream's tables), with its line
 * (`text`, a hint) made here: updated whenever the box's contents or width change. Returns the line,
 * to go before the box.
 */
export function watchedScrollCue(box, text) {
  const line = document.createElement('p');
  line.className = 'hint model-scroll-cue';
  line.textContent = text;
  const update = scrollCue(box, line);
  if (typeof MutationObserver === 'function') new MutationObserver(update).observe(box, { childList: true, subtree: true });
  if (typeof ResizeObserver === 'function') new ResizeObserver(update).observe(box);
  return line;
}
