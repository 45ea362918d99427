// The draw schedule: a new computation draws the sections in view first and the others after the
// next frame (offscreenLater), so that an edit reaches the screen in one frame; `draws` counts a
// draw once every section has it. Other redraws (a head or token chosen) draw everything at once.
import { watchInView, afterNextFrame } from '../shared/in-view.mjs';
import { setPrecision } from '../shared/format.mjs';

/**
 * createDrawer({ container, section, signal, features, getState, getView, select, onDrawn(draws) }):
 * features are mounted features, each may give prepare(state, view) (before any part; it may
 * return a selection the tables must show, applied through `select`), draw(state, view, sections)
 * with the `sections` it fills (a part each) or its one `section`, and redraw() (after every part).
 */
export function createDrawer({ container, section, signal, features, getState, getView, select, onDrawn }) {
  const inView = watchInView([...container.querySelectorAll('section[data-view]')], { signal });
  const schedule = { draws: 0, finishing: false, token: 0 };
  const parts = features.filter((feature) => feature.draw).flatMap((feature) => (feature.sections
    ? feature.sections.map((name) => [name, (state, view) => feature.draw(state, view, [name])])
    : [[feature.section ?? null, feature.draw]]));
  schedule.draw = ({ offscreenLater = false } = {}) => {
    const token = ++schedule.token;
    const started = performance.now();
    const view = getView();
    // the lab's precision, its state's (a link carries it): every number of this draw at it
    setPrecision(getState().digits ?? 4);
    for (const feature of features) {
      const selection = feature.prepare?.(getState(), view);
      if (selection) select(selection);
    }
    const state = getState();
    const outOfView = ([name]) => name && section(name) && !inView.has(section(name));
    const later = offscreenLater ? parts.filter(outOfView) : [];
    // the last part (practice's cards beside the tables) waits for every table
    if (later.length && !later.includes(parts.at(-1))) later.push(parts.at(-1));
    for (const part of parts) if (!later.includes(part)) part[1](state, view);
    for (const feature of features) feature.redraw?.();
    // for the page benchmark: the tables in view are drawn (the screen has them in the next frame)
    performance.measure('attention-lab:visible', { start: started });
    const finish = () => {
      if (token !== schedule.token) return;  // a newer draw replaced this one
      schedule.finishing = false;
      for (const [, render] of later) render(state, view);
      if (later.length) for (const feature of features) feature.redraw?.({ late: true });
      schedule.draws++;
      performance.measure('attention-lab:draw', { start: started });
      onDrawn(schedule.draws);
    };
    schedule.finishing = later.length > 0;
    if (later.length) afterNextFrame(finish);
    else finish();
  };
  return schedule;
}
