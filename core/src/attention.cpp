// Multi-head attention forward, with grouped key/value heads, rotary positions and a sliding window.
//   x: (n, d_model)  context: (m, d_model)  wq: (h, d_model, d_k)  wk: (g, d_model, d_k)  wv: (g, d_model, d_v)
//   per head: q (n, d_k)  k (m, d_k)  v (m, d_v)  scores, scaled, weights (n, m)  z (n, d_v)
//   concat: (n, h·d_v)  wo: (h·d_v, d_model)  output: (n, d_out)
//   biases bq: (h, d_k)  bk: (g, d_k)  bv: (g, d_v)  bo: (d_model); positions: (n or m, d_model)
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

// The mask as the softmax applies it: the mask mode alone, or with a sliding window the keys both it and
// the window keep (visible_keys), as a keep-mask.
struct Mask {
  MaskMode mode;
  const std::uint8_t* keep;  // (n, m) with MaskMode::Keep, else null
};
Mask mask_of(const Config& config, const Inputs& inputs, const std::vector<std::uint8_t>& visible) {
  if (config.window > 0) return {MaskMode::Keep, visible.data()};
  return {config.mask_mode, config.mask_mode == MaskMode::Keep ? inputs.keep.data : nullptr};
}

// scaled_ij = scores_ij · (1 / scale), or -inf where the mask drops key j for query i: the trace's
// `scaled`, the same bits as the fused softmax pass computes. One loop per mask mode, so the inner
// loop has no branch on the mode.
void scale_and_mask(const Mask& mask, const Shape& shape, const float* scores, float* scaled) {
  const float inv_scale = 1.0f / static_cast<float>(shape.scale);
  const int n = shape.n, m = shape.m;
  for (int i = 0; i < n; ++i) {
    const float* scores_i = scores + static_cast<std::size_t>(i) * m;
    float* scaled_i = scaled + static_cast<std::size_t>(i) * m;
    switch (mask.mode) {
      case MaskMode::None:
        for (int j = 0; j < m; ++j) scaled_i[j] = scores_i[j] * inv_scale;
        break;
      case MaskMode::Causal:  // key j is visible to query i when j <= i
        for (int j = 0; j < m; ++j) scaled_i[j] = j <= i ? scores_i[j] * inv_scale : kMaskedScore;
        break;
      case MaskMode::Keep: {
        const std::uint8_t* keep_i = mask.keep + static_cast<std::size_t>(i) * m;
        for (int j = 0; j < m; ++j) scaled_i[j] = keep_i[j] ? scores_i[j] * inv_scale : kMaskedScore;
        break;
      }
    }
  }
}

