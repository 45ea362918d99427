// The stack's binding (learning engines): engine.transformer() and engine.transformerGradients() in
// web/lib/transformer.mjs. The request arrives type-checked, with defaults applied and names turned
// into codes; the core checks sizes and values. Convert, call, copy out.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "attention/prepared_stack.hpp"
#include "attention/prepared_trace.hpp"
#include "attention/transformer.hpp"
#include "errors.hpp"
#include "trace.hpp"

using emscripten::val;

namespace {

using attn_bindings::error_of;

bool absent(const val& value) { return value.isNull() || value.isUndefined(); }

template <typename T>
val copy_out(const char* type, const std::vector<T>& values) {
  return val::global(type).new_(emscripten::typed_memory_view(values.size(), values.data()));
}

// The request's arrays copied into WebAssembly memory, and the stack viewing them.
struct Request {
  // engine.stageTransformer()'s tensors, already in WebAssembly memory: taken in place, not copied;
  // staged_in[l] lists the ones block l took (freed once the block is prepared)
  std::deque<std::vector<float>>* staged = nullptr;
  std::vector<std::vector<std::size_t>> staged_in;
  int tokens_staged = -1;  // the staged tensor that is the token table (prepare_stack takes it over), or -1
  std::deque<std::vector<float>> floats;
  std::vector<std::int32_t> ids, type_ids;
  std::vector<std::uint8_t> keep;
  attn::Stack stack;
  attn::StackInputs inputs;

  attn::View<float> take(const val& array) {
    if (absent(array)) return {};
    if (staged && array["staged"].isNumber()) {
      const std::size_t index = array["staged"].as<std::size_t>();
      if (index >= staged->size()) return {};
      if (!staged_in.empty()) staged_in.back().push_back(index);
      return attn::View<float>((*staged)[index]);
    }
    floats.push_back(emscripten::convertJSArrayToNumberVector<float>(array));
    return attn::View<float>(floats.back());
  }

  attn::Norm norm(const val& spec) {
    attn::Norm n;
    n.kind = static_cast<attn::NormKind>(spec["kindCode"].as<int>());
    n.eps = spec["eps"].as<float>();
    n.weight = take(spec["weight"]);
    n.bias = take(spec["bias"]);
    return n;
  }

  void attention(const val& spec, attn::Block* block) {
    attn::Config& c = block->attention;
    c.heads = spec["heads"].as<int>();
    c.kv_heads = spec["kvHeads"].as<int>();
    c.d_k = spec["dK"].as<int>();
    c.d_v = spec["dV"].as<int>();
    c.scale_mode = static_cast<attn::ScaleMode>(spec["scaleMode"].as<int>());
    c.scale_divisor = spec["scaleDivisor"].as<double>();
    c.mask_mode = static_cast<attn::MaskMode>(spec["maskMode"].as<int>());
    c.window = spec["window"].as<int>();
    attn::Inputs& w = block->weights;
    w.wq = take(spec["wq"]);
    w.wk = take(spec["wk"]);
    w.wv = take(spec["wv"]);
    w.wo = take(spec["wo"]);
    w.bq = take(spec["bq"]);
    w.bk = take(spec["bk"]);
    w.bv = take(spec["bv"]);
    w.bo = take(spec["bo"]);
  }

  attn::Block block(const val& spec) {
    attn::Block b;
    b.arrangement = static_cast<attn::Arrangement>(spec["arrangementCode"].as<int>());
    attention(spec["attention"], &b);
    b.norm1 = norm(spec["norm1"]);
    b.norm2 = norm(spec["norm2"]);
    const val mlp = spec["mlp"];
    b.mlp.kind = static_cast<attn::MlpKind>(mlp["kindCode"].as<int>());
    b.mlp.activation = static_cast<attn::Activation>(mlp["activationCode"].as<int>());
    b.mlp.hidden = mlp["hidden"].as<int>();
    b.mlp.w1 = take(mlp["w1"]);
    b.mlp.b1 = take(mlp["b1"]);
    b.mlp.w2 = take(mlp["w2"]);
    b.mlp.b2 = take(mlp["b2"]);
    b.mlp.w_gate = take(mlp["wGate"]);
    b.mlp.w_up = take(mlp["wUp"]);
    b.mlp.w_down = take(mlp["wDown"]);
    return b;
  }

