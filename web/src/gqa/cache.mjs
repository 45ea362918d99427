// The GQA chapter's KV-cache sizes (web/src/gqa/index.mjs): 2 · kvHeads · d_head · bytes per token and
// per layer, for MHA (kvHeads = heads), GQA and MQA (kvHeads = 1), of the lab's layer and of a model
// the reader types (Llama-3-8B's numbers by default). Plain arithmetic on whole numbers; texts by
// textContent only.
import { element } from '../shared/chapter.mjs';

/** Llama-3-8B's attention (its config.json): 32 layers, 32 heads, 8 key/value heads of 128, bf16, 8192 tokens. */
export const MODEL_DEFAULTS = { layers: 32, heads: 32, kvHeads: 8, dHead: 128, bytes: 2, tokens: 8192 };
export const MODEL_LIMITS = { layers: 1000, heads: 1024, kvHeads: 1024, dHead: 4096, bytes: 8, tokens: 10000000 };

/** Bytes the cache holds per token and layer: K and V, kvHeads heads of dHead values each. */
export const bytesPerTokenLayer = ({ kvHeads, dHead, bytes }) => 2 * kvHeads * dHead * bytes;

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/** "131,072 bytes (128 KiB)": the exact count, then in the largest binary unit it reaches. */
export function formatBytes(count) {
  let value = count, unit = -1;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const exact = count.toLocaleString('en');
  return unit < 0 ? exact : `${exact} (${Number(value.toPrecision(4))} ${UNITS[unit]})`;
}

/** The model's fields as whole numbers, or { problem: [field, limit] } naming the first that is not, or kvHeads not dividing heads. */
export function readModel(inputs) {
  const model = {};
  for (const field of Object.keys(MODEL_DEFAULTS)) {
    const value = Number(inputs[field].value);
    if (!Number.isInteger(value) || value < 1 || value > MODEL_LIMITS[field]) return { problem: { field, limit: MODEL_LIMITS[field] } };
    model[field] = value;
  }
  if (model.heads % model.kvHeads !== 0) return { problem: { field: 'kvHeads', heads: model.heads } };
  return { model };
}

function row(ctx, name, kvHeads, model) {
  const perLayer = bytesPerTokenLayer({ ...model, kvHeads });
  const tr = element('tr');
  const th = element('th', '', ctx.t(`gqa.kind.${name}`, { kvHeads }));
  th.scope = 'row';
  const cells = [String(kvHeads), `2 × ${kvHeads} × ${model.dHead} × ${model.bytes} = ${formatBytes(perLayer)}`];
  if (model.layers) cells.push(formatBytes(perLayer * model.layers), formatBytes(perLayer * model.layers * model.tokens));
  tr.append(th, ...cells.map((text) => element('td', '', text)));
  tr.dataset.kind = name;
  return tr;
}

/** MHA, GQA and MQA rows for `model` ({ heads, kvHeads, dHead, bytes[, layers, tokens] }) into `table`. */
export function renderCache(ctx, table, model, caption) {
  table.replaceChildren();
  const header = element('tr');
  const columns = ['gqa.cache.kind', 'gqa.cache.kvHeads', 'gqa.cache.perLayer', ...(model.layers ? ['gqa.cache.perToken', 'gqa.cache.context'] : [])];
  for (const key of columns) {
    const cell = element('th', '', ctx.t(key, model));
    cell.scope = 'col';
    header.append(cell);
  }
  const thead = element('thead');
  thead.append(header);
  const tbody = element('tbody');
  tbody.append(row(ctx, 'mha', model.heads, model));
  if (model.kvHeads !== model.heads && model.kvHeads !== 1) tbody.append(row(ctx, 'gqa', model.kvHeads, model));
  if (model.heads !== 1) tbody.append(row(ctx, 'mqa', 1, model));
  table.append(element('caption', '', caption), thead, tbody);
}
