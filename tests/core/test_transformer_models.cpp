// Whole stacks (transformer.hpp) against the real Hugging Face models of ../shared/models/: every
// hidden state, every layer's attention input, weights and output, and the next-token logits, to
// 1e-4 relative (norm-wise), from the models' own safetensors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <set>
#include <string>
#include <vector>

#include "attention/prepared_stack.hpp"
#include "attention/prepared_trace.hpp"
#include "attention/transformer.hpp"
#include "model_files.hpp"

namespace {

using Floats = std::vector<float>;
using Vec = std::vector<double>;

// A model folder, and the tensors read from it kept alive for the stack's views.
struct Model {
  std::string path;
  model_files::Json config, reference;
  std::deque<Floats> kept;
  std::vector<std::int32_t> ids;

  Floats tensor(const std::string& name) const {
    return model_files::read_f32_tensor(path + "/model.safetensors", name);
  }
  attn::View<float> keep(Floats values) {
    kept.push_back(std::move(values));
    return attn::View<float>(kept.back());
  }
  attn::View<float> weight(const std::string& name) { return keep(tensor(name)); }
  int number(const char* key) const { return static_cast<int>(config[key].number); }
  Vec layer_numbers(int layer, const char* what) const {
    return reference["layers"][static_cast<std::size_t>(layer)][what].numbers();
  }
};

bool open_model(const char* name, Model* model) {
  model->path = std::string(ATTN_MODELS_DIR) + "/" + name;
  if (!model_files::file_exists(model->path + "/reference.json")) {
    MESSAGE("skipped: no model folder at " << model->path);
    return false;
  }
  model->config = model_files::read_json(model->path + "/config.json");
  model->reference = model_files::read_json(model->path + "/reference.json");
  for (double id : model->reference["ids"].numbers()) model->ids.push_back(static_cast<std::int32_t>(id));
  return true;
}

// The head-major (heads, in, width) blocks of one projection. Linear keeps (out, in) with out = heads ·
// width; Conv1D keeps (in, total), this projection's columns starting at `column`.
Floats head_major(const Floats& w, bool linear, int in, int total, int column, int heads, int width) {
  Floats out(static_cast<std::size_t>(heads) * in * width);
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < in; ++i)
      for (int c = 0; c < width; ++c) {
        const int o = column + h * width + c;
        out[(static_cast<std::size_t>(h) * in + i) * width + c] = linear ? w[o * in + i] : w[i * total + o];
      }
  return out;
}

// nn.Linear's (out, in) as (in, out).
Floats transposed(const Floats& w, int out_features, int in_features) {
  Floats t(w.size());
  for (int o = 0; o < out_features; ++o)
    for (int i = 0; i < in_features; ++i) t[i * out_features + o] = w[o * in_features + i];
  return t;
}

Floats slice(const Floats& values, int begin, int count) {
  return Floats(values.begin() + begin, values.begin() + begin + count);
}

attn::Norm layer_norm(Model& model, const std::string& prefix, float eps) {
  attn::Norm norm;
  norm.kind = attn::NormKind::LayerNorm;
  norm.eps = eps;
  norm.weight = model.weight(prefix + ".weight");
  norm.bias = model.weight(prefix + ".bias");
  return norm;
}

attn::Norm rms_norm(Model& model, const std::string& name, float eps) {
  attn::Norm norm;
  norm.kind = attn::NormKind::RmsNorm;
  norm.eps = eps;
  norm.weight = model.weight(name);
  return norm;
}

double relative_error(const Floats& got, const Vec& want) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(diff) / std::max(std::sqrt(norm), 1e-30);
}

struct Worst {
  double error = 0;
  int checked = 0;
};

void check(Worst* worst, const std::string& what, const Floats& got, const Vec& want) {
  INFO(what);
  REQUIRE(got.size() == want.size());
  const double error = relative_error(got, want);
  CHECK(error <= 1e-4);
  worst->error = std::max(worst->error, error);
  ++worst->checked;
}

