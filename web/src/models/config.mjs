// Which architecture a Hugging Face folder holds, from config.json (model_type, architectures) and the
// tensor names, and the settings that change its numbers, each checked. Three layouts cover five
// model types: BERT (and RoBERTa, same names under `roberta.`), GPT-2, and Llama (Mistral and Qwen2
// share its names). Both config layouts: transformers 4 (rope_theta, rope_scaling at the top level)
// and transformers 5 (rope_parameters).
import { ModelError } from './tensors.mjs';
import { own } from '../shared/own.mjs';
import { isolate } from '../shared/bidi.mjs';

const CONFIG = 'config.json';

// family → model types, the architectures' name start, the prefixes tried, a tensor every such model has
const FAMILIES = [
  { family: 'bert', types: ['bert', 'roberta'], architecture: /^(Bert|Roberta)/, prefixes: ['bert.', 'roberta.', ''], anchor: 'embeddings.word_embeddings.weight' },
  { family: 'gpt2', types: ['gpt2'], architecture: /^GPT2/, prefixes: ['transformer.', ''], anchor: 'wte.weight' },
  { family: 'llama', types: ['llama', 'mistral', 'qwen2'], architecture: /^(Llama|Mistral|Qwen2)/, prefixes: ['model.', ''], anchor: 'embed_tokens.weight' },
];
const KNOWN_TYPES = FAMILIES.flatMap((f) => f.types);

// Keys that do not change the forward pass the lab computes (training, generation, bookkeeping).
const HARMLESS = new Set(['architectures', 'model_type', 'dtype', 'torch_dtype', 'transformers_version', 'use_cache', 'initializer_range',
  'bos_token_id', 'eos_token_id', 'pad_token_id', 'sep_token_id', 'cls_token_id', 'mask_token_id', 'decoder_start_token_id', '_name_or_path',
  'attention_dropout', 'attention_probs_dropout_prob', 'hidden_dropout_prob', 'attn_pdrop', 'embd_pdrop', 'resid_pdrop', 'summary_activation',
  'summary_first_dropout', 'summary_proj_to_labels', 'summary_type', 'summary_use_proj', 'classifier_dropout', 'is_decoder', 'add_cross_attention',
  'max_position_embeddings', 'n_positions', 'n_ctx', 'pretraining_tp', 'tokenizer_class', 'gradient_checkpointing', 'reorder_and_upcast_attn',
  'max_window_layers', 'layer_types', 'use_sliding_window', 'sliding_window', 'id2label', 'label2id', 'problem_type', 'return_dict', 'output_past',
  'chunk_size_feed_forward', 'output_hidden_states', 'output_attentions', 'tie_encoder_decoder', 'position_embedding_type']);

/** A whole-number setting of config.json, checked; `fallback` when absent (undefined: required). */
function whole(config, key, fallback, min = 1) {
  const value = own(config, key);
  if (value === undefined || value === null) {
    if (fallback === undefined) throw new ModelError(CONFIG, `${key} is missing; the ${config.model_type ?? 'model'} layout needs it`, { key: 'models.error.settingMissing', values: { setting: key } });
    return fallback;
  }
  if (!Number.isInteger(value) || value < min || value > 2 ** 31 - 1) throw new ModelError(CONFIG, `${key} is ${JSON.stringify(value)?.slice(0, 40)}; expected a whole number from ${min}`,
    { key: 'models.error.settingWhole', values: { setting: key, value: String(JSON.stringify(value)).slice(0, 40), min } });
  return value;
}

function positive(config, key, fallback) {
  const value = own(config, key) ?? fallback;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) throw new ModelError(CONFIG, `${key} is ${JSON.stringify(value)?.slice(0, 40)}; expected a positive number`,
    { key: 'models.error.settingPositive', values: { setting: key, value: String(JSON.stringify(value)).slice(0, 40) } });
  return value;
}

function activation(config, key, fallback) {
  const names = { gelu: 'gelu', gelu_new: 'gelu-tanh', gelu_pytorch_tanh: 'gelu-tanh', gelu_fast: 'gelu-tanh', relu: 'relu', silu: 'silu', swish: 'silu' };
  const value = own(config, key) ?? fallback;
  const kind = typeof value === 'string' ? own(names, value) : undefined;
  if (!kind) throw new ModelError(CONFIG, `${key} is ${JSON.stringify(value)?.slice(0, 40)}; the lab computes ${Object.keys(names).join(', ')}`,
    { key: 'models.error.settingChoice', values: { setting: key, value: String(JSON.stringify(value)).slice(0, 40), choices: Object.keys(names).join(', ') } });
  return kind;
}