// True when some kept score times 1/scale is beyond float32 (finite scores, a tiny divisor): the fused
// softmax would see ±∞ and give NaN. Checked on the largest kept |score| of the head, one pass.
bool scaled_overflows(const Mask& mask, const Shape& shape, const float* scores) {
  const float inv_scale = 1.0f / static_cast<float>(shape.scale);
  const int n = shape.n, m = shape.m;
  float largest = 0;
  for (int i = 0; i < n; ++i) {
    const float* scores_i = scores + static_cast<std::size_t>(i) * m;
    const int visible = mask.mode == MaskMode::Causal ? std::min(i + 1, m) : m;
    const std::uint8_t* keep_i = mask.mode == MaskMode::Keep ? mask.keep + static_cast<std::size_t>(i) * m : nullptr;
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

// What every pass of one call reads: the arguments, x and the context as the projections see them,
// and the buffers the call works in.
struct Call {
  const Config& config;
  const Inputs& inputs;
  const Shape& shape;
  const PackedWeights& packed;  // a prepared model's weights, or empty vectors
  const Ops& ops;
  Workspace& ws;
  const float* x;        // (n, d_model), with positions when asked
  const float* context;  // (m, d_model), with its positions; x for self-attention
  Mask mask;             // the mask mode, with the sliding window when there is one
};

// Rotary positions on a projection y (rows, width) of a head: its rows rotated in place by the tables of
// the call (ws.rotary_cos, ws.rotary_sin), after a copy of y before the rotation when the trace keeps it.
void rotate_projection(const Call& call, std::vector<float>& y, int rows, int width, std::vector<float>* unrotated) {
  const int dims = call.config.rotary.dims;
  if (dims == 0) return;
  if (unrotated) *unrotated = y;
  rotate_rows(y.data(), rows, width, dims, call.ws.rotary_cos.data(), call.ws.rotary_sin.data(), false);
}

// pass 1 of head h: q = x·wq_h + bq_h (n, d_k), and of its key/value head g: k = context·wk_g + bk_g
// (m, d_k), v = context·wv_g + bv_g (m, d_v); then q and k rotated (rotary positions). `previous`: the
// buffers of head h − 1 (the trace's, or without the trace the same buffers as `head`): when they hold
// g's k and v already (grouped heads), those are copied or kept rather than projected again.
void project_head(const Call& call, int h, bool trace, HeadTrace* head, const HeadTrace* previous) {
  const Shape& s = call.shape;
  const Inputs& in = call.inputs;
  const std::vector<float>& x_strips = call.ws.x_strips;
  const std::vector<float>& kv_strips = call.context == call.x ? x_strips : call.ws.context_strips;
  head->q.resize(static_cast<std::size_t>(s.n) * s.d_k);
  project(call.ops, call.ws, call.x, x_strips, s.n, s.d_model, in.wq, call.packed.wq, in.bq, h, s.d_k, head->q.data());
  rotate_projection(call, head->q, s.n, s.d_k, trace ? &head->q_unrotated : nullptr);
  const int g = kv_head_of(s, h);
  if (previous != nullptr && kv_head_of(s, h - 1) == g) {
    if (previous != head) {
      head->k = previous->k;
      head->v = previous->v;
      head->k_unrotated = previous->k_unrotated;
    }
    return;
  }
  head->k.resize(static_cast<std::size_t>(s.m) * s.d_k);
  head->v.resize(static_cast<std::size_t>(s.m) * s.d_v);
  project(call.ops, call.ws, call.context, kv_strips, s.m, s.d_model, in.wk, call.packed.wk, in.bk, g, s.d_k,
          head->k.data());
  rotate_projection(call, head->k, s.m, s.d_k, trace ? &head->k_unrotated : nullptr);
  project(call.ops, call.ws, call.context, kv_strips, s.m, s.d_model, in.wv, call.packed.wv, in.bv, g, s.d_v,
          head->v.data());
}

// q, k and v are checked through what they feed: a ±inf or NaN in q or k makes its row or column of
// the scores non-finite, one in v its column of z (the weights are finite and ≥ 0). So they are
// scanned only when a later check of head h fails, to name them as the first cause.
Status first_cause(const HeadTrace& head, int h, int heads, Status later) {
  if (!all_finite(head.q) || !all_finite(head.k) || !all_finite(head.v)) {
    return overflow("the projections q, k, v of " + head_name(h, heads));
  }
  return later;
}

// The checks of pass 2's scores (rows, m) of head h: every score finite, and every kept score divided
// by the scale finite (a tiny divisor overflows it). `largest`: their largest magnitude when a pass
// has found it (no mask: every score is kept, so one pass serves both checks), NaN when not.
Status check_scores(const Call& call, const HeadTrace& head, int h, const float* scores, int rows, float largest) {
  const Shape& s = call.shape;
  const bool checked = std::isfinite(largest);
  if (!checked && !ops::all_finite(scores, static_cast<std::size_t>(rows) * s.m)) {
    return first_cause(head, h, s.heads, overflow("the scores q·kᵀ of " + head_name(h, s.heads)));
  }
  if (checked ? !std::isfinite(largest * (1.0f / static_cast<float>(s.scale)))
              : scaled_overflows(call.mask, s, scores)) {  // masks run in one block
    return first_cause(head, h, s.heads,
                       Status::Range("scale", "the scores of " + head_name(h, s.heads) + " divided by scale (" +
                                                  format_number(s.scale) + ") overflow float32; use a larger divisor"));
  }
  return Status::Ok();
}

// pass 5's z (rows, d_v) of head h, ld apart in the concatenation. A non-finite z is reported after
// every head (as the check of the whole concatenation was), unless q, k or v is its first cause.
Status check_z(const HeadTrace& head, int h, int heads, const float* z, int rows, int d_v, int ld, bool* z_overflows) {
  if (rows_finite(z, rows, d_v, ld)) return Status::Ok();
  *z_overflows = true;
  return first_cause(head, h, heads, Status::Ok());
}

// Passes 2 to 5 of head h as the notes write them, over all n queries at once, on the ops of the
// chosen arithmetic: what the trace keeps, and without it every masked or portable call.
//   q (n, d_k)  k (m, d_k)  v (m, d_v)  scores, scaled, weights (n, m)  z (n, d_v) in the concatenation
Status attend_head(const Call& call, int h, bool trace, HeadTrace& head, float* z_in_concat, bool* z_overflows) {
  const Shape& s = call.shape;
  const int n = s.n, m = s.m, concat_width = s.heads * s.d_v;

  // pass 2: raw scores q·kᵀ
  head.scores.resize(static_cast<std::size_t>(n) * m);
  call.ops.matmul_transb(head.q.data(), s.d_k, head.k.data(), s.d_k, head.scores.data(), m, n, s.d_k, m,
                         &call.ws.products);
  const float largest = call.mask.mode == MaskMode::None
                            ? ops::largest_magnitude(head.scores.data(), head.scores.size())
                            : std::numeric_limits<float>::quiet_NaN();
  if (Status status = check_scores(call, head, h, head.scores.data(), n, largest); !status.ok()) return status;

  // passes 3 and 4: scale, mask and softmax, fused in one row pass. With the trace `scaled` keeps the
  // scaled and masked scores on their own (the same product, so the same bits).
  float* weights = head.scores.data();
  if (trace) {
    head.scaled.resize(head.scores.size());
    scale_and_mask(call.mask, s, head.scores.data(), head.scaled.data());
    head.weights = head.scores;
    weights = head.weights.data();
  }
  call.ops.softmax_scaled_rows(weights, n, m, static_cast<float>(s.scale), call.mask.mode == MaskMode::Causal,
                               call.mask.keep);

  // pass 5: z = weights·v, written straight into this head's columns of the concatenation
  call.ops.matmul(weights, m, head.v.data(), s.d_v, z_in_concat, concat_width, n, m, s.d_v, &call.ws.products);
  return check_z(head, h, s.heads, z_in_concat, n, s.d_v, concat_width, z_overflows);
}

// Passes 2 to 5 of head h by blocks of queries: the fast path, with no trace and no mask, on the fast
// arithmetic where the packed products are the fastest. A block's scores stay in cache from their
// product through the checks and the softmax to the weighted sum (the whole head's n × m would not),
// k and v are packed once for every block, and the softmax makes two passes over the scores where
// attend_head's makes four (check, scale and max, exp, normalise). The same operations on the same
// values as attend_head's, so the same bits.
//   a block of rows queries: scores (rows, m)  row_max, inv_sum (rows)  z (rows, d_v) in the concatenation
Status attend_head_by_blocks(const Call& call, int h, HeadTrace& head, float* z_in_concat, bool* z_overflows) {
  const Shape& s = call.shape;
  Workspace& ws = call.ws;
  const int n = s.n, m = s.m, d_k = s.d_k, d_v = s.d_v, concat_width = s.heads * d_v;
  const int query_block = std::min(n, std::max(64, kScoresBlockValues / m / 4 * 4));
  head.scores.resize(static_cast<std::size_t>(query_block) * m);
  ws.row_max.resize(query_block);
  ws.inv_sum.resize(query_block);
  ops::pack_panels_into(head.k.data(), d_k, d_k, m, /*b_transposed=*/true, &ws.k_panels);
  ops::pack_panels_into(head.v.data(), d_v, m, d_v, /*b_transposed=*/false, &ws.v_panels);

  for (int first = 0; first < n; first += query_block) {
    const int rows = std::min(query_block, n - first);
    float* scores = head.scores.data();
    // pass 2: raw scores q·kᵀ; one pass over them finds both checks' answer and each row's max
    const float* q_block = head.q.data() + static_cast<std::size_t>(first) * d_k;
    ops::matmul_packed(q_block, d_k, ws.k_panels.data(), scores, m, rows, d_k, m, &ws.products);
    const float largest = ops::row_maxima(scores, rows, m, ws.row_max.data());
    if (Status status = check_scores(call, head, h, scores, rows, largest); !status.ok()) return status;

    // passes 3 to 5: exp of the scaled scores in one pass from the maxima found above, and each row's
    // 1 / sum applied as the weights are packed for z = weights·v
    float* z_block = z_in_concat + static_cast<std::size_t>(first) * concat_width;
    ops::softmax_exp_rows(scores, rows, m, static_cast<float>(s.scale), ws.row_max.data(), ws.inv_sum.data());
    ops::matmul_packed_row_scaled(scores, m, ws.inv_sum.data(), ws.v_panels.data(), z_block, concat_width, rows, m, d_v,
                                  &ws.products);
    if (Status status = check_z(head, h, s.heads, z_block, rows, d_v, concat_width, z_overflows); !status.ok()) {
      return status;
    }
  }
  return Status::Ok();
}

// attend_head_by_blocks under the causal mask: query i sees keys 0 … i, so a block of queries
// first … first + rows − 1 needs only the keys below first + rows. Its scores (rows, keys) and its
// part of weights·v stop there: about half of attend_head's products when n is large, and each block's
// scores stay in cache. attend_head's checks, its fused softmax row pass and its kernels on the same
// values, so the same weights; a masked key's weight (0) is left out of z's sum instead of added.
Status attend_head_causal_by_blocks(const Call& call, int h, HeadTrace& head, float* z_in_concat, bool* z_overflows) {
  const Shape& s = call.shape;
  Workspace& ws = call.ws;
  const int n = s.n, m = s.m, d_k = s.d_k, d_v = s.d_v, concat_width = s.heads * d_v;
  const int query_block = std::min(n, std::max(64, kScoresBlockValues / m / 4 * 4));
  head.scores.resize(static_cast<std::size_t>(query_block) * m);
  ops::pack_panels_into(head.k.data(), d_k, d_k, m, /*b_transposed=*/true, &ws.k_panels);
  for (int first = 0; first < n; first += query_block) {
    const int rows = std::min(query_block, n - first), keys = std::min(m, first + rows);
    float* scores = head.scores.data();
    const float* q_block = head.q.data() + static_cast<std::size_t>(first) * d_k;
    ops::matmul_packed(q_block, d_k, ws.k_panels.data(), scores, keys, rows, d_k, keys, &ws.products);
    if (!ops::all_finite(scores, static_cast<std::size_t>(rows) * keys)) {
      return first_cause(head, h, s.heads, overflow("the scores q·kᵀ of " + head_name(h, s.heads)));
    }
    float largest = 0;  // the largest kept |score| of the block, for the check of the scale
    for (int r = 0; r < rows; ++r) {
      largest = std::max(
          largest, ops::largest_magnitude(scores + static_cast<std::size_t>(r) * keys, std::min(first + r + 1, m)));
    }
    if (Status status = check_scores(call, head, h, scores, rows, largest); !status.ok()) return status;
    for (int r = 0; r < rows; ++r) {  // the fused row pass over the visible keys; 0 for the others
      float* row = scores + static_cast<std::size_t>(r) * keys;
      const int visible = std::min(first + r + 1, m);
      ops::softmax_scaled_rows(row, 1, visible, static_cast<float>(s.scale), false, nullptr);
      std::fill(row + visible, row + keys, 0.0f);
    }
    ops::pack_panels_into(head.v.data(), d_v, keys, d_v, /*b_transposed=*/false, &ws.v_panels);
    float* z_block = z_in_concat + static_cast<std::size_t>(first) * concat_width;
    ops::matmul_packed(scores, keys, ws.v_panels.data(), z_block, concat_width, rows, keys, d_v, &ws.products);
    if (Status status = check_z(head, h, s.heads, z_block, rows, d_v, concat_width, z_overflows); !status.ok()) {
      return status;
    }
  }
  return Status::Ok();
}

// The output projection: output (n, d_model) = concat (n, h·d_v) · wo (h·d_v, d_model) + bo, or,
// with wo omitted, the concatenation itself (n, h·d_v).
Status project_output(const Call& call, bool trace, Result* out) {
  const Shape& s = call.shape;
  const int n = s.n, d = s.d_model, concat_width = s.heads * s.d_v;
  std::vector<float>& concat = call.ws.concat;
  if (!call.inputs.wo.present) {
    if (trace) out->concat = concat;
    out->output.swap(concat);  // the buffer it had is the concatenation's next time
    return Status::Ok();
  }
  out->output.resize(static_cast<std::size_t>(n) * d);
  if (call.packed.wo.empty()) {
    call.ops.matmul(concat.data(), concat_width, call.inputs.wo.data, d, out->output.data(), d, n, concat_width, d,
                    &call.ws.products);
  } else {
    ops::matmul_packed(concat.data(), concat_width, call.packed.wo.data(), out->output.data(), d, n, concat_width, d,
                       &call.ws.products);
  }
  if (call.inputs.bo.present) add_row_to_each(call.inputs.bo.data, n, d, out->output.data());
  if (!all_finite(out->output)) return overflow("the output concat·wo");
  if (trace) out->concat = std::move(concat);
  return Status::Ok();
}

// x and the context packed once into the gemm's strips for every head's projections: always for a
// prepared model; otherwise only on the fast arithmetic and from as many rows as ops.matmul would
// pack a itself (the same kernel either way, so the same bits).
void pack_inputs(const Config& config, const Shape& shape, bool prepared, const PositionedInputs& in, Workspace& ws) {
  ws.x_strips.clear();
  ws.context_strips.clear();
  if (config.arithmetic != Arithmetic::Fast || !ops::packed_is_fastest()) return;
  const int d = shape.d_model;
  if (prepared || shape.n >= kStripsFromRows) ops::pack_strips(in.x, d, shape.n, d, &ws.x_strips);
  if (in.context != in.x && (prepared || shape.m >= kStripsFromRows)) {
    ops::pack_strips(in.context, d, shape.m, d, &ws.context_strips);
  }
}

}  // namespace

Status attention_forward(const Config& config, const Inputs& inputs, bool trace, Result* result, Workspace* workspace) {
  Shape shape{};
  if (Status s = check_data(inputs); !s.ok()) return s;
  if (Status s = validate(config, inputs, trace, &shape); !s.ok()) return s;
  Workspace own;
  return forward_checked(config, inputs, shape, nullptr, trace, result, workspace ? *workspace : own);
}

// pass 0 (positions), then per head pass 1 (the projections) and passes 2 to 5, the traced forward's
// (attend_head) or the fast path's (attend_head_by_blocks), then the output projection.
Status forward_checked(const Config& config, const Inputs& inputs, const Shape& shape, const PackedWeights* packed,
                       bool trace, Result* result, Workspace& ws) {
  const PackedWeights not_packed;
  const int n = shape.n, d_v = shape.d_v, concat_width = shape.heads * d_v;
  // The output's buffer comes from the result a previous call replaced (kept in the workspace): a
  // prepared model run again and again alternates between two buffers, with no allocation or
  // zero-fill per run.
  Result out;
  out.output = std::move(ws.spare_output);
  out.shape = shape;

  // pass 0: positions, added to x and to the context (each by its own positions)
  const PositionedInputs positioned = with_positions(config, inputs, shape);
  if (trace && config.positions != PositionMode::None) {
    out.positions_x = sinusoidal_positions(n, shape.d_model);
    if (!shape.self) out.positions_context = sinusoidal_positions(shape.m, shape.d_model);
  }
  pack_inputs(config, shape, packed != nullptr, positioned, ws);
  // the rotation's angles for every row of x and of the context, and the window's visible keys
  if (config.rotary.dims > 0) {
    rotary_tables(config.rotary, std::max(n, shape.m), &ws.rotary_cos, &ws.rotary_sin);
  }
  visible_keys(config, inputs, shape, &ws.visible);
  const Call call{config,
                  inputs,
                  shape,
                  packed ? *packed : not_packed,
                  ops_for(config.arithmetic),
                  ws,
                  positioned.x,
                  positioned.context,
                  mask_of(config, inputs, ws.visible)};
  const bool by_blocks = !trace && (call.mask.mode == MaskMode::None || call.mask.mode == MaskMode::Causal) &&
                         config.arithmetic == Arithmetic::Fast && ops::packed_is_fastest();

  ws.concat.resize(static_cast<std::size_t>(n) * concat_width);  // every element is written by the heads' z
  if (trace) out.heads.resize(shape.heads);
  bool z_overflows = false;
  for (int h = 0; h < shape.heads; ++h) {
    HeadTrace& head = trace ? out.heads[h] : ws.head;  // without the trace every head reuses one set
    float* z_in_concat = ws.concat.data() + static_cast<std::size_t>(h) * d_v;
    project_head(call, h, trace, &head, h == 0 ? nullptr : trace ? &out.heads[h - 1] : &ws.head);
    const Status status = !by_blocks ? attend_head(call, h, trace, head, z_in_concat, &z_overflows)
                          : call.mask.mode == MaskMode::Causal
                              ? attend_head_causal_by_blocks(call, h, head, z_in_concat, &z_overflows)
                              : attend_head_by_blocks(call, h, head, z_in_concat, &z_overflows);
    if (!status.ok()) return status;
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
  if (Status s = project_output(call, trace, &out); !s.ok()) return s;
  ws.spare_output = std::move(result->output);
  *result = std::move(out);
  return Status::Ok();
}

}  // namespace attn
