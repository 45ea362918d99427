#include "reference.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>

namespace ref {
namespace {

using Matrix = std::vector<double>;  // row-major, shape carried by the caller

// y (rows, width) = a (rows, d) · w[head] (d, width) + b[head]; identity when w is empty, no bias
// when b is empty.
Matrix project(const Matrix& a, int rows, int d, const Matrix& w, const Matrix& b, int head, int width) {
  Matrix y(static_cast<std::size_t>(rows) * width, 0.0);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < width; ++c) {
      double sum = 0;
      if (w.empty()) {
        sum = a[static_cast<std::size_t>(r) * d + c];
      } else {
        for (int t = 0; t < d; ++t) {
          sum += a[static_cast<std::size_t>(r) * d + t] * w[(static_cast<std::size_t>(head) * d + t) * width + c];
        }
      }
      if (!b.empty()) sum += b[static_cast<std::size_t>(head) * width + c];
      y[static_cast<std::size_t>(r) * width + c] = sum;
    }
  }
  return y;
}

Matrix widen(const std::vector<float>& v) { return Matrix(v.begin(), v.end()); }

Matrix with_positions(const Matrix& a, int rows, int d) {
  Matrix out = a;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < d; ++c) out[static_cast<std::size_t>(r) * d + c] += sinusoid(r, c, d);
  }
  return out;
}

bool kept(const Problem& p, int i, int j) {
  if (p.window > 0 && i - j >= p.window) return false;  // outside the sliding window
  if (p.mask == Mask::Causal) return j <= i;
  if (p.mask == Mask::Keep) return p.keep[static_cast<std::size_t>(i) * p.m + j] != 0;
  return true;
}

// RoPE, rotate-half, from the definition: in each row r (at position first_position + r), the pair
// (t, t + dims/2) of the first dims columns turns by the angle position / theta^(2t/dims).
Matrix rotated(const Problem& p, const Matrix& a, int rows, int width) {
  Matrix out = a;
  const int half = p.rotary_dims / 2;
  for (int r = 0; r < rows; ++r) {
    for (int t = 0; t < half; ++t) {
      const double angle = (p.first_position + r) / std::pow(p.theta, 2.0 * t / p.rotary_dims);
      const double x1 = a[static_cast<std::size_t>(r) * width + t],
                   x2 = a[static_cast<std::size_t>(r) * width + t + half];
      out[static_cast<std::size_t>(r) * width + t] = x1 * std::cos(angle) - x2 * std::sin(angle);
      out[static_cast<std::size_t>(r) * width + t + half] = x2 * std::cos(angle) + x1 * std::sin(angle);
    }
  }
  return out;
}

}  // namespace

