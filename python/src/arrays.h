// Arrays between Python and the runtime, without copying where memory allows
// (docs/python.md, "Zero copy").
//
// Inputs: any object with the buffer protocol or DLPack in CPU memory (NumPy arrays,
// PyTorch CPU tensors, ...) becomes a read-only Tensor view of the object's own memory when
// it is C-contiguous and aligned to its element size; the Tensor keeps the object alive.
// A host-memory device (cpu, cpu-ref) then reads it in place (Session::Stats::
// inputs_in_place). Strided or unaligned arrays are copied once here; Python scalars and
// lists become arrays of the dtype the model expects. The dtype is never changed: a
// mismatch is the session's error.
//
// Outputs: each result Tensor (fresh host memory from Session::Run) becomes a NumPy array
// over that memory, owning it through a capsule: no copy. Read-only Tensors (constants,
// inputs passed through) become read-only arrays. bf16, which NumPy lacks, is widened to
// f32 (a copy).
#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <string>

#include "switchyard/tensor.h"

namespace sy::python {

struct InputTensor {
  Tensor tensor;
  bool copied = false;  // made by this module (strided, unaligned, or not an array)
};

// `value` for the input `name` whose dtype is `expected` (nullopt: unknown). Throws
// StatusError (InvalidArgument) for what cannot be an array of a Switchyard dtype.
InputTensor TensorFromPython(nanobind::handle value, const std::string& name,
                             std::optional<DType> expected);

// A NumPy array owning `tensor`'s storage.
nanobind::object ArrayFromTensor(Tensor tensor);

// NumPy's name for `dtype` ("float32"); nullopt for bf16.
std::optional<std::string> NumpyDTypeName(DType dtype);

}  // namespace sy::python
