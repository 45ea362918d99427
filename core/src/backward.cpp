// Multi-head attention backward, beside attention_forward (attention.cpp): the forward's passes
// undone in reverse order, from the forward's trace; through grouped key/value heads (g of them) and
// the rotary positions. Every gradient is added with += into buffers
// the caller sized and zeroed (zero_gradients), so that a trainer can sum over examples in place.
//   d_output: (n, d_out)  d_concat: (n, h·d_v)
//   per head: dz (n, d_v)  d_weights, d_scaled, d_scores (n, m)  dq (n, d_k)  dk (m, d_k)  dv (m, d_v)
//   dx: (n, d_model)  d_context: (m, d_model)  dwq: (h, d_model, d_k)  dwk: (g, d_model, d_k)  dwv: (g, d_model, d_v)
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attention/attention.hpp"
#include "attention_common.hpp"
#include "validate.hpp"

namespace attn {
namespace {

std::string str(long long value) { return std::to_string(value); }

// dst (count) += src
void add_into(float* dst, const float* src, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) dst[i] += src[i];
}

// d_bias (width) += the column sums of d_y (rows, width, row stride ld)
void add_column_sums(const float* d_y, int ld, int rows, int width, float* d_bias) {
  for (int r = 0; r < rows; ++r) add_into(d_bias, d_y + static_cast<std::size_t>(r) * ld, width);
}

Status check_gradient_input(const char* field, const View<float>& values, std::size_t expected,
                            const std::string& shape_text) {
  if (!values.present || values.size != expected) {
    return Status::Range(field, std::string(field) + " has " + str(values.present ? values.size : 0) +
                                    " values; expected " + shape_text + " = " + str(expected));
  }
  if (values.data == nullptr || all_finite(values.data, values.size)) return Status::Ok();
  for (std::size_t i = 0; i < values.size; ++i) {  // find the first bad value, to name it
    if (!std::isfinite(values.data[i])) {
      return Status::Range(field, std::string(field) + "[" + str(i) + "] is " + format_number(values.data[i]) +
                                      "; every value must be a finite number");
    }
  }
  return Status::Ok();
}

// Sized like the input when it is present (or empty: not wanted), empty when it is not.
bool sized_like(const std::vector<float>& gradient, const View<float>& input) {
  return gradient.empty() || (input.present && gradient.size() == input.size);
}

// The gradients of one projection y = a · w_h + b_h (or a + b_h with the identity), given dy:
//   dw_h += aᵀ·dy,  db_h += column sums of dy,  da += dy·w_hᵀ (or dy).
// Each only when its buffer is there (dw, db not empty; da not null).
struct ProjectionBackward {
  const Ops& ops;
  ProductScratch* products;
  int d_model;
  std::vector<float>& scratch;

  void operator()(const float* a, int rows, const View<float>& w, const View<float>& b, int head, int width,
                  const float* dy, std::vector<float>& dw, std::vector<float>& db, float* da) {
    const std::size_t block = static_cast<std::size_t>(d_model) * width;
    if (w.present && !dw.empty()) {
      scratch.resize(block);
      ops.matmul_transa(a, d_model, dy, width, scratch.data(), width, d_model, rows, width, products);
      add_into(dw.data() + head * block, scratch.data(), block);
    }
    if (b.present && !db.empty())
      add_column_sums(dy, width, rows, width, db.data() + static_cast<std::size_t>(head) * width);
    if (da == nullptr) return;
    if (w.present) {
      scratch.resize(static_cast<std::size_t>(rows) * d_model);
      ops.matmul_transb(dy, width, w.data + head * block, width, scratch.data(), d_model, rows, width, d_model,
                        products);
      add_into(da, scratch.data(), static_cast<std::size_t>(rows) * d_model);
    } else {
      add_into(da, dy, static_cast<std::size_t>(rows) * d_model);  // identity: width == d_model
    }
  }
};

// backward pass 4: softmax, dS = A ⊙ (dA − rowsum(dA ⊙ A)), in place over d_attention (n, m), from
// the weights A (n, m). Masked keys have A = 0, so they get no gradient, and a fully masked row (all
// zero) gets none at all.
// backward pass 3: scaled = scores / scale, so dScores = dS / scale; the mask's -inf is a constant.
void softmax_backward(const float* weights, int n, int m, float inverse_scale, float* d_attention) {
  for (int i = 0; i < n; ++i) {
    const float* weights_i = weights + static_cast<std::size_t>(i) * m;
    float* d_i = d_attention + static_cast<std::size_t>(i) * m;
    float row_dot = 0.0f;
    for (int j = 0; j < m; ++j) row_dot += d_i[j] * weights_i[j];
    for (int j = 0; j < m; ++j) d_i[j] = weights_i[j] * (d_i[j] - row_dot) * inverse_scale;
  }
}

}  // namespace