// Every hidden state, every layer's attention input, weights and output; the top-5 logits (causal).
void check_stack_against(Model& model, const attn::Stack& stack, bool causal) {
  attn::StackInputs inputs;
  inputs.ids = attn::View<std::int32_t>(model.ids);
  attn::StackTrace trace;
  const attn::Status status = attn::stack_forward(stack, inputs, &trace);
  INFO(status.field << ": " << status.message);
  REQUIRE(status.ok());
  const int layers = static_cast<int>(stack.layers.size());
  Worst worst;
  const model_files::Json& hidden = model.reference["hidden_states"];
  REQUIRE(hidden.items.size() == static_cast<std::size_t>(layers + 1));
  for (int i = 0; i <= layers; ++i) {
    const Floats& got = i == 0 ? trace.embeddings : i == layers ? trace.output : trace.layers[i - 1].output;
    check(&worst, "hidden_states[" + std::to_string(i) + "]", got, hidden[static_cast<std::size_t>(i)].numbers());
  }
  for (int l = 0; l < layers; ++l) {
    const attn::BlockTrace& block = trace.layers[l];
    const bool pre = stack.layers[l].arrangement == attn::Arrangement::PreNorm;
    const std::string at = "layers[" + std::to_string(l) + "].";
    check(&worst, at + "input", pre ? block.norm1.out : block.input, model.layer_numbers(l, "input"));
    Floats probs;
    for (const attn::HeadTrace& head : block.attention.heads)
      probs.insert(probs.end(), head.weights.begin(), head.weights.end());
    check(&worst, at + "probs", probs, model.layer_numbers(l, "probs"));
    check(&worst, at + "output", block.attention.output, model.layer_numbers(l, "output"));
  }
  if (causal) {
    const int n = trace.n, vocab = stack.vocab;
    const Floats last(trace.logits.begin() + static_cast<std::ptrdiff_t>(n - 1) * vocab, trace.logits.end());
    Floats got;
    Vec want;
    for (const model_files::Json& pair : model.reference["next_token_top5"].items) {
      got.push_back(last[static_cast<std::size_t>(pair[0].number)]);
      want.push_back(pair[1].number);
    }
    check(&worst, "next_token_top5 logits", got, want);
    // and they are the five largest, in that order
    std::vector<int> order(static_cast<std::size_t>(vocab));
    for (int v = 0; v < vocab; ++v) order[v] = v;
    std::partial_sort(order.begin(), order.begin() + 5, order.end(), [&](int a, int b) { return last[a] > last[b]; });
    for (int r = 0; r < 5; ++r) CHECK(order[r] == static_cast<int>(model.reference["next_token_top5"][r][0].number));
  }
  MESSAGE(model.path << ": " << worst.checked << " arrays, largest relative error " << worst.error);
}

// The prepared stack (prepared_stack.hpp) on the same model: every hidden state and the top-5 logits
// to 1e-4 relative, without a trace.
void check_prepared_against(Model& model, const attn::Stack& stack, bool causal) {
  attn::PreparedStack prepared;
  const attn::Status status = attn::prepare_stack(stack, &prepared);
  INFO(status.field << ": " << status.message);
  REQUIRE(status.ok());
  attn::StackInputs inputs;
  inputs.ids = attn::View<std::int32_t>(model.ids);
  attn::PreparedRunOptions options;
  options.hidden_states = true;
  attn::PreparedStackResult result;
  const attn::Status run = attn::prepared_stack_forward(prepared, inputs, {}, options, &result, nullptr);
  INFO(run.field << ": " << run.message);
  REQUIRE(run.ok());
  const int layers = static_cast<int>(stack.layers.size());
  const model_files::Json& hidden = model.reference["hidden_states"];
  Worst worst;
  for (int i = 0; i <= layers; ++i) {
    const Floats& got = i == layers ? result.output : result.hidden_states[static_cast<std::size_t>(i)];
    check(&worst, "prepared hidden_states[" + std::to_string(i) + "]", got,
          hidden[static_cast<std::size_t>(i)].numbers());
  }
  if (causal) {
    const std::size_t last = static_cast<std::size_t>(result.n - 1) * stack.vocab;
    Floats got;
    Vec want;
    for (const model_files::Json& pair : model.reference["next_token_top5"].items) {
      got.push_back(result.logits[last + static_cast<std::size_t>(pair[0].number)]);
      want.push_back(pair[1].number);
    }
    check(&worst, "prepared next_token_top5 logits", got, want);
  }
  MESSAGE(model.path << " prepared: " << worst.checked << " arrays, largest relative error " << worst.error);
}

