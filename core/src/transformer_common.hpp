// What the stack's forward, backward and checks share (transformer.hpp has the contract).
#pragma once

#include <string>
#include <vector>

#include "attention/transformer.hpp"

namespace attn {

// "layers[2]." and the like: the request's path to a block.
std::string layer_prefix(int layer);

// A status whose field and message gain a path in front ("layers[1].attention." + "wq").
Status prefixed(const std::string& prefix, Status status);

// A block's attention config with the stack's n and d_model, self-attention.
Config block_config(const Stack& stack, const Block& block, int n);

// A block's attention inputs with x and the stack's keep mask.
Inputs block_inputs(const Block& block, View<float> x, const StackInputs& inputs);

// out = norm(x) with its row statistics; None copies x.  x: (n, d)
Status norm_forward(const Norm& norm, const std::vector<float>& x, int n, int d, NormTrace* trace);

// Block l on trace->input (filled by the caller): every other field of the trace.
Status block_forward(const Stack& stack, const StackInputs& inputs, int l, BlockTrace* trace);

// A block's MLP with Arithmetic::Portable (transformer_portable.cpp): trace->mlp_pre, mlp_up (SwiGLU),
// mlp_hidden and mlp_out, sized by the caller, filled; the weights checked by validate_stack.
void portable_mlp_forward(const Mlp& mlp, const std::vector<float>& x, int n, int d, BlockTrace* trace);
// Its backward: dx and the MLP's weight gradients in g (those not empty) += the gradient given d_out.
void portable_mlp_backward(const Mlp& mlp, const std::vector<float>& x, const BlockTrace& trace,
                           const std::vector<float>& d_out, std::vector<float>& dx, BlockGradients& g, int n, int d);

// A view of a vector, present.
inline View<float> view_of(const std::vector<float>& values) { return View<float>(values.data(), values.size()); }

}  // namespace attn
