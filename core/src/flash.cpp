// FlashAttention's tiled online softmax with its per-tile trace, and a sink logit per head (modern.hpp).
// q, k and v come from attention_forward's trace on the same arguments (projected, biased, rotated);
// the scores, the running statistics and the output are computed here, tile by tile, in float32.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attention/modern.hpp"
#include "elementary.hpp"
#include "validate.hpp"

namespace attn {
namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

// e^x for x <= 0 in float64, rounded once to float32; 0 below e^−708 (far below float32's smallest).
float exp_float(float x) {
  if (!(x > -708.0f)) return 0.0f;
  return static_cast<float>(exp_nonpositive(std::min(0.0, static_cast<double>(x))));
}

Status check_flash(const Config& config, int tile, const View<float>& sinks, const Shape& shape) {
  if (tile < 1 || tile > kMaxTile) {
    return Status::Range(
        "tile", "tile must be a whole number from 1 to " + std::to_string(kMaxTile) + ", got " + std::to_string(tile));
  }
  const int tiles = (shape.m + tile - 1) / tile;
  const double values = static_cast<double>(shape.heads) * shape.n * tiles * (shape.d_v + 3);
  if (values > static_cast<double>(kMaxMatrixValues)) {
    return Status::Range("tile", "the per-tile trace (heads · n · tiles · (dV + 3) = " + format_number(values) +
                                     " values) is larger than " + std::to_string(kMaxMatrixValues) +
                                     "; use a larger tile or fewer tokens");
  }
  if (!sinks.present) return Status::Ok();
  if (!sinks.data && sinks.size) return Status::Type("sinks", "sinks has a size but no data");
  if (sinks.size != static_cast<std::size_t>(config.heads)) {
    return Status::Range("sinks", "sinks must hold one logit per head (" + std::to_string(config.heads) + "), got " +
                                      std::to_string(sinks.size));
  }
  for (std::size_t h = 0; h < sinks.size; ++h) {
    if (std::isnan(sinks.data[h]) || sinks.data[h] == std::numeric_limits<float>::infinity()) {
      return Status::Range("sinks", "sinks[" + std::to_string(h) + "] must be a number or -Infinity, got " +
                                        format_number(sinks.data[h]));
    }
  }
  return Status::Ok();
}

// One head's rows, tile by tile. `mask`: the traced `scaled` scores (−∞ where masked), read for the mask
// alone; the scores themselves are this function's own products.
void flash_head(const Shape& s, int tile, int tiles, float sink, const HeadTrace& exact, FlashHead* out) {
  const int n = s.n, m = s.m, d_k = s.d_k, d_v = s.d_v;
  const float inv_scale = 1.0f / static_cast<float>(s.scale);
  out->running_max.assign(static_cast<std::size_t>(n) * tiles, 0.0f);
  out->running_sum.assign(out->running_max.size(), 0.0f);
  out->rescale.assign(out->running_max.size(), 0.0f);
  out->running_output.assign(out->running_max.size() * d_v, 0.0f);
  out->z.assign(static_cast<std::size_t>(n) * d_v, 0.0f);
  out->weights.assign(static_cast<std::size_t>(n) * m, 0.0f);
  out->sink_weight.assign(n, 0.0f);
  std::vector<float> s_row(m), o(d_v);
  for (int i = 0; i < n; ++i) {
    const float* q = exact.q.data() + static_cast<std::size_t>(i) * d_k;
    float m_run = sink, l_run = sink == kMinusInf ? 0.0f : 1.0f;
    std::fill(o.begin(), o.end(), 0.0f);
    for (int t = 0; t < tiles; ++t) {
      const int first = t * tile, last = std::min(m, first + tile);
      float tile_max = kMinusInf;
      for (int j = first; j < last; ++j) {
        if (exact.scaled[static_cast<std::size_t>(i) * m + j] == kMinusInf) {
          s_row[j] = kMinusInf;
          continue;
        }
        const float* k = exact.k.data() + static_cast<std::size_t>(j) * d_k;
        float dot = 0.0f;
        for (int c = 0; c < d_k; ++c) dot += q[c] * k[c];
        s_row[j] = dot * inv_scale;
        tile_max = std::max(tile_max, s_row[j]);
      }
      const float m_new = std::max(m_run, tile_max);
      const float r = m_new == kMinusInf ? 1.0f : exp_float(m_run - m_new);
      l_run *= r;
      for (float& value : o) value *= r;
      for (int j = first; j < last && m_new != kMinusInf; ++j) {
        const float p = exp_float(s_row[j] - m_new);
        if (p == 0.0f) continue;
        l_run += p;
        const float* v = exact.v.data() + static_cast<std::size_t>(j) * d_v;
        for (int c = 0; c < d_v; ++c) o[c] += p * v[c];
      }
      m_run = m_new;
      const std::size_t at = static_cast<std::size_t>(i) * tiles + t;
      out->running_max[at] = m_run;
      out->running_sum[at] = l_run;
      out->rescale[at] = r;
      std::copy(o.begin(), o.end(), out->running_output.begin() + at * d_v);
    }
    if (l_run == 0.0f) continue;  // nothing visible and no sink: the row stays zero, as the exact softmax's
    const float inv_l = 1.0f / l_run;
    for (int c = 0; c < d_v; ++c) out->z[static_cast<std::size_t>(i) * d_v + c] = o[c] * inv_l;
    for (int j = 0; j < m; ++j) out->weights[static_cast<std::size_t>(i) * m + j] = exp_float(s_row[j] - m_run) * inv_l;
    out->sink_weight[i] = sink == kMinusInf ? 0.0f : exp_float(sink - m_run) * inv_l;
  }
}

}  // namespace

Status flash_forward(const Config& config, const Inputs& inputs, int tile, View<float> sinks, FlashResult* result) {
  Shape shape{};
  if (Status s = validate(config, inputs, /*trace=*/true, &shape); !s.ok()) return s;
  if (Status s = check_flash(config, tile, sinks, shape); !s.ok()) return s;
  FlashResult out;
  if (Status s = attention_forward(config, inputs, /*trace=*/true, &out.exact); !s.ok()) return s;
  out.shape = shape;
  out.tile = tile;
  out.tiles = (shape.m + tile - 1) / tile;
  out.heads.resize(shape.heads);
  for (int h = 0; h < shape.heads; ++h) {
    const float sink = sinks.present ? sinks.data[h] : kMinusInf;
    flash_head(shape, tile, out.tiles, sink, out.exact.heads[h], &out.heads[h]);
  }
  out.full_values = static_cast<std::size_t>(shape.n) * shape.m;
  out.tiled_values = static_cast<std::size_t>(shape.n) * (std::min(tile, shape.m) + 2 + shape.d_v);
  *result = std::move(out);
  return Status::Ok();
}

}  // namespace attn
