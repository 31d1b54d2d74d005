// Internal: converting a constant's inline JSON `data` array to a tensor and back.
#pragma once

#include <boost/json.hpp>

#include "switchyard/tensor.h"

namespace sy {

// Builds a tensor of `type` from a flat row-major JSON array. Floats accept any number;
// integer dtypes accept integral numbers within the dtype's range; bool accepts
// true/false or 0/1. Errors say which element is wrong and why.
Expected<Tensor> InlineDataToTensor(const boost::json::array& data, const TensorType& type);

// The reverse, for the writer. Fails for NaN and infinities, which JSON cannot hold.
Expected<boost::json::array> TensorToInlineData(const Tensor& tensor);

}  // namespace sy