// The stack's final norm in float64 on (n, d) rows (the rows as they are when it has none): what
// the reference's last hidden state is for GPT-2, Llama and Qwen2, from the last block's output.
Floats final_norm64(const attn::Norm& norm, const Floats& x, int d) {
  if (norm.kind == attn::NormKind::None) return x;
  const bool layer = norm.kind == attn::NormKind::LayerNorm;
  Floats out(x.size());
  for (std::size_t r = 0; r < x.size(); r += static_cast<std::size_t>(d)) {
    double mean = 0, spread = 0;
    if (layer) {
      for (int i = 0; i < d; ++i) mean += x[r + i];
      mean /= d;
    }
    for (int i = 0; i < d; ++i) spread += (x[r + i] - mean) * (x[r + i] - mean);
    const double scale = 1 / std::sqrt(spread / d + norm.eps);
    for (int i = 0; i < d; ++i) {
      const double shift = layer ? norm.bias.data[i] : 0.0;
      out[r + i] = static_cast<float>((x[r + i] - mean) * scale * norm.weight.data[i] + shift);
    }
  }
  return out;
}

// What a sink was handed: the block numbers in the order of the calls, and a copy of each block's trace.
struct SinkCopies {
  std::vector<int> blocks;
  std::vector<attn::PreparedLayerTrace> layers;
};

// A whole traced run on the model's ids whose sink copies every block it is handed.
attn::Status run_with_sink(const attn::PreparedStack& prepared, const Model& model, attn::StackWorkspace* workspace,
                           attn::PreparedStackTrace* trace, SinkCopies* copies) {
  attn::StackInputs inputs;
  inputs.ids = attn::View<std::int32_t>(model.ids);
  const attn::PreparedLayerSink sink = [copies](int block, const attn::PreparedLayerTrace& layer) {
    copies->blocks.push_back(block);
    copies->layers.push_back(layer);
    return true;
  };
  return attn::prepared_stack_trace(prepared, inputs, {}, attn::PreparedTraceOptions{}, trace, workspace, sink);
}

// Each block the sink copied against the reference: attention's input, each head's weights, attention's
// output, and the stream leaving the block (the last block's through the final norm in float64 when
// the reference's last hidden state is after it).
void check_sink_copies(Model& model, const attn::Stack& stack, const SinkCopies& copies) {
  const int layers = static_cast<int>(stack.layers.size()), d = stack.d_model;
  const model_files::Json& hidden = model.reference["hidden_states"];
  REQUIRE(copies.layers.size() == static_cast<std::size_t>(layers));
  Worst worst;
  for (int l = 0; l < layers; ++l) {
    const attn::PreparedLayerTrace& layer = copies.layers[static_cast<std::size_t>(l)];
    const std::string at = "sink layers[" + std::to_string(l) + "].";
    check(&worst, at + "input", layer.attention_input, model.layer_numbers(l, "input"));
    const Vec probs = model.layer_numbers(l, "probs");
    const std::size_t nn = layer.weights.empty() ? 0 : layer.weights[0].size();
    REQUIRE(layer.weights.size() * nn == probs.size());
    for (std::size_t h = 0; h < layer.weights.size(); ++h) {
      const Vec want(probs.begin() + static_cast<std::ptrdiff_t>(h * nn),
                     probs.begin() + static_cast<std::ptrdiff_t>((h + 1) * nn));
      check(&worst, at + "probs of head " + std::to_string(h), layer.weights[h], want);
    }
    check(&worst, at + "output", layer.attention_output, model.layer_numbers(l, "output"));
    const bool last = l + 1 == layers;
    check(&worst, at + "stream out, as hidden_states[" + std::to_string(l + 1) + "]",
          last ? final_norm64(stack.final_norm, layer.output, d) : layer.output,
          hidden[static_cast<std::size_t>(l + 1)].numbers());
  }
  MESSAGE(model.path << " sink: " << worst.checked << " arrays, largest relative error " << worst.error);
}

