// Draws one computed view into the page's sections. Every function here only writes DOM; the
// controller (main.mjs) decides what to show and reacts to the reader.
//   view: { tokens, keyTokens, columns, x, context, dModel, heads, dK, dV, m, self, identity, scaleMode,
//           result, weights }
import { renderMatrix } from './matrix.mjs';
import { renderSteps } from './steps.mjs';
import { numbered, keyColumns, valueColumns, concatColumns, outputProjectionRows } from '../shared/labels.mjs';


// The scrolling holder of one table inside `parent`, made on first use and kept after.
function slotIn(parent, name) {
  let div = parent.querySelector(`[data-slot="${name}"]`);
  if (!div) {
    div = document.createElement('div');
    div.className = 'scroll';
    div.dataset.slot = name;
    parent.append(div);
  }
  return div;
}

// True when `container` already shows what `signature` describes; otherwise records it. Rebuilding
// unchanged content would make the browser lay out and paint it again on every edit.
function unchanged(container, signature) {
  if (container.dataset.signature === signature) return true;
  container.dataset.signature = signature;
  return false;
}

/** The renderers bound to one lab's root (a document or a shadow root), writing text through `t(key, values)`. */
export function createPage(root, t) {
  const $ = (id) => root.getElementById(id);
  let overlay = null;  // practice mode's blanks over the computed tables (renderMatrix's spec.overlay)

  // The example's notes. Once the reader changes the example, a line says from what and how, and
  // notes that held only for the example as given are dimmed (class "stale").
  function renderNotes({ preset, aspects, replacedWeights }) {
    const container = $('notes');
    if (unchanged(container, [preset?.id ?? '', aspects.join(','), replacedWeights ?? ''].join('\u0001'))) return;
    if (!preset) {
      const p = document.createElement('p');
      p.textContent = t('vocabulary.note');
      container.replaceChildren(p);
      return;
    }
    const parts = [];
    const modified = aspects.length > 0;
    if (modified) {
      const status = document.createElement('p');
      status.className = 'modified';
      status.textContent = t('preset.modified', { title: t(`preset.${preset.id}.title`), aspects: aspects.map((a) => t(`preset.aspect.${a}`)).join(', ') });
      parts.push(status);
    }
    if (replacedWeights) {
      const warning = document.createElement('p');
      warning.className = 'modified';
      warning.textContent = replacedWeights;
      parts.push(warning);
    }
    const list = document.createElement('ul');
    for (const note of preset.notes) {
      const li = document.createElement('li');
      const always = typeof note === 'object' && note.always;
      li.textContent = t(`preset.${preset.id}.${typeof note === 'string' ? note : note.key}`);
      if (modified && !always) li.className = 'stale';
      list.append(li);
    }
    parts.push(list);
    // the example's own variations while it is as given; once changed, the way back to it
    const actions = modified ? [['restore', t('preset.action.restore')]] : (preset.actions ?? []).map((a) => [a.key, t(`preset.action.${a.key}`)]);
    if (actions.length) {
      const bar = document.createElement('div');
      bar.className = 'note-actions';
      bar.append(...actions.map(([key, text]) => {
        const button = document.createElement('button');
        button.type = 'button';
        button.dataset.action = key;
        button.textContent = text;
        return button;
      }));
      parts.push(bar);
    }
    // the notes' file names are for course authors, out of the reader's way
    const source = document.createElement('details');
    source.className = 'source';
    const summary = document.createElement('summary');
    summary.textContent = t('preset.sourceTitle');
    const where = document.createElement('p');
    where.className = 'hint';
    where.textContent = t('preset.source', { source: preset.source });
    source.append(summary, where);
    parts.push(source);
    container.replaceChildren(...parts);
  }

  function renderTokens(tokens, selected) {
    const container = $('tokens');
    if (unchanged(container, `${selected}|${tokens.join('\u0001')}`)) return;
    const buttons = tokens.map((token, i) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = token === '[PAD]' ? 'token pad' : 'token';
      button.textContent = token;
      button.dataset.index = String(i);
      button.setAttribute('aria-pressed', String(i === selected));
      button.tabIndex = i === selected ? 0 : -1;
      return button;
    });
    container.replaceChildren(...buttons);
  }

  function renderInputs(view) {
    renderMatrix($('x-table'), {
      caption: t(view.self ? 'caption.x' : 'caption.xQueries', { n: view.tokens.length, dModel: view.dModel }),
      label: 'X', t, rowLabels: view.tokens, columnLabels: view.columns, values: view.x, editable: true,
      address: { matrix: 'x' },
    });
    if (view.self) {
      $('context-table').replaceChildren();
    } else {
      renderMatrix($('context-table'), {
        caption: t('caption.context', { n: view.keyTokens.length, dModel: view.dModel }),
        label: 'C', t, rowLabels: view.keyTokens, columnLabels: view.columns, values: view.context, editable: true,
        address: { matrix: 'context' },
      });
    }
  }

  // One <details> per weight block; closed ones are filled when opened (large W_k tables cost time).
  function renderWeights(view, openBlocks) {
    const container = $('weights');
    const blocks = [];
    for (let h = 0; h < view.heads; h++) {
      blocks.push({ key: `head-${h}`, title: t('caption.weightBlock', { head: h + 1, dModel: view.dModel, dK: view.dK, dV: view.dV }), head: h });
    }
    if (view.weights.wo) blocks.push({ key: 'wo', title: t('caption.woBlock', { rows: view.heads * view.dV, cols: view.dModel }) });
    const signature = blocks.map((b) => b.title).join('|');
    if (container.dataset.signature !== signature) {
      container.dataset.signature = signature;
      container.replaceChildren(...blocks.map((block) => {
        const details = document.createElement('details');
        details.dataset.block = block.key;
        details.open = openBlocks.has(block.key);
        const summary = document.createElement('summary');
        summary.textContent = block.title;
        const body = document.createElement('div');
        body.className = 'weight-tables';
        details.append(summary, body);
        return details;
      }));
    }
    for (const details of container.querySelectorAll('details')) {
      if (details.open) fillWeightBlock(details, view);
    }
  }

  function fillWeightBlock(details, view) {
    const body = details.querySelector('.weight-tables');
    const key = details.dataset.block;
    const slot = (name) => slotIn(body, name);
    if (key === 'wo') {
      renderMatrix(slot('wo'), {
        caption: 'W_O', t, rowLabels: outputProjectionRows(view), columnLabels: view.columns,
        values: view.weights.wo, editable: true, address: { matrix: 'wo' },
      });
      if (view.weights.bo) {
        renderMatrix(slot('bo'), { caption: 'b_o', t, rowLabels: ['b'], columnLabels: view.columns, values: view.weights.bo, address: { matrix: null } });
      }
      return;
    }
    const h = Number(key.slice('head-'.length));
    for (const [name, width] of [['wq', view.dK], ['wk', view.dK], ['wv', view.dV]]) {
      const size = view.dModel * width;
      renderMatrix(slot(name), {
        caption: t('caption.perHead', { table: { wq: 'W_q', wk: 'W_k', wv: 'W_v' }[name], head: h + 1 }), t,
        rowLabels: view.columns, columnLabels: numbered(width),
        values: view.weights[name].subarray(h * size, (h + 1) * size), editable: true,
        address: { matrix: name, head: h },
      });
    }
    // a loaded or trained layer's biases, added after the projections (shown, not edited here)
    for (const [name, width] of [['bq', view.dK], ['bk', view.dK], ['bv', view.dV]]) {
      if (!view.weights[name]) continue;
      renderMatrix(slot(name), {
        caption: t('caption.perHead', { table: { bq: 'b_q', bk: 'b_k', bv: 'b_v' }[name], head: h + 1 }), t, rowLabels: ['b'], columnLabels: numbered(width),
        values: view.weights[name].subarray(h * width, (h + 1) * width), address: { matrix: null },
      });
    }
  }

  function renderStepTable(view, query, head) {
    renderSteps($('steps'), view, query, head, t);
  }

  function renderHeadTabs(heads, selected) {
    const tabs = [...Array.from({ length: heads }, (_, h) => [String(h), t('caption.head', { head: h + 1 })]), ...(heads > 1 ? [['all', t('pictures.allHeads')]] : [])];
    const container = $('head-tabs');
    if (unchanged(container, `${heads}|${selected}`)) return;
    container.replaceChildren(...tabs.map(([value, text]) => {
      const tab = document.createElement('button');
      tab.type = 'button';
      tab.setAttribute('role', 'tab');
      tab.id = `tab-${value}`;
      tab.dataset.head = value;
      tab.textContent = text;
      const isSelected = String(selected) === value;
      tab.setAttribute('aria-selected', String(isSelected));
      tab.tabIndex = isSelected ? 0 : -1;
      return tab;
    }));
    $('head-panel').setAttribute('aria-labelledby', `tab-${selected}`);
  }

  function renderHeadPanel(view, selected) {
    const panel = $('head-panel');
    const heads = selected === 'all' ? Array.from({ length: view.heads }, (_, h) => h) : [selected];
    const matrices = selected === 'all'
      ? [['weights', t('caption.weights')]]
      : [['q', 'Q'], ['k', 'K'], ['v', 'V'], ['scores', t('caption.scores')], ['scaled', t('table.scaled')], ['weights', t('caption.weights')], ['z', t('caption.z')]];
    const signature = `${selected}|${view.heads}`;
    if (panel.dataset.signature !== signature) {
      panel.dataset.signature = signature;
      panel.replaceChildren();
      panel.classList.toggle('overview', selected === 'all');
    }
    for (const h of heads) {
      for (const [name, title] of matrices) {
        const slot = slotIn(panel, `head-${h}-${name}`);
        const trace = view.result.heads[h];
        const square = name === 'scores' || name === 'scaled' || name === 'weights';
        renderMatrix(slot, {
          caption: t('caption.perHead', { table: title, head: h + 1 }), t,
          rowLabels: name === 'k' || name === 'v' ? view.keyTokens : view.tokens,
          columnLabels: square ? view.keyTokens : name === 'v' || name === 'z' ? valueColumns(view) : keyColumns(view),
          values: trace[name],
          shade: name === 'weights', rowSums: name === 'weights',
          address: { matrix: name, head: h }, overlay,
        });
      }
    }
  }

  function renderMultihead(view) {
    // with W = I the values, and so the heads' outputs, keep the input's columns
    const concat = concatColumns(view);
    renderMatrix($('concat-table'), {
      caption: view.heads === 1 ? t('caption.concatOne', { n: view.tokens.length, width: view.dV })
        : t('caption.concat', { heads: view.heads, n: view.tokens.length, width: view.heads * view.dV }),
      t, rowLabels: view.tokens, columnLabels: concat, values: view.result.concat, address: { matrix: 'concat' }, overlay,
    });
    renderMatrix($('output-table'), {
      caption: view.weights.wo ? t('caption.output', { n: view.tokens.length, width: view.dModel }) : t('caption.outputNoWo'),
      t, rowLabels: view.tokens, columnLabels: view.weights.wo ? view.columns : concat,
      values: view.result.output, address: { matrix: 'output' }, overlay,
    });
  }

  function renderExplanation(explanation) {
    const panel = $('explain');
    if (!explanation) {
      panel.hidden = true;
      return;
    }
    panel.hidden = false;
    $('explain-cell').textContent = explanation.title;
    $('explain-lines').replaceChildren(...explanation.lines.map((line) => {
      const li = document.createElement('li');
      li.textContent = line;
      return li;
    }));
    $('explain-value').textContent = explanation.value === null ? '' : `= ${explanation.value}`;
  }

  function renderMessages(problems) {
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

  function renderStatus(text) {
    $('status').textContent = text;
  }

  // How the last computation ran: kept out of the reader's way, in a details element.
  function renderEngine(text) {
    $('engine-status').textContent = text;
  }

  /** Practice mode's blanks: overlay(td, address, row, col) → true when it drew the cell; null for none. */
  function setOverlay(next) {
    overlay = next;
  }

  return { setOverlay, renderNotes, renderTokens, renderInputs, renderWeights, fillWeightBlock, renderStepTable, renderHeadTabs, renderHeadPanel, renderMultihead, renderExplanation, renderMessages, renderStatus, renderEngine };
}