  explicit Request(const val& r, std::deque<std::vector<float>>* staged_tensors = nullptr) : staged(staged_tensors) {
    attn::Stack& s = stack;
    s.vocab = r["vocab"].as<int>();
    s.d_model = r["dModel"].as<int>();
    s.tokens = take(r["tokens"]);
    if (staged && s.tokens.present && !absent(r["tokens"]) && r["tokens"]["staged"].isNumber()) {
      tokens_staged = r["tokens"]["staged"].as<int>();
    }
    s.positions = static_cast<attn::PositionKind>(r["positionsCode"].as<int>());
    s.position_table = take(r["positionTable"]);
    s.rotary.dims = r["rotary"]["dims"].as<int>();
    s.rotary.theta = r["rotary"]["theta"].as<double>();
    s.rotary.first_position = r["rotary"]["firstPosition"].as<int>();
    s.token_types = r["tokenTypes"].as<int>();
    s.type_table = take(r["typeTable"]);
    s.embedding_norm = norm(r["embeddingNorm"]);
    const val layers = r["layers"];
    for (unsigned l = 0; l < layers["length"].as<unsigned>(); ++l) {
      staged_in.emplace_back();
      s.layers.push_back(block(layers[l]));
    }
    staged_in.emplace_back();  // the rest: not freed early
    s.final_norm = norm(r["finalNorm"]);
    s.unembedding = static_cast<attn::Unembedding>(r["unembeddingCode"].as<int>());
    s.unembedding_weight = take(r["unembeddingWeight"]);
    s.unembedding_bias = take(r["unembeddingBias"]);
    if (!absent(r["ids"])) {  // engine.prepareTransformer()'s weights come without
      ids = emscripten::convertJSArrayToNumberVector<std::int32_t>(r["ids"]);
      inputs.ids = attn::View<std::int32_t>(ids);
    }
    if (!absent(r["typeIds"])) {
      type_ids = emscripten::convertJSArrayToNumberVector<std::int32_t>(r["typeIds"]);
      inputs.type_ids = attn::View<std::int32_t>(type_ids);
    }
    if (!absent(r["keep"])) {
      keep = emscripten::convertJSArrayToNumberVector<std::uint8_t>(r["keep"]);
      inputs.keep = attn::View<std::uint8_t>(keep);
    }
  }
};

val f32(const std::vector<float>& values) { return copy_out("Float32Array", values); }

val head_out(const attn::HeadTrace& head) {
  val out = val::object();
  out.set("q", f32(head.q));
  out.set("k", f32(head.k));
  out.set("v", f32(head.v));
  out.set("scores", f32(head.scores));
  out.set("scaled", f32(head.scaled));
  out.set("weights", f32(head.weights));
  out.set("z", f32(head.z));
  if (!head.q_unrotated.empty()) {
    out.set("qUnrotated", f32(head.q_unrotated));
    out.set("kUnrotated", f32(head.k_unrotated));
  }
  return out;
}

val norm_out(const attn::NormTrace& norm) {
  val out = val::object();
  out.set("output", f32(norm.out));
  out.set("mean", f32(norm.mean));
  out.set("rstd", f32(norm.rstd));
  return out;
}

val block_out(const attn::BlockTrace& block, bool heads) {
  val out = val::object();
  out.set("input", f32(block.input));
  out.set("norm1", norm_out(block.norm1));
  val attention = val::object();
  attention.set("output", f32(block.attention.output));
  attention.set("concat", f32(block.attention.concat));
  val head_list = val::array();
  if (heads)
    for (const attn::HeadTrace& head : block.attention.heads) head_list.call<void>("push", head_out(head));
  attention.set("heads", head_list);
  out.set("attention", attention);
  out.set("attended", f32(block.attended));
  out.set("middle", f32(block.middle));
  out.set("norm2", norm_out(block.norm2));
  out.set("mlpPre", f32(block.mlp_pre));
  out.set("mlpUp", f32(block.mlp_up));
  out.set("mlpHidden", f32(block.mlp_hidden));
  out.set("mlpOut", f32(block.mlp_out));
  out.set("summed", f32(block.summed));
  out.set("output", f32(block.output));
  return out;
}

val trace_out(const attn::StackTrace& trace, bool heads) {
  val out = val::object();
  out.set("n", trace.n);
  out.set("embedded", f32(trace.embedded));
  out.set("embeddingNorm", norm_out(trace.embedding_norm));
  out.set("embeddings", f32(trace.embeddings));
  val layers = val::array();
  for (const attn::BlockTrace& block : trace.layers) layers.call<void>("push", block_out(block, heads));
  out.set("layers", layers);
  out.set("finalNorm", norm_out(trace.final_norm));
  out.set("output", f32(trace.output));
  out.set("logits", f32(trace.logits));
  return out;
}

// The gradients present, by the request's names; empty ones left out.
void set_present(val& out, const char* name, const std::vector<float>& values) {
  if (!values.empty()) out.set(name, f32(values));
}

val norm_gradients(const attn::NormGradients& g) {
  val out = val::object();
  set_present(out, "weight", g.weight);
  set_present(out, "bias", g.bias);
  return out;
}

val block_gradients(const attn::BlockGradients& g) {
  val out = val::object(), attention = val::object(), mlp = val::object();
  const attn::Gradients& a = g.attention;
  const std::pair<const char*, const std::vector<float>*> in_attention[] = {{"wq", &a.wq}, {"wk", &a.wk}, {"wv", &a.wv},
                                                                            {"wo", &a.wo}, {"bq", &a.bq}, {"bk", &a.bk},
                                                                            {"bv", &a.bv}, {"bo", &a.bo}};
  for (const auto& entry : in_attention) set_present(attention, entry.first, *entry.second);
  const std::pair<const char*, const std::vector<float>*> in_mlp[] = {
      {"w1", &g.w1},        {"b1", &g.b1},    {"w2", &g.w2},       {"b2", &g.b2},
      {"wGate", &g.w_gate}, {"wUp", &g.w_up}, {"wDown", &g.w_down}};
  for (const auto& entry : in_mlp) set_present(mlp, entry.first, *entry.second);
  out.set("attention", attention);
  out.set("norm1", norm_gradients(g.norm1));
  out.set("norm2", norm_gradients(g.norm2));
  out.set("mlp", mlp);
  return out;
}

val gradients_out(const attn::StackGradients& g) {
  val out = val::object();
  set_present(out, "tokens", g.tokens);
  set_present(out, "positionTable", g.position_table);
  set_present(out, "typeTable", g.type_table);
  out.set("embeddingNorm", norm_gradients(g.embedding_norm));
  val layers = val::array();
  for (const attn::BlockGradients& block : g.layers) layers.call<void>("push", block_gradients(block));
  out.set("layers", layers);
  out.set("finalNorm", norm_gradients(g.final_norm));
  set_present(out, "unembeddingWeight", g.unembedding_weight);
  set_present(out, "unembeddingBias", g.unembedding_bias);
  return out;
}

// { trace } or { error }
val transformer_forward(const val& request) {
  const Request r(request);
  attn::StackTrace trace;
  const attn::Status status = attn::stack_forward(r.stack, r.inputs, &trace);
  if (!status.ok()) return error_of(status);
  return trace_out(trace, request["heads"].as<bool>());
}

// { trace, gradients } or { error }
val transformer_gradients(const val& request) {
  Request r(request);
  const attn::View<float> d_logits = r.take(request["dLogits"]), d_output = r.take(request["dOutput"]);
  attn::StackTrace trace;
  if (attn::Status s = attn::stack_forward(r.stack, r.inputs, &trace); !s.ok()) return error_of(s);
  attn::StackGradients gradients = attn::zero_stack_gradients(r.stack);
  if (attn::Status s = attn::stack_backward(r.stack, r.inputs, trace, d_logits, d_output, &gradients); !s.ok()) {
    return error_of(s);
  }
  val out = val::object();
  out.set("trace", trace_out(trace, request["heads"].as<bool>()));
  out.set("gradients", gradients_out(gradients));
  return out;
}

// engine.prepareTransformer(): the weights copied in and prepared once (prepared_stack.hpp), then
// runs on ids or x that copy in only those and copy out the output (and logits, hidden states).
class PreparedTransformer {
 public:
  // null, or { error } (the stack is left as it was). Staged tensors the request names ({ staged: i })
  // are read in place, the blocks' weights packed in them (prepare_stack's block_storage), each
  // block's freed once it is prepared, and every staged tensor is let go.
  val prepare(const val& request) {
    attn::Status status;
    {
      Request r(request, &staged_);  // the request's copies freed before the call returns
      std::vector<float>* tokens = r.tokens_staged < 0 ? nullptr : &staged_[static_cast<std::size_t>(r.tokens_staged)];
      std::vector<std::vector<float>*> blocks;
      for (std::vector<float>& tensor : staged_)
        if (&tensor != tokens) blocks.push_back(&tensor);
      status = attn::prepare_stack(
          r.stack, &stack_,
          [&](int l) {
            for (std::size_t index : r.staged_in[static_cast<std::size_t>(l)])
              std::vector<float>().swap(staged_[index]);
          },
          tokens, blocks);
    }
    staged_.clear();
    return status.ok() ? val::null() : error_of(status);
  }

