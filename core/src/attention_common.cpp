#include "attention_common.hpp"

namespace attn {

namespace {

std::vector<float> plus_positions(const float* values, int rows, int d_model) {
  std::vector<float> out = sinusoidal_positions(rows, d_model);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] += values[i];
  return out;
}

}  // namespace

PositionedInputs with_positions(const Config& config, const Inputs& inputs, const Shape& shape) {
  PositionedInputs out;
  if (config.positions == PositionMode::None) {
    out.x = inputs.x.data;
    out.context = shape.self ? inputs.x.data : inputs.context.data;
    return out;
  }
  out.x_storage = plus_positions(inputs.x.data, shape.n, shape.d_model);
  out.x = out.x_storage.data();
  if (shape.self) {
    out.context = out.x;
  } else {
    out.context_storage = plus_positions(inputs.context.data, shape.m, shape.d_model);
    out.context = out.context_storage.data();
  }
  return out;
}

}  // namespace attn
