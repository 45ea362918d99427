// The forward pass behind attention_forward and a prepared model's runs (prepared_model.cpp).
#pragma once

#include <vector>

#include "attention/attention.hpp"

namespace attn {

// The forward pass on arguments already checked: validate() made `shape` from them. `packed` is
// null, or the weights as packed panels (ops::pack_panels). The pass works in `workspace`.
Status forward_checked(const Config& config, const Inputs& inputs, const Shape& shape, const PackedWeights* packed,
                       bool trace, Result* result, Workspace& workspace);

// prepare_model, where owned[i] (wq, wk, wv, wo), when not null, is the vector that holds that weight
// (its data and size): its panels are then made in it, in place, and it is moved into `packed` (left
// empty). Where a weight's blocks are not whole panels (a width not a multiple of 8), or the build
// keeps weights unpacked, it is left untouched.
Status prepare_model_in(const Config& config, const Inputs& weights, std::vector<float>* const owned[4], Shape* shape,
                        PackedWeights* packed);

}  // namespace attn
