#include "attention_common.hpp"

#include <cmath>

#include "ops.hpp"

namespace attn {

const Ops& ops_for(Arithmetic arithmetic) {
  static const Ops fast{ops::matmul, ops::matmul_transb, ops::matmul_transa, ops::softmax_rows,
                        ops::softmax_scaled_rows};
  static const Ops portable{ops::portable::matmul, ops::portable::matmul_transb, ops::portable::matmul_transa,
                            ops::portable::softmax_rows, ops::portable::softmax_scaled_rows};
  return arithmetic == Arithmetic::Portable ? portable : fast;
}

// pe(pos, 2i) = sin(pos / 10000^(2i/d_model)), pe(pos, 2i+1) = cos(pos / 10000^(2i/d_model)), in
// double and rounded once to float.
std::vector<float> sinusoidal_positions(int rows, int d_model) {
  std::vector<float> pe(static_cast<std::size_t>(rows) * d_model);
  for (int c = 0; c < d_model; ++c) {
    const int even = c - c % 2;
    const double inverse_wavelength = std::pow(10000.0, -static_cast<double>(even) / d_model);
    for (int pos = 0; pos < rows; ++pos) {
      const double angle = pos * inverse_wavelength;
      pe[static_cast<std::size_t>(pos) * d_model + c] = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return pe;
}

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