// prepared_stack_trace's sink (one block's trace at a time) on the model: called once per block in
// order, each block's copy as the reference has it and as the kept trace `kept` holds it; a sink that
// returns false after block 0 stops the run (field "trace"), and a whole run after that on the same
// workspace gives the same numbers.
void check_sink_against(Model& model, const attn::Stack& stack, const attn::PreparedStack& prepared,
                        const attn::PreparedStackTrace& kept) {
  const int layers = static_cast<int>(stack.layers.size());
  std::vector<int> order(static_cast<std::size_t>(layers));
  for (int l = 0; l < layers; ++l) order[static_cast<std::size_t>(l)] = l;
  attn::StackWorkspace workspace;
  attn::PreparedStackTrace trace;
  SinkCopies first;
  const attn::Status run = run_with_sink(prepared, model, &workspace, &trace, &first);
  INFO(run.field << ": " << run.message);
  REQUIRE(run.ok());
  CHECK(first.blocks == order);
  CHECK(trace.layers.empty());
  check_sink_copies(model, stack, first);
  Worst worst;
  check(&worst, "sink run's output", trace.output,
        model.reference["hidden_states"][static_cast<std::size_t>(layers)].numbers());
  for (int l = 0; l < layers; ++l) {
    const attn::PreparedLayerTrace &got = first.layers[l], &want = kept.layers[l];
    CHECK((got.attention_input == want.attention_input && got.weights == want.weights &&
           got.attention_output == want.attention_output && got.output == want.output));
  }
  attn::StackInputs inputs;
  inputs.ids = attn::View<std::int32_t>(model.ids);
  std::vector<int> stopped;
  const attn::PreparedLayerSink stop = [&stopped](int block, const attn::PreparedLayerTrace&) {
    stopped.push_back(block);
    return false;
  };
  attn::PreparedStackTrace halted;
  const attn::Status halt = attn::prepared_stack_trace(prepared, inputs, {}, {}, &halted, &workspace, stop);
  CHECK(!halt.ok());
  CHECK(halt.field == "trace");
  CHECK(halt.message.find("after block 0") != std::string::npos);
  CHECK(stopped == std::vector<int>{0});
  SinkCopies again;
  attn::PreparedStackTrace after;
  REQUIRE(run_with_sink(prepared, model, &workspace, &after, &again).ok());
  CHECK(again.blocks == order);
  REQUIRE(again.layers.size() == first.layers.size());
  for (int l = 0; l < layers; ++l) {
    const attn::PreparedLayerTrace &got = again.layers[l], &want = first.layers[l];
    INFO("the run after the stopped one, block " << l);
    CHECK(got.attention_input == want.attention_input);
    CHECK(got.weights == want.weights);
    CHECK(got.attention_output == want.attention_output);
    CHECK(got.output == want.output);
  }
  CHECK((after.embeddings == trace.embeddings && after.output == trace.output));
  CHECK(after.last_logits == trace.last_logits);
}

