#include "node_types.h"

#include <string>
#include <vector>

#include "switchyard/op_schema.h"

namespace sy::cpu {

Expected<AttrValue> DecodeAttr(const sy_attr& a) {
  switch (a.kind) {
    case SY_ATTR_INT:
      return AttrValue(a.i);
    case SY_ATTR_FLOAT:
      return AttrValue(a.f);
    case SY_ATTR_STRING:
      return AttrValue(std::string(a.s ? a.s : ""));
    case SY_ATTR_INTS:
      if (a.count && a.ints == nullptr) break;
      return AttrValue(std::vector<int64_t>(a.ints, a.ints + a.count));
    case SY_ATTR_FLOATS:
      if (a.count && a.floats == nullptr) break;
      return AttrValue(std::vector<double>(a.floats, a.floats + a.count));
    case SY_ATTR_STRINGS: {
      if (a.count && a.strings == nullptr) break;
      std::vector<std::string> out;
      for (uint32_t i = 0; i < a.count; ++i) out.emplace_back(a.strings[i] ? a.strings[i] : "");
      return AttrValue(std::move(out));
    }
    default:
      break;
  }
  return InvalidArgument("malformed attribute");
}

Expected<TensorType> DecodeType(const sy_tensor_type& t) {
  if (t.dtype >= static_cast<uint32_t>(kNumDTypes) || (t.rank && t.dims == nullptr)) {
    return InvalidArgument("malformed tensor type");
  }
  TensorType type{static_cast<DType>(t.dtype), Shape(t.dims, t.dims + t.rank)};
  SY_RETURN_IF_ERROR(CheckedElementCount(type.shape).status());
  return type;
}

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
