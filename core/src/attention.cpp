// Multi-head attention forward.
//   x: (n, d_model)  context: (m, d_model)  wq, wk: (h, d_model, d_k)  wv: (h, d_model, d_v)
//   per head: q (n, d_k)  k (m, d_k)  v (m, d_v)  scores, scaled, weights (n, m)  z (n, d_v)
//   concat: (n, h·d_v)  wo: (h·d_v, d_model)  output: (n, d_out)
//   biases bq, bk: (h, d_k)  bv: (h, d_v)  bo: (d_model); positions: (n or m, d_model)
#include <algorithm>
#include <cmath>
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
// prepared model), or empty; `a_strips`: a packed into strips once for every head (ops::pack_strips),
// or empty (then w_h goes through ops.matmul, whose arithmetic the caller chose).
void project(const Ops& ops, Workspace& ws, const float* a, const std::vector<float>& a_strips, int rows, int d_model,
             const View<float>& w, const std::vector<float>& packed, const View<float>& b, int head, int width,
             float* y) {
  if (!w.present) {
    std::copy(a, a + static_cast<std::size_t>(rows) * d_model, y);
  } else if (packed.empty() && !a_strips.empty()) {  // w_h packed here, a once per call
    ops::pack_panels_into(w.data + static_cast<std::size_t>(head) * d_model * width, width, d_model, width, false,
                          &ws.w_panels);
    ops::matmul_strips(a_strips.data(), ws.w_panels.data(), y, width, rows, d_model, width);
  } else if (!packed.empty()) {
    const std::size_t block = packed.size() / (w.size / (static_cast<std::size_t>(d_model) * width));
    if (!a_strips.empty()) {
      ops::matmul_strips(a_strips.data(), packed.data() + head * block, y, width, rows, d_model, width);
    } else {
      ops::matmul_packed(a, d_model, packed.data() + head * block, y, width, rows, d_model, width, &ws.products);
    }
  } else {
    const float* w_h = w.data + static_cast<std::size_t>(head) * d_model * width;
    ops.matmul(a, d_model, w_h, width, y, width, rows, d_model, width, &ws.products);
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

// True when some kept score times 1/scale is beyond float32 (finite scores, a tiny divisor): the fused
// softmax would see ±∞ and give NaN. Checked on the largest kept |score| of the head, one pass.
bool scaled_overflows(const Config& config, const Inputs& inputs, const Shape& shape, const float* scores) {
  const float inv_scale = 1.0f / static_cast<float>(shape.scale);
  const int n = shape.n, m = shape.m;
  float largest = 0;
  for (int i = 0; i < n; ++i) {
    const float* scores_i = scores + static_cast<std::size_t>(i) * m;
    const int visible = config.mask_mode == MaskMode::Causal ? std::min(i + 1, m) : m;
    const std::uint8_t* keep_i = config.mask_mode == MaskMode::Keep ? inputs.keep.data + static_cast<std::size_t>(i) * m : nullptr;
    for (int j = 0; j < visible; ++j) {
      if (!keep_i || keep_i[j]) largest = std::max(largest, std::fabs(scores_i[j]));
    }
  }
  return !std::isfinite(largest * inv_scale);
}

bool all_finite(const std::vector<float>& values) { return ops::all_finite(values.data(), values.size()); }

// rows × width values, ld apart: a head's z inside the concatenation
bool rows_finite(const float* values, int rows, int width, int ld) {
  for (int i = 0; i < rows; ++i) {
    if (!ops::all_finite(values + static_cast<std::size_t>(i) * ld, width)) return false;
  }
  return true;
}

// From this many rows on, ops.matmul packs a into strips (ops.cpp): the projections then share x's.
constexpr int kStripsFromRows = 33;

// The scores of a query block on the way to the softmax: about 256 KB, which stays in a core's cache.
constexpr int kScoresBlockValues = 64 * 1024;

// Heads in messages count from 1, as the page's tabs do: "head 1 of 2".
std::string head_name(int h, int heads) { return "head " + std::to_string(h + 1) + " of " + std::to_string(heads); }

Status overflow(const std::string& what) {
  return Status::Range("x", what + " overflow float32; the inputs or weights are too large in magnitude");
}

// validate() accepts a view with a size and no data (a binding's check before it copies); the pass needs data.
Status check_data(const Inputs& inputs) {
  const std::pair<const char*, bool> missing[] = {
      {"x", inputs.x.present && !inputs.x.data && inputs.x.size},
      {"context", inputs.context.present && !inputs.context.data && inputs.context.size},
      {"wq", inputs.wq.present && !inputs.wq.data && inputs.wq.size},
      {"wk", inputs.wk.present && !inputs.wk.data && inputs.wk.size},
      {"wv", inputs.wv.present && !inputs.wv.data && inputs.wv.size},
      {"wo", inputs.wo.present && !inputs.wo.data && inputs.wo.size},
      {"mask", inputs.keep.present && !inputs.keep.data && inputs.keep.size}};
  for (const auto& [field, is_missing] : missing) {
    if (is_missing) return Status::Type(field, std::string(field) + " has a size but no data");
  }
  return Status::Ok();
}

}  // namespace

Status attention_forward(const Config& config, const Inputs& inputs, bool trace, Result* result, Workspace* workspace) {
  Shape shape{};
  if (Status s = check_data(inputs); !s.ok()) return s;
  if (Status s = validate(config, inputs, trace, &shape); !s.ok()) return s;
  Workspace own;
  return forward_checked(config, inputs, shape, nullptr, trace, result, workspace ? *workspace : own);
}

Status forward_checked(const Config& config, const Inputs& inputs, const Shape& shape, const PackedWeights* packed,
                       bool trace, Result* result, Workspace& ws) {
  const PackedWeights not_packed;
  const PackedWeights& panels = packed ? *packed : not_packed;
  const int n = shape.n, m = shape.m, d = shape.d_model, d_k = shape.d_k, d_v = shape.d_v;
  const int concat_width = shape.heads * d_v;
  const Ops& ops = ops_for(config.arithmetic);

  // The output's buffer comes from the result a previous call replaced (kept here): a prepared model
  // run again and again alternates between two buffers, with no allocation or zero-fill per run.
  Result out;
  out.output = std::move(ws.spare_output);
  out.shape = shape;
  // pass 0: positions, added to x and to the context (each by its own positions)
  PositionedInputs positioned = with_positions(config, inputs, shape);
  const float* x = positioned.x;
  const float* context = positioned.context;
  if (trace && config.positions != PositionMode::None) {
    out.positions_x = sinusoidal_positions(n, d);
    if (!shape.self) out.positions_context = sinusoidal_positions(m, d);
  }
  // Buffers kept between calls (they only grow, as the gemm's scratch does): no allocation or
  // zero-fill per call once a size has been seen. a prepared model's x (and context) packed once
  // into the gemm's strips for every head's projections.
  // Without a prepared model, only on the fast arithmetic and from as many rows as ops.matmul would
  // pack a itself (the same kernel either way, so the same bits).
  std::vector<float>& x_strips = ws.x_strips;
  std::vector<float>& context_strips = ws.context_strips;
  x_strips.clear();
  context_strips.clear();
  const bool strips = config.arithmetic == Arithmetic::Fast && ops::packed_is_fastest();
  if (strips && (packed || n >= kStripsFromRows)) ops::pack_strips(x, d, n, d, &x_strips);
  if (strips && context != x && (packed || m >= kStripsFromRows)) ops::pack_strips(context, d, m, d, &context_strips);
  const std::vector<float>& kv_strips = context == x ? x_strips : context_strips;
  std::vector<float>& concat = ws.concat;  // every element is written by the heads' z
  concat.resize(static_cast<std::size_t>(n) * concat_width);
  // Without the trace one set of buffers is reused by every head.
  bool z_overflows = false;
  // Without the trace and a mask, on the fast arithmetic, with the gemm's packing: passes 2 to 5 by
  // blocks of queries (below; one block when a head's scores fit in one), the softmax in two passes.
  std::vector<float>&k_panels = ws.k_panels, &v_panels = ws.v_panels, &row_max = ws.row_max, &inv_sum = ws.inv_sum;
  const int query_block = std::max(64, kScoresBlockValues / m / 4 * 4);
  const bool by_blocks = !trace && config.mask_mode == MaskMode::None && config.arithmetic == Arithmetic::Fast &&
                         ops::packed_is_fastest();
  if (by_blocks) {  // a block's rows' maxima and 1 / sums
    row_max.resize(static_cast<std::size_t>(std::min(n, query_block)));
    inv_sum.resize(row_max.size());
  }
  if (trace) out.heads.resize(shape.heads);

  for (int h = 0; h < shape.heads; ++h) {
    HeadTrace& head = trace ? out.heads[h] : ws.head;
    head.q.resize(static_cast<std::size_t>(n) * d_k);
    head.k.resize(static_cast<std::size_t>(m) * d_k);
    head.v.resize(static_cast<std::size_t>(m) * d_v);
    head.scores.resize(static_cast<std::size_t>(n) * m);

    // pass 1: projections
    project(ops, ws, x, x_strips, n, d, inputs.wq, panels.wq, inputs.bq, h, d_k, head.q.data());
    project(ops, ws, context, kv_strips, m, d, inputs.wk, panels.wk, inputs.bk, h, d_k, head.k.data());
    project(ops, ws, context, kv_strips, m, d, inputs.wv, panels.wv, inputs.bv, h, d_v, head.v.data());
    // q, k and v are checked through what they feed: a ±inf or NaN in q or k makes its row or column
    // of the scores non-finite, one in v its column of z (the weights are finite and ≥ 0). So they
    // are scanned only when a later check of this head fails, to name them as the first cause.
    const auto first_cause = [&](Status later) {
      if (!all_finite(head.q) || !all_finite(head.k) || !all_finite(head.v)) {
        return overflow("the projections q, k, v of " + head_name(h, shape.heads));
      }
      return later;
    };

    // Passes 2 to 5 by blocks of queries when by_blocks, else in one block of all n: a block's scores
    // stay in cache from their product through the checks and the softmax to the weighted sum (the
    // whole head's n × m would not), with k and v packed once for every block. The same products,
    // so the same bits either way.
    float* z_in_concat = concat.data() + static_cast<std::size_t>(h) * d_v;
    if (by_blocks) {
      ops::pack_panels_into(head.k.data(), d_k, d_k, m, /*b_transposed=*/true, &k_panels);
      ops::pack_panels_into(head.v.data(), d_v, m, d_v, /*b_transposed=*/false, &v_panels);
    }
    for (int first = 0; first < n; first += by_blocks ? query_block : n) {
      const int rows = by_blocks ? std::min(query_block, n - first) : n;
      float* scores = head.scores.data();
      const std::size_t count = static_cast<std::size_t>(rows) * m;

      // pass 2: raw scores q·kᵀ
      const float* q_block = head.q.data() + static_cast<std::size_t>(first) * d_k;
      if (by_blocks) {
        ops::matmul_packed(q_block, d_k, k_panels.data(), scores, m, rows, d_k, m, &ws.products);
      } else {
        ops.matmul_transb(q_block, d_k, head.k.data(), d_k, scores, m, rows, d_k, m, &ws.products);
      }
      // without a mask every score is kept: one pass for both checks (NaN or ±inf in, non-finite out),
      // which by blocks also finds each row's max for the softmax
      const float largest = by_blocks                          ? ops::row_maxima(scores, rows, m, row_max.data())
                            : config.mask_mode == MaskMode::None ? ops::largest_magnitude(scores, count)
                                                                 : std::numeric_limits<float>::quiet_NaN();
      const bool checked = std::isfinite(largest);
      if (!checked && !ops::all_finite(scores, count)) {
        return first_cause(overflow("the scores q·kᵀ of " + head_name(h, shape.heads)));
      }
      if (checked ? !std::isfinite(largest * (1.0f / static_cast<float>(shape.scale)))
                  : scaled_overflows(config, inputs, shape, scores)) {  // masks run in one block
        return first_cause(Status::Range("scale", "the scores of " + head_name(h, shape.heads) + " divided by scale (" +
                                                      format_number(shape.scale) + ") overflow float32; use a larger divisor"));
      }

      float* z_block = z_in_concat + static_cast<std::size_t>(first) * concat_width;
      if (by_blocks) {
        // passes 3 to 5 with no mask and no trace: exp of the scaled scores in one pass from the maxima
        // found above, and each row's 1 / sum applied as the weights are packed for z = weights·v.
        // The same operations on the same values as below, so the same bits.
        ops::softmax_exp_rows(scores, rows, m, static_cast<float>(shape.scale), row_max.data(), inv_sum.data());
        ops::matmul_packed_row_scaled(scores, m, inv_sum.data(), v_panels.data(), z_block, concat_width, rows, m, d_v,
                                      &ws.products);
      } else {
        // passes 3 and 4: scale, mask and softmax, fused in one row pass. With the trace `scaled`
        // keeps the scaled and masked scores on their own (the same product, so the same bits).
        float* weights = scores;
        if (trace) {
          head.scaled.resize(head.scores.size());
          scale_and_mask(config, inputs, shape, head.scores.data(), head.scaled.data());
          head.weights = head.scores;
          weights = head.weights.data();
        }
        ops.softmax_scaled_rows(weights, rows, m, static_cast<float>(shape.scale), config.mask_mode == MaskMode::Causal,
                                config.mask_mode == MaskMode::Keep ? inputs.keep.data : nullptr);
        // pass 5: z = weights·v, written straight into this head's columns of the concatenation
        ops.matmul(weights, m, head.v.data(), d_v, z_block, concat_width, rows, m, d_v, &ws.products);
      }
      if (!rows_finite(z_block, rows, d_v, concat_width)) {
        if (Status s = first_cause(Status::Ok()); !s.ok()) return s;
        z_overflows = true;  // reported after every head, as the check of the whole concatenation was
      }
    }
    if (trace) {
      head.z.resize(static_cast<std::size_t>(n) * d_v);
      for (int i = 0; i < n; ++i) {
        const float* row = z_in_concat + static_cast<std::size_t>(i) * concat_width;
        std::copy(row, row + d_v, head.z.data() + static_cast<std::size_t>(i) * d_v);
      }
    }
  }

  // every array handed back is finite, or the call fails: z can overflow when v is near the float32 limit
  if (z_overflows) return overflow("the weighted values z (weights·v)");

  if (inputs.wo.present) {
    out.output.resize(static_cast<std::size_t>(n) * d);
    if (panels.wo.empty()) {
      ops.matmul(concat.data(), concat_width, inputs.wo.data, d, out.output.data(), d, n, concat_width, d, &ws.products);
    } else {
      ops::matmul_packed(concat.data(), concat_width, panels.wo.data(), out.output.data(), d, n, concat_width, d,
                         &ws.products);
    }
    if (inputs.bo.present) add_row_to_each(inputs.bo.data, n, d, out.output.data());
    if (!all_finite(out.output)) return overflow("the output concat·wo");
    if (trace) out.concat = std::move(concat);
  } else {
    if (trace) out.concat = concat;
    out.output.swap(concat);  // the buffer it had is the concatenation's next time
  }
  ws.spare_output = std::move(result->output);
  *result = std::move(out);
  return Status::Ok();
}

}  // namespace attn