// The prepared stack's traced run (prepared_trace.hpp) on the same model, the last block opened:
// every hidden state, every layer's attention input, weights and output, the open block's weights
// from its whole trace, and the top-5 logits from the last position's, to 1e-4 relative. The stack is
// prepared with its token table handed over (as a staged model's is, with room for the panels): the
// prepared stack keeps that storage itself (the tied panels packed in it, or the table as it is), no copy.
// Every block's product weights are handed over too, each in a vector of its own (as a staged model's
// tensors are), and each must be a prepared block's own storage afterwards (packed in it or moved).
// Then the same prepared stack's run with a sink, one block at a time (check_sink_against).
void check_prepared_trace_against(Model& model, const attn::Stack& given, bool causal) {
  attn::Stack stack = given;
  std::vector<float> table;
  table.reserve(attn::token_table_room(stack.vocab, stack.d_model));
  table.assign(stack.tokens.data, stack.tokens.data + stack.tokens.size);
  const float* storage = table.data();
  stack.tokens = attn::View<float>(table);
  std::deque<std::vector<float>> weights;
  std::vector<std::vector<float>*> handed;
  for (attn::Block& block : stack.layers) {
    for (attn::View<float>* v : {&block.weights.wq, &block.weights.wk, &block.weights.wv, &block.weights.wo,
                                 &block.mlp.w1, &block.mlp.w2, &block.mlp.w_gate, &block.mlp.w_up, &block.mlp.w_down}) {
      if (!v->present) continue;
      handed.push_back(&weights.emplace_back(v->data, v->data + v->size));
      *v = attn::View<float>(weights.back());
    }
  }
  std::vector<const float*> addresses;
  for (const std::vector<float>* w : handed) addresses.push_back(w->data());
  attn::PreparedStack prepared;
  REQUIRE(attn::prepare_stack(stack, &prepared, {}, &table, handed).ok());
  const bool panels = stack.unembedding == attn::Unembedding::Tied && prepared.unembedding_weight.packed;
  CHECK((panels ? prepared.unembedding_weight.values.data() : prepared.tokens.data()) == storage);
  std::set<const float*> kept;
  for (const attn::PreparedBlock& b : prepared.layers) {
    for (const std::vector<float>* v :
         {&b.packed.wq, &b.packed.wk, &b.packed.wv, &b.packed.wo, &b.weights[0], &b.weights[1], &b.weights[2],
          &b.weights[3], &b.w1.values, &b.w2.values, &b.w_gate.values, &b.w_up.values, &b.w_down.values})
      if (!v->empty()) kept.insert(v->data());
  }
  for (std::size_t i = 0; i < addresses.size(); ++i) CHECK_MESSAGE(kept.count(addresses[i]) == 1, "weight ", i);
  attn::StackInputs inputs;
  inputs.ids = attn::View<std::int32_t>(model.ids);
  const int layers = static_cast<int>(stack.layers.size());
  attn::PreparedTraceOptions options;
  options.open_layer = layers - 1;
  attn::PreparedStackTrace trace;
  const attn::Status run = attn::prepared_stack_trace(prepared, inputs, {}, options, &trace, nullptr);
  INFO(run.field << ": " << run.message);
  REQUIRE(run.ok());
  Worst worst;
  const model_files::Json& hidden = model.reference["hidden_states"];
  for (int i = 0; i <= layers; ++i) {
    const Floats& got = i == 0 ? trace.embeddings : i == layers ? trace.output : trace.layers[i - 1].output;
    check(&worst, "traced hidden_states[" + std::to_string(i) + "]", got,
          hidden[static_cast<std::size_t>(i)].numbers());
  }
  for (int l = 0; l < layers; ++l) {
    const attn::PreparedLayerTrace& layer = trace.layers[static_cast<std::size_t>(l)];
    const std::string at = "traced layers[" + std::to_string(l) + "].";
    check(&worst, at + "input", layer.attention_input, model.layer_numbers(l, "input"));
    Floats probs;
    for (const Floats& head : layer.weights) probs.insert(probs.end(), head.begin(), head.end());
    check(&worst, at + "probs", probs, model.layer_numbers(l, "probs"));
    check(&worst, at + "output", layer.attention_output, model.layer_numbers(l, "output"));
  }
  Floats open;
  for (const attn::HeadTrace& head : trace.open.heads)
    open.insert(open.end(), head.weights.begin(), head.weights.end());
  check(&worst, "the open block's probs", open, model.layer_numbers(layers - 1, "probs"));
  if (causal) {
    Floats got;
    Vec want;
    for (const model_files::Json& pair : model.reference["next_token_top5"].items) {
      got.push_back(trace.last_logits[static_cast<std::size_t>(pair[0].number)]);
      want.push_back(pair[1].number);
    }
    check(&worst, "traced next_token_top5 logits", got, want);
  }
  MESSAGE(model.path << " traced prepared: " << worst.checked << " arrays, largest relative error " << worst.error);
  check_sink_against(model, stack, prepared, trace);
}

}  // namespace

TEST_CASE("a GPT-2 stack reproduces Hugging Face's GPT2LMHeadModel: hidden states, attention, logits") {
  Model model;
  if (!open_model("gpt2", &model)) return;
  const int d = model.number("n_embd"), heads = model.number("n_head"), d_k = d / heads, f = 4 * d;
  const float eps = static_cast<float>(model.config["layer_norm_epsilon"].number);
  attn::Stack stack;
  stack.vocab = model.number("vocab_size");
  stack.d_model = d;
  stack.tokens = model.weight("transformer.wte.weight");
  stack.positions = attn::PositionKind::Learned;
  stack.position_table = model.weight("transformer.wpe.weight");
  for (int l = 0; l < model.number("n_layer"); ++l) {
    const std::string p = "transformer.h." + std::to_string(l) + ".";
    attn::Block block;
    block.arrangement = attn::Arrangement::PreNorm;
    block.attention.heads = heads;
    block.attention.mask_mode = attn::MaskMode::Causal;
    const Floats qkv = model.tensor(p + "attn.c_attn.weight"), qkv_bias = model.tensor(p + "attn.c_attn.bias");
    block.weights.wq = model.keep(head_major(qkv, false, d, 3 * d, 0, heads, d_k));
    block.weights.wk = model.keep(head_major(qkv, false, d, 3 * d, d, heads, d_k));
    block.weights.wv = model.keep(head_major(qkv, false, d, 3 * d, 2 * d, heads, d_k));
    block.weights.bq = model.keep(slice(qkv_bias, 0, d));
    block.weights.bk = model.keep(slice(qkv_bias, d, d));
    block.weights.bv = model.keep(slice(qkv_bias, 2 * d, d));
    block.weights.wo = model.weight(p + "attn.c_proj.weight");  // Conv1D: (in, out) already
    block.weights.bo = model.weight(p + "attn.c_proj.bias");
    block.norm1 = layer_norm(model, p + "ln_1", eps);
    block.norm2 = layer_norm(model, p + "ln_2", eps);
    block.mlp.kind = attn::MlpKind::Plain;
    block.mlp.activation = attn::Activation::GeluTanh;
    block.mlp.hidden = f;
    block.mlp.w1 = model.weight(p + "mlp.c_fc.weight");
    block.mlp.b1 = model.weight(p + "mlp.c_fc.bias");
    block.mlp.w2 = model.weight(p + "mlp.c_proj.weight");
    block.mlp.b2 = model.weight(p + "mlp.c_proj.bias");
    stack.layers.push_back(block);
  }
  stack.final_norm = layer_norm(model, "transformer.ln_f", eps);
  stack.unembedding = attn::Unembedding::Tied;
  check_stack_against(model, stack, true);
  check_prepared_against(model, stack, true);
  check_prepared_trace_against(model, stack, true);
}

