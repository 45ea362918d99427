#include "attention_common.hpp"

#include <algorithm>

#include "elementary.hpp"

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

// theta^(−2c/dims) = e^(−2c/dims · ln theta), at most 1 (theta > 1); below e^−700 it is 0 to every
// angle here. The angles, at most kMaxPosition + kMaxTokens < 2^19, are in sin_or_cos's range.
void rotary_tables(const Rotary& rotary, int rows, std::vector<double>* cos, std::vector<double>* sin) {
  const int half = rotary.dims / 2;
  cos->resize(static_cast<std::size_t>(rows) * half);
  sin->resize(cos->size());
  const double ln_theta = log_positive(rotary.theta);
  for (int c = 0; c < half; ++c) {
    const double exponent = -2.0 * c / rotary.dims * ln_theta;
    const double frequency = exponent < -700 ? 0.0 : exp_nonpositive(exponent);
    for (int r = 0; r < rows; ++r) {
      const double angle = (static_cast<double>(rotary.first_position) + r) * frequency;
      (*cos)[static_cast<std::size_t>(r) * half + c] = sin_or_cos(angle, true);
      (*sin)[static_cast<std::size_t>(r) * half + c] = sin_or_cos(angle, false);
    }
  }
}

void rotate_rows(float* y, int rows, int width, int dims, const double* cos, const double* sin, bool inverse) {
  const int half = dims / 2;
  for (int r = 0; r < rows; ++r) {
    float* y_r = y + static_cast<std::size_t>(r) * width;
    const double* cos_r = cos + static_cast<std::size_t>(r) * half;
    const double* sin_r = sin + static_cast<std::size_t>(r) * half;
    for (int c = 0; c < half; ++c) {
      const double first = y_r[c], second = y_r[c + half];
      const double s = inverse ? -sin_r[c] : sin_r[c];
      y_r[c] = static_cast<float>(first * cos_r[c] - second * s);
      y_r[c + half] = static_cast<float>(second * cos_r[c] + first * s);
    }
  }
}

void visible_keys(const Config& config, const Inputs& inputs, const Shape& shape, std::vector<std::uint8_t>* visible) {
  if (config.window <= 0) {
    visible->clear();
    return;
  }
  const int n = shape.n, m = shape.m;
  visible->resize(static_cast<std::size_t>(n) * m);
  for (int i = 0; i < n; ++i) {
    std::uint8_t* row = visible->data() + static_cast<std::size_t>(i) * m;
    const std::uint8_t* keep_i =
        config.mask_mode == MaskMode::Keep ? inputs.keep.data + static_cast<std::size_t>(i) * m : nullptr;
    for (int j = 0; j < m; ++j) {
      const bool masked = (config.mask_mode == MaskMode::Causal && j > i) || (keep_i != nullptr && keep_i[j] == 0);
      row[j] = !masked && static_cast<long long>(i) - j < config.window ? 1 : 0;
    }
  }
}

}  // namespace attn