Gradients zero_gradients(const Shape& shape, const Inputs& inputs) {
  Gradients g;
  auto zero_like = [](const View<float>& input, std::vector<float>* gradient) {
    if (input.present) gradient->assign(input.size, 0.0f);
  };
  g.x.assign(static_cast<std::size_t>(shape.n) * shape.d_model, 0.0f);
  if (!shape.self) zero_like(inputs.context, &g.context);
  zero_like(inputs.wq, &g.wq);
  zero_like(inputs.wk, &g.wk);
  zero_like(inputs.wv, &g.wv);
  zero_like(inputs.wo, &g.wo);
  zero_like(inputs.bq, &g.bq);
  zero_like(inputs.bk, &g.bk);
  zero_like(inputs.bv, &g.bv);
  zero_like(inputs.bo, &g.bo);
  return g;
}

Status validate_backward(const Config& config, const Inputs& inputs, View<float> d_output, View<float> d_weights,
                         Shape* shape_out) {
  Shape shape{};
  if (Status s = validate(config, inputs, true, &shape); !s.ok()) return s;
  const int n = shape.n, m = shape.m, heads = shape.heads;
  if (Status s = check_gradient_input("dOutput", d_output, static_cast<std::size_t>(n) * shape.d_out,
                                      "n × dOut = " + str(n) + " × " + str(shape.d_out));
      !s.ok()) {
    return s;
  }
  if (d_weights.present) {
    if (Status s = check_gradient_input("dWeights", d_weights, static_cast<std::size_t>(heads) * n * m,
                                        "heads × n × m = " + str(heads) + " × " + str(n) + " × " + str(m));
        !s.ok()) {
      return s;
    }
  }
  *shape_out = shape;
  return Status::Ok();
}

Status attention_backward(const Config& config, const Inputs& inputs, const Result& forward, View<float> d_output,
                          View<float> d_weights, Gradients* gradients) {
  Shape shape{};
  if (Status s = validate_backward(config, inputs, d_output, d_weights, &shape); !s.ok()) return s;
  const int n = shape.n, d = shape.d_model;
  if (forward.heads.size() != static_cast<std::size_t>(shape.heads) ||
      forward.concat.size() != static_cast<std::size_t>(n) * shape.heads * shape.d_v) {
    return Status::Range("trace",
                         "the backward pass needs the forward's trace for the same request: run "
                         "attention_forward with trace on");
  }
  const Gradients& g = *gradients;
  const bool buffers_ready = (g.x.empty() || g.x.size() == static_cast<std::size_t>(n) * d) &&
                             (shape.self ? g.context.empty() : sized_like(g.context, inputs.context)) &&
                             sized_like(g.wq, inputs.wq) && sized_like(g.wk, inputs.wk) &&
                             sized_like(g.wv, inputs.wv) && sized_like(g.wo, inputs.wo) &&
                             sized_like(g.bq, inputs.bq) && sized_like(g.bk, inputs.bk) &&
                             sized_like(g.bv, inputs.bv) && sized_like(g.bo, inputs.bo);
  if (!buffers_ready) {
    return Status::Range("gradients",
                         "the gradient buffers are not sized like the inputs; start from "
                         "zero_gradients()");
  }
  return attention_backward_checked(config, inputs, shape, forward, d_output, d_weights, gradients);
}

