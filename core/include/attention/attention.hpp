// Scaled dot-product attention and multi-head attention with every intermediate kept.
//
// Letters used throughout the core:
//   n queries (rows of x), m keys/values (rows of the context), d_model width of a token vector,
//   h heads, g key/value heads (grouped-query attention; g = h unless kv_heads is given),
//   d_k query/key width per head, d_v value width per head, d_out width of the output.
// Storage is float32, row-major. Weight tensors are head-major: wq is h blocks of (d_model, d_k),
// wk is g blocks of (d_model, d_k).
//
// As real models have it (Llama, Mistral, Qwen2), besides the biases and masks:
//   - grouped-query attention: g = kv_heads key/value heads, g dividing h; query head i reads key/value
//     head i / (h / g) (query heads 0 … h/g − 1 share key/value head 0, and so on). g = 1 is multi-query
//     attention, g = h the usual multi-head attention (the same bits as without kv_heads).
//   - rotary positions (RoPE, Su et al. 2021), the rotate-half convention of GPT-NeoX and Llama (as
//     layers.hpp's rope_apply): after the projection and its bias, the first r = rotary.dims features of
//     every head's q and k are rotated in pairs (c, c + r/2), c < r/2, by the angle
//     position · theta^(−2c/r), row i of x (and of the context) being at position first_position + i:
//       q'_c = q_c cos − q_{c+r/2} sin,   q'_{c+r/2} = q_{c+r/2} cos + q_c sin;  the rest copied.
//   - a sliding window (Mistral, Qwen2), on top of the mask mode: with window = w > 0, key j is visible
//     to query i only when i − j < w, rows counted from 0 (transformers' masking_utils:
//     sliding_window_overlay keeps kv_idx > q_idx − sliding_window, and Mistral's and Qwen2's sliding
//     mask is that AND the causal mask kv_idx <= q_idx). So with mask 'causal' query i sees keys
//     i − w + 1 … i (w keys, itself included); with mask 'none' it also sees every later key; with a
//     keep-mask, the keys both the mask and the window keep.
//
// Nothing here aborts or throws: every entry point returns a Status, and a failed call leaves the
// result untouched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

// Size caps, so that a hostile or mistaken request is refused before any allocation.
constexpr int kMaxTokens = 4096;  // n and m
constexpr int kMaxWidth = 4096;   // d_model, d_k, d_v
constexpr int kMaxHeads = 64;
constexpr std::size_t kMaxMatrixValues = 1u << 24;  // any one weight tensor, or h·n·m of a trace

enum class ErrorKind { None, Range, Type };

struct Status {
  ErrorKind kind = ErrorKind::None;
  std::string field;    // the argument at fault, in the JavaScript API's spelling ("dModel", "wq")
  std::string message;  // a full sentence that names the field and the values

  bool ok() const { return kind == ErrorKind::None; }
  static Status Ok() { return {}; }
  static Status Range(std::string field, std::string message);
  static Status Type(std::string field, std::string message);
};

// A read-only view of a caller's buffer. `present` distinguishes "omitted" from "given but empty".
// validate() also takes a view with a size and no data, and then checks the size alone: a binding
// asks it before copying anything in. attention_forward needs the data.
template <typename T>
struct View {
  const T* data = nullptr;
  std::size_t size = 0;
  bool present = false;

  View() = default;
  View(const T* data_, std::size_t size_) : data(data_), size(size_), present(true) {}
  View(const std::vector<T>& values) : View(values.data(), values.size()) {}  // NOLINT: implicit on purpose
};

enum class ScaleMode { SqrtDk, None, Divisor };
enum class MaskMode { None, Causal, Keep };
// Added to x, and to the context by the context's own positions, before the projections.
//   Sinusoidal (Vaswani et al. 2017): pe(pos, 2i) = sin(pos / 10000^(2i/d_model)), pe(pos, 2i+1) = cos(…).
enum class PositionMode { None, Sinusoidal };
// Fast: each build's best products and softmax. Portable: the same bits on every build (the panel
// gemm, whose scalar and SIMD micro-kernels add in the same order, and one polynomial exp), for
// the trainer's "same seed, same weights" promise.
enum class Arithmetic { Fast, Portable };