double sinusoid(int pos, int column, int d_model) {
  const int i = column / 2;
  const double angle = pos / std::pow(10000.0, 2.0 * i / d_model);
  return column % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

Values values_of(const Problem& p) {
  return {widen(p.x),  widen(p.context), widen(p.wq), widen(p.wk), widen(p.wv),
          widen(p.wo), widen(p.bq),      widen(p.bk), widen(p.bv), widen(p.bo)};
}

Expected forward(const Problem& p) { return forward(p, values_of(p)); }

Expected forward(const Problem& p, const Values& values) {
  Matrix x = values.x, c = p.cross ? values.context : values.x;
  if (p.positions) {
    x = with_positions(x, p.n, p.d_model);
    c = with_positions(c, p.m, p.d_model);
  }
  const double inf = std::numeric_limits<double>::infinity();
  double divisor = 1;
  if (p.scale == Scale::SqrtDk) divisor = std::sqrt(double(p.d_k));
  if (p.scale == Scale::Divisor) divisor = p.divisor;

  Expected e;
  const int width = p.heads * p.d_v;
  e.concat.assign(static_cast<std::size_t>(p.n) * width, 0.0);
  for (int h = 0; h < p.heads; ++h) {
    Head hd;
    const int kv_heads = p.kv_heads == 0 ? p.heads : p.kv_heads;
    const int g = h * kv_heads / p.heads;  // query heads h of group g: g·heads/kv_heads … (g+1)·heads/kv_heads − 1
    hd.q_unrotated = project(x, p.n, p.d_model, values.wq, values.bq, h, p.d_k);
    hd.k_unrotated = project(c, p.m, p.d_model, values.wk, values.bk, g, p.d_k);
    hd.v = project(c, p.m, p.d_model, values.wv, values.bv, g, p.d_v);
    hd.q = rotated(p, hd.q_unrotated, p.n, p.d_k);
    hd.k = rotated(p, hd.k_unrotated, p.m, p.d_k);
    hd.scores.assign(static_cast<std::size_t>(p.n) * p.m, 0.0);
    hd.scaled = hd.weights = hd.scores;
    hd.z.assign(static_cast<std::size_t>(p.n) * p.d_v, 0.0);
    for (int i = 0; i < p.n; ++i) {
      double best = -inf;
      for (int j = 0; j < p.m; ++j) {
        double dot = 0;
        for (int t = 0; t < p.d_k; ++t) dot += hd.q[i * p.d_k + t] * hd.k[j * p.d_k + t];
        hd.scores[i * p.m + j] = dot;
        hd.scaled[i * p.m + j] = kept(p, i, j) ? dot / divisor : -inf;
        best = std::max(best, hd.scaled[i * p.m + j]);
      }
      double total = 0;
      for (int j = 0; j < p.m; ++j) {
        const double w = best == -inf ? 0.0 : std::exp(hd.scaled[i * p.m + j] - best);
        hd.weights[i * p.m + j] = w;
        total += w;
      }
      for (int j = 0; j < p.m; ++j) {
        if (total > 0) hd.weights[i * p.m + j] /= total;
        for (int t = 0; t < p.d_v; ++t) hd.z[i * p.d_v + t] += hd.weights[i * p.m + j] * hd.v[j * p.d_v + t];
      }
      for (int t = 0; t < p.d_v; ++t) e.concat[i * width + h * p.d_v + t] = hd.z[i * p.d_v + t];
    }
    e.heads.push_back(std::move(hd));
  }
  if (values.wo.empty()) {
    e.output = e.concat;
  } else {
    e.output.assign(static_cast<std::size_t>(p.n) * p.d_model, 0.0);
    for (int i = 0; i < p.n; ++i) {
      for (int c2 = 0; c2 < p.d_model; ++c2) {
        double sum = 0;
        for (int t = 0; t < width; ++t) sum += e.concat[i * width + t] * values.wo[t * p.d_model + c2];
        if (!values.bo.empty()) sum += values.bo[c2];
        e.output[i * p.d_model + c2] = sum;
      }
    }
  }
  return e;
}

attn::Config config_of(const Problem& p) {
  attn::Config c;
  c.n = p.n;
  c.m = p.cross ? p.m : 0;
  c.d_model = p.d_model;
  c.heads = p.heads;
  c.d_k = p.d_k;
  c.d_v = p.d_v;
  c.scale_mode = p.scale == Scale::SqrtDk ? attn::ScaleMode::SqrtDk
                 : p.scale == Scale::None ? attn::ScaleMode::None
                                          : attn::ScaleMode::Divisor;
  c.scale_divisor = p.divisor;
  c.positions = p.positions ? attn::PositionMode::Sinusoidal : attn::PositionMode::None;
  c.mask_mode = p.mask == Mask::None     ? attn::MaskMode::None
                : p.mask == Mask::Causal ? attn::MaskMode::Causal
                                         : attn::MaskMode::Keep;
  c.kv_heads = p.kv_heads;
  c.rotary.dims = p.rotary_dims;
  c.rotary.theta = p.theta;
  c.rotary.first_position = p.first_position;
  c.window = p.window;
  return c;
}

attn::Inputs inputs_of(const Problem& p) {
  attn::Inputs in;
  in.x = p.x;
  if (p.cross) in.context = p.context;
  if (!p.wq.empty()) in.wq = p.wq;
  if (!p.wk.empty()) in.wk = p.wk;
  if (!p.wv.empty()) in.wv = p.wv;
  if (!p.wo.empty()) in.wo = p.wo;
  if (!p.bq.empty()) in.bq = p.bq;
  if (!p.bk.empty()) in.bk = p.bk;
  if (!p.bv.empty()) in.bv = p.bv;
  if (!p.bo.empty()) in.bo = p.bo;
  if (p.mask == Mask::Keep) in.keep = p.keep;
  return in;
}

void check_close(const std::string& what, const std::vector<float>& got, const std::vector<double>& want, int cols,
                 double atol, double rtol) {
  REQUIRE_MESSAGE(got.size() == want.size(), what << ": " << got.size() << " values, expected " << want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    const bool ok = std::isinf(w) ? g == w : std::fabs(g - w) <= std::max(atol, rtol * std::fabs(w));
    if (!ok) {
      std::ostringstream where;
      where.precision(10);
      where << what << " (" << got.size() / cols << " x " << cols << ") at [" << i / cols << "][" << i % cols
            << "]: got " << g << ", reference " << w << ", |diff| " << std::fabs(g - w);
      FAIL_CHECK(where.str());
      return;
    }
  }
}

Problem random_problem(std::uint64_t seed, int n, int m, int d_model, int heads, int d_k, int d_v, bool cross,
                       bool with_wo, Scale scale, Mask mask) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  auto fill = [&](std::size_t count, float spread) {
    std::vector<float> v(count);
    for (float& x : v) x = unit(rng) * spread;
    return v;
  };
  Problem p;
  p.n = n;
  p.m = cross ? m : n;
  p.d_model = d_model;
  p.heads = heads;
  p.d_k = d_k;
  p.d_v = d_v;
  p.cross = cross;
  p.scale = scale;
  p.divisor = 0.75;
  p.mask = mask;
  const float spread = 1.7f / std::sqrt(float(d_model));  // keeps projections O(1)
  p.x = fill(std::size_t(n) * d_model, 1.0f);
  if (cross) p.context = fill(std::size_t(p.m) * d_model, 1.0f);
  p.wq = fill(std::size_t(heads) * d_model * d_k, spread);
  p.wk = fill(std::size_t(heads) * d_model * d_k, spread);
  p.wv = fill(std::size_t(heads) * d_model * d_v, spread);
  if (with_wo) p.wo = fill(std::size_t(heads) * d_v * d_model, 1.0f / std::sqrt(float(heads * d_v)));
  if (mask == Mask::Keep) {
    p.keep.resize(std::size_t(n) * p.m);
    for (auto& k : p.keep) k = (rng() % 4) != 0;  // about a quarter masked
    for (int j = 0; j < p.m; ++j) p.keep[j] = 0;  // row 0 fully masked: the zero-row case every time
  }
  return p;
}