TEST_CASE("a BERT stack reproduces Hugging Face's BertModel: embeddings, post-LN blocks, attention") {
  Model model;
  if (!open_model("bert", &model)) return;
  const int d = model.number("hidden_size"), heads = model.number("num_attention_heads"), d_k = d / heads;
  const int f = model.number("intermediate_size");
  const float eps = static_cast<float>(model.config["layer_norm_eps"].number);
  attn::Stack stack;
  stack.vocab = model.number("vocab_size");
  stack.d_model = d;
  stack.tokens = model.weight("bert.embeddings.word_embeddings.weight");
  stack.positions = attn::PositionKind::Learned;
  stack.position_table = model.weight("bert.embeddings.position_embeddings.weight");
  stack.token_types = model.number("type_vocab_size");
  stack.type_table = model.weight("bert.embeddings.token_type_embeddings.weight");
  stack.embedding_norm = layer_norm(model, "bert.embeddings.LayerNorm", eps);
  for (int l = 0; l < model.number("num_hidden_layers"); ++l) {
    const std::string p = "bert.encoder.layer." + std::to_string(l) + ".";
    attn::Block block;
    block.arrangement = attn::Arrangement::PostNorm;
    block.attention.heads = heads;
    block.weights.wq =
        model.keep(head_major(model.tensor(p + "attention.self.query.weight"), true, d, d, 0, heads, d_k));
    block.weights.wk = model.keep(head_major(model.tensor(p + "attention.self.key.weight"), true, d, d, 0, heads, d_k));
    block.weights.wv =
        model.keep(head_major(model.tensor(p + "attention.self.value.weight"), true, d, d, 0, heads, d_k));
    block.weights.bq = model.weight(p + "attention.self.query.bias");
    block.weights.bk = model.weight(p + "attention.self.key.bias");
    block.weights.bv = model.weight(p + "attention.self.value.bias");
    block.weights.wo = model.keep(transposed(model.tensor(p + "attention.output.dense.weight"), d, d));
    block.weights.bo = model.weight(p + "attention.output.dense.bias");
    block.norm1 = layer_norm(model, p + "attention.output.LayerNorm", eps);
    block.norm2 = layer_norm(model, p + "output.LayerNorm", eps);
    block.mlp.kind = attn::MlpKind::Plain;
    block.mlp.activation = attn::Activation::GeluErf;
    block.mlp.hidden = f;
    block.mlp.w1 = model.keep(transposed(model.tensor(p + "intermediate.dense.weight"), f, d));
    block.mlp.b1 = model.weight(p + "intermediate.dense.bias");
    block.mlp.w2 = model.keep(transposed(model.tensor(p + "output.dense.weight"), d, f));
    block.mlp.b2 = model.weight(p + "output.dense.bias");
    stack.layers.push_back(block);
  }
  check_stack_against(model, stack, false);
  check_prepared_against(model, stack, false);
  check_prepared_trace_against(model, stack, false);
}