  // A tensor of `count` floats in WebAssembly memory for JavaScript to fill: its index; its address
  // by staged_address(index). -1 when count is above the core's cap on one table. `rows` > 0: a token
  // table of `rows` rows, given room for its tied unembedding's panels (packed there in place).
  int stage(int count, int rows) {
    if (count < 0 || static_cast<std::size_t>(count) > attn::kMaxTableValues || rows < 0) return -1;
    std::vector<float> tensor;
    if (rows > 0 && count % rows == 0 && count > 0) tensor.reserve(attn::token_table_room(rows, count / rows));
    tensor.resize(static_cast<std::size_t>(count));
    staged_.push_back(std::move(tensor));
    return static_cast<int>(staged_.size() - 1);
  }
  // WebAssembly memory grown at once to hold `bytes` more than it holds now, those bytes not touched: a
  // block of them allocated and freed, so the staged tensors allocated after it come from that room
  // and none grows the memory (the caller reads the files meanwhile). false when it cannot grow so far.
  bool reserve(double bytes) {
    if (!(bytes > 0) || bytes > 2147483647.0) return false;
    // volatile: a malloc whose block is unused and freed is otherwise removed by the optimiser
    void* volatile block = std::malloc(static_cast<std::size_t>(bytes));
    const bool made = block != nullptr;
    std::free(block);
    return made;
  }
  unsigned staged_address(int index) const {
    if (index < 0 || static_cast<std::size_t>(index) >= staged_.size()) return 0;
    return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(staged_[static_cast<std::size_t>(index)].data()));
  }
  void unstage() { staged_.clear(); }