void add_biases(Problem* p, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> unit(-0.5f, 0.5f);
  auto fill = [&](std::size_t count) {
    std::vector<float> v(count);
    for (float& x : v) x = unit(rng);
    return v;
  };
  p->bq = fill(std::size_t(p->heads) * p->d_k);
  p->bk = fill(std::size_t(p->heads) * p->d_k);
  p->bv = fill(std::size_t(p->heads) * p->d_v);
  if (!p->wo.empty()) p->bo = fill(std::size_t(p->d_model));
}

void group_heads(Problem* p, int kv_heads, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  auto fill = [&](std::size_t count, float spread) {
    std::vector<float> v(count);
    for (float& x : v) x = unit(rng) * spread;
    return v;
  };
  p->kv_heads = kv_heads;
  const float spread = 1.7f / std::sqrt(float(p->d_model));
  if (!p->wk.empty()) p->wk = fill(std::size_t(kv_heads) * p->d_model * p->d_k, spread);
  if (!p->wv.empty()) p->wv = fill(std::size_t(kv_heads) * p->d_model * p->d_v, spread);
  if (!p->bk.empty()) p->bk = fill(std::size_t(kv_heads) * p->d_k, 0.5f);
  if (!p->bv.empty()) p->bv = fill(std::size_t(kv_heads) * p->d_v, 0.5f);
}

}  // namespace ref
