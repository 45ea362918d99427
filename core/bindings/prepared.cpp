// The prepared-model binding: plain C functions on integers and pointers, so that a call from
// JavaScript crosses no embind conversion. A PreparedModel owns its buffers in WebAssembly memory:
// the weights (written once by JavaScript, then checked once), x (written per call) and the
// output. web/lib/attention.mjs (AttentionEngine.prepare) is the only caller.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <vector>

#include "attention/attention.hpp"

namespace {

struct PreparedModel {
  attn::Config config;
  attn::Shape shape{};
  attn::PackedWeights packed;     // the weights as the gemm reads them (SIMD build)
  std::vector<float> weights[4];  // wq, wk, wv, wo
  bool present[4] = {};
  std::vector<float> x;
  attn::Result result;
  attn::Workspace workspace;  // its runs' buffers: two prepared models share nothing
  attn::Status status;        // the last error, for attn_prepared_error_*
};

attn::Inputs inputs_of(const PreparedModel& model) {
  attn::Inputs inputs;
  attn::View<float>* views[4] = {&inputs.wq, &inputs.wk, &inputs.wv, &inputs.wo};
  for (int i = 0; i < 4; ++i) {
    if (model.present[i]) *views[i] = attn::View<float>(model.weights[i]);
  }
  inputs.x = attn::View<float>(model.x);
  return inputs;
}

// 0 when the status is ok, 1 for a type error, 2 for a range error (kept in the model).
int report(PreparedModel* model, attn::Status status) {
  model->status = std::move(status);
  if (model->status.ok()) return 0;
  return model->status.kind == attn::ErrorKind::Type ? 1 : 2;
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE PreparedModel* attn_prepared_new(int d_model, int heads, int d_k, int d_v, int scale_mode,
                                                      double scale_divisor, int mask_mode) {
  auto* model = new PreparedModel;
  model->config.d_model = d_model;
  model->config.heads = heads;
  model->config.d_k = d_k;
  model->config.d_v = d_v;
  model->config.scale_mode = static_cast<attn::ScaleMode>(scale_mode);
  model->config.scale_divisor = scale_divisor;
  model->config.mask_mode = static_cast<attn::MaskMode>(mask_mode);
  return model;
}

// A buffer of `count` floats for weight `which` (0 wq, 1 wk, 2 wv, 3 wo) for JavaScript to fill;
// null when count is above the core's cap (the check that follows names the field).
EMSCRIPTEN_KEEPALIVE float* attn_prepared_weight(PreparedModel* model, int which, int count) {
  if (which < 0 || which > 3 || count < 0 || static_cast<std::size_t>(count) > attn::kMaxMatrixValues) return nullptr;
  model->weights[which].assign(count, 0.0f);
  model->present[which] = true;
  return model->weights[which].data();
}

EMSCRIPTEN_KEEPALIVE int attn_prepared_check(PreparedModel* model) {
  return report(model, attn::prepare_model(model->config, inputs_of(*model), &model->shape, &model->packed));
}

EMSCRIPTEN_KEEPALIVE int attn_prepared_d_out(PreparedModel* model) { return model->shape.d_out; }

// The buffer for x (n × d_model floats), grown as needed; null when n is outside 1..kMaxTokens.
EMSCRIPTEN_KEEPALIVE float* attn_prepared_input(PreparedModel* model, int n) {
  if (n < 1 || n > attn::kMaxTokens) return nullptr;
  model->x.resize(static_cast<std::size_t>(n) * model->shape.d_model);
  return model->x.data();
}

EMSCRIPTEN_KEEPALIVE int attn_prepared_run(PreparedModel* model) {
  return report(model, attn::attention_forward_prepared(model->config, inputs_of(*model), model->shape, model->packed,
                                                        &model->result, &model->workspace));
}

EMSCRIPTEN_KEEPALIVE const float* attn_prepared_output(PreparedModel* model) { return model->result.output.data(); }
EMSCRIPTEN_KEEPALIVE const char* attn_prepared_error_field(PreparedModel* model) { return model->status.field.c_str(); }
EMSCRIPTEN_KEEPALIVE const char* attn_prepared_error_message(PreparedModel* model) {
  return model->status.message.c_str();
}
EMSCRIPTEN_KEEPALIVE void attn_prepared_free(PreparedModel* model) { delete model; }

}  // extern "C"