// The model's family: model_type first, then architectures.
function familyOf(config) {
  const type = config.model_type;
  const archs = Array.isArray(config.architectures) ? config.architectures.filter((a) => typeof a === 'string') : [];
  const byType = FAMILIES.find((f) => f.types.includes(type));
  const byArch = FAMILIES.find((f) => archs.some((a) => f.architecture.test(a)));
  const found = byType ?? (type === undefined ? byArch : undefined);
  if (!found) {
    const said = [type !== undefined && `model_type ${JSON.stringify(type).slice(0, 40)}`, archs.length && `architectures ${archs.join(', ').slice(0, 80)}`].filter(Boolean).join(', ');
    throw new ModelError(CONFIG, `${isolate(said || 'no model_type or architectures')}: not an architecture the lab reads (${KNOWN_TYPES.join(', ')})`,
      { key: said ? 'models.error.architecture' : 'models.error.noArchitecture', values: { said, known: KNOWN_TYPES.join(', ') } });
  }
  return { ...found, modelType: byType ? type : found.types[0], architectures: archs };
}

// The prefix under which the family's tensors are stored ('bert.', 'transformer.', 'model.' or none).
function prefixOf(family, names) {
  const prefix = family.prefixes.find((p) => names.has(p + family.anchor));
  if (prefix === undefined) {
    throw new ModelError('model.safetensors', `has no tensor "${family.anchor}" (tried the prefixes ${family.prefixes.map((p) => p || '(none)').join(', ')}): these are not ${family.modelType} weights, or not the weights config.json describes`,
      { key: 'models.error.notWeights', values: { tensor: family.anchor, type: family.modelType } });
  }
  return prefix;
}

// RoPE's settings from either layout; scaled RoPE (linear, dynamic, yarn, llama3) changes every angle.
function rope(config) {
  const parameters = own(config, 'rope_parameters');
  const scaling = parameters ?? own(config, 'rope_scaling');
  const where = parameters ? 'rope_parameters' : 'rope_scaling';
  const type = scaling?.rope_type ?? scaling?.type ?? 'default';
  if (scaling !== undefined && scaling !== null && type !== 'default') {
    throw new ModelError(CONFIG, `${where} asks for ${JSON.stringify(type).slice(0, 40)} RoPE scaling; the lab computes plain RoPE only`,
      { key: 'models.error.unsupported', values: { setting: where, value: JSON.stringify(type).slice(0, 40) } });
  }
  const theta = parameters?.rope_theta ?? own(config, 'rope_theta') ?? 10000;
  if (typeof theta !== 'number' || !(theta > 1)) throw new ModelError(CONFIG, `rope_theta is ${JSON.stringify(theta)?.slice(0, 40)}; expected a number above 1`,
    { key: 'models.error.theta', values: { value: String(JSON.stringify(theta)).slice(0, 40) } });
  const factor = parameters?.partial_rotary_factor ?? own(config, 'partial_rotary_factor') ?? 1;
  return { theta, factor, layout: parameters ? 'transformers 5 (rope_parameters)' : 'transformers 4 (rope_theta at the top level)' };
}

// Sliding windows per layer: Mistral everywhere, Qwen2 when use_sliding_window (layers from max_window_layers), or layer_types.
function windows(config, modelType, layers) {
  const size = own(config, 'sliding_window');
  const types = own(config, 'layer_types');
  if (Array.isArray(types) && types.length === layers) return types.map((t) => (t === 'sliding_attention' && size ? size : 0));
  if (!size) return new Array(layers).fill(0);
  if (modelType === 'mistral') return new Array(layers).fill(size);
  if (modelType === 'qwen2' && config.use_sliding_window) return Array.from({ length: layers }, (_, l) => (l >= (config.max_window_layers ?? 0) ? size : 0));
  return new Array(layers).fill(0);
}

function bertSettings(config, modelType) {
  if ((config.position_embedding_type ?? 'absolute') !== 'absolute') throw new ModelError(CONFIG, `position_embedding_type ${JSON.stringify(config.position_embedding_type).slice(0, 40)}: the lab computes absolute positions only`,
    { key: 'models.error.unsupported', values: { setting: 'position_embedding_type', value: JSON.stringify(config.position_embedding_type).slice(0, 40) } });
  const dModel = whole(config, 'hidden_size');
  return {
    dModel, heads: whole(config, 'num_attention_heads'), layers: whole(config, 'num_hidden_layers'), hidden: whole(config, 'intermediate_size'),
    eps: positive(config, 'layer_norm_eps', 1e-12), activation: activation(config, 'hidden_act', 'gelu'), vocab: whole(config, 'vocab_size'),
    positions: whole(config, 'max_position_embeddings'), tokenTypes: whole(config, 'type_vocab_size', 2, 0),
    // RoBERTa numbers positions from padding_idx + 1 (its position table's first rows are never used)
    positionOffset: modelType === 'roberta' ? whole(config, 'pad_token_id', 1, 0) + 1 : 0,
    causal: false,
    used: ['hidden_size', 'num_attention_heads', 'num_hidden_layers', 'intermediate_size', 'layer_norm_eps', 'hidden_act', 'vocab_size', 'max_position_embeddings', 'type_vocab_size', 'pad_token_id', 'tie_word_embeddings'],
  };
}