  // { n, embeddings, layers[l] { input, weights[h], output, hidden }, open?, output, lastLogits? } or { error }.
  // The arrays (all but open's) are views of the trace kept here (trace_), not copies: valid until the
  // next call into the module, so the caller (web/lib/transformer.mjs) copies them out at once, into
  // arrays of its own or buffers it was handed back (no new ArrayBuffer a run when those fit).
  // With on_layer (a function), layers is empty: on_layer(l, layers[l]) is called after each block with
  // views of that block's trace, which the next block overwrites (one block's trace held, not L); it
  // returns true to go on, false to stop the run ({ error } with field "trace"). It must not throw: a
  // throw would cross the C++ frames without freeing what they hold.
  val trace(const val& ids, const val& type_ids, const val& x, int open_layer, bool last_logits, int blocks,
            const val& on_layer) {
    Inputs in(ids, type_ids, x);
    attn::PreparedTraceOptions options;
    options.open_layer = open_layer;
    options.last_logits = last_logits;
    options.blocks = blocks;
    trace_ = attn::PreparedStackTrace();  // the last one let go first: never two traces held at once
    attn::PreparedStackTrace& t = trace_;
    attn::PreparedLayerSink sink;
    if (on_layer.typeOf().as<std::string>() == "function") {
      sink = [&on_layer](int l, const attn::PreparedLayerTrace& layer) {
        return on_layer(l, layer_out(layer)).as<bool>();
      };
    }
    const attn::Status status = attn::prepared_stack_trace(stack_, in.inputs, in.x, options, &t, &workspace_, sink);
    if (!status.ok()) return error_of(status);
    val out = val::object();
    out.set("n", t.n);
    out.set("embeddings", view(t.embeddings));
    val layers = val::array();
    for (const attn::PreparedLayerTrace& layer : t.layers) layers.call<void>("push", layer_out(layer));
    out.set("layers", layers);
    out.set("open", t.open_layer < 0 ? val::null() : open_out(t.open));
    out.set("output", t.output.empty() ? val::null() : view(t.output));
    if (!t.last_logits.empty()) out.set("lastLogits", view(t.last_logits));
    return out;
  }

