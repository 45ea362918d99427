// The bindings' one shape of a failed call, { error: { kind, field, message } }, which
// web/lib/attention.mjs turns into a TypeError or RangeError carrying `field`.
#pragma once

#include <emscripten/val.h>

#include "attention/attention.hpp"

namespace attn_bindings {

inline emscripten::val error_of(const attn::Status& status) {
  emscripten::val error = emscripten::val::object();
  error.set("kind", status.kind == attn::ErrorKind::Type ? "type" : "range");
  error.set("field", status.field);
  error.set("message", status.message);
  emscripten::val out = emscripten::val::object();
  out.set("error", error);
  return out;
}

}  // namespace attn_bindings
