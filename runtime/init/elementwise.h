// The initialisers that draw every element independently.
//
// uniform_fan_in, glorot/kaiming uniform and normal, zeros, ones, constant,
// normal(std, mean) and uniform(lo, hi): each is one distribution whose
// scale comes from the fans and init_args (conventions of runtime/abi.h,
// which follow torch.nn.init). Elements are drawn in row-major order.
#pragma once

#include <span>

#include "runtime/abi.h"
#include "runtime/support/rng.h"
#include "runtime/support/train_error.h"

namespace plastic::rt::init_detail {

/// True for the kinds fill_elementwise handles.
bool is_elementwise_kind(int32_t kind);

/// The resolved gain of glorot/kaiming/orthogonal (args[0], 0 -> the kind's default).
double resolved_gain(const plastic_param& p);

/// Fills out (p.size elements) with the kind's distribution.
Status<TrainError> fill_elementwise(const plastic_param& p, Rng& rng, std::span<double> out);

} // namespace plastic::rt::init_detail
