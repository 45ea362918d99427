// A stack's trace as JavaScript reads it ({ n, embedded, embeddings, layers[l]: { input, attention:
// { heads[h]: { q, k, v, scores, scaled, weights, z } … }, … }, output, logits }; docs/api.md),
// shared by engine.transformer() (transformer.cpp) and the stack trainer (stack_trainer.cpp).
#pragma once

#include <emscripten/val.h>

#include "attention/transformer.hpp"

namespace attn_bindings {

// heads: with each head's matrices (else `heads` is empty)
emscripten::val stack_trace_out(const attn::StackTrace& trace, bool heads);

}  // namespace attn_bindings
