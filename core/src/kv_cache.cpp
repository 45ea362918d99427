// The KV cache (modern.hpp): a causal self-attention layer decoded one token at a time. The step runs
// the products of the chosen arithmetic (ops_for) on one row, as attention_forward runs them on all.
#include <algorithm>
#include <string>
#include <vector>

#include "attention/modern.hpp"
#include "attention_common.hpp"
#include "ops.hpp"
#include "validate.hpp"

namespace attn {
namespace {

void keep(const View<float>& view, std::vector<float>* copy, bool* present) {
  *present = view.present;
  if (view.present) copy->assign(view.data, view.data + view.size);
}

View<float> view_of(const std::vector<float>& values, bool present) {
  return present ? View<float>(values) : View<float>();
}

// y (width) = x (d_model) · w_head + b_head, or x itself when w is omitted (then width = d_model).
void project_row(const Ops& ops, Workspace& ws, const float* x, int d_model, const View<float>& w, const View<float>& b,
                 int head, int width, float* y) {
  if (w.present) {
    ops.matmul(x, d_model, w.data + static_cast<std::size_t>(head) * d_model * width, width, y, width, 1, d_model,
               width, &ws.products);
  } else {
    std::copy(x, x + d_model, y);
  }
  if (b.present) add_row_to_each(b.data + static_cast<std::size_t>(head) * width, 1, width, y);
}

Status check_eviction(const Config& config, KvEviction eviction, int capacity) {
  if (eviction.budget == 0 && eviction.sinks == 0) return Status::Ok();
  if (eviction.budget < 1 || eviction.budget > capacity) {
    return Status::Range("budget", "budget must be a whole number from 1 to capacity (" + std::to_string(capacity) +
                                       "), got " + std::to_string(eviction.budget));
  }
  if (eviction.sinks < 0 || eviction.sinks >= eviction.budget) {
    return Status::Range("sinks", "sinks must be a whole number from 0 to budget − 1 (" +
                                      std::to_string(eviction.budget - 1) + "), got " + std::to_string(eviction.sinks));
  }
  if (config.window > 0) {
    return Status::Range("window", "a cache that evicts keeps its own keys: window must be 0 with a budget");
  }
  return Status::Ok();
}

Status check_start(const Config& config, const Inputs& weights, int capacity) {
  if (config.mask_mode != MaskMode::Causal) {
    return Status::Range("mask", "the KV cache decodes causal self-attention: mask must be 'causal'");
  }
  if (config.positions != PositionMode::None) {
    return Status::Range("positions",
                         "the KV cache takes rotary positions (rotary.dims) only: positions must be 'none'");
  }
  if (weights.context.present)
    return Status::Type("context", "the KV cache is self-attention: context must be omitted");
  if (weights.x.present) return Status::Type("x", "x is given to prefill() and step(), not when the cache starts");
  if (capacity < 1 || capacity > kMaxTokens) {
    return Status::Range("capacity", "capacity must be a whole number from 1 to " + std::to_string(kMaxTokens) +
                                         ", got " + std::to_string(capacity));
  }
  return Status::Ok();
}

}  // namespace

Inputs KvCache::weights() const {
  Inputs in;
  in.wq = view_of(wq, has_wq);
  in.wk = view_of(wk, has_wk);
  in.wv = view_of(wv, has_wv);
  in.wo = view_of(wo, has_wo);
  in.bq = view_of(bq, has_bq);
  in.bk = view_of(bk, has_bk);
  in.bv = view_of(bv, has_bv);
  in.bo = view_of(bo, has_bo);
  return in;
}

Status kv_cache_start(const Config& config, const Inputs& weights, int capacity, KvCache* cache, KvEviction eviction) {
  if (Status s = check_start(config, weights, capacity); !s.ok()) return s;
  if (Status s = check_eviction(config, eviction, capacity); !s.ok()) return s;
  Config one = config;
  one.n = 1;
  one.m = 0;
  Inputs probe = weights;
  const std::vector<float> zero_row(std::max(config.d_model, 0), 0.0f);
  probe.x = View<float>(zero_row);
  Shape shape{};
  if (Status s = validate(one, probe, /*trace=*/true, &shape); !s.ok()) return s;
  const double values = static_cast<double>(shape.kv_heads) * capacity * (shape.d_k + shape.d_v);
  if (values > static_cast<double>(kMaxMatrixValues)) {
    return Status::Range("capacity", "the cache (kvHeads · capacity · (dK + dV) = " + format_number(values) +
                                         " values) is larger than " + std::to_string(kMaxMatrixValues));
  }
  KvCache out;
  out.config = config;
  out.shape = shape;
  out.capacity = capacity;
  out.eviction = eviction;
  out.rows = capacity + (eviction.budget > 0 ? 1 : 0);
  keep(weights.wq, &out.wq, &out.has_wq);
  keep(weights.wk, &out.wk, &out.has_wk);
  keep(weights.wv, &out.wv, &out.has_wv);
  keep(weights.wo, &out.wo, &out.has_wo);
  keep(weights.bq, &out.bq, &out.has_bq);
  keep(weights.bk, &out.bk, &out.has_bk);
  keep(weights.bv, &out.bv, &out.has_bv);
  keep(weights.bo, &out.bo, &out.has_bo);
  out.k.assign(static_cast<std::size_t>(shape.kv_heads) * out.rows * shape.d_k, 0.0f);
  out.v.assign(static_cast<std::size_t>(shape.kv_heads) * out.rows * shape.d_v, 0.0f);
  *cache = std::move(out);
  return Status::Ok();
}

namespace {

// Drops cached row `row`: the rows after it move down one, in every key/value head.
void drop_row(KvCache* cache, int row) {
  const Shape& s = cache->shape;
  for (int g = 0; g < s.kv_heads; ++g) {
    float* k = cache->k.data() + static_cast<std::size_t>(g) * cache->rows * s.d_k;
    float* v = cache->v.data() + static_cast<std::size_t>(g) * cache->rows * s.d_v;
    std::copy(k + static_cast<std::size_t>(row + 1) * s.d_k, k + static_cast<std::size_t>(cache->length) * s.d_k,
              k + static_cast<std::size_t>(row) * s.d_k);
    std::copy(v + static_cast<std::size_t>(row + 1) * s.d_v, v + static_cast<std::size_t>(cache->length) * s.d_v,
              v + static_cast<std::size_t>(row) * s.d_v);
  }
  cache->positions.erase(cache->positions.begin() + row);
  cache->length -= 1;
}

// StreamingLLM's cut: while over budget, the oldest token after the sinks goes.
void evict(KvCache* cache) {
  if (cache->eviction.budget == 0) return;
  while (cache->length > cache->eviction.budget) drop_row(cache, cache->eviction.sinks);
}

}  // namespace

Status kv_cache_prefill(KvCache* cache, View<float> x, Result* prefill) {
  const Shape& s = cache->shape;
  if (cache->length != 0)
    return Status::Range("x", "prefill() needs an empty cache; it holds " + std::to_string(cache->length) + " tokens");
  if (!x.present || x.size == 0 || x.size % s.d_model != 0) {
    return Status::Range("x", "x must hold whole rows of dModel (" + std::to_string(s.d_model) + ") values, got " +
                                  std::to_string(x.size));
  }
  const int n = static_cast<int>(x.size / s.d_model);
  if (n > cache->capacity) {
    return Status::Range("x", "x has " + std::to_string(n) + " tokens, more than the cache's capacity (" +
                                  std::to_string(cache->capacity) + ")");
  }
  Config config = cache->config;
  config.n = n;
  config.m = 0;
  Inputs inputs = cache->weights();
  inputs.x = x;
  Result result;
  if (Status st = attention_forward(config, inputs, /*trace=*/true, &result, &cache->workspace); !st.ok()) return st;
  const int group = s.heads / s.kv_heads;
  for (int g = 0; g < s.kv_heads; ++g) {
    const HeadTrace& head = result.heads[g * group];
    std::copy(head.k.begin(), head.k.end(), cache->k.begin() + static_cast<std::size_t>(g) * cache->rows * s.d_k);
    std::copy(head.v.begin(), head.v.end(), cache->v.begin() + static_cast<std::size_t>(g) * cache->rows * s.d_v);
  }
  cache->length = n;
  cache->decoded = n;
  cache->positions.resize(n);
  for (int i = 0; i < n; ++i) cache->positions[i] = config.rotary.first_position + i;
  evict(cache);
  *prefill = std::move(result);
  return Status::Ok();
}

namespace {

// q (h, d_k) of the new token, and its k (g, d_k) and v (g, d_v) written into the cache's row `row`
// (not yet counted in length); q and k rotated at `position`.
void project_token(KvCache* cache, const float* x, int row, int position, KvStep* out) {
  const Shape& s = cache->shape;
  const Ops& ops = ops_for(cache->config.arithmetic);
  const Inputs w = cache->weights();
  Workspace& ws = cache->workspace;
  Rotary rotary = cache->config.rotary;
  rotary.first_position = position;
  if (rotary.dims > 0) rotary_tables(rotary, 1, &ws.rotary_cos, &ws.rotary_sin);
  out->q.resize(static_cast<std::size_t>(s.heads) * s.d_k);
  out->k.resize(static_cast<std::size_t>(s.kv_heads) * s.d_k);
  out->v.resize(static_cast<std::size_t>(s.kv_heads) * s.d_v);
  for (int h = 0; h < s.heads; ++h) {
    float* q = out->q.data() + static_cast<std::size_t>(h) * s.d_k;
    project_row(ops, ws, x, s.d_model, w.wq, w.bq, h, s.d_k, q);
    if (rotary.dims > 0) rotate_rows(q, 1, s.d_k, rotary.dims, ws.rotary_cos.data(), ws.rotary_sin.data(), false);
  }
  for (int g = 0; g < s.kv_heads; ++g) {
    float* k = out->k.data() + static_cast<std::size_t>(g) * s.d_k;
    float* v = out->v.data() + static_cast<std::size_t>(g) * s.d_v;
    project_row(ops, ws, x, s.d_model, w.wk, w.bk, g, s.d_k, k);
    if (rotary.dims > 0) rotate_rows(k, 1, s.d_k, rotary.dims, ws.rotary_cos.data(), ws.rotary_sin.data(), false);
    project_row(ops, ws, x, s.d_model, w.wv, w.bv, g, s.d_v, v);
    std::copy(k, k + s.d_k, cache->k.begin() + (static_cast<std::size_t>(g) * cache->rows + row) * s.d_k);
    std::copy(v, v + s.d_v, cache->v.begin() + (static_cast<std::size_t>(g) * cache->rows + row) * s.d_v);
  }
}

// Every head's new row against the cached rows `visible` (ascending), then the output. The rows are
// gathered into one block per key/value head: the same values, so the same arithmetic as reading the
// cache in place.
void attend_token(KvCache* cache, const std::vector<int>& visible_rows, KvStep* out) {
  const Shape& s = cache->shape;
  const Ops& ops = ops_for(cache->config.arithmetic);
  Workspace& ws = cache->workspace;
  const int visible = static_cast<int>(visible_rows.size()), group = s.heads / s.kv_heads;
  out->scores.resize(static_cast<std::size_t>(s.heads) * visible);
  out->weights.resize(out->scores.size());
  out->z.resize(static_cast<std::size_t>(s.heads) * s.d_v);
  std::vector<float> k(static_cast<std::size_t>(visible) * s.d_k), v(static_cast<std::size_t>(visible) * s.d_v);
  for (int h = 0; h < s.heads; ++h) {
    const std::size_t g = static_cast<std::size_t>(h / group);
    if (h % group == 0) {
      for (int r = 0; r < visible; ++r) {
        const std::size_t row = g * cache->rows + visible_rows[r];
        std::copy_n(cache->k.data() + row * s.d_k, s.d_k, k.data() + static_cast<std::size_t>(r) * s.d_k);
        std::copy_n(cache->v.data() + row * s.d_v, s.d_v, v.data() + static_cast<std::size_t>(r) * s.d_v);
      }
    }
    float* scores = out->scores.data() + static_cast<std::size_t>(h) * visible;
    float* weights = out->weights.data() + static_cast<std::size_t>(h) * visible;
    ops.matmul_transb(out->q.data() + static_cast<std::size_t>(h) * s.d_k, s.d_k, k.data(), s.d_k, scores, visible, 1,
                      s.d_k, visible, &ws.products);
    std::copy(scores, scores + visible, weights);
    ops.softmax_scaled_rows(weights, 1, visible, static_cast<float>(s.scale), false, nullptr);
    ops.matmul(weights, visible, v.data(), s.d_v, out->z.data() + static_cast<std::size_t>(h) * s.d_v, s.d_v, 1,
               visible, s.d_v, &ws.products);
  }
  if (cache->has_wo) {
    out->output.resize(s.d_model);
    ops.matmul(out->z.data(), s.heads * s.d_v, cache->wo.data(), s.d_model, out->output.data(), s.d_model, 1,
               s.heads * s.d_v, s.d_model, &ws.products);
    if (cache->has_bo) add_row_to_each(cache->bo.data(), 1, s.d_model, out->output.data());
  } else {
    out->output = out->z;
  }
}

// The rows the new token (cached at `row`) reads: the window's last w, or with eviction the sinks and
// the most recent budget − sinks (itself included), or every row.
std::vector<int> visible_rows(const KvCache& cache, int row) {
  std::vector<int> rows;
  const int budget = cache.eviction.budget, sinks = cache.eviction.sinks;
  int first = cache.config.window > 0 ? std::max(0, row + 1 - cache.config.window) : 0;
  if (budget > 0 && row + 1 > budget) {
    for (int r = 0; r < sinks; ++r) rows.push_back(r);
    first = row + 1 - (budget - sinks);
  }
  for (int r = first; r <= row; ++r) rows.push_back(r);
  return rows;
}

double projection_multiply_adds(const KvCache& c) {
  const Shape& s = c.shape;
  return static_cast<double>(s.d_model) * ((c.has_wq ? s.heads * s.d_k : 0) + (c.has_wk ? s.kv_heads * s.d_k : 0) +
                                           (c.has_wv ? s.kv_heads * s.d_v : 0) + (c.has_wo ? s.heads * s.d_v : 0));
}

}  // namespace

Status kv_cache_step(KvCache* cache, View<float> x_row, KvStep* step) {
  const Shape& s = cache->shape;
  if (!x_row.present || !x_row.data || x_row.size != static_cast<std::size_t>(s.d_model)) {
    return Status::Range("x", "x must be one token of dModel (" + std::to_string(s.d_model) + ") values, got " +
                                  std::to_string(x_row.size));
  }
  if (!all_finite(x_row.data, x_row.size)) return Status::Range("x", "x holds a value that is not a finite number");
  if (cache->eviction.budget == 0 && cache->length >= cache->capacity) {
    return Status::Range("capacity",
                         "the cache is full: it holds capacity (" + std::to_string(cache->capacity) + ") tokens");
  }
  KvStep out;
  const int row = cache->length;
  out.position = cache->config.rotary.first_position + cache->decoded;
  project_token(cache, x_row.data, row, out.position, &out);
  const std::vector<int> rows = visible_rows(*cache, row);
  out.first_key = rows.front();
  attend_token(cache, rows, &out);
  // the row written past `length` is not counted until the step succeeds: a failed step leaves the cache as it was
  if (!all_finite(out.output.data(), out.output.size()) || !all_finite(out.q.data(), out.q.size()) ||
      !all_finite(out.k.data(), out.k.size())) {
    return Status::Range("x",
                         "this token's projections or output overflow float32; the inputs or weights are too large");
  }
  out.multiply_adds = projection_multiply_adds(*cache) +
                      static_cast<double>(s.heads) * static_cast<double>(rows.size()) * (s.d_k + s.d_v);
  cache->positions.push_back(out.position);
  for (int r : rows) out.key_positions.push_back(cache->positions[r]);
  cache->length = row + 1;
  cache->decoded += 1;
  evict(cache);
  out.cache_values = static_cast<double>(cache->length) * s.kv_heads * (s.d_k + s.d_v);
  *step = std::move(out);
  return Status::Ok();
}

double causal_multiply_adds(const KvCache& cache, int tokens) {
  const Shape& s = cache.shape;
  double seen = 0;
  for (int i = 0; i < tokens; ++i) seen += cache.config.window > 0 ? std::min(i + 1, cache.config.window) : i + 1;
  return tokens * projection_multiply_adds(cache) + static_cast<double>(s.heads) * seen * (s.d_k + s.d_v);
}

}  // namespace attn
