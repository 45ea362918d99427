// Multi-head attention forward.
//   x: (n, d_model)  context: (m, d_model)  wq, wk: (h, d_model, d_k)  wv: (h, d_model, d_v)
//   per head: q (n, d_k)  k (m, d_k)  v (m, d_v)  scores, scaled, weights (n, m)  z (n, d_v)
//   concat: (n, h·d_v)  wo: (h·d_v, d_model)  output: (n, d_out)
//   biases bq, bk: (h, d_k)  bv: (h, d_v)  bo: (d_model); positions: (n or m, d_model)
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "attention/attention.hpp"
#include "attention_common.hpp"
#include "forward.hpp"
#include "ops.hpp"
#include "validate.hpp"

namespace attn {
namespace {

constexpr float kMaskedScore = -std::numeric_limits<float>::infinity();

// y (rows, width) = a (rows, d_model) · w_h + b_h, or a copy of a when the projection is omitted
// (identity); b_h (width) only when the bias is given. `packed`: w's heads as packed panels (a
// prepared model), or empty.
void project(const Ops& ops, const float* a, int rows, int d_model, const View<float>& w,
             const std::vector<float>& packed, const View<float>& b, int head, int width, float* y) {
  if (!w.present) {
    std::copy(a, a + static_cast<std::size_t>(rows) * d_model, y);
  } else if (!packed.empty()) {
    const std::size_t block = packed.size() / (w.size / (static_cast<std::size_t>(d_model) * width));
    ops::matmul_packed(a, d_model, packed.data() + head * block, y, width, rows, d_model, width);
  } else {
    const float* w_h = w.data + static_cast<std::size_t>(head) * d_model * width;
    ops.matmul(a, d_model, w_h, width, y, width, rows, d_model, width);
  }
  if (b.present) add_row_to_each(b.data + static_cast<std::size_t>(head) * width, rows, width, y);
}

// scaled_ij = scores_ij · (1 / scale), or -inf where the mask drops key j for query i: the trace's
// `scaled`, the same bits as the fused softmax pass computes. One loop per mask mode, so the inner
// loop has no branch on the mode.
void scale_and_mask(const Config& config, const Inputs& inputs, const Shape& shape, const float* scores,
                    float* scaled) {
  const float inv_scale = 1.0f / static_cast<float>(shape.scale);
  const int n = shape.n, m = shape.m;
  for (int i = 0; i < n; ++i) {
    const float* scores_i = scores + static_cast<std::size_t>(i) * m;
    float* scaled_i = scaled + static_cast<std::size_t>(i) * m;
    switch (config.mask_mode) {
      case MaskMode::None:
        for (int j = 0; j < m; ++j) scaled_i[j] = scores_i[j] * inv_scale;
        break;
      case MaskMode::Causal:  // key j is visible to query i when j <= i
        for (int j = 0; j < m; ++j) scaled_i[j] = j <= i ? scores_i[j] * inv_scale : kMaskedScore;
        break;
      case MaskMode::Keep: {
        const std::uint8_t* keep_i = inputs.keep.data + static_cast<std::size_t>(i) * m;
        for (int j = 0; j < m; ++j) scaled_i[j] = keep_i[j] ? scores_i[j] * inv_scale : kMaskedScore;
        break;
      }
    }
  }
}

bool all_finite(const std::vector<float>& values) { return attn::all_finite(values.data(), values.size()); }


Status overflow(const std::string& what) {
  return Status::Range("x", what + " overflow float32; the inputs or weights are too large in magnitude");
}

}  // namespace

Status attention_forward(const Config& config, const Inputs& inputs, bool trace, Result* result) {
  Shape shape{};
  if (Status s = validate(config, inputs, trace, &shape); !s.ok()) return s;
  return forward_checked(config, inputs, shape, nullptr, trace, result);
}

Status forward_checked(const Config& config, const Inputs& inputs, const Shape& shape, const PackedWeights* packed,
                       bool trace, Result* result) {
  static const PackedWeights kNotPacked;
  const PackedWeights& panels = packed ? *packed : kNotPacked;
  const int n = shape.n, m = shape.m, d = shape.d_model, d_k = shape.d_k, d_v = shape.d_v;
  const int concat_width = shape.heads * d_v;
  const Ops& ops = ops_for(config.arithmetic);

  Result out;
  out.shape = shape;
  // pass 0: positions, added to x and to the context (each by its own positions)
  PositionedInputs positioned = with_positions(config, inputs, shape);
  const float* x = positioned.x;
  const float* context = positioned.context;
  if (trace && config.positions != PositionMode::None) {
    out.positions_x = sinusoidal_positions(n, d);
    if (!shape.self) out.positions_context = sinusoidal_positions(m, d);
  }
  std::vector<float> concat(static_cast<std::size_t>(n) * concat_width);
  // Without the trace one set of buffers is reused by every head.
  HeadTrace scratch;
  if (trace) out.heads.resize(shape.heads);

  for (int h = 0; h < shape.heads; ++h) {
    HeadTrace& head = trace ? out.heads[h] : scratch;
    head.q.resize(static_cast<std::size_t>(n) * d_k);
    head.k.resize(static_cast<std::size_t>(m) * d_k);
    head.v.resize(static_cast<std::size_t>(m) * d_v);
    head.scores.resize(static_cast<std::size_t>(n) * m);

    // pass 1: projections
    project(ops, x, n, d, inputs.wq, panels.wq, inputs.bq, h, d_k, head.q.data());
    project(ops, context, m, d, inputs.wk, panels.wk, inputs.bk, h, d_k, head.k.data());
    project(ops, context, m, d, inputs.wv, panels.wv, inputs.bv, h, d_v, head.v.data());
    if (!all_finite(head.q) || !all_finite(head.k) ||
        !all_finite(head.v)) {
      return overflow("the projections q, k, v of head " + std::to_string(h));
    }

    // pass 2: raw scores q·kᵀ
    ops.matmul_transb(head.q.data(), d_k, head.k.data(), d_k, head.scores.data(), m, n, d_k, m);
    if (!all_finite(head.scores)) return overflow("the scores q·kᵀ of head " + std::to_string(h));

    // passes 3 and 4: scale, mask and softmax, fused in one row pass. With the trace `scaled`
    // keeps the scaled and masked scores on their own (the same product, so the same bits).
    float* weights = head.scores.data();
    if (trace) {
      head.scaled.resize(head.scores.size());
      scale_and_mask(config, inputs, shape, head.scores.data(), head.scaled.data());
      head.weights = head.scores;
      weights = head.weights.data();
    }
    ops.softmax_scaled_rows(weights, n, m, static_cast<float>(shape.scale), config.mask_mode == MaskMode::Causal,
                            config.mask_mode == MaskMode::Keep ? inputs.keep.data : nullptr);

    // pass 5: z = weights·v, written straight into this head's columns of the concatenation
    float* z_in_concat = concat.data() + static_cast<std::size_t>(h) * d_v;
    ops.matmul(weights, m, head.v.data(), d_v, z_in_concat, concat_width, n, m, d_v);
    if (trace) {
      head.z.resize(static_cast<std::size_t>(n) * d_v);
      for (int i = 0; i < n; ++i) {
        const float* row = z_in_concat + static_cast<std::size_t>(i) * concat_width;
        std::copy(row, row + d_v, head.z.data() + static_cast<std::size_t>(i) * d_v);
      }
    }
  }

  if (inputs.wo.present) {
    out.output.resize(static_cast<std::size_t>(n) * d);
    if (panels.wo.empty()) {
      ops.matmul(concat.data(), concat_width, inputs.wo.data, d, out.output.data(), d, n, concat_width, d);
    } else {
      ops::matmul_packed(concat.data(), concat_width, panels.wo.data(), out.output.data(), d, n, concat_width, d);
    }
    if (inputs.bo.present) add_row_to_each(inputs.bo.data, n, d, out.output.data());
    if (!all_finite(out.output)) return overflow("the output concat·wo");
    if (trace) out.concat = std::move(concat);
  } else {
    if (trace) out.concat = concat;
    out.output = std::move(concat);
  }
  *result = std::move(out);
  return Status::Ok();
}

}  // namespace attn
