// The lab's current weights saved as .safetensors or JSON.
import { saveSafetensors, saveJson } from './apply.mjs';
import { say } from './status.mjs';

function download(section, name, blob) {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement('a'), { href: url, download: name, hidden: true });
  section.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** kind: 'json' or 'safetensors'; nothing before the lab's first computation. */
export function save(layers, kind) {
  const view = layers.getView();
  if (!view) return;
  const state = layers.getState();
  const name = `attention-layer.${kind === 'json' ? 'json' : 'safetensors'}`;
  const body = kind === 'json' ? saveJson(view, state) : saveSafetensors(view, state);
  download(layers.section, name, new Blob([body], { type: kind === 'json' ? 'application/json' : 'application/octet-stream' }));
  const count = 3 + (state.useWo ? 1 : 0) + ['bq', 'bk', 'bv'].filter((b) => view.weights[b]).length + (state.useWo && view.weights.bo ? 1 : 0);
  say(layers, null, layers.t('layers.saved', { name, count }));
}
