// The embind binding of gradients(), in the learning engines only (attention-learn-*; the page's
// engine has no backward pass and no embind: calls.cpp binds attention() and initWeights() there and
// here alike). Arrays in, the core called, results out as Float32Array copies that JavaScript owns.
// No logic: web/lib/attention.mjs checks types and applies defaults; the core checks values.
// gradients() still copies through embind (copy_in); it could move to calls.cpp's path.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "attention/attention.hpp"
#include "errors.hpp"

using emscripten::val;

namespace {

// request[name] copied into `storage` and viewed by `view`, unless it is null or undefined.
template <typename T>
void copy_in(const val& request, const char* name, std::vector<T>* storage, attn::View<T>* view) {
  const val array = request[name];
  if (array.isNull() || array.isUndefined()) return;
  *storage = emscripten::convertJSArrayToNumberVector<T>(array);
  *view = attn::View<T>(*storage);
}

val copy_out(const std::vector<float>& values) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(values.size(), values.data()));
}

using attn_bindings::error_of;

// A gradients() request: the arrays copied in, the core's config and views onto the copies.
struct Request {
  attn::Config config;
  attn::Inputs inputs;
  bool trace = true;
  std::vector<float> x, context, wq, wk, wv, wo, bq, bk, bv, bo;
  std::vector<std::uint8_t> keep;
};

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

// A gradients() request: its arrays copied in through embind.
void read_request(const val& request, Request* r) {
  r->config = config_of(request);
  r->trace = request["trace"].as<bool>();
  attn::Inputs& inputs = r->inputs;
  copy_in(request, "x", &r->x, &inputs.x);
  copy_in(request, "context", &r->context, &inputs.context);
  copy_in(request, "wq", &r->wq, &inputs.wq);
  copy_in(request, "wk", &r->wk, &inputs.wk);
  copy_in(request, "wv", &r->wv, &inputs.wv);
  copy_in(request, "wo", &r->wo, &inputs.wo);
  copy_in(request, "bq", &r->bq, &inputs.bq);
  copy_in(request, "bk", &r->bk, &inputs.bk);
  copy_in(request, "bv", &r->bv, &inputs.bv);
  copy_in(request, "bo", &r->bo, &inputs.bo);
  copy_in(request, "keep", &r->keep, &inputs.keep);
}

// The gradient of Σ dOutput ⊙ output + Σ dWeights ⊙ weights with respect to every input present.
// Only in the learning engines (attention-learn-*): the page's engine carries no backward pass.
val gradients(const val& request) {
  Request r;
  read_request(request, &r);
  std::vector<float> d_output, d_weights;
  attn::View<float> d_output_view, d_weights_view;
  copy_in(request, "dOutput", &d_output, &d_output_view);
  copy_in(request, "dWeights", &d_weights, &d_weights_view);
  attn::Result result;
  attn::Status status = attn::attention_forward(r.config, r.inputs, true, &result);
  if (!status.ok()) return error_of(status);
  attn::Gradients g = attn::zero_gradients(result.shape, r.inputs);
  status = attn::attention_backward(r.config, r.inputs, result, d_output_view, d_weights_view, &g);
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

}  // namespace

EMSCRIPTEN_BINDINGS(attention_lab) {
  emscripten::function("gradients", &gradients);
}
