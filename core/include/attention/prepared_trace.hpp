// A prepared stack's traced run (prepared_stack.hpp has the stack): the forward pass of
// prepared_stack_forward, keeping what a reader of a real model looks at and nothing of the MLP:
// per block the attention probabilities of every head, what attention read and gave, the stream out;
// for one chosen block attention's whole trace (q, k, v, scores, scaled, weights, z per head, concat);
// and the last position's logits. The weights stay as prepared: nothing is copied per run but the
// activations kept.
//
// The same arithmetic as prepared_stack_forward (the same steps; attention takes its traced path,
// attention.cpp's, on the same panels), so the stream and the output agree with it and with
// stack_forward to float32 rounding; tests/core/test_transformer.cpp states the bound.
#pragma once

#include <functional>
#include <vector>

#include "attention/prepared_stack.hpp"

namespace attn {

// L · h · n² attention probabilities at most (64 MB of float32): a traced run refuses more tokens.
constexpr std::size_t kMaxTracedWeights = kMaxMatrixValues;

struct PreparedTraceOptions {
  int open_layer = -1;      // the block whose attention is traced in full; -1 none
  bool last_logits = true;  // the last position's logits (a stack with an unembedding)
  int blocks = -1;          // run blocks 0 … blocks − 1 only (no final norm, no logits); -1 all
};

struct PreparedLayerTrace {
  std::vector<float> attention_input;       // (n, d) what attention read: norm1's output in a pre-norm block
  std::vector<std::vector<float>> weights;  // h of (n, n): each head's attention probabilities
  std::vector<float> attention_output;      // (n, d) attention's output, before the residual
  std::vector<float> output;                // (n, d) the stream out of the block
};

struct PreparedStackTrace {
  int n = 0;
  std::vector<float> embeddings;  // (n, d) the stream into block 0
  std::vector<PreparedLayerTrace> layers;
  int open_layer = -1;
  Result open;                     // open_layer's attention with the whole trace; empty when none
  std::vector<float> output;       // (n, d) after the final norm
  std::vector<float> last_logits;  // (V) when asked and the stack has an unembedding
};

// Given to prepared_stack_trace: called after each block with that block's trace, which the next block
// overwrites (read or copy it before returning). Returning false stops the run (field "trace").
using PreparedLayerSink = std::function<bool(int block, const PreparedLayerTrace& layer)>;

// The traced forward pass on ids (or x), as prepared_stack_forward takes them. Also refuses
// open_layer outside -1 … L − 1 (field "openLayer"), blocks outside -1 … L (field "blocks") and
// L · h · n² above kMaxTracedWeights (field "ids"). With blocks < L the trace holds those blocks only,
// and output and last_logits stay empty: the first block drawn before the rest are run.
// With `sink`, trace->layers stays empty: each block's trace goes to sink instead, in one
// PreparedLayerTrace reused block after block (one block's trace held at a time, not L).
Status prepared_stack_trace(const PreparedStack& stack, const StackInputs& inputs, View<float> x,
                            const PreparedTraceOptions& options, PreparedStackTrace* trace, StackWorkspace* workspace,
                            const PreparedLayerSink& sink = {});

}  // namespace attn