function gpt2Settings(config) {
  if (config.scale_attn_by_inverse_layer_idx) throw new ModelError(CONFIG, 'scale_attn_by_inverse_layer_idx is true; the lab scales every layer by 1/√d_k',
    { key: 'models.error.unsupported', values: { setting: 'scale_attn_by_inverse_layer_idx', value: 'true' } });
  const dModel = whole(config, 'n_embd');
  return {
    dModel, heads: whole(config, 'n_head'), layers: whole(config, 'n_layer'), hidden: whole(config, 'n_inner', 4 * dModel),
    eps: positive(config, 'layer_norm_epsilon', 1e-5), activation: activation(config, 'activation_function', 'gelu_new'),
    vocab: whole(config, 'vocab_size'), positions: whole(config, 'n_positions', 1024), causal: true,
    scale: config.scale_attn_weights === false ? 'none' : undefined,
    used: ['n_embd', 'n_head', 'n_layer', 'n_inner', 'layer_norm_epsilon', 'activation_function', 'vocab_size', 'n_positions', 'scale_attn_weights', 'scale_attn_by_inverse_layer_idx', 'tie_word_embeddings'],
  };
}

function llamaSettings(config, modelType) {
  const dModel = whole(config, 'hidden_size');
  const heads = whole(config, 'num_attention_heads');
  const layers = whole(config, 'num_hidden_layers');
  if (config.mlp_bias) throw new ModelError(CONFIG, 'mlp_bias is true; the lab\'s SwiGLU has no biases', { key: 'models.error.unsupported', values: { setting: 'mlp_bias', value: 'true' } });
  const dK = whole(config, 'head_dim', Math.floor(dModel / heads));
  const { theta, factor, layout } = rope(config);
  const dims = Math.floor(dK * factor);
  return {
    dModel, heads, layers, kvHeads: whole(config, 'num_key_value_heads', heads), dK, hidden: whole(config, 'intermediate_size'),
    eps: positive(config, 'rms_norm_eps', 1e-6), activation: activation(config, 'hidden_act', 'silu'), vocab: whole(config, 'vocab_size'),
    rotary: { dims: dims - (dims % 2), theta }, ropeLayout: layout, causal: true,
    qkvBias: modelType === 'qwen2' || config.attention_bias === true, outBias: config.attention_bias === true,
    windows: windows(config, modelType, layers), tied: config.tie_word_embeddings === true,
    used: ['hidden_size', 'num_attention_heads', 'num_hidden_layers', 'num_key_value_heads', 'head_dim', 'intermediate_size', 'rms_norm_eps',
      'hidden_act', 'vocab_size', 'rope_theta', 'rope_scaling', 'rope_parameters', 'partial_rotary_factor', 'attention_bias', 'mlp_bias',
      'tie_word_embeddings', 'sliding_window', 'use_sliding_window', 'max_window_layers', 'layer_types'],
  };
}

/**
 * config.json and the tensor names → { family, modelType, architectures, prefix, settings, unread }:
 * `unread` lists the config keys the lab neither used nor knows to be harmless. A ModelError naming
 * config.json (or the weights) when the model is not one the lab reads.
 */
export function recognise(config, names) {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw new ModelError(CONFIG, 'is not a JSON object', { key: 'models.error.notObject' });
  const family = familyOf(config);
  const prefix = prefixOf(family, names);
  const read = { bert: bertSettings, gpt2: gpt2Settings, llama: llamaSettings }[family.family];
  const settings = read(config, family.modelType);
  if (settings.dModel % settings.heads !== 0 && !settings.dK) throw new ModelError(CONFIG, `hidden size ${settings.dModel} is not divisible by ${settings.heads} heads`,
    { key: 'models.error.heads', values: { dModel: settings.dModel, heads: settings.heads } });
  if (settings.kvHeads && settings.heads % settings.kvHeads !== 0) throw new ModelError(CONFIG, `num_key_value_heads ${settings.kvHeads} does not divide num_attention_heads ${settings.heads}`,
    { key: 'models.error.kvHeads', values: { kvHeads: settings.kvHeads, heads: settings.heads } });
  const used = new Set(settings.used);
  const unread = Object.keys(config).filter((key) => !used.has(key) && !HARMLESS.has(key));
  return { family: family.family, modelType: family.modelType, architectures: family.architectures, prefix, settings, unread };
}