namespace {

// Llama and Qwen2 (LlamaForCausalLM, Qwen2ForCausalLM): RMSNorm, grouped-query attention with rotary
// positions, SwiGLU, an own lm_head; Qwen2 adds biases on q, k and v.
attn::Stack llama_like_stack(Model& model, bool qkv_bias) {
  const int d = model.number("hidden_size"), heads = model.number("num_attention_heads");
  const int kv_heads = model.number("num_key_value_heads");
  const int d_k = model.config.has("head_dim") ? model.number("head_dim") : d / heads;  // Qwen2's config omits it
  const int f = model.number("intermediate_size");
  const float eps = static_cast<float>(model.config["rms_norm_eps"].number);
  // transformers 5 keeps theta in rope_parameters, transformers 4 at the top level
  const double theta = model.config.has("rope_parameters") ? model.config["rope_parameters"]["rope_theta"].number
                                                           : model.config["rope_theta"].number;
  attn::Stack stack;
  stack.vocab = model.number("vocab_size");
  stack.d_model = d;
  stack.tokens = model.weight("model.embed_tokens.weight");
  stack.positions = attn::PositionKind::Rotary;
  stack.rotary.dims = d_k;
  stack.rotary.theta = theta;
  for (int l = 0; l < model.number("num_hidden_layers"); ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    attn::Block block;
    block.arrangement = attn::Arrangement::PreNorm;
    block.attention.heads = heads;
    block.attention.kv_heads = kv_heads;
    block.attention.d_k = d_k;
    block.attention.mask_mode = attn::MaskMode::Causal;
    const std::string a = p + "self_attn.";
    block.weights.wq = model.keep(head_major(model.tensor(a + "q_proj.weight"), true, d, heads * d_k, 0, heads, d_k));
    block.weights.wk =
        model.keep(head_major(model.tensor(a + "k_proj.weight"), true, d, kv_heads * d_k, 0, kv_heads, d_k));
    block.weights.wv =
        model.keep(head_major(model.tensor(a + "v_proj.weight"), true, d, kv_heads * d_k, 0, kv_heads, d_k));
    block.weights.wo = model.keep(transposed(model.tensor(a + "o_proj.weight"), d, heads * d_k));
    if (qkv_bias) {
      block.weights.bq = model.weight(a + "q_proj.bias");
      block.weights.bk = model.weight(a + "k_proj.bias");
      block.weights.bv = model.weight(a + "v_proj.bias");
    }
    block.norm1 = rms_norm(model, p + "input_layernorm.weight", eps);
    block.norm2 = rms_norm(model, p + "post_attention_layernorm.weight", eps);
    block.mlp.kind = attn::MlpKind::SwiGlu;
    block.mlp.hidden = f;
    block.mlp.w_gate = model.keep(transposed(model.tensor(p + "mlp.gate_proj.weight"), f, d));
    block.mlp.w_up = model.keep(transposed(model.tensor(p + "mlp.up_proj.weight"), f, d));
    block.mlp.w_down = model.keep(transposed(model.tensor(p + "mlp.down_proj.weight"), d, f));
    stack.layers.push_back(block);
  }
  stack.final_norm = rms_norm(model, "model.norm.weight", eps);
  const bool tied = model.config.has("tie_word_embeddings") && model.config["tie_word_embeddings"].number != 0;
  stack.unembedding = tied ? attn::Unembedding::Tied : attn::Unembedding::Own;
  if (!tied) stack.unembedding_weight = model.keep(transposed(model.tensor("lm_head.weight"), stack.vocab, d));
  return stack;
}

}  // namespace

TEST_CASE("a Llama stack reproduces Hugging Face's LlamaForCausalLM: RoPE, grouped-query attention, SwiGLU") {
  Model model;
  if (!open_model("llama", &model)) return;
  const attn::Stack stack = llama_like_stack(model, false);
  check_stack_against(model, stack, true);
  check_prepared_against(model, stack, true);
  check_prepared_trace_against(model, stack, true);
}

TEST_CASE("a Qwen2 stack reproduces Hugging Face's Qwen2ForCausalLM: as Llama, with q, k and v biases") {
  Model model;
  if (!open_model("qwen2", &model)) return;
  CHECK(model.config["use_sliding_window"].number == 0);  // so no window: every layer attends in full
  const attn::Stack stack = llama_like_stack(model, true);
  check_stack_against(model, stack, true);
  check_prepared_against(model, stack, true);
  check_prepared_trace_against(model, stack, true);
}
