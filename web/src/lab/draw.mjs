// The draw schedule: a new computation draws the sections in view first and the others after the
// next frame (offscreenLater), so that an edit reaches the screen in one frame; `draws` counts a
// draw once every section has it. Other redraws (a head or token chosen) draw everything at once.
import { watchInView, afterNextFrame } from '../shared/in-view.mjs';

/**
 * createDrawer({ container, section, signal, features, getState, getView, onDrawn(draws) }):
 * features are mounted features; each may give prepare(state, view), parts() → [[section name,
 * draw(state, view)]], draw(state, view) (a part of its own, drawn last), and redraw() (after every part).
 */
export function createDrawer({ container, section, signal, features, getState, getView, onDrawn }) {
  const inView = watchInView([...container.querySelectorAll('section[data-view]')], { signal });
  const schedule = { draws: 0, finishing: false, token: 0 };
  const partsOf = () => [
    ...features.flatMap((feature) => feature.parts?.() ?? []),
    ...features.filter((feature) => feature.draw).map((feature) => [feature.section ?? null, feature.draw]),
  ];
  schedule.draw = ({ offscreenLater = false } = {}) => {
    const token = ++schedule.token;
    const started = performance.now();
    const state = getState();
    const view = getView();
    for (const feature of features) feature.prepare?.(state, view);
    const parts = partsOf();
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
