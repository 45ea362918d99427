// "Real models" (web/src/models/): the four Hugging Face folders of ../shared/models opened through
// openModel() from Blobs read slice by slice, run through engine.transformer(), and compared with what
// transformers computed (reference.json): token ids and strings, every layer's attention input,
// weights and output, every hidden state to 1e-4 relative (norm-wise), the next-token top 5 in order.
// Then copies written here (sharded, F16, BF16, no prefix, the other config layout) give the same.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { loadAttention } from '../../../../dist/lib/attention.node.mjs';
import { openModel, runModel } from '../../../../web/src/models/open.mjs';
import { forEachBuild } from '../../lib/builds.mjs';
import {
  MODELS, tempRoot, readSafetensorsFile, safetensorsBytes, toHalf, roundTrip, writeFolder, textFiles, blobsOf, shardedFiles,
} from './copies.mjs';

const NAMES = ['bert', 'gpt2', 'llama', 'qwen2'];
const PREFIX = { bert: 'bert.', gpt2: 'transformer.', llama: 'model.', qwen2: 'model.' };
const have = existsSync(new URL('gpt2/reference.json', MODELS));
const folderPath = (name) => fileURLToPath(new URL(name, MODELS));
const referenceOf = (name) => JSON.parse(readFileSync(new URL(`${name}/reference.json`, MODELS), 'utf8'));

// ‖got − want‖ / ‖want‖
export function relativeError(got, want) {
  assert.equal(got.length, want.length);
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < want.length; i++) {
    diff += (got[i] - want[i]) ** 2;
    norm += want[i] ** 2;
  }
  return Math.sqrt(diff) / Math.sqrt(norm);
}

/** Every array of the result against reference.json: the largest relative error, each ≤ `tolerance`. */
// BERT's reference.json also holds next_token_top5 from its masked-LM head (cls.predictions), which the
// lab does not compute: its `next` is null, and only causal models' top 5 are compared.
function compare(result, reference, tolerance, { next = true } = {}) {
  let worst = 0;
  const check = (got, want, what) => {
    const error = relativeError(got, want);
    assert.ok(error <= tolerance, `${what}: relative error ${error} above ${tolerance}`);
    worst = Math.max(worst, error);
  };
  assert.deepEqual(result.ids, reference.ids);
  assert.deepEqual(result.tokens, reference.tokens);
  result.hidden.forEach((state, i) => check(state, reference.hidden_states[i], `hidden_states[${i}]`));
  assert.equal(result.hidden.length, reference.hidden_states.length);
  reference.layers.forEach((want, l) => {
    const layer = result.layers[l];
    check(layer.input, want.input, `layers[${l}].input`);
    check(layer.heads.flatMap((head) => [...head.weights]), want.probs, `layers[${l}].probs`);
    check(layer.output, want.output, `layers[${l}].output`);
  });
  if (result.next === null) {
    assert.equal(reference.architecture[0], 'BertForMaskedLM');
  } else if (next) {
    assert.deepEqual(result.next.slice(0, 5).map((t) => t.id), reference.next_token_top5.map(([id]) => id));
    check(result.next.slice(0, 5).map((t) => t.logit), reference.next_token_top5.map(([, logit]) => logit), 'next-token logits');
    const total = result.next.reduce((sum, t) => sum + t.probability, 0);
    assert.ok(result.next.length === 10 && total > 0 && total <= 1 + 1e-12);
  }
  return worst;
}

const open = async (dir) => openModel(await blobsOf(dir));

