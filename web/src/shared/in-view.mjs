// Which sections of a lab are on screen or near it, kept by an IntersectionObserver (asking the
// layout would force one), and a way to run work after the next frame. The controller draws the
// sections in view first, so that an edit reaches the screen in the next frame, and the rest
// right after it.

/**
 * sections: elements to watch. has(element) is true while it is near the viewport, and for every
 * element until the first report. `signal` ends the watching (the lab was removed).
 */
export function watchInView(sections, { signal } = {}) {
  const near = new Set();
  let reported = false;
  if (typeof IntersectionObserver === 'function') {
    const observer = new IntersectionObserver((entries) => {
      reported = true;
      for (const entry of entries) {
        if (entry.isIntersecting) near.add(entry.target);
        else near.delete(entry.target);
      }
    }, { rootMargin: '25% 0px' });
    for (const section of sections) observer.observe(section);
    signal?.addEventListener('abort', () => observer.disconnect());
  }
  return { has: (section) => !reported || near.has(section) };
}

/**
 * Runs fn once after the next frame is painted and the one after has begun (or after 150 ms where
 * frames do not come, as in a hidden tab): work that is not on screen yields the next frame to what is.
 */
export function afterNextFrame(fn) {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    fn();
  };
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(once, 0)));
  setTimeout(once, 150);
}

/**
 * then() once, when `element` first comes within a screen of the viewport (at once without
 * IntersectionObserver); never after `signal` is aborted: an observer made then would never be
 * disconnected, and an observer with a target keeps its callback, and so the lab, alive.
 */
export function whenNear(element, then, signal) {
  if (signal.aborted) return undefined;
  if (typeof IntersectionObserver !== 'function') return then();
  const observer = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    observer.disconnect();
    then();
  }, { rootMargin: '100% 0px' });
  observer.observe(element);
  signal.addEventListener('abort', () => observer.disconnect());
  return undefined;
}
