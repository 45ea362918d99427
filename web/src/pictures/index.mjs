// The pictures beside the tables (heatmaps, token lines, the embedding plot) and the scaling lab:
// what the reader chose in them, and their drawing on every new computation.
import { renderHeatmap, renderLegend } from '../shared/heatmap.mjs';
import { renderTokenLines, highlightTokenLines } from './token-lines.mjs';
import { renderEmbeddingPlot } from './embedding-plot.mjs';
import { renderVariancePlot, renderSoftmaxBars } from '../scaling/render.mjs';
import { renderMatrix } from '../tables/matrix.mjs';
import { HEAD_COLOURS } from '../shared/svg.mjs';
import { entropyBits, variance } from '../shared/stats.mjs';
import { formatCell } from '../shared/format.mjs';

const LAB_DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/** t(key, values): the lab's language, read whenever a text is drawn. */
export function createViews({ root, compute, selectHead, signal, t }) {
  const $ = (id) => root.getElementById(id);
  // The colour of canvas labels, read from the styles once per colour scheme: reading a computed
  // style in every redraw makes the browser recompute all styles there and then.
  let ink = null;
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { ink = null; }, { signal });
  const labelInk = () => (ink ??= getComputedStyle($('heatmap')).color);

  let view = null;
  let shownHead = 0;
  let queryToken = 0;
  let lineHeads = new Set([0]);
  let lineHeadCount = 0;
  let saturationRequest = 0;
  let plotColumns = null;
  let labRows = null;       // the scaling lab's numbers, once measured
  let labSoftmax = null;

  // ---- events

  $('heatmap-grid').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-head]');
    if (button) selectHead(Number(button.dataset.head));
  });
  $('line-heads').addEventListener('change', (event) => {
    const box = event.target;
    if (box.checked) lineHeads.add(Number(box.value));
    else lineHeads.delete(Number(box.value));
    drawTokenLines();
  });
  // Which token's lines alone are shown: the one hovered, else the one focused, else the one pinned
  // by a tap or Enter (a second tap unpins it). Touch has no hover, so pinning is how it works there.
  const lines = $('token-lines');
  let focused = null;
  let pinned = null;
  const current = () => focused ?? pinned;
  const tokenOf = (event) => {
    const node = event.target.closest?.('.token-node');
    return node ? { side: node.dataset.side, index: Number(node.dataset.index) } : null;
  };
  const same = (a, b) => a && b && a.side === b.side && a.index === b.index;
  lines.addEventListener('pointerover', (event) => highlightTokenLines(lines, tokenOf(event) ?? current()));
  lines.addEventListener('pointerleave', () => highlightTokenLines(lines, current()));
  lines.addEventListener('focusin', (event) => { focused = tokenOf(event); highlightTokenLines(lines, current()); });
  lines.addEventListener('focusout', () => { focused = null; highlightTokenLines(lines, current()); });
  const togglePin = (event) => {
    const token = tokenOf(event);
    if (!token) return;
    pinned = same(pinned, token) ? null : token;
    highlightTokenLines(lines, current());
  };
  lines.addEventListener('click', togglePin);
  // the token lines are drawn at the width of their figure (a phone gets a narrower picture, not smaller text)
  let linesWidth = 460;
  const resizes = new ResizeObserver(([entry]) => {
    const width = Math.floor(entry.contentRect.width);
    if (width === linesWidth || width <= 0) return;
    linesWidth = width;
    if (view) drawTokenLines();
  });
  resizes.observe(lines.parentElement);
  signal?.addEventListener('abort', () => resizes.disconnect());
  lines.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      togglePin(event);
    }
  });
  for (const id of ['plot-x', 'plot-y']) $(id).addEventListener('change', drawEmbeddingPlot);
  // numbers in the heatmap's cells: on for small tables until the reader says otherwise
  let numbersChosen = false;
  $('heatmap-numbers').addEventListener('change', () => { numbersChosen = true; drawHeatmaps(); });
  $('heatmap-row-scale').addEventListener('change', () => {
    drawLegend();
    drawHeatmaps();
  });
  function drawLegend() {
    const stretched = $('heatmap-row-scale').checked;
    renderLegend($('heatmap-legend'), { ink: labelInk(), ticks: stretched ? [t('heatmap.rowMin'), '', t('heatmap.rowMax')] : undefined, masked: t('pictures.masked') });
    $('heatmap-legend').setAttribute('aria-label', t(stretched ? 'heatmap.legendStretched' : 'heatmap.legend'));
  }
  $('saturation').addEventListener('input', drawSaturation);

  // ---- drawing

  function drawHeatmaps() {
    const { heads, tokens, keyTokens, m, result } = view;
    const ink = labelInk();
    const grid = $('heatmap-grid');
    if (heads > 1) {
      if (grid.childElementCount !== heads) {
        grid.replaceChildren(...Array.from({ length: heads }, (_, h) => {
          const button = document.createElement('button');
          button.type = 'button';
          button.dataset.head = String(h);
          const canvas = document.createElement('canvas');
          button.append(canvas, document.createElement('span'));
          return button;
        }));
      }
      for (const button of grid.children) {
        const h = Number(button.dataset.head);
        button.setAttribute('aria-pressed', String(h === shownHead));
        button.querySelector('span').textContent = t('caption.head', { head: h + 1 });
        button.setAttribute('aria-label', t('pictures.openHead', { head: h + 1 }));
        renderHeatmap(button.querySelector('canvas'), result.heads[h].weights, tokens.length, m, { cell: 8, scaled: result.heads[h].scaled });
      }
    } else {
      grid.replaceChildren();
    }
    const canvas = $('heatmap');
    if (!numbersChosen) $('heatmap-numbers').checked = tokens.length <= 12 && m <= 12;
    canvas.setAttribute('aria-label', t('pictures.heatmapLabel', { head: shownHead + 1 }));
    const layout = renderHeatmap(canvas, result.heads[shownHead].weights, tokens.length, m, {
      cell: tokens.length > 24 || m > 24 ? 14 : 26, rowLabels: tokens, columnLabels: keyTokens, scaled: result.heads[shownHead].scaled, ink,
      numbers: $('heatmap-numbers').checked && tokens.length <= 24 && m <= 24, rowScale: $('heatmap-row-scale').checked,
    });
    Object.assign(canvas.dataset, { head: String(shownHead), left: String(layout.left), top: String(layout.top), cell: String(layout.cell) });
  }

  function drawLineHeadChoices() {
    if (lineHeadCount === view.heads) return;
    lineHeadCount = view.heads;
    lineHeads = new Set([Math.min(shownHead, view.heads - 1)]);
    $('line-heads').replaceChildren(...Array.from({ length: view.heads }, (_, h) => {
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.value = String(h);
      box.checked = lineHeads.has(h);
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.backgroundColor = HEAD_COLOURS[h % HEAD_COLOURS.length];
      const name = document.createElement('span');
      name.dataset.head = String(h);
      label.append(box, swatch, name);
      return label;
    }));
  }

  function labelLineHeads() {
    for (const name of $('line-heads').querySelectorAll('span[data-head]')) name.textContent = t('caption.head', { head: Number(name.dataset.head) + 1 });
  }

  function drawTokenLines() {
    const heads = [...lineHeads].sort((a, b) => a - b).filter((h) => h < view.heads)
      .map((h) => ({ index: h, weights: view.result.heads[h].weights }));
    // the token focused by keyboard keeps the focus in the new drawing (a resize redraws, and the
    // picture's first rendering, when its section comes near the screen, is a resize)
    const keep = lines.contains(lines.getRootNode().activeElement) ? focused : null;
    renderTokenLines(lines, view.tokens, view.keyTokens, heads, { width: linesWidth, t });
    const count = (token) => (token.side === 'query' ? view.tokens : view.keyTokens).length;
    if (pinned && pinned.index >= count(pinned)) pinned = null;
    if (keep && keep.index < count(keep)) lines.querySelector(`.token-node[data-side="${keep.side}"][data-index="${keep.index}"]`)?.focus();
    if (focused && focused.index >= count(focused)) focused = null;
    highlightTokenLines(lines, current());
  }

  function drawEmbeddingPlot() {
    const { columns, dModel, result } = view;
    const note = $('embedding-note');
    const svg = $('embedding-plot');
    if (result.dOut !== dModel || !view.self) {
      svg.replaceChildren();
      svg.removeAttribute('width');
      svg.removeAttribute('height');
      note.textContent = !view.self ? t('pictures.crossPlot') : t('pictures.widthPlot', { dOut: result.dOut, dModel });
      return;
    }
    note.textContent = '';
    // a new sentence or new columns: start on the example's own columns (finance × nature for
    // 'bank'), else on the two columns in which the tokens differ most
    const key = `${columns.join('|')}#${view.tokens.join('|')}#${plotColumns?.join('|') ?? ''}`;
    if ($('plot-x').dataset.key !== key) {
      const spread = columns.map((_, c) => variance(view.tokens.map((__, i) => view.x[i * dModel + c])));
      const chosen = (plotColumns ?? []).map((name) => columns.indexOf(name));
      const [first, second = first] = chosen.length === 2 && chosen.every((c) => c >= 0) ? chosen
        : columns.map((_, c) => c).sort((a, b) => spread[b] - spread[a] || a - b);
      for (const [id, column] of [['plot-x', first], ['plot-y', second]]) {
        const select = $(id);
        select.dataset.key = key;
        select.replaceChildren(...columns.map((name, c) => {
          const option = document.createElement('option');
          option.value = String(c);
          option.textContent = name;
          return option;
        }));
        select.value = String(column);
      }
    }
    const xColumn = Number($('plot-x').value), yColumn = Number($('plot-y').value);
    renderEmbeddingPlot(svg, {
      tokens: view.tokens, before: view.x, after: result.output, width: dModel,
      xColumn, yColumn, xLabel: columns[xColumn], yLabel: columns[yColumn], t,
    });
  }

  async function drawSaturation() {
    const exponent = Number($('saturation').value);
    const factor = 10 ** exponent;
    $('saturation-factor').textContent = formatCell(factor, 2);
    const { m, keyTokens, result } = view;
    // the row softmax actually sees: the scaled scores, −∞ where masked; at ×1 the bars are the weights
    const scores = result.heads[shownHead].scaled.slice(queryToken * m, (queryToken + 1) * m);
    const id = ++saturationRequest;
    const weights = await compute.softmaxRow(scores, factor);
    if (id !== saturationRequest) return;
    renderSoftmaxBars($('softmax-slider'), keyTokens, weights,
      t('lab.sliderBars', { factor: formatCell(factor, 2), token: view.tokens[queryToken], head: shownHead + 1 }));
    const entropy = entropyBits(weights);
    $('saturation-entropy').textContent = t('lab.entropy', { bits: formatCell(entropy, 3), m, most: formatCell(Math.log2(m), 3) });
  }

  return {
    /** Redraws every picture for a new computation, head and query token. */
    draw(nextView, head, token, plot = null) {
      plotColumns = plot;
      if (!view) drawLegend();
      view = nextView;
      shownHead = head === 'all' ? 0 : Math.min(head, view.heads - 1);
      queryToken = Math.min(token, view.tokens.length - 1);
      drawHeatmaps();
      drawLineHeadChoices();
      labelLineHeads();
      drawTokenLines();
      drawEmbeddingPlot();
      drawSaturation();
    },

    /** Reads the label colour again and redraws with it (the theme changed). */
    restyle() {
      ink = null;
      if (!view) return;
      drawLegend();
      drawHeatmaps();
    },

    /** Draws the texts again in the lab's language now (the numbers stay). */
    relabel() {
      if (labRows) drawLab();
      if (!view) return;
      drawLegend();
    },

    /** The scaling lab: computed once, when the engine is ready. */
    async runLab() {
      labRows = await compute.varianceLab({ dks: LAB_DKS });
      labSoftmax = await Promise.all([compute.softmaxRow([6, 4], 1), compute.softmaxRow([3, 2], 1)]);
      drawLab();
      return labRows;
    },
  };

  function drawLab() {
    const rows = labRows;
    renderVariancePlot($('variance-plot'), rows, t);
    renderMatrix($('variance-table'), {
      caption: t('lab.varianceTable'), t, rowLabels: rows.map((r) => `d_k = ${r.dk}`), columnLabels: ['Var(q·k)', 'Var(q·k / √d_k)'],
      values: rows.flatMap((r) => [r.unscaled, r.scaled]), digits: 2, address: { matrix: null },
    });
    const [six, three] = labSoftmax;
    renderSoftmaxBars($('softmax-64'), ['e⁶ / Σ', 'e⁴ / Σ'], six, 'softmax([6, 4])');
    renderSoftmaxBars($('softmax-32'), ['e³ / Σ', 'e² / Σ'], three, 'softmax([3, 2])');
  }
}