namespace {

// What the backward passes of one call share.
struct BackwardCall {
  const Inputs& inputs;
  const Shape& shape;
  const Ops& ops;
  ProductScratch* products;
  std::vector<float>& scratch;
  bool want_q, want_k, want_v;  // which of q, k and v need a gradient at all
};

// backward pass 6: output = concat·wo + bo. Returns d_concat (n, h·d_v): d_output itself when wo is
// omitted, else `storage` holding d_output·woᵀ.
const float* output_backward(const BackwardCall& c, const Result& forward, View<float> d_output, Gradients& g,
                             std::vector<float>& storage) {
  const int n = c.shape.n, d = c.shape.d_model, concat_width = c.shape.heads * c.shape.d_v;
  if (!c.inputs.wo.present) return d_output.data;
  storage.resize(static_cast<std::size_t>(n) * concat_width);
  c.ops.matmul_transb(d_output.data, d, c.inputs.wo.data, d, storage.data(), concat_width, n, d, concat_width,
                      c.products);
  if (!g.wo.empty()) {
    c.scratch.resize(static_cast<std::size_t>(concat_width) * d);
    c.ops.matmul_transa(forward.concat.data(), concat_width, d_output.data, d, c.scratch.data(), d, concat_width, n, d,
                        c.products);
    add_into(g.wo.data(), c.scratch.data(), c.scratch.size());
  }
  if (c.inputs.bo.present && !g.bo.empty()) add_column_sums(d_output.data, d, n, d, g.bo.data());
  return storage.data();
}

// backward passes 5 to 2 of head h, from dz (its columns of d_concat, row stride h·d_v) to dq and dk
// (of the rotated q and k when rotary.dims > 0) and dv. d_weights_h: dWeights' (n, m) of the head, or null.
void attend_head_backward(const BackwardCall& c, const HeadTrace& head, const float* dz, const float* d_weights_h,
                          std::vector<float>& d_attention, std::vector<float>& dq, std::vector<float>& dk,
                          std::vector<float>& dv) {
  const int n = c.shape.n, m = c.shape.m, d_k = c.shape.d_k, d_v = c.shape.d_v, concat_width = c.shape.heads * d_v;
  // backward pass 5: z = weights·v
  if (c.want_v) c.ops.matmul_transa(head.weights.data(), m, dz, concat_width, dv.data(), d_v, m, n, d_v, c.products);
  if (!c.want_q && !c.want_k) return;
  c.ops.matmul_transb(dz, concat_width, head.v.data(), d_v, d_attention.data(), m, n, d_v, m, c.products);
  if (d_weights_h) add_into(d_attention.data(), d_weights_h, d_attention.size());
  // backward passes 4 and 3: softmax and the scaling
  softmax_backward(head.weights.data(), n, m, static_cast<float>(1.0 / c.shape.scale), d_attention.data());
  // backward pass 2: scores = q·kᵀ
  if (c.want_q) c.ops.matmul(d_attention.data(), m, head.k.data(), d_k, dq.data(), d_k, n, m, d_k, c.products);
  if (c.want_k) c.ops.matmul_transa(d_attention.data(), m, head.q.data(), d_k, dk.data(), d_k, m, n, d_k, c.products);
}

}  // namespace

