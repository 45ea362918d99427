// The forward pass behind attention_forward and a prepared model's runs (prepared_model.cpp).
#pragma once

#include "attention/attention.hpp"

namespace attn {

// The forward pass on arguments already checked: validate() made `shape` from them. `packed` is
// null, or the weights as packed panels (ops::pack_panels). The pass works in `workspace`.
Status forward_checked(const Config& config, const Inputs& inputs, const Shape& shape, const PackedWeights* packed,
                       bool trace, Result* result, Workspace& workspace);

}  // namespace attn
