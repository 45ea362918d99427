// Argument checks for attention_forward and init_weights. Every message names the field (in the
// JavaScript API's spelling) and the values that are wrong, so the page can mark the right input.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>

#include "attention/attention.hpp"
#include "ops.hpp"
#include "validate.hpp"

namespace attn {

Status Status::Range(std::string field, std::string message) {
  return {ErrorKind::Range, std::move(field), std::move(message)};
}
Status Status::Type(std::string field, std::string message) {
  return {ErrorKind::Type, std::move(field), std::move(message)};
}

namespace {

std::string str(long long value) { return std::to_string(value); }

Status check_count(const char* field, int value, int cap, const char* cap_what) {
  if (value < 1) return Status::Range(field, std::string(field) + " must be at least 1, got " + str(value));
  if (value > cap) {
    return Status::Range(field,
                         std::string(field) + " (" + str(value) + ") is above the cap of " + str(cap) + " " + cap_what);
  }
  return Status::Ok();
}

// rows × cols values expected in `values`, each finite. A view with a size and no data (the binding's
// check before it copies anything) has its size checked alone.
Status check_matrix(const char* field, const View<float>& values, long long blocks, long long rows, long long cols,
                    const std::string& shape_text) {
  const unsigned long long expected = static_cast<unsigned long long>(blocks * rows * cols);
  if (expected > kMaxMatrixValues) {
    return Status::Range(field, std::string(field) + " would hold " + shape_text + " = " + str(expected) +
                                    " values, above the cap of " + str(kMaxMatrixValues));
  }
  if (values.size != expected) {
    return Status::Range(field, std::string(field) + " has " + str(values.size) + " values; expected " + shape_text +
                                    " = " + str(expected));
  }
  if (values.data == nullptr || all_finite(values.data, values.size)) return Status::Ok();
  for (std::size_t i = 0; i < values.size; ++i) {  // find the first bad value, to name it
    if (!std::isfinite(values.data[i])) {
      // heads, rows and columns counted from 1, as the page's tables, head tabs and messages count
      // them; the index in brackets counts from 0, as the array's own index does
      const long long col = static_cast<long long>(i) % cols;
      const long long row = (static_cast<long long>(i) / cols) % rows;
      std::string where = "row " + str(row + 1) + ", column " + str(col + 1);
      if (blocks > 1) where = "head " + str(static_cast<long long>(i) / (rows * cols) + 1) + ", " + where;
      where += ", counting from 1";
      return Status::Range(field, std::string(field) + "[" + str(i) + "] (" + where + ") is " +
                                      format_number(values.data[i]) + "; every value must be a finite number");
    }
  }
  return Status::Ok();
}

Status check_identity(const char* field, const char* width_name, int width, const Shape& shape) {
  if (shape.heads == 1 && width == shape.d_model) return Status::Ok();
  return Status::Range(field, std::string(field) + " is omitted, which means the identity, but heads is " +
                                  str(shape.heads) + " and " + width_name + " is " + str(width) + " with dModel " +
                                  str(shape.d_model) + "; the identity needs heads = 1 and " + width_name +
                                  " = dModel, otherwise give " + field);
}

}  // namespace

bool all_finite(const float* values, std::size_t count) { return ops::all_finite(values, count); }

Status validate_model_sizes(int d_model, int heads, int d_k_given, int d_v_given, int* d_k, int* d_v) {
  if (Status s = check_count("dModel", d_model, kMaxWidth, "values per token"); !s.ok()) return s;
  if (Status s = check_count("heads", heads, kMaxHeads, "heads"); !s.ok()) return s;
  if (d_k_given < 0) return Status::Range("dK", "dK must be at least 1, got " + str(d_k_given));
  if (d_v_given < 0) return Status::Range("dV", "dV must be at least 1, got " + str(d_v_given));
  if (d_k_given == 0) {
    if (d_model % heads != 0) {
      return Status::Range(
          "dModel", "dModel (" + str(d_model) + ") is not divisible by heads (" + str(heads) + "); give dK explicitly");
    }
    d_k_given = d_model / heads;
  }
  if (Status s = check_count("dK", d_k_given, kMaxWidth, "values per head"); !s.ok()) return s;
  if (d_v_given == 0) d_v_given = d_k_given;
  if (Status s = check_count("dV", d_v_given, kMaxWidth, "values per head"); !s.ok()) return s;
  const unsigned long long projection = 1ull * heads * d_model * std::max(d_k_given, d_v_given);
  if (projection > kMaxMatrixValues) {
    return Status::Range("heads", "heads × dModel × max(dK, dV) = " + str(heads) + " × " + str(d_model) + " × " +
                                      str(std::max(d_k_given, d_v_given)) + " = " + str(projection) +
                                      " weights per projection, above the cap of " + str(kMaxMatrixValues));
  }
  *d_k = d_k_given;
  *d_v = d_v_given;
  return Status::Ok();
}

namespace {

// n and m (m = n for self-attention), then the model's sizes with their defaults applied.
Status check_sizes(const Config& config, const Inputs& inputs, Shape* shape) {
  if (Status s = check_count("n", config.n, kMaxTokens, "tokens"); !s.ok()) return s;
  shape->n = config.n;
  shape->self = !inputs.context.present;
  if (shape->self) {
    if (config.m != 0 && config.m != config.n) {
      return Status::Range("m", "m (" + str(config.m) + ") differs from n (" + str(config.n) +
                                    ") but no context was given; m is the number of context rows");
    }
    shape->m = config.n;
  } else {
    if (Status s = check_count("m", config.m, kMaxTokens, "tokens"); !s.ok()) return s;
    shape->m = config.m;
  }
  if (Status s = validate_model_sizes(config.d_model, config.heads, config.d_k, config.d_v, &shape->d_k, &shape->d_v);
      !s.ok()) {
    return s;
  }
  shape->d_model = config.d_model;
  shape->heads = config.heads;
  if (config.kv_heads < 0 || config.kv_heads > config.heads ||
      (config.kv_heads > 0 && config.heads % config.kv_heads != 0)) {
    return Status::Range("kvHeads", "kvHeads (" + str(config.kv_heads) + ") must divide heads (" + str(config.heads) +
                                        "): each key/value head serves heads / kvHeads query heads; 1 is "
                                        "multi-query attention, heads (or 0) the usual multi-head attention");
  }
  shape->kv_heads = config.kv_heads == 0 ? config.heads : config.kv_heads;
  shape->d_out = inputs.wo.present ? shape->d_model : shape->heads * shape->d_v;
  return Status::Ok();
}

// x, the context, and the weights wq, wk, wv (or the identity in their place) and wo.
Status check_inputs_and_weights(const Inputs& inputs, const Shape& shape) {
  const std::string n_text = "n × dModel = " + str(shape.n) + " × " + str(shape.d_model);
  if (!inputs.x.present) return Status::Type("x", "x is required: n × dModel numbers");
  if (Status s = check_matrix("x", inputs.x, 1, shape.n, shape.d_model, n_text); !s.ok()) return s;
  if (!shape.self) {
    const std::string m_text = "m × dModel = " + str(shape.m) + " × " + str(shape.d_model);
    if (Status s = check_matrix("context", inputs.context, 1, shape.m, shape.d_model, m_text); !s.ok()) return s;
  }

  const std::string hdk =
      "heads × dModel × dK = " + str(shape.heads) + " × " + str(shape.d_model) + " × " + str(shape.d_k);
  // wk and wv hold the key/value heads: kvHeads blocks (kvHeads = heads unless given)
  const bool grouped = shape.kv_heads != shape.heads;
  const std::string kv_blocks = grouped ? "kvHeads" : "heads";
  const std::string gdk =
      kv_blocks + " × dModel × dK = " + str(shape.kv_heads) + " × " + str(shape.d_model) + " × " + str(shape.d_k);
  const std::string gdv =
      kv_blocks + " × dModel × dV = " + str(shape.kv_heads) + " × " + str(shape.d_model) + " × " + str(shape.d_v);
  struct Projection {
    const char* field;
    const View<float>& values;
    int blocks;
    const char* width_name;
    int width;
    const std::string& text;
  };
  const Projection projections[] = {{"wq", inputs.wq, shape.heads, "dK", shape.d_k, hdk},
                                    {"wk", inputs.wk, shape.kv_heads, "dK", shape.d_k, gdk},
                                    {"wv", inputs.wv, shape.kv_heads, "dV", shape.d_v, gdv}};
  for (const Projection& p : projections) {
    Status s = p.values.present ? check_matrix(p.field, p.values, p.blocks, shape.d_model, p.width, p.text)
                                : check_identity(p.field, p.width_name, p.width, shape);
    if (!s.ok()) return s;
  }
  if (inputs.wo.present) {
    const std::string wo_text = "(heads·dV) × dModel = " + str(shape.heads * shape.d_v) + " × " + str(shape.d_model);
    if (Status s = check_matrix("wo", inputs.wo, 1, 1ll * shape.heads * shape.d_v, shape.d_model, wo_text); !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

Status check_biases(const Inputs& inputs, const Shape& shape) {
  const std::string bq_text = "heads × dK = " + str(shape.heads) + " × " + str(shape.d_k);
  const std::string kv_blocks = shape.kv_heads != shape.heads ? "kvHeads" : "heads";
  const std::string bk_text = kv_blocks + " × dK = " + str(shape.kv_heads) + " × " + str(shape.d_k);
  const std::string bv_text = kv_blocks + " × dV = " + str(shape.kv_heads) + " × " + str(shape.d_v);
  struct Bias {
    const char* field;
    const View<float>& values;
    int blocks;
    int width;
    const std::string& text;
  };
  const Bias biases[] = {{"bq", inputs.bq, shape.heads, shape.d_k, bq_text},
                         {"bk", inputs.bk, shape.kv_heads, shape.d_k, bk_text},
                         {"bv", inputs.bv, shape.kv_heads, shape.d_v, bv_text}};
  for (const Bias& b : biases) {
    if (!b.values.present) continue;
    if (Status s = check_matrix(b.field, b.values, 1, b.blocks, b.width, b.text); !s.ok()) return s;
  }
  if (inputs.bo.present) {
    if (!inputs.wo.present) {
      return Status::Range("bo", "bo is given but wo is omitted; bo is the bias of the output projection wo");
    }
    if (Status s = check_matrix("bo", inputs.bo, 1, 1, shape.d_model, "dModel = " + str(shape.d_model)); !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

// The scale the scores are divided by, from the scale mode. An enum read from a caller (the binding
// casts plain integers) may hold any value: the unknown ones are refused here, so no later switch
// meets a mode it does not handle.
Status check_scale(const Config& config, Shape* shape) {
  switch (config.scale_mode) {
    case ScaleMode::SqrtDk: shape->scale = std::sqrt(static_cast<double>(shape->d_k)); return Status::Ok();
    case ScaleMode::None: shape->scale = 1; return Status::Ok();
    case ScaleMode::Divisor:
      // The scores are divided in float32: a divisor below the smallest normal float32 (1e-39, 5e-324)
      // or above the largest (1e39) is itself subnormal, zero or infinite there, and the weights
      // would come out NaN or silently uniform.
      if (!std::isfinite(config.scale_divisor) || !(config.scale_divisor >= FLT_MIN) ||
          config.scale_divisor > FLT_MAX) {
        return Status::Range("scale", "scale must be 'sqrt_dk', 'none' or a number from " + format_number(FLT_MIN) +
                                          " to " + format_number(FLT_MAX) + " (float32) to divide the scores by, got " +
                                          format_number(config.scale_divisor));
      }
      shape->scale = config.scale_divisor;
      return Status::Ok();
  }
  return Status::Range("scale", "scale mode " + str(static_cast<int>(config.scale_mode)) +
                                    " is unknown; the modes are 0 (sqrt_dk), 1 (none) and 2 (a divisor)");
}

// The mask mode (unknown ones refused, as the scale's) and the keep-mask it may need.
Status check_mask(const Config& config, const Inputs& inputs, const Shape& shape) {
  if (config.mask_mode != MaskMode::None && config.mask_mode != MaskMode::Causal &&
      config.mask_mode != MaskMode::Keep) {
    return Status::Range("mask", "mask mode " + str(static_cast<int>(config.mask_mode)) +
                                     " is unknown; the modes are 0 (none), 1 (causal) and 2 (a keep-mask)");
  }
  if (config.mask_mode != MaskMode::Keep) {
    if (inputs.keep.present) return Status::Range("mask", "a keep-mask was given but the mask mode is not 'keep'");
    return Status::Ok();
  }
  const unsigned long long expected = 1ull * shape.n * shape.m;
  if (!inputs.keep.present || inputs.keep.size != expected) {
    return Status::Range("mask", "mask has " + str(inputs.keep.present ? inputs.keep.size : 0) +
                                     " values; expected n × m = " + str(shape.n) + " × " + str(shape.m) + " = " +
                                     str(expected));
  }
  for (std::size_t i = 0; inputs.keep.data != nullptr && i < inputs.keep.size; ++i) {
    if (inputs.keep.data[i] > 1) {
      return Status::Range(
          "mask", "mask[" + str(i) + "] is " + str(inputs.keep.data[i]) + "; a keep-mask holds 1 (keep) or 0 (masked)");
    }
  }
  return Status::Ok();
}

// The rotation (rotary.dims, rotary.theta, rotary.firstPosition) and the sliding window.
Status check_rotary_and_window(const Config& config, const Shape& shape) {
  const Rotary& r = config.rotary;
  if (r.dims < 0 || r.dims % 2 != 0 || r.dims > shape.d_k) {
    return Status::Range("rotary.dims", "rotary.dims is " + str(r.dims) +
                                            "; it must be even, from 0 (no rotation) to dK (" + str(shape.d_k) + ")");
  }
  if (!std::isfinite(r.theta) || !(r.theta > 1)) {  // above 1, as layers.hpp's Rope: every frequency <= 1
    return Status::Range("rotary.theta",
                         "rotary.theta is " + format_number(r.theta) + "; it must be a finite number above 1");
  }
  if (r.first_position < 0 || r.first_position > kMaxPosition) {
    return Status::Range("rotary.firstPosition", "rotary.firstPosition is " + str(r.first_position) +
                                                     "; it must be a whole number from 0 to " + str(kMaxPosition));
  }
  if (config.window < 0) {
    return Status::Range("window", "window is " + str(config.window) +
                                       "; it must be 0 (no sliding window) or the number of keys a query sees");
  }
  return Status::Ok();
}

}  // namespace

Status validate(const Config& config, const Inputs& inputs, bool trace, Shape* shape_out) {
  Shape shape{};
  if (Status s = check_sizes(config, inputs, &shape); !s.ok()) return s;
  if (Status s = check_inputs_and_weights(inputs, shape); !s.ok()) return s;
  if (Status s = check_biases(inputs, shape); !s.ok()) return s;
  if (config.positions != PositionMode::None && config.positions != PositionMode::Sinusoidal) {
    return Status::Range("positions", "positions must be 'none' or 'sinusoidal'");
  }
  if (Status s = check_scale(config, &shape); !s.ok()) return s;
  if (Status s = check_mask(config, inputs, shape); !s.ok()) return s;
  if (Status s = check_rotary_and_window(config, shape); !s.ok()) return s;
  if (trace) {
    const unsigned long long trace_values = 1ull * shape.heads * shape.n * shape.m;
    if (trace_values > kMaxMatrixValues) {
      return Status::Range("trace", "the trace would hold heads × n × m = " + str(shape.heads) + " × " + str(shape.n) +
                                        " × " + str(shape.m) + " = " + str(trace_values) +
                                        " weights, above the cap of " + str(kMaxMatrixValues) +
                                        "; turn the trace off or use fewer tokens");
    }
  }
  *shape_out = shape;
  return Status::Ok();
}

}  // namespace attn