Status attention_backward_checked(const Config& config, const Inputs& inputs, const Shape& shape, const Result& forward,
                                  View<float> d_output, View<float> d_weights, Gradients* gradients) {
  const int n = shape.n, m = shape.m, d = shape.d_model, d_k = shape.d_k, d_v = shape.d_v, heads = shape.heads;
  const std::size_t nm = static_cast<std::size_t>(n) * m;
  Gradients& g = *gradients;
  const Ops& ops = ops_for(config.arithmetic);
  // The projections' inputs, with positions added as in forward pass 0.
  const PositionedInputs positioned = with_positions(config, inputs, shape);
  // Gradients reaching x and the context through the positions pass on unchanged (pass 0 adds a
  // constant), so the projections' input gradients go straight into dx and d_context.
  float* dx = g.x.empty() ? nullptr : g.x.data();
  float* d_context = shape.self ? dx : g.context.empty() ? nullptr : g.context.data();
  std::vector<float> scratch;
  ProductScratch products;  // this call's own: the backward pass keeps nothing between calls
  const BackwardCall call{inputs,
                          shape,
                          ops,
                          &products,
                          scratch,
                          !g.wq.empty() || !g.bq.empty() || dx != nullptr,
                          !g.wk.empty() || !g.bk.empty() || d_context != nullptr,
                          !g.wv.empty() || !g.bv.empty() || d_context != nullptr};
  ProjectionBackward project_backward{ops, &products, d, scratch};

  std::vector<float> d_concat_storage;
  const float* d_concat = output_backward(call, forward, d_output, g, d_concat_storage);

  std::vector<float> d_attention(nm), dq(static_cast<std::size_t>(n) * d_k), dk(static_cast<std::size_t>(m) * d_k),
      dv(static_cast<std::size_t>(m) * d_v);
  // grouped heads: a key/value head's dk and dv summed over the query heads that share it
  const int group = heads / shape.kv_heads;
  std::vector<float> dk_group(group > 1 ? dk.size() : 0), dv_group(group > 1 ? dv.size() : 0);
  // rotary positions: the rotation's transpose takes dq and dk back to the projections
  const int dims = config.rotary.dims;
  std::vector<double> rotary_cos, rotary_sin;
  if (dims > 0) rotary_tables(config.rotary, std::max(n, m), &rotary_cos, &rotary_sin);
  for (int h = 0; h < heads; ++h) {
    attend_head_backward(call, forward.heads[h], d_concat + static_cast<std::size_t>(h) * d_v,
                         d_weights.present ? d_weights.data + h * nm : nullptr, d_attention, dq, dk, dv);

    // backward pass 1b: the rotation of q (k's below, once for its group), then pass 1: q's projection
    if (call.want_q && dims > 0) rotate_rows(dq.data(), n, d_k, dims, rotary_cos.data(), rotary_sin.data(), true);
    if (call.want_q) project_backward(positioned.x, n, inputs.wq, inputs.bq, h, d_k, dq.data(), g.wq, g.bq, dx);

    // k and v: this head's share added to its group's; at the group's last head, through the
    // rotation of k and the projections of key/value head kv
    if (group > 1) {
      if (h % group == 0) {
        std::fill(dk_group.begin(), dk_group.end(), 0.0f);
        std::fill(dv_group.begin(), dv_group.end(), 0.0f);
      }
      if (call.want_k) add_into(dk_group.data(), dk.data(), dk.size());
      if (call.want_v) add_into(dv_group.data(), dv.data(), dv.size());
      if (h % group != group - 1) continue;
    }
    const int kv = kv_head_of(shape, h);
    float* dk_kv = group > 1 ? dk_group.data() : dk.data();
    float* dv_kv = group > 1 ? dv_group.data() : dv.data();
    if (call.want_k && dims > 0) rotate_rows(dk_kv, m, d_k, dims, rotary_cos.data(), rotary_sin.data(), true);
    if (call.want_k)
      project_backward(positioned.context, m, inputs.wk, inputs.bk, kv, d_k, dk_kv, g.wk, g.bk, d_context);
    if (call.want_v)
      project_backward(positioned.context, m, inputs.wv, inputs.bv, kv, d_v, dv_kv, g.wv, g.bv, d_context);
  }

  for (const std::vector<float>* gradient :
       {&g.x, &g.context, &g.wq, &g.wk, &g.wv, &g.wo, &g.bq, &g.bk, &g.bv, &g.bo}) {
    if (!all_finite(gradient->data(), gradient->size())) {
      return Status::Range("dOutput",
                           "the gradients overflow float32; dOutput, dWeights or the inputs are too large "
                           "in magnitude");
    }
  }
  return Status::Ok();
}

}  // namespace attn
