// A model run many times: its weights checked once (prepare_model) and packed into the gemm's
// panels, then only x checked per run (attention_forward_prepared). Self-attention; mask 'none'
// or 'causal', with or without a sliding window; grouped key/value heads and rotary positions as
// attention_forward has them. The forward pass itself is attention.cpp's.
#include <string>
#include <vector>

#include "attention/attention.hpp"
#include "forward.hpp"
#include "kernels/kernels.hpp"
#include "ops.hpp"
#include "validate.hpp"

namespace attn {

Status prepare_model(const Config& config, const Inputs& weights, Shape* shape, PackedWeights* packed) {
  std::vector<float>* const none[4] = {};
  return prepare_model_in(config, weights, none, shape, packed);
}

Status prepare_model_in(const Config& config, const Inputs& weights, std::vector<float>* const owned[4], Shape* shape,
                        PackedWeights* packed) {
  if (weights.context.present)
    return Status::Type("context", "a prepared model is self-attention: context is not taken");
  if (config.mask_mode == MaskMode::Keep) {
    return Status::Type("mask", "a prepared model takes mask 'none' or 'causal'; a keep-matrix depends on n");
  }
  // everything but x, checked on a one-token sequence of zeros
  Config one_token = config;
  one_token.n = 1;
  one_token.m = 0;
  const std::vector<float> zeros(config.d_model > 0 && config.d_model <= kMaxWidth ? config.d_model : 0, 0.0f);
  Inputs checked = weights;
  checked.x = View<float>(zeros);
  if (Status s = validate(one_token, checked, /*trace=*/false, shape); !s.ok()) return s;
  // each head's block packed on its own, as project() reads it; only where the packed products are
  // the build's fastest, so that elsewhere a run keeps attention_forward's products and bits. A block
  // of whole panels takes exactly its own floats, so an owned weight is packed where it lies.
  const auto pack = [&](const View<float>& w, std::vector<float>* own, int blocks, int inner, int width) {
    std::vector<float> out;
    if (!w.present || !ops::packed_is_fastest()) return out;
    if (own && width % kernels::kGemmNr == 0) {
      for (int b = 0; b < blocks; ++b)
        kernels::pack_panels_in_place(inner, width, own->data() + static_cast<std::size_t>(b) * inner * width);
      out = std::move(*own);
      own->clear();
      return out;
    }
    for (int b = 0; b < blocks; ++b) {
      const std::vector<float> panels =
          ops::pack_panels(w.data + static_cast<std::size_t>(b) * inner * width, width, inner, width);
      out.insert(out.end(), panels.begin(), panels.end());
    }
    return out;
  };
  *packed = PackedWeights{pack(weights.wq, owned[0], shape->heads, shape->d_model, shape->d_k),
                          pack(weights.wk, owned[1], shape->kv_heads, shape->d_model, shape->d_k),
                          pack(weights.wv, owned[2], shape->kv_heads, shape->d_model, shape->d_v),
                          pack(weights.wo, owned[3], 1, shape->heads * shape->d_v, shape->d_model)};
  return Status::Ok();
}

Status attention_forward_prepared(const Config& config, const Inputs& inputs, const Shape& prepared,
                                  const PackedWeights& packed, Result* result, Workspace* workspace) {
  const int n = static_cast<int>(inputs.x.size / static_cast<std::size_t>(prepared.d_model));
  if (n < 1 || n > kMaxTokens || inputs.x.size != static_cast<std::size_t>(n) * prepared.d_model) {
    return Status::Range("x", "x has " + std::to_string(inputs.x.size) +
                                  " values; expected n × dModel with n from 1 to " + std::to_string(kMaxTokens) +
                                  " and dModel = " + std::to_string(prepared.d_model));
  }
  if (!ops::all_finite(inputs.x.data, inputs.x.size)) {
    Config checked = config;  // let validate() name the first bad value
    checked.n = n;
    Shape unused{};
    return validate(checked, inputs, false, &unused);
  }
  Shape shape = prepared;
  shape.n = shape.m = n;
  Workspace own;
  return forward_checked(config, inputs, shape, &packed, /*trace=*/false, result, workspace ? *workspace : own);
}

}  // namespace attn
