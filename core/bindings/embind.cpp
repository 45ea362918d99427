// The JavaScript binding: arrays in, the core called, results out as Float32Array copies that
// JavaScript owns. No logic: web/lib/attention.mjs checks types and applies defaults; the core checks
// values. attention() and gradients() take arrays as pointer and length: attention.mjs asks
// checkAttention (checkGradients) for the sizes, copies the arrays into memory from malloc, calls,
// and frees them (callWithArrays), so no JavaScript exception can unwind through these frames (that
// leaked a stack frame per failed call).
#include <emscripten/bind.h>
#include <emscripten/stack.h>
#include <malloc.h>
#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attention/attention.hpp"
#include "errors.hpp"

using emscripten::val;

namespace {

// request[name]: the address of an array JavaScript copied into WebAssembly memory, and
// request[name + "Length"] its length; no length: omitted. A length without an address gives a view
// with the size alone, which validate() checks before anything is copied.
template <typename T>
attn::View<T> view_at(const val& request, const std::string& name) {
  const val length = request[name + "Length"];
  if (length.isUndefined() || length.isNull()) return {};
  const val address = request[name];
  const T* data = address.isUndefined() ? nullptr : reinterpret_cast<const T*>(address.as<std::uintptr_t>());
  return attn::View<T>(data, static_cast<std::size_t>(length.as<double>()));
}

val copy_out(const std::vector<float>& values) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(values.size(), values.data()));
}

using attn_bindings::error_of;

attn::Config config_of(const val& request) {
  attn::Config config;
  config.n = request["n"].as<int>();
  config.m = request["m"].as<int>();
  config.d_model = request["dModel"].as<int>();
  config.heads = request["heads"].as<int>();
  config.d_k = request["dK"].as<int>();
  config.d_v = request["dV"].as<int>();
  config.scale_mode = static_cast<attn::ScaleMode>(request["scaleMode"].as<int>());
  config.scale_divisor = request["scaleDivisor"].as<double>();
  config.mask_mode = static_cast<attn::MaskMode>(request["maskMode"].as<int>());
  config.positions = static_cast<attn::PositionMode>(request["positionsMode"].as<int>());
  return config;
}

// The views of an attention() request whose arrays attention.mjs copied in (see view_at).
attn::Inputs inputs_of(const val& request) {
  attn::Inputs inputs;
  inputs.x = view_at<float>(request, "x");
  inputs.context = view_at<float>(request, "context");
  inputs.wq = view_at<float>(request, "wq");
  inputs.wk = view_at<float>(request, "wk");
  inputs.wv = view_at<float>(request, "wv");
  inputs.wo = view_at<float>(request, "wo");
  inputs.bq = view_at<float>(request, "bq");
  inputs.bk = view_at<float>(request, "bk");
  inputs.bv = view_at<float>(request, "bv");
  inputs.bo = view_at<float>(request, "bo");
  inputs.keep = view_at<std::uint8_t>(request, "keep");
  return inputs;
}

// The sizes alone (lengths, no addresses): null when the core would accept them, else { error }.
val check_attention(const val& request) {
  attn::Shape shape{};
  const attn::Status status = attn::validate(config_of(request), inputs_of(request), request["trace"].as<bool>(), &shape);
  return status.ok() ? val::null() : error_of(status);
}

