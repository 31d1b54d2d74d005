// Checking that a node handed to a plugin is consistent: its declared output types are
// what its op's shape rule gives its inputs and attributes. Kernels trust their views'
// types, so a malformed partition (from a buggy host) is refused at prepare rather than
// read or written out of bounds later. Shared by the CPU plugin and the test plugins
// built on its kernels.
#pragma once

#include <span>
#include <string_view>

#include "switchyard/attrs.h"
#include "switchyard/node_descriptors.h"
#include "switchyard/plugin.h"
#include "switchyard/shape.h"
#include "switchyard/status.h"

namespace sy::cpu {

// The ABI error code for a kernel's Status (kInvalidArgument from a kernel is a data
// error: an index out of range, an integer division by zero).
sy_error_code KernelErrorCode(StatusCode code);

// kInvalidArgument describing the disagreement; kUnsupported for an unknown op.
// Normalises `attrs` as validation does (it usually already is).
Status CheckNodeTypes(std::string_view op, std::span<const TensorType> inputs,
                      std::span<const TensorType> outputs, Attrs& attrs);

}  // namespace sy::cpu