  // { n, output, logits?, hiddenStates? } or { error }; keep: null, or (n, n) key flags (a padding mask)
  val run(const val& ids, const val& type_ids, const val& x, bool logits, bool hidden_states, const val& keep) {
    Inputs in(ids, type_ids, x);
    attn::PreparedRunOptions options;
    options.logits = logits;
    options.hidden_states = hidden_states;
    std::vector<std::uint8_t> keep_values;
    if (!absent(keep)) {
      keep_values = emscripten::convertJSArrayToNumberVector<std::uint8_t>(keep);
      options.keep = attn::View<std::uint8_t>(keep_values);
    }
    const attn::Status status = attn::prepared_stack_forward(stack_, in.inputs, in.x, options, &result_, &workspace_);
    if (!status.ok()) return error_of(status);
    val out = val::object();
    out.set("n", result_.n);
    out.set("output", f32(result_.output));
    if (!result_.logits.empty()) out.set("logits", f32(result_.logits));
    if (hidden_states) {
      val list = val::array();
      for (const std::vector<float>& state : result_.hidden_states) list.call<void>("push", f32(state));
      out.set("hiddenStates", list);
    }
    return out;
  }

  int d_model() const { return stack_.d_model; }
  int vocab() const { return stack_.vocab; }
  int layers() const { return static_cast<int>(stack_.layers.size()); }

 private:
  // A run's ids, type ids or x copied in from JavaScript.
  struct Inputs {
    attn::StackInputs inputs;
    std::vector<std::int32_t> id_values, type_values;
    std::vector<float> x_values;
    attn::View<float> x;
    Inputs(const val& ids, const val& type_ids, const val& x_array) {
      if (!absent(ids)) {
        id_values = emscripten::convertJSArrayToNumberVector<std::int32_t>(ids);
        inputs.ids = attn::View<std::int32_t>(id_values);
      }
      if (!absent(type_ids)) {
        type_values = emscripten::convertJSArrayToNumberVector<std::int32_t>(type_ids);
        inputs.type_ids = attn::View<std::int32_t>(type_values);
      }
      if (!absent(x_array)) {
        x_values = emscripten::convertJSArrayToNumberVector<float>(x_array);
        x = attn::View<float>(x_values);
      }
    }
  };

  static val view(const std::vector<float>& values) {
    return val(emscripten::typed_memory_view(values.size(), values.data()));
  }

  // { input, weights[h], output, hidden }: views of one block's trace
  static val layer_out(const attn::PreparedLayerTrace& layer) {
    val entry = val::object(), weights = val::array();
    entry.set("input", view(layer.attention_input));
    for (const std::vector<float>& head : layer.weights) weights.call<void>("push", view(head));
    entry.set("weights", weights);
    entry.set("output", view(layer.attention_output));
    entry.set("hidden", view(layer.output));
    return entry;
  }

  static val open_out(const attn::Result& open) {
    val out = val::object(), heads = val::array();
    for (const attn::HeadTrace& head : open.heads) heads.call<void>("push", head_out(head));
    out.set("heads", heads);
    out.set("concat", f32(open.concat));
    out.set("output", f32(open.output));
    return out;
  }

  std::deque<std::vector<float>> staged_;
  attn::PreparedStack stack_;
  attn::PreparedStackResult result_;
  attn::PreparedStackTrace trace_;  // the last trace(), which its views read
  attn::StackWorkspace workspace_;
};

}  // namespace

// For the stack trainer's binding (stack_trainer.cpp): the same readout of a trace.
val attn_bindings::stack_trace_out(const attn::StackTrace& trace, bool heads) { return trace_out(trace, heads); }

EMSCRIPTEN_BINDINGS(attention_lab_transformer) {
  emscripten::function("transformerForward", &transformer_forward);
  emscripten::function("transformerGradients", &transformer_gradients);
  emscripten::class_<PreparedTransformer>("PreparedTransformer")
      .constructor<>()
      .function("prepare", &PreparedTransformer::prepare)
      .function("run", &PreparedTransformer::run)
      .function("trace", &PreparedTransformer::trace)
      .function("stage", &PreparedTransformer::stage)
      .function("stagedAddress", &PreparedTransformer::staged_address)
      .function("reserve", &PreparedTransformer::reserve)
      .function("unstage", &PreparedTransformer::unstage)
      .function("dModel", &PreparedTransformer::d_model)
      .function("vocab", &PreparedTransformer::vocab)
      .function("layers", &PreparedTransformer::layers);
}