forEachBuild((build) => `${build} build: real models from ../shared/models`, { learning: true }, ({ engine }) => {
  for (const name of NAMES) {
    it(`${name}: tokens, every layer and hidden state, the next tokens as transformers computed them`, { skip: !have && 'no ../shared/models' }, async (t) => {
      const reference = referenceOf(name);
      const model = await open(folderPath(name));
      const result = runModel(engine, model, { text: reference.text });
      const worst = compare(result, reference, 1e-4);
      assert.ok(worst > 0);
      t.diagnostic(`${name}: largest relative error ${worst.toExponential(2)}`);
    });
    it(`${name}: handed into the engine tensor by tensor and prepared once, two sentences: the same numbers`, { skip: !have && 'no ../shared/models' }, async (t) => {
      const reference = referenceOf(name);
      const model = await openModel(await blobsOf(folderPath(name)), { engine });
      try {
        assert.ok(model.prepared);
        // the opening's timeline: each phase a time, and together no more than the whole
        const { headers, read, stage, convert, prepare, total } = model.report.timings;
        for (const phase of [headers, read, stage, convert, prepare]) assert.ok(phase >= 0 && phase <= total, `a phase of ${phase} ms in ${total} ms`);
        assert.ok(headers + read + stage + convert + prepare <= total + 1e-6);
        const other = runModel(engine, model, { text: 'Another sentence first.' });
        assert.ok(other.layers.length === reference.layers.length && other.n > 0);
        const worst = compare(runModel(engine, model, { text: reference.text }), reference, 1e-4);
        assert.ok(worst > 0);
        // "open in lab": the layer's weights read again from the files, as the unprepared request holds them
        const plain = await openModel(await blobsOf(folderPath(name)));
        const last = reference.layers.length - 1;
        assert.deepEqual(await model.readLayer(last), plain.request.layers[last]);
        t.diagnostic(`${name} prepared: largest relative error ${worst.toExponential(2)}`);
      } finally {
        model.prepared.dispose();
      }
    });
  }
});

describe('copies of the folders give the same numbers', { skip: !have && 'no ../shared/models' }, () => {
  let engine;
  let root;
  before(async () => {
    engine = await loadAttention({ learning: true });
    root = tempRoot();
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  for (const name of NAMES) {
    it(`${name}: sharded (with an integer and a boolean buffer, skipped and listed), without the prefix, the other config layout`, async () => {
      const reference = referenceOf(name);
      const tensors = readSafetensorsFile(`${folderPath(name)}/model.safetensors`);
      const buffers = [{ name: `${PREFIX[name]}buffers.position_ids`, dtype: 'I64', shape: [1, 4], bytes: new Uint8Array(32) },
        { name: `${PREFIX[name]}buffers.mask`, dtype: 'BOOL', shape: [2, 2], bytes: new Uint8Array([1, 0, 1, 1]) }];
      const sharded = writeFolder(root, `${name}-sharded`, { ...textFiles(name), ...shardedFiles([...buffers, ...tensors], 3) });
      const model = await open(sharded);
      const byName = (a, b) => (a.name < b.name ? -1 : 1);
      assert.deepEqual([...model.report.skipped].sort(byName), buffers.map(({ name: n, dtype }) => ({ name: n, dtype })).sort(byName));
      assert.equal(model.report.files.length, 3);
      compare(runModel(engine, model, { text: reference.text }), reference, 1e-4);

      const bare = tensors.map((t) => ({ ...t, name: t.name.startsWith(PREFIX[name]) ? t.name.slice(PREFIX[name].length) : t.name }));
      const unprefixed = await open(writeFolder(root, `${name}-bare`, { ...textFiles(name), 'model.safetensors': safetensorsBytes(bare) }));
      assert.equal(unprefixed.report.prefix, '');
      compare(runModel(engine, unprefixed, { text: reference.text }), reference, 1e-4);

      const config = JSON.parse(textFiles(name)['config.json']);
      if (config.rope_parameters) {
        // transformers 4's layout: rope_theta at the top level, no rope_parameters
        const old = { ...config, rope_theta: config.rope_parameters.rope_theta, rope_scaling: null, transformers_version: '4.46.0' };
        delete old.rope_parameters;
        const folder = writeFolder(root, `${name}-t4`, { ...textFiles(name), 'config.json': old, 'model.safetensors': readFileSync(`${folderPath(name)}/model.safetensors`) });
        const model4 = await open(folder);
        assert.match(model4.report.ropeLayout, /transformers 4/);
        compare(runModel(engine, model4, { text: reference.text }), reference, 1e-4);
      }
    });

    for (const dtype of ['F16', 'BF16']) {
      it(`${name}: an ${dtype} copy gives exactly the float32 model's numbers on weights rounded to ${dtype}, and transformers' within the rounding`, async (t) => {
        const reference = referenceOf(name);
        const tensors = readSafetensorsFile(`${folderPath(name)}/model.safetensors`);
        const folder = writeFolder(root, `${name}-${dtype}`, { ...textFiles(name), 'model.safetensors': safetensorsBytes(tensors.map((x) => toHalf(x, dtype))) });
        const half = await open(folder);
        assert.deepEqual(half.report.dtypes, [dtype]);
        const got = runModel(engine, half, { text: reference.text });
        // expected: the float32 model with every weight rounded by the test's own rounding
        const full = await open(folderPath(name));
        const round = roundTrip(dtype);
        const mapWeights = (value) => (value instanceof Float32Array ? value.map(round)
          : Array.isArray(value) ? value.map(mapWeights)
            : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapWeights(v)])) : value);
        const want = runModel(engine, { ...full, request: mapWeights(full.request) }, { text: reference.text });
        got.hidden.forEach((state, i) => assert.deepEqual(state, want.hidden[i], `hidden_states[${i}]`));
        got.layers.forEach((layer, l) => layer.heads.forEach((head, h) => assert.deepEqual(head.weights, want.layers[l].heads[h].weights, `layers[${l}].heads[${h}]`)));
        // against transformers' float32 run: a half keeps 11 significant bits (relative 2^-11 ≈ 4.9e-4 per
        // weight), a bfloat16 8 (2^-8 ≈ 3.9e-3); through two blocks the error grows by a small factor.
        const tolerance = dtype === 'F16' ? 1e-2 : 5e-2;
        const worst = compare(got, reference, tolerance, { next: false });
        t.diagnostic(`${name} ${dtype}: largest relative error against float32 transformers ${worst.toExponential(2)}`);
      });
    }
  }
});