// RoPE, rotate-half convention (GPT-NeoX, Llama), as layers.hpp's Rope.
struct Rotary {
  int dims = 0;          // rotated features per head (even, <= d_k); 0: no rotation
  double theta = 10000;  // above 1
  // position of row 0 of x (and of the context), up to kMaxPosition; the KV-cache lessons use it
  int first_position = 0;
};

struct Config {
  int n = 0;
  int m = 0;  // 0: self-attention, m = n and the context is x
  int d_model = 0;
  int heads = 1;
  int d_k = 0;  // 0: d_model / heads
  int d_v = 0;  // 0: d_k
  ScaleMode scale_mode = ScaleMode::SqrtDk;
  double scale_divisor = 1;  // used with ScaleMode::Divisor
  MaskMode mask_mode = MaskMode::None;
  PositionMode positions = PositionMode::None;
  Arithmetic arithmetic = Arithmetic::Fast;
  int kv_heads = 0;  // 0: heads. Must divide heads. Query head i uses key/value head i / (heads / kv_heads)
  Rotary rotary;     // applied to q and k of every head after projection and bias, before the scores
  int window = 0;    // 0: none. Key j is visible to query i only when i − j < window (see the top)
};

// The largest rotary.first_position: every angle then stays below 2^19 radians, where the core's own
// sin and cos (without libm, core/src/elementary.hpp) hold.
constexpr int kMaxPosition = 1 << 18;

struct Inputs {
  View<float> x;            // (n, d_model)
  View<float> context;      // (m, d_model); omitted: x (self-attention)
  View<float> wq;           // (h, d_model, d_k); omitted: identity, needs h = 1 and d_k = d_model
  View<float> wk;           // (g, d_model, d_k); omitted: identity, as wq
  View<float> wv;           // (g, d_model, d_v); omitted: identity, needs h = 1 and d_v = d_model
  View<float> wo;           // (h·d_v, d_model); omitted: the output is the concatenation
  View<float> bq;           // (h, d_k); omitted: zero. Added after the projection.
  View<float> bk;           // (g, d_k); omitted: zero
  View<float> bv;           // (g, d_v); omitted: zero
  View<float> bo;           // (d_model); omitted: zero; needs wo
  View<std::uint8_t> keep;  // (n, m), 1 keep and 0 masked; only with MaskMode::Keep
};

// The model after defaults are applied; produced by validate().
struct Shape {
  int n, m, d_model, heads, d_k, d_v, d_out;
  bool self;     // the context is x
  double scale;  // the scores are divided by this
  int kv_heads;  // g: key/value heads, dividing heads
};

// heads[h].k and .v are those of h's key/value head (the same for the heads of a group).
struct HeadTrace {
  std::vector<float> q;                         // (n, d_k), rotated when rotary.dims > 0
  std::vector<float> k;                         // (m, d_k), rotated when rotary.dims > 0
  std::vector<float> v;                         // (m, d_v)
  std::vector<float> scores;                    // (n, m)  q·kᵀ
  std::vector<float> scaled;                    // (n, m)  scores / scale, -inf where masked
  std::vector<float> weights;                   // (n, m)  row softmax of scaled; a fully masked row is all zero
  std::vector<float> z;                         // (n, d_v) weights·v
  std::vector<float> q_unrotated, k_unrotated;  // q and k before the rotation; only with rotary.dims > 0
};

struct Result {
  Shape shape{};
  std::vector<float> output;             // (n, d_out): concat·wo, or concat when wo is omitted
  std::vector<float> concat;             // (n, h·d_v); only with the trace
  std::vector<HeadTrace> heads;          // h entries with the trace, none without
  std::vector<float> positions_x;        // (n, d_model) added to x; only with the trace and positions
  std::vector<float> positions_context;  // (m, d_model) added to the context; cross-attention only
};

// The dense products' scratch (core/src/ops.hpp): b packed into panels, a into strips, aᵀ copied
// out. Each buffer grows to the largest product it has served and stays so.
struct ProductScratch {
  std::vector<float> panels, strips, transposed;
};

