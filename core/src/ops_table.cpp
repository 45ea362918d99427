// ops_for: the dense operations for an Arithmetic. Compiled twice: with the core (both tables), and
// with ATTN_FORWARD_ONLY into the page's forward-only engine (CMakeLists.txt), which runs only the fast
// forward operations: it links neither the portable ops (the trainer's) nor aᵀ·b and the plain softmax
// (the backward pass's), which would otherwise ride along in the tables.
#include "attention_common.hpp"
#include "ops.hpp"

namespace attn {

#ifdef ATTN_FORWARD_ONLY
const Ops& ops_for(Arithmetic) {
  static const Ops fast{ops::matmul, ops::matmul_transb, nullptr, nullptr, ops::softmax_scaled_rows};
  return fast;
}
#else
const Ops& ops_for(Arithmetic arithmetic) {
  static const Ops fast{ops::matmul, ops::matmul_transb, ops::matmul_transa, ops::softmax_rows,
                        ops::softmax_scaled_rows};
  static const Ops portable{ops::portable::matmul, ops::portable::matmul_transb, ops::portable::matmul_transa,
                            ops::portable::softmax_rows, ops::portable::softmax_scaled_rows};
  return arithmetic == Arithmetic::Portable ? portable : fast;
}
#endif

}  // namespace attn
