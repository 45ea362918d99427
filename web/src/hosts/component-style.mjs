// The lab's stylesheet as the web component uses it. Inside a shadow root `rem` still means the
// host page's root font (10 px in classic Jupyter, where the lab's text came out at 8 px), so the
// component's copy has every rem length turned into px at its own base size, which `:host` sets.

/** The component's base font size in px (styles.css sets the same on :host). */
export const BASE_FONT_PX = 16;

/** `css` with every rem length (1.2rem, .5rem, 2rem, -0.45rem) written in px at `base` px to the rem. */
export function remToPx(css, base = BASE_FONT_PX) {
  return css.replace(/(?<![\w.-])(-?\d*\.?\d+)rem\b/g, (_, number) => `${Number((Number(number) * base).toFixed(3))}px`);
}
