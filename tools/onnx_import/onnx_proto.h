// The ONNX IR's protobuf messages (ModelProto, GraphProto, NodeProto, FunctionProto, ...),
// compiled by the build from third_party/onnx/onnx-ml.proto, the definition of the newest
// onnx release (tools/onnx_import/CMakeLists.txt). Lite runtime: no reflection or text format.
#pragma once

#include "onnx-ml.pb.h"  // IWYU pragma: export