val attention(const val& request) {
  const bool trace = request["trace"].as<bool>();
  attn::Result result;
  const attn::Status status = attn::attention_forward(config_of(request), inputs_of(request), trace, &result);
  if (!status.ok()) return error_of(status);

  val shape = val::object();
  shape.set("n", result.shape.n);
  shape.set("m", result.shape.m);
  shape.set("dModel", result.shape.d_model);
  shape.set("heads", result.shape.heads);
  shape.set("dK", result.shape.d_k);
  shape.set("dV", result.shape.d_v);
  shape.set("dOut", result.shape.d_out);
  shape.set("scale", result.shape.scale);
  shape.set("self", result.shape.self);
  val out = val::object();
  out.set("shape", shape);
  out.set("dOut", result.shape.d_out);
  out.set("output", copy_out(result.output));
  if (trace) {
    out.set("concat", copy_out(result.concat));
    val heads = val::array();
    for (const attn::HeadTrace& head : result.heads) {
      val h = val::object();
      h.set("q", copy_out(head.q));
      h.set("k", copy_out(head.k));
      h.set("v", copy_out(head.v));
      h.set("scores", copy_out(head.scores));
      h.set("scaled", copy_out(head.scaled));
      h.set("weights", copy_out(head.weights));
      h.set("z", copy_out(head.z));
      heads.call<void>("push", h);
    }
    out.set("heads", heads);
    if (!result.positions_x.empty()) {
      val positions = val::object();
      positions.set("x", copy_out(result.positions_x));
      if (!result.positions_context.empty()) positions.set("context", copy_out(result.positions_context));
      out.set("positions", positions);
    }
  }
  return out;
}

#ifdef ATTN_LEARNING
// A gradients() request's sizes alone, as check_attention's, with dOutput and dWeights.
val check_gradients(const val& request) {
  attn::Shape shape{};
  const attn::Status status = attn::validate_backward(config_of(request), inputs_of(request),
                                                      view_at<float>(request, "dOutput"),
                                                      view_at<float>(request, "dWeights"), &shape);
  return status.ok() ? val::null() : error_of(status);
}

// The gradient of Σ dOutput ⊙ output + Σ dWeights ⊙ weights with respect to every input present.
// Only in the learning engines (attention-learn-*): the page's engine carries no backward pass.
val gradients(const val& request) {
  const attn::Config config = config_of(request);
  const attn::Inputs inputs = inputs_of(request);
  const attn::View<float> d_output = view_at<float>(request, "dOutput");
  const attn::View<float> d_weights = view_at<float>(request, "dWeights");
  attn::Result result;
  attn::Status status = attn::attention_forward(config, inputs, true, &result);
  if (!status.ok()) return error_of(status);
  attn::Gradients g = attn::zero_gradients(result.shape, inputs);
  status = attn::attention_backward(config, inputs, result, d_output, d_weights, &g);
  if (!status.ok()) return error_of(status);
  val out = val::object();
  out.set("output", copy_out(result.output));
  const std::pair<const char*, const std::vector<float>*> named[] = {
      {"x", &g.x}, {"context", &g.context}, {"wq", &g.wq}, {"wk", &g.wk}, {"wv", &g.wv},
      {"wo", &g.wo}, {"bq", &g.bq}, {"bk", &g.bk}, {"bv", &g.bv}, {"bo", &g.bo}};
  for (const auto& [name, gradient] : named) {
    if (!gradient->empty()) out.set(name, copy_out(*gradient));
  }
  return out;
}
#endif

val init_weights(int d_model, int heads, int d_k, int d_v, double seed) {
  attn::Weights weights;
  const attn::Status status =
      attn::init_weights(d_model, heads, d_k, d_v, static_cast<std::uint64_t>(seed), &weights);
  if (!status.ok()) return error_of(status);
  val out = val::object();
  out.set("wq", copy_out(weights.wq));
  out.set("wk", copy_out(weights.wk));
  out.set("wv", copy_out(weights.wv));
  out.set("wo", copy_out(weights.wo));
  return out;
}

bool has_simd() {
#if defined(__wasm_simd128__)
  return true;
#else
  return false;
#endif
}

// Bytes malloc has handed out and not taken back, for the tests that check the heap stays steady.
std::size_t allocated_bytes() { return mallinfo().uordblks; }
std::uintptr_t stack_pointer() { return emscripten_stack_get_current(); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_lab) {
  emscripten::function("checkAttention", &check_attention);
  emscripten::function("attention", &attention);
#ifdef ATTN_LEARNING
  emscripten::function("checkGradients", &check_gradients);
  emscripten::function("gradients", &gradients);
#endif
  emscripten::function("initWeights", &init_weights);
  emscripten::function("hasSimd", &has_simd);
  emscripten::function("allocatedBytes", &allocated_bytes);
  emscripten::function("stackPointer", &stack_pointer);
}
