// Attention as it is computed today, exactly, for the lab's chapters (issue 25): FlashAttention's
// tiled online softmax with its per-tile trace, a sink logit per head (gpt-oss; "softmax + 1"), and a
// KV cache that decodes one token at a time. Learning builds and the native core only.
//
// Both take attention_forward's Config and Inputs (self-attention; grouped heads, rotary positions and
// the sliding window as attention.hpp has them) and check them with validate(): errors name the field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention/attention.hpp"

namespace attn {

constexpr int kMaxTile = kMaxTokens;

// ---- FlashAttention's online softmax (Dao et al. 2022; the accumulator of FlashAttention-2) ----
// Per head, per query row i, over the keys in tiles of B (tile t holds keys tB … tB + B − 1), in
// float32 as the GPU kernels keep their running statistics:
//   s_j     = (q_i · k_j) · (1 / scale), −∞ where masked (mask mode, keep-mask, window)
//   m_new   = max(m_old, max_j s_j)                      running maximum
//   r       = e^(m_old − m_new)                          the rescaling of what was summed so far
//   ℓ_new   = r · ℓ_old + Σ_j e^(s_j − m_new)            running sum
//   o_new   = r · o_old + Σ_j e^(s_j − m_new) · v_j      running output (not yet divided by ℓ)
// starting from m = −∞, ℓ = 0, o = 0, or with a sink logit σ from m = σ, ℓ = 1 (e^(σ − σ)), o = 0:
// the sink is one more key whose value is zero. After the last tile z_i = o / ℓ. Before any visible
// key m is −∞ and r is written as 1 (nothing summed yet, nothing to rescale). e^x is exp_nonpositive
// in float64 rounded once to float32, so the same bits on every build.
struct FlashHead {
  std::vector<float> running_max;     // (n, tiles) m after tile t
  std::vector<float> running_sum;     // (n, tiles) ℓ after tile t
  std::vector<float> rescale;         // (n, tiles) e^(m_old − m_new) of tile t
  std::vector<float> running_output;  // (n, tiles, d_v) o after tile t
  std::vector<float> z;               // (n, d_v) o / ℓ after the last tile; 0 for a row with nothing visible
  std::vector<float> weights;         // (n, m) e^(s_ij − m) / ℓ with the final m and ℓ (the recomputation)
  std::vector<float> sink_weight;     // (n) e^(σ − m) / ℓ: what the row parks on the sink (0 without)
};

struct FlashResult {
  Shape shape{};
  int tile = 0, tiles = 0;
  std::vector<FlashHead> heads;
  Result exact;  // attention_forward's traced result on the same arguments (q, k, v, the exact weights, z)
  // what one head holds at a time: the full (n, m) scores, against one tile's scores (n, B) plus the
  // running m, ℓ (n each) and o (n, d_v)
  std::size_t full_values = 0, tiled_values = 0;
};

// sinks: omitted, or one logit per head (h); −∞ allowed (no sink), +∞ and NaN refused. Setting every
// sink to 0 is "softmax + 1" (Miller 2023): the denominator gains e^0 = 1.
Status flash_forward(const Config& config, const Inputs& inputs, int tile, View<float> sinks, FlashResult* result);

// ---- The KV cache ----
// Causal self-attention decoded one token at a time. kv_cache_start checks the config (mask 'causal',
// positions 'none', no context; rotary and window allowed) and the weights, and keeps a copy of them;
// kv_cache_prefill runs the full causal pass on the first n tokens and keeps every head's rotated k and
// v; each kv_cache_step then projects one more token at position first_position + (tokens decoded so
// far), appends its k and v, and computes only the new query row against the cached keys (the window's
// last w of them).
//
// StreamingLLM's eviction (Xiao et al. 2023, "Efficient Streaming Language Models with Attention
// Sinks"): with a budget B > 0 the cache keeps at most B tokens, the first `sinks` ones (attention
// sinks) and the B − sinks most recent; a step appends the new token, drops the oldest token after the
// sinks when there are B + 1, and attends over exactly the B kept ones (itself included). Kept keys
// keep the rotation of their own position (the paper re-numbers positions inside the cache instead).
// Prefill runs the full causal pass, then keeps the same way. Not with a window (field 'window').
struct KvEviction {
  int sinks = 0;   // first tokens always kept, 0 <= sinks < budget
  int budget = 0;  // tokens kept; 0: nothing evicted (the cache fills to capacity)
};

struct KvCache {
  Config config;
  Shape shape{};
  int capacity = 0, length = 0;
  std::vector<float> wq, wk, wv, wo, bq, bk, bv, bo;  // copies; empty where omitted
  bool has_wq = false, has_wk = false, has_wv = false, has_wo = false, has_bq = false, has_bk = false, has_bv = false,
       has_bo = false;
  KvEviction eviction;
  int decoded = 0;             // tokens seen (prefilled and decoded); length when nothing is evicted
  int rows = 0;                // rows of k and v held: capacity, one more with eviction (the new token before a drop)
  std::vector<float> k, v;     // (g, rows, d_k) and (g, rows, d_v): rows 0 … length − 1 filled
  std::vector<int> positions;  // (length) the position of each cached row
  Workspace workspace;
  Inputs weights() const;
};

// One step's trace: the new token's row in every head.
struct KvStep {
  int position = 0;                // first_position + index of the new token
  int first_key = 0;               // the first cached key it sees (the window), keys first_key … length − 1
  std::vector<int> key_positions;  // (visible) the position of every key it reads, in the cache's order
  std::vector<float> q;            // (h, d_k) rotated
  std::vector<float> k, v;         // (g, d_k), (g, d_v): the rows appended
  std::vector<float> scores;       // (h, visible) q·kᵀ of the visible cached keys
  std::vector<float> weights;      // (h, visible)
  std::vector<float> z;            // (h, d_v)
  std::vector<float> output;       // (d_out)
  double multiply_adds = 0;        // this step's: projections, scores, weighted sum, output
  double cache_values = 0;         // floats the cache holds after the step: length · g · (d_k + d_v)
};

Status kv_cache_start(const Config& config, const Inputs& weights, int capacity, KvCache* cache,
                      KvEviction eviction = {});
// x: (n, d_model), 1 <= n <= capacity, on an empty cache. `prefill` gets the traced causal result.
Status kv_cache_prefill(KvCache* cache, View<float> x, Result* prefill);
// x_row: (d_model) one token.
Status kv_cache_step(KvCache* cache, View<float> x_row, KvStep* step);

// The multiply-adds of the cache's full causal pass over `tokens` tokens (the projections given, every
// visible score and weighted value, the output projection when given): what producing the last token's
// row costs without a cache, against kv_cache_step's multiply_adds with one.
double causal_multiply_adds(const KvCache& cache, int tokens);

}  // namespace attn
