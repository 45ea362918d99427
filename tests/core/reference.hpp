// An independent float64 reference for multi-head attention, written from the definition with
// plain loops and nothing shared with the core. Tests compare the core against it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention/attention.hpp"

namespace ref {

enum class Scale { SqrtDk, None, Divisor };
enum class Mask { None, Causal, Keep };

// A complete problem, owned. Empty weight vectors mean "omitted" (identity / no output projection).
struct Problem {
  int n = 0, m = 0, d_model = 0, heads = 1, d_k = 0, d_v = 0;  // all explicit here
  bool cross = false;
  Scale scale = Scale::SqrtDk;
  double divisor = 1;
  Mask mask = Mask::None;
  bool positions = false;  // sinusoidal positions added to x and the context
  int kv_heads = 0;        // key/value heads (wk, wv, bk, bv hold this many blocks); 0: heads
  int rotary_dims = 0;     // RoPE (rotate-half) on the first rotary_dims features of q and k; 0: none
  double theta = 10000;
  int first_position = 0;  // position of row 0
  int window = 0;          // sliding window: key j visible to query i only when i - j < window; 0: none
  std::vector<float> x, context, wq, wk, wv, wo;
  std::vector<float> bq, bk, bv, bo;  // empty: omitted (zero)
  std::vector<std::uint8_t> keep;
};

// The problem's numbers in float64, for finite differences that perturb them without rounding.
struct Values {
  std::vector<double> x, context, wq, wk, wv, wo, bq, bk, bv, bo;
};
Values values_of(const Problem& p);

struct Head {
  std::vector<double> q, k, v, scores, scaled, weights, z;
  std::vector<double> q_unrotated, k_unrotated;  // before RoPE (q and k are after it)
};

struct Expected {
  std::vector<Head> heads;
  std::vector<double> concat, output;
};

Expected forward(const Problem& p);
// The same forward on float64 values (p gives the sizes, modes and which inputs are present).
Expected forward(const Problem& p, const Values& values);

// The sinusoidal encoding written from the paper: pe(pos, 2i) = sin(pos / 10000^(2i/d)),
// pe(pos, 2i+1) = cos(pos / 10000^(2i/d)).
double sinusoid(int pos, int column, int d_model);

// The problem as the core's arguments (views into p).
attn::Config config_of(const Problem& p);
attn::Inputs inputs_of(const Problem& p);

// |got - want| <= max(atol, rtol·|want|) everywhere; -inf must match -inf. On failure the message
// names the matrix, its shape, and the first bad index.
void check_close(const std::string& what, const std::vector<float>& got, const std::vector<double>& want, int cols,
                 double atol, double rtol);

// A random problem with the given sizes: values uniform in [-1, 1), weights with 1/sqrt(d_model) spread.
Problem random_problem(std::uint64_t seed, int n, int m, int d_model, int heads, int d_k, int d_v, bool cross,
                       bool with_wo, Scale scale, Mask mask);
// Adds random biases bq, bk, bv and (with wo) bo.
void add_biases(Problem* p, std::uint64_t seed);
// Groups the key/value heads: wk, wv (and bk, bv when present) redrawn with kv_heads blocks.
void group_heads(Problem* p, int kv_heads, std::uint64_t seed);

}  // namespace ref