describe('RoBERTa and Mistral naming over the same layouts', { skip: !have && 'no ../shared/models' }, () => {
  let engine;
  let root;
  before(async () => {
    engine = await loadAttention({ learning: true });
    root = tempRoot();
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('BERT as RoBERTa (roberta. names, positions numbered from pad_token_id + 1) gives BERT\'s numbers', async () => {
    const reference = referenceOf('bert');
    const config = JSON.parse(textFiles('bert')['config.json']);
    const pad = 1;
    const tensors = readSafetensorsFile(`${folderPath('bert')}/model.safetensors`).map((t) => {
      const renamed = { ...t, name: t.name.replace(/^bert\./, 'roberta.') };
      if (!t.name.endsWith('position_embeddings.weight')) return renamed;
      // RoBERTa's table has pad + 1 rows before position 0, never used
      const unused = new Uint8Array((pad + 1) * t.shape[1] * 4).fill(0x7f);
      return { ...renamed, shape: [t.shape[0] + pad + 1, t.shape[1]], bytes: new Uint8Array([...unused, ...t.bytes]) };
    });
    const roberta = { ...config, model_type: 'roberta', architectures: ['RobertaForMaskedLM'], pad_token_id: pad, max_position_embeddings: config.max_position_embeddings + pad + 1 };
    const model = await open(writeFolder(root, 'roberta', { ...textFiles('bert'), 'config.json': roberta, 'model.safetensors': safetensorsBytes(tensors) }));
    assert.equal(model.report.modelType, 'roberta');
    assert.equal(model.report.prefix, 'roberta.');
    compare(runModel(engine, model, { text: reference.text }), reference, 1e-4);
  });

  it('Llama as Mistral: a window wider than the sentence gives Llama\'s numbers; a window of 4 keeps each query\'s last 4 keys', async () => {
    const reference = referenceOf('llama');
    const config = JSON.parse(textFiles('llama')['config.json']);
    const write = (name, window) => writeFolder(root, name, { ...textFiles('llama'), 'config.json': { ...config, model_type: 'mistral', architectures: ['MistralForCausalLM'], sliding_window: window },
      'model.safetensors': readFileSync(`${folderPath('llama')}/model.safetensors`) });
    const wide = await open(write('mistral-wide', 4096));
    assert.deepEqual(wide.report.windows, [4096, 4096]);
    compare(runModel(engine, wide, { text: reference.text }), reference, 1e-4);
    const narrow = runModel(engine, await open(write('mistral-4', 4)), { text: reference.text });
    const n = narrow.n;
    for (const layer of narrow.layers) {
      for (const head of layer.heads) {
        for (let i = 0; i < n; i++) {
          let sum = 0;
          for (let j = 0; j < n; j++) {
            const w = head.weights[i * n + j];
            if (j > i || i - j >= 4) assert.equal(w, 0, `query ${i} sees key ${j}`);
            sum += w;
          }
          assert.ok(Math.abs(sum - 1) < 1e-6);
        }
      }
    }
  });
});
