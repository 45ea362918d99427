// The scaling lab: why attention divides by √d_k. The variance of q·k measured at each d_k (once,
// when the engine is ready), softmax of two rows, and a slider that multiplies one row of the
// shown head's scaled scores before the softmax, with the entropy of the weights it gives.
// Each function takes the lab's own object:
//   scaling: { $(id), compute, t, view, shownHead, queryToken, saturationRequest, rows, softmax }
import { renderVariancePlot, renderSoftmaxBars } from './render.mjs';
import { renderMatrix } from '../shared/matrix.mjs';
import { entropyBits } from '../shared/stats.mjs';
import { formatNumber } from '../shared/format.mjs';
import { selectionIn } from '../shared/selection.mjs';

const LAB_DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

async function drawSaturation(scaling) {
  const { $, t, view, shownHead, queryToken } = scaling;
  const exponent = Number($('saturation').value);
  const factor = 10 ** exponent;
  $('saturation-factor').textContent = formatNumber(factor);
  const { m, keyTokens, result } = view;
  // the row softmax actually sees: the scaled scores, −∞ where masked; at ×1 the bars are the weights
  const scores = result.heads[shownHead].scaled.slice(queryToken * m, (queryToken + 1) * m);
  const id = ++scaling.saturationRequest;
  const weights = await scaling.compute.softmaxRow(scores, factor);
  if (id !== scaling.saturationRequest) return;
  renderSoftmaxBars($('softmax-slider'), keyTokens, weights,
    t('lab.sliderBars', { factor: formatNumber(factor), token: view.tokens[queryToken], head: shownHead + 1 }));
  const entropy = entropyBits(weights);
  $('saturation-entropy').textContent = t('lab.entropy', { bits: formatNumber(entropy), m, most: formatNumber(Math.log2(m)) });
}

function drawLab({ $, t, rows, softmax }) {
  renderVariancePlot($('variance-plot'), rows, t);
  renderMatrix($('variance-table'), {
    caption: t('lab.varianceTable'), t, rowLabels: rows.map((r) => `d_k = ${r.dk}`), columnLabels: ['Var(q·k)', 'Var(q·k / √d_k)'],
    values: rows.flatMap((r) => [r.unscaled, r.scaled]), address: { matrix: null },
  });
  const [six, three] = softmax;
  renderSoftmaxBars($('softmax-64'), ['e⁶ / Σ', 'e⁴ / Σ'], six, 'softmax([6, 4])');
  renderSoftmaxBars($('softmax-32'), ['e³ / Σ', 'e² / Σ'], three, 'softmax([3, 2])');
}

/**
 * The scaling lab in one lab's root: draw(view, head, token) after every computation (the slider's
 * row), relabel() for a new language, runLab() once (measures the variances; resolves to them).
 */
export function createScaling({ root, compute, t }) {
  const scaling = {
    $: (id) => root.getElementById(id), compute, t,
    view: null, shownHead: 0, queryToken: 0, saturationRequest: 0, rows: null, softmax: null,
  };
  scaling.$('saturation').addEventListener('input', () => drawSaturation(scaling));
  return {
    /** Draws the slider's row for a new computation, head ('all' shows the first) and query token. */
    draw(view, head, token) {
      scaling.view = view;
      scaling.shownHead = head === 'all' ? 0 : Math.min(head, view.heads - 1);
      scaling.queryToken = Math.min(token, view.tokens.length - 1);
      // at the width now shown (a turned phone, a resized window), once the lab is measured (both parts)
      if (scaling.rows && scaling.softmax) drawLab(scaling);
      drawSaturation(scaling);
    },
    /** Draws the measured lab again in the lab's language now (the slider's texts come with the next draw). */
    relabel() {
      if (scaling.rows && scaling.softmax) drawLab(scaling);
    },
    /** Computed once, when the engine is ready. */
    async runLab() {
      scaling.rows = await compute.varianceLab({ dks: LAB_DKS });
      scaling.softmax = await Promise.all([compute.softmaxRow([6, 4], 1), compute.softmaxRow([3, 2], 1)]);
      drawLab(scaling);
      return scaling.rows;
    },
  };
}

/**
 * The feature contract (tools/CONTRACT.md). Extra: runLab(), which the lab calls once, when the
 * lab's section is first shown (it measures in the engine); it resolves to the measured rows.
 */
export function mount(ctx) {
  const lab = createScaling({ root: ctx.root, compute: ctx.compute, t: ctx.t });
  let started = false;
  const draw = (state, view) => {
    const { token, head } = selectionIn(state, view);
    lab.draw(view, head, token);
  };
  return {
    draw,
    relabel() {
      lab.relabel();
      if (ctx.store.view) draw(ctx.store.state, ctx.store.view);
    },
    runLab: () => lab.runLab(),
    /** The scaling lab is measured once, when its section is first shown. */
    afterViews() {
      if (started || ctx.section('lab').hidden) return;
      started = true;
      lab.runLab();
    },
  };
}
