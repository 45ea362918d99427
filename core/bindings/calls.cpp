// The binding of attention(), initWeights() and, in the learning engines, gradients(): plain C
// functions on numbers and pointers, no embind, so that the page's engine carries none of embind's
// JavaScript (6 KB gzipped of glue). Convert, call, copy out: web/lib/attention.mjs (callWithArrays)
// writes a request block, asks attn_check() (attn_check_gradients()) with the lengths alone, copies
// the arrays into memory from malloc, calls attn_attention() (attn_gradients()), copies the arrays
// of the Output out and frees it.
#include <emscripten/emscripten.h>
#include <emscripten/stack.h>
#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "attention/attention.hpp"
#ifdef ATTN_LEARNING
#include "attention/modern.hpp"
#endif

namespace {

// The request block (attn_request): the scalars in this order, then one (address, length) pair per
// array in the order of `Array`. Length -1: the array is omitted; address 0 with a length: the size
// alone, which validate() checks before anything is copied. attention.mjs keeps the same two lists.
enum Slot {
  kN,
  kM,
  kDModel,
  kHeads,
  kDK,
  kDV,
  kScaleMode,
  kScaleDivisor,
  kMaskMode,
  kPositions,
  kTrace,
  kKvHeads,
  kRotaryDims,
  kRotaryTheta,
  kRotaryFirstPosition,
  kWindow,
  kArraySlots
};
enum Array { kX, kContext, kWq, kWk, kWv, kWo, kBq, kBk, kBv, kBo, kKeep, kDOutput, kDWeights, kArrayCount };
double request[kArraySlots + 2 * kArrayCount];

// What a call hands back: the arrays JavaScript copies out, in the order it reads them, and the shape
// (n, m, dModel, heads, dK, dV, dOut, scale, self, kvHeads).
struct Output {
  attn::Result result;
  attn::Weights weights;
  attn::Gradients gradients;
#ifdef ATTN_LEARNING
  attn::FlashResult flash;
  attn::KvStep step;
  std::vector<float> key_positions;  // the step's, as numbers JavaScript copies out
#endif
  std::vector<const std::vector<float>*> arrays;
  double shape[16] = {};
};

attn::Status last_error;  // the last failed call's, read by attn_error_* and then cleared
// The engine's forward passes work here: once a size has been seen, a call allocates only its
// Output. One per engine (a module instance), whose calls never overlap.
attn::Workspace workspace;

template <typename T>
attn::View<T> view_of(Array which) {
  const double address = request[kArraySlots + 2 * which], length = request[kArraySlots + 2 * which + 1];
  if (length < 0) return {};
  return attn::View<T>(reinterpret_cast<const T*>(static_cast<std::uintptr_t>(address)),
                       static_cast<std::size_t>(length));
}

attn::Config config_of_request() {
  attn::Config config;
  config.n = static_cast<int>(request[kN]);
  config.m = static_cast<int>(request[kM]);
  config.d_model = static_cast<int>(request[kDModel]);
  config.heads = static_cast<int>(request[kHeads]);
  config.d_k = static_cast<int>(request[kDK]);
  config.d_v = static_cast<int>(request[kDV]);
  config.scale_mode = static_cast<attn::ScaleMode>(request[kScaleMode]);
  config.scale_divisor = request[kScaleDivisor];
  config.mask_mode = static_cast<attn::MaskMode>(request[kMaskMode]);
  config.positions = static_cast<attn::PositionMode>(request[kPositions]);
  config.kv_heads = static_cast<int>(request[kKvHeads]);
  config.rotary.dims = static_cast<int>(request[kRotaryDims]);
  config.rotary.theta = request[kRotaryTheta];
  config.rotary.first_position = static_cast<int>(request[kRotaryFirstPosition]);
  config.window = static_cast<int>(request[kWindow]);
  return config;
}

attn::Inputs inputs_of_request() {
  attn::Inputs inputs;
  attn::View<float>* floats[] = {&inputs.x,  &inputs.context, &inputs.wq, &inputs.wk, &inputs.wv,
                                 &inputs.wo, &inputs.bq,      &inputs.bk, &inputs.bv, &inputs.bo};
  for (int which = kX; which < kKeep; ++which) *floats[which] = view_of<float>(static_cast<Array>(which));
  inputs.keep = view_of<std::uint8_t>(kKeep);
  return inputs;
}

// The Output's arrays for a forward Result: output, concat, positions x and context, then per head q, k,
// v, scores, scaled, weights, z, q and k before the rotation; and the shape's first 10 numbers.
void list_result(Output* out) {
  const attn::Result& r = out->result;
  const attn::Shape& s = r.shape;
  const double shape[] = {double(s.n),   double(s.m),     double(s.d_model), double(s.heads),    double(s.d_k),
                          double(s.d_v), double(s.d_out), s.scale,           s.self ? 1.0 : 0.0, double(s.kv_heads)};
  std::copy(shape, shape + 10, out->shape);
  out->arrays.insert(out->arrays.end(), {&r.output, &r.concat, &r.positions_x, &r.positions_context});
  for (const attn::HeadTrace& head : r.heads) {
    out->arrays.insert(out->arrays.end(), {&head.q, &head.k, &head.v, &head.scores, &head.scaled, &head.weights,
                                           &head.z, &head.q_unrotated, &head.k_unrotated});
  }
}

// 0 when the status is ok, else 1 for a type error and 2 for a range error (kept for attn_error_*).
int report(attn::Status status) {
  if (status.ok()) return 0;
  last_error = std::move(status);
  return last_error.kind == attn::ErrorKind::Type ? 1 : 2;
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE double* attn_request() { return request; }

// The request's sizes and values checked (views without data: sizes alone); 0 or an error kind.
EMSCRIPTEN_KEEPALIVE int attn_check() {
  attn::Shape shape{};
  return report(attn::validate(config_of_request(), inputs_of_request(), request[kTrace] != 0, &shape));
}

// The forward pass on the request: an Output (output, then with the trace concat, positions x and
// context, and q, k, v, scores, scaled, weights, z, q and k before the rotation (empty without it) of
// each head), or null on an error.
EMSCRIPTEN_KEEPALIVE Output* attn_attention() {
  auto* out = new Output;
  if (report(attn::attention_forward(config_of_request(), inputs_of_request(), request[kTrace] != 0, &out->result,
                                     &workspace))) {
    delete out;
    return nullptr;
  }
  list_result(out);
  return out;
}

// Seeded weights: an Output of wq, wk, wv, wo, or null on an error.
EMSCRIPTEN_KEEPALIVE Output* attn_init_weights(int d_model, int heads, int d_k, int d_v, double seed) {
  auto* out = new Output;
  if (report(attn::init_weights(d_model, heads, d_k, d_v, static_cast<std::uint64_t>(seed), &out->weights))) {
    delete out;
    return nullptr;
  }
  out->arrays = {&out->weights.wq, &out->weights.wk, &out->weights.wv, &out->weights.wo};
  return out;
}

#ifdef ATTN_LEARNING
// A gradients() request's sizes and values checked (views without data: sizes alone), with dOutput
// and dWeights; 0 or an error kind.
EMSCRIPTEN_KEEPALIVE int attn_check_gradients() {
  attn::Shape shape{};
  return report(attn::validate_backward(config_of_request(), inputs_of_request(), view_of<float>(kDOutput),
                                        view_of<float>(kDWeights), &shape));
}

// The gradient of Σ dOutput ⊙ output + Σ dWeights ⊙ weights with respect to every input present:
// an Output of output, then the gradients of x, context, wq, wk, wv, wo, bq, bk, bv, bo (empty where
// the input is omitted), or null on an error. Only in the learning engines: the page's engine
// carries no backward pass.
EMSCRIPTEN_KEEPALIVE Output* attn_gradients() {
  auto* out = new Output;
  const attn::Config config = config_of_request();
  const attn::Inputs inputs = inputs_of_request();
  attn::Status status = attn::attention_forward(config, inputs, /*trace=*/true, &out->result, &workspace);
  if (status.ok()) {
    out->gradients = attn::zero_gradients(out->result.shape, inputs);
    status = attn::attention_backward(config, inputs, out->result, view_of<float>(kDOutput), view_of<float>(kDWeights),
                                      &out->gradients);
  }
  if (report(std::move(status))) {
    delete out;
    return nullptr;
  }
  const attn::Gradients& g = out->gradients;
  out->arrays = {&out->result.output, &g.x, &g.context, &g.wq, &g.wk, &g.wv, &g.wo, &g.bq, &g.bk, &g.bv, &g.bo};
  return out;
}

// FlashAttention's tiled forward on the request (modern.hpp): an Output of the exact pass's arrays (as
// attn_attention's, with the trace), then per head running max, running sum, rescale, running output,
// z, weights, sink weight; shape[10 …] = tile, tiles, full values, tiled values. Null on an error.
EMSCRIPTEN_KEEPALIVE Output* attn_flash(int tile, const float* sinks, int sinks_length) {
  auto* out = new Output;
  const attn::View<float> sink_view =
      sinks_length < 0 ? attn::View<float>() : attn::View<float>(sinks, static_cast<std::size_t>(sinks_length));
  if (report(attn::flash_forward(config_of_request(), inputs_of_request(), tile, sink_view, &out->flash))) {
    delete out;
    return nullptr;
  }
  out->result = std::move(out->flash.exact);
  list_result(out);
  const attn::FlashResult& f = out->flash;
  for (const attn::FlashHead& head : f.heads) {
    out->arrays.insert(out->arrays.end(), {&head.running_max, &head.running_sum, &head.rescale, &head.running_output,
                                           &head.z, &head.weights, &head.sink_weight});
  }
  const double more[] = {double(f.tile), double(f.tiles), double(f.full_values), double(f.tiled_values)};
  std::copy(more, more + 4, out->shape + 10);
  return out;
}

// A KV cache on the request's config and weights (the request's x omitted), kept in this instance's
// memory until attn_kv_free; with budget > 0 it evicts (StreamingLLM: the first `sinks` tokens and the
// most recent); null on an error.
EMSCRIPTEN_KEEPALIVE attn::KvCache* attn_kv_start(int capacity, int sinks, int budget) {
  auto* cache = new attn::KvCache;
  if (report(attn::kv_cache_start(config_of_request(), inputs_of_request(), capacity, cache, {sinks, budget}))) {
    delete cache;
    return nullptr;
  }
  return cache;
}

// The prefill's traced causal result, as attn_attention's Output; null on an error.
EMSCRIPTEN_KEEPALIVE Output* attn_kv_prefill(attn::KvCache* cache, const float* x, int length) {
  auto* out = new Output;
  if (report(attn::kv_cache_prefill(cache, attn::View<float>(x, static_cast<std::size_t>(length)), &out->result))) {
    delete out;
    return nullptr;
  }
  list_result(out);
  return out;
}

// One decoded token: an Output of q, k, v, scores, weights, z, output, the positions of the keys read;
// shape = position, first key, multiply-adds, cache values, length, capacity, the full causal pass's
// multiply-adds for every token seen.
EMSCRIPTEN_KEEPALIVE Output* attn_kv_step(attn::KvCache* cache, const float* x, int length) {
  auto* out = new Output;
  if (report(attn::kv_cache_step(cache, attn::View<float>(x, static_cast<std::size_t>(length)), &out->step))) {
    delete out;
    return nullptr;
  }
  const attn::KvStep& st = out->step;
  out->key_positions.assign(st.key_positions.begin(), st.key_positions.end());
  out->arrays = {&st.q, &st.k, &st.v, &st.scores, &st.weights, &st.z, &st.output, &out->key_positions};
  const double shape[] = {double(st.position),
                          double(st.first_key),
                          st.multiply_adds,
                          st.cache_values,
                          double(cache->length),
                          double(cache->capacity),
                          attn::causal_multiply_adds(*cache, cache->decoded)};
  std::copy(shape, shape + 7, out->shape);
  return out;
}

EMSCRIPTEN_KEEPALIVE int attn_kv_length(const attn::KvCache* cache) { return cache->length; }
EMSCRIPTEN_KEEPALIVE void attn_kv_free(attn::KvCache* cache) { delete cache; }
#endif

EMSCRIPTEN_KEEPALIVE int attn_output_count(const Output* out) { return static_cast<int>(out->arrays.size()); }
EMSCRIPTEN_KEEPALIVE const float* attn_output_data(const Output* out, int i) { return out->arrays[i]->data(); }
EMSCRIPTEN_KEEPALIVE int attn_output_size(const Output* out, int i) { return static_cast<int>(out->arrays[i]->size()); }
EMSCRIPTEN_KEEPALIVE const double* attn_output_shape(const Output* out) { return out->shape; }
EMSCRIPTEN_KEEPALIVE void attn_output_free(Output* out) { delete out; }

EMSCRIPTEN_KEEPALIVE int attn_error_kind() { return last_error.kind == attn::ErrorKind::Type ? 1 : 2; }
EMSCRIPTEN_KEEPALIVE const char* attn_error_field() { return last_error.field.c_str(); }
EMSCRIPTEN_KEEPALIVE const char* attn_error_message() { return last_error.message.c_str(); }
// Frees the last error's text once read, so that failed calls leave the heap as they found it.
EMSCRIPTEN_KEEPALIVE void attn_error_clear() { last_error = attn::Status(); }

// 0: scalar build, 1: SIMD, 2: SIMD with relaxed SIMD's fused multiply-add (ATTN_RELAXED_SIMD)
EMSCRIPTEN_KEEPALIVE int attn_has_simd() {
#if defined(ATTN_RELAXED_SIMD)
  return 2;
#elif defined(__wasm_simd128__)
  return 1;
#else
  return 0;
#endif
}

// Bytes malloc has handed out and not taken back, for the tests that check the heap stays steady.
EMSCRIPTEN_KEEPALIVE int attn_allocated_bytes() { return static_cast<int>(mallinfo().uordblks); }
EMSCRIPTEN_KEEPALIVE int attn_stack_pointer() { return static_cast<int>(emscripten_stack_get_current()); }

}  // extern "C"
