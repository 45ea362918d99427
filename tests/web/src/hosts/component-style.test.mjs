// The component's copy of the stylesheet: rem lengths become px at its own base size.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { remToPx, BASE_FONT_PX } from '../../../../web/src/hosts/component-style.mjs';

it('turns every rem length into px at the base size, and leaves everything else alone', () => {
  assert.equal(remToPx('h2 { font-size: 1.15rem; margin: 1.6rem 0 .5rem; }', 16), 'h2 { font-size: 18.4px; margin: 25.6px 0 8px; }');
  assert.equal(remToPx('a { width: 2rem } b { width: 2em } c { --x-2rem: 1px; top: 10px }', 10), 'a { width: 20px } b { width: 2em } c { --x-2rem: 1px; top: 10px }');
  assert.equal(remToPx('minmax(9.5rem, 1fr)'), `minmax(${9.5 * BASE_FONT_PX}px, 1fr)`);
  assert.equal(remToPx('top: -0.45rem; margin: -1rem -.5rem 0', 16), 'top: -7.2px; margin: -16px -8px 0');
});

it('leaves no rem in the real stylesheet, and the base size matches :host in styles.css', () => {
  const css = readFileSync(new URL('../../../../web/styles.css', import.meta.url), 'utf8');
  assert.ok(/\drem\b/.test(css), 'the page sheet does use rem');
  assert.doesNotMatch(remToPx(css), /\drem\b/);
  assert.match(css, new RegExp(`:host \\{ font-size: ${BASE_FONT_PX}px;`));
});