// The buffers a forward pass works in, owned by the caller as llm.c's activations are: kept call
// after call, so that once a size has been seen a call allocates and zero-fills nothing. There is no
// hidden state in the core: a workspace serves one call at a time, and calls that may overlap (two
// engines, two prepared models, two threads) each pass their own. What it holds between calls means
// nothing to the caller.
struct Workspace {
  ProductScratch products;
  std::vector<float> x_strips, context_strips;  // x and the context packed once for every head's projections
  std::vector<float> w_panels;                  // one head's weights packed (a model not prepared)
  std::vector<float> k_panels, v_panels;        // a head's k and v packed once for every block of queries
  std::vector<float> row_max, inv_sum;          // a block's row maxima and 1 / sums
  std::vector<std::uint8_t> visible;            // (n, m) the keep-mask and the window combined (window > 0)
  std::vector<double> rotary_cos, rotary_sin;   // (rows, rotary.dims / 2) each row's angles
  std::vector<float> concat;                    // (n, h·d_v)
  HeadTrace head;                               // one head's buffers, reused by every head without the trace
  std::vector<float> spare_output;              // the output buffer the caller's previous result gave back
};

// Checks every argument before any work and derives the shape. Errors name the field and the values.
Status validate(const Config& config, const Inputs& inputs, bool trace, Shape* shape);

// The forward pass. With trace, every intermediate is kept; without, only output (and the shape),
// and at most one head's (n, m) matrix exists at a time. `workspace`: the caller's buffers, or null
// for buffers of this call alone.
Status attention_forward(const Config& config, const Inputs& inputs, bool trace, Result* result,
                         Workspace* workspace = nullptr);

// The gradient of L = Σ d_output ⊙ output + Σ d_weights ⊙ weights with respect to every input
// present. Each vector must be sized like its input and zeroed (or holding earlier gradients) by
// the caller: attention_backward adds into it with +=. An empty vector is a gradient not wanted,
// and the work only it needs is skipped; absent inputs stay empty.
struct Gradients {
  std::vector<float> x, context, wq, wk, wv, wo, bq, bk, bv, bo;
};

// wk, bk, wv, bv's gradients are sized like their (g, …) inputs: a key/value head's gradient sums those of
// the query heads that share it.
// Gradients sized like the inputs present and zeroed, ready for attention_backward.
Gradients zero_gradients(const Shape& shape, const Inputs& inputs);

// attention_backward's argument checks without a forward pass: validate(), then d_output (n, d_out)
// and d_weights (h, n, m). Views without data are checked for their sizes alone.
Status validate_backward(const Config& config, const Inputs& inputs, View<float> d_output, View<float> d_weights,
                         Shape* shape);

// The backward pass. `forward` is attention_forward's result for the same config and inputs, with
// the trace. d_output: (n, d_out), required. d_weights: (h, n, m), optional.
Status attention_backward(const Config& config, const Inputs& inputs, const Result& forward, View<float> d_output,
                          View<float> d_weights, Gradients* gradients);

// The sinusoidal encoding of positions 0..rows-1: (rows, d_model), added to a row per position.
std::vector<float> sinusoidal_positions(int rows, int d_model);

// A model run many times (self-attention, mask 'none' or 'causal'; kv_heads, rotary and window as
// attention_forward takes them): prepare_model checks the
// config and the weights once, as validate() would on a one-token x, and derives the shape;
// attention_forward_prepared then checks only x (n = x.size / d_model, finite) and runs the
// trace-free forward pass: the same code, so the same bits as attention_forward.
// `packed` receives the weights in the gemm's panel layout (in builds with the SIMD gemm; empty
// otherwise), so that runs skip packing them, as the prepared weights of ONNX Runtime do.
struct PackedWeights {
  std::vector<float> wq, wk, wv, wo;  // head-major blocks of packed panels
};
Status prepare_model(const Config& config, const Inputs& weights, Shape* shape, PackedWeights* packed);
Status attention_forward_prepared(const Config& config, const Inputs& inputs, const Shape& prepared,
                                  const PackedWeights& packed, Result* result, Workspace* workspace = nullptr);

struct Weights {
  std::vector<float> wq, wk, wv, wo;
};

// Xavier/Glorot uniform weights from splitmix64(seed), filled in the order wq, wk, wv, wo.
// Bit-identical on every IEEE-754 platform (native and WebAssembly): only exact integer work,
// a correctly rounded sqrt, and one rounding to float per value.
Status init_weights(int d_model, int heads, int d_k, int d_v, std::uint64_t seed, Weights* weights);

}  // namespace attn
