// A prepared stack's traced run (prepared_trace.hpp has the contract): prepared_stack_forward's
// steps (prepared_stack_steps.hpp), with each block's attention on its traced path.
#include "attention/prepared_trace.hpp"

#include <string>
#include <utility>
#include <vector>

#include "forward.hpp"
#include "ops.hpp"
#include "prepared_stack_steps.hpp"
#include "transformer_common.hpp"
#include "validate.hpp"

namespace attn {

namespace {

using stack_steps::add_bias;
using stack_steps::apply;
using stack_steps::attention_inputs;
using stack_steps::norm_rows;

Status check_trace(const PreparedStack& s, const PreparedTraceOptions& options, int n) {
  const int layers = static_cast<int>(s.layers.size());
  if (options.open_layer < -1 || options.open_layer >= layers) {
    return Status::Range("openLayer", "openLayer is " + std::to_string(options.open_layer) +
                                          "; it must be -1 (none) or a block from 0 to " + std::to_string(layers - 1));
  }
  if (options.blocks < -1 || options.blocks > layers) {
    return Status::Range("blocks", "blocks is " + std::to_string(options.blocks) +
                                       "; it must be -1 (all) or a count from 0 to " + std::to_string(layers));
  }
  std::size_t values = 0;
  for (const PreparedBlock& b : s.layers) values += static_cast<std::size_t>(b.shape.heads) * n * n;
  if (values > kMaxTracedWeights) {
    return Status::Range("ids", "a traced run keeps every head's n × n attention probabilities: " + std::to_string(n) +
                                    " tokens make " + std::to_string(values) + " values, above the cap of " +
                                    std::to_string(kMaxTracedWeights) + "; give fewer tokens");
  }
  return Status::Ok();
}

// Block l on ws->stream, in place, keeping what `out` holds; with `open`, attention's whole trace.
Status traced_block(const PreparedBlock& b, int l, int n, int d, StackWorkspace* ws, PreparedLayerTrace* out,
                    Result* open) {
  const std::size_t nd = static_cast<std::size_t>(n) * d;
  const bool pre = b.arrangement == Arrangement::PreNorm;
  ws->normed.resize(nd);
  if (pre) norm_rows(b.norm1, ws->stream.data(), n, d, ws->normed.data(), ws);
  const float* read = pre ? ws->normed.data() : ws->stream.data();
  out->attention_input.assign(read, read + nd);
  Shape shape = b.shape;
  shape.n = shape.m = n;
  Result& traced = open ? *open : ws->attention_result;
  if (Status s = forward_checked(b.attention, attention_inputs(b, View<float>(out->attention_input)), shape, &b.packed,
                                 /*trace=*/true, &traced, ws->attention);
      !s.ok()) {
    return prefixed(layer_prefix(l) + "attention.", s);
  }
  out->weights.resize(traced.heads.size());
  for (std::size_t h = 0; h < traced.heads.size(); ++h) out->weights[h] = traced.heads[h].weights;
  out->attention_output = traced.output;
  if (Status s = stack_steps::block_after_attention(b, l, n, d, traced.output.data(), ws); !s.ok()) return s;
  out->output = ws->stream;
  if (!open) traced.heads.clear();  // the next block's trace starts afresh
  return Status::Ok();
}

// The last row of output · unembedding + bias
Status last_logits(const PreparedStack& s, int n, PreparedStackTrace* trace, StackWorkspace* ws) {
  trace->last_logits.resize(static_cast<std::size_t>(s.vocab));
  const float* last = trace->output.data() + static_cast<std::size_t>(n - 1) * s.d_model;
  apply(s.unembedding_weight, last, 1, trace->last_logits.data(), &ws->products);
  add_bias(s.unembedding_bias, 1, trace->last_logits.data());
  if (ops::all_finite(trace->last_logits.data(), trace->last_logits.size())) return Status::Ok();
  return Status::Range("unembedding", "unembedding: the logits overflow float32 (a value beyond ±3.4e38)");
}

}  // namespace

Status prepared_stack_trace(const PreparedStack& s, const StackInputs& inputs, View<float> x,
                            const PreparedTraceOptions& options, PreparedStackTrace* trace, StackWorkspace* ws,
                            const PreparedLayerSink& sink) {
  int n = 0;
  if (Status st = stack_steps::check_run(s, inputs, x, &n); !st.ok()) return st;
  if (Status st = check_trace(s, options, n); !st.ok()) return st;
  const int d = s.d_model;
  StackWorkspace own;
  StackWorkspace* w = ws ? ws : &own;
  PreparedStackTrace out;
  out.n = n;
  out.open_layer = options.open_layer;
  stack_steps::embed(s, inputs, x, n, w);
  if (!ops::all_finite(w->stream.data(), w->stream.size())) {
    return Status::Range("tokens", "tokens: the embeddings overflow float32 (a value beyond ±3.4e38)");
  }
  out.embeddings = w->stream;
  const std::size_t blocks = options.blocks < 0 ? s.layers.size() : static_cast<std::size_t>(options.blocks);
  PreparedLayerTrace one;  // with a sink: every block's trace in turn
  if (!sink) out.layers.resize(blocks);
  for (std::size_t l = 0; l < blocks; ++l) {
    const int layer = static_cast<int>(l);
    Result* open = layer == options.open_layer ? &out.open : nullptr;
    PreparedLayerTrace* kept = sink ? &one : &out.layers[l];
    if (Status st = traced_block(s.layers[l], layer, n, d, w, kept, open); !st.ok()) return st;
    if (sink && !sink(layer, one)) {
      return Status::Range("trace", "the traced run was stopped after block " + std::to_string(layer));
    }
  }
  if (blocks < s.layers.size()) {
    *trace = std::move(out);
    return Status::Ok();
  }
  out.output.resize(w->stream.size());
  norm_rows(s.final_norm, w->stream.data(), n, d, out.output.data(), w);
  if (options.last_logits && s.unembedding != Unembedding::None) {
    if (Status st = last_logits(s, n, &out, w); !st.ok()) return st;
  }
  *trace = std::move(out);
  return Status::Ok();
}

}  // namespace attn
