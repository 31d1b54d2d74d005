#include "node_types.h"

#include <string>
#include <vector>

#include "switchyard/op_schema.h"

namespace sy::cpu {

sy_error_code KernelErrorCode(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return SY_ERROR_DATA;
    case StatusCode::kUnsupported:
      return SY_ERROR_UNSUPPORTED;
    case StatusCode::kResourceExhausted:
      return SY_ERROR_RESOURCE_EXHAUSTED;
    default:
      return SY_ERROR_INTERNAL;
  }
}

Status CheckNodeTypes(std::string_view op, std::span<const TensorType> inputs,
                      std::span<const TensorType> outputs, Attrs& attrs) {
  const OpSchema* schema = OpRegistry::Global().Find(op);
  if (schema == nullptr) return Unsupported("unknown op " + std::string(op));
  Expected<std::vector<TensorType>> inferred =
      InferOutputTypes(*schema, inputs, attrs, static_cast<int>(outputs.size()));
  if (!inferred.ok()) return inferred.status();
  for (size_t k = 0; k < outputs.size(); ++k) {
    if ((*inferred)[k] != outputs[k]) {
      return InvalidArgument("output " + std::to_string(k) + " is declared " +
                             outputs[k].ToString() + " but its inputs give " +
                             (*inferred)[k].ToString());
    }
  }
  return Status::Ok();
}

}  // namespace sy::cpu
