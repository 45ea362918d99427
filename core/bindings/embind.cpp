// The JavaScript binding: arrays in as pointer and length, the core called, results out as
// Float32Array copies that JavaScript owns. No logic: web/lib/attention.mjs checks types, asks
// check* for the sizes, copies the arrays into memory from malloc, calls, and frees them
// (callWithArrays); the core checks values. Nothing here reads a JavaScript array, so no JavaScript
// exception can unwind through these frames (that leaked a stack frame per failed call).
#include <emscripten/bind.h>
#include <emscripten/stack.h>
#include <malloc.h>
#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <vector>

#include "attention/attention.hpp"

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

val error_of(const attn::Status& status) {
  val error = val::object();
  error.set("kind", status.kind == attn::ErrorKind::Type ? "type" : "range");
  error.set("field", status.field);
  error.set("message", status.message);
  val out = val::object();
  out.set("error", error);
  return out;
}

attn::Config config_of(const val& request) {
  attn::Config config;
  config.n = request["n"].as<int>();
  config.m = request["m"].as<int>();
  config.d_model = request["dModel"].as<int>();
  config.heads = request["heads"].as<int>();
  config.d_k = request["dK"].as<int>();
  config.d_v = request["dV"].as<int>();
  config.scale_mode = static_cast<attn::ScaleMode>(request["scaleMode"].as<int>());  // validate() refuses unknown modes
  config.scale_divisor = request["scaleDivisor"].as<double>();
  config.mask_mode = static_cast<attn::MaskMode>(request["maskMode"].as<int>());
  return config;
}

attn::Inputs inputs_of(const val& request) {
  attn::Inputs inputs;
  inputs.x = view_at<float>(request, "x");
  inputs.context = view_at<float>(request, "context");
  inputs.wq = view_at<float>(request, "wq");
  inputs.wk = view_at<float>(request, "wk");
  inputs.wv = view_at<float>(request, "wv");
  inputs.wo = view_at<float>(request, "wo");
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
  const attn::Config config = config_of(request);
  const attn::Inputs inputs = inputs_of(request);
  const bool trace = request["trace"].as<bool>();

  attn::Result result;
  const attn::Status status = attn::attention_forward(config, inputs, trace, &result);
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
  }
  return out;
}

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

// Bytes malloc has handed out and not taken back, and the stack pointer, for the tests that check
// the heap and the stack stay steady.
std::size_t allocated_bytes() { return mallinfo().uordblks; }
std::uintptr_t stack_pointer() { return emscripten_stack_get_current(); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_lab) {
  emscripten::function("checkAttention", &check_attention);
  emscripten::function("attention", &attention);
  emscripten::function("initWeights", &init_weights);
  emscripten::function("hasSimd", &has_simd);
  emscripten::function("allocatedBytes", &allocated_bytes);
  emscripten::function("stackPointer", &stack_pointer);
}
