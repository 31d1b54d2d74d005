#include "arrays.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <memory>
#include <vector>

#include "errors.h"
#include "switchyard/half.h"

namespace sy::python {
namespace nb = nanobind;
namespace {

using dl = nb::dlpack::dtype_code;
using InputArray = nb::ndarray<nb::ro, nb::device::cpu>;

std::optional<DType> DTypeOf(nb::dlpack::dtype t) {
  if (t.lanes != 1) return std::nullopt;
  const auto code = static_cast<dl>(t.code);
  switch (t.bits) {
    case 8:
      if (code == dl::Int) return DType::kI8;
      if (code == dl::UInt) return DType::kU8;
      if (code == dl::Bool) return DType::kBool;
      return std::nullopt;
    case 16:
      if (code == dl::Float) return DType::kF16;
      if (code == dl::Bfloat) return DType::kBF16;
      if (code == dl::Int) return DType::kI16;
      if (code == dl::UInt) return DType::kU16;
      return std::nullopt;
    case 32:
      if (code == dl::Float) return DType::kF32;
      if (code == dl::Int) return DType::kI32;
      if (code == dl::UInt) return DType::kU32;
      return std::nullopt;
    case 64:
      if (code == dl::Float) return DType::kF64;
      if (code == dl::Int) return DType::kI64;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

nb::dlpack::dtype DLTypeOf(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return nb::dtype<float>();
    case DType::kF64:
      return nb::dtype<double>();
    case DType::kF16:
      return {static_cast<uint8_t>(dl::Float), 16, 1};
    case DType::kBF16:
      return {static_cast<uint8_t>(dl::Bfloat), 16, 1};
    case DType::kI8:
      return nb::dtype<int8_t>();
    case DType::kU8:
      return nb::dtype<uint8_t>();
    case DType::kI32:
      return nb::dtype<int32_t>();
    case DType::kI64:
      return nb::dtype<int64_t>();
    case DType::kBool:
      return nb::dtype<bool>();
    case DType::kI16:
      return nb::dtype<int16_t>();
    case DType::kU16:
      return nb::dtype<uint16_t>();
    case DType::kU32:
      return nb::dtype<uint32_t>();
  }
  return nb::dtype<float>();
}

std::string DLTypeName(nb::dlpack::dtype t) {
  const char* kind = "?";
  switch (static_cast<dl>(t.code)) {
    case dl::Int:
      kind = "int";
      break;
    case dl::UInt:
      kind = "uint";
      break;
    case dl::Float:
      kind = "float";
      break;
    case dl::Bfloat:
      kind = "bfloat";
      break;
    case dl::Complex:
      kind = "complex";
      break;
    case dl::Bool:
      kind = "bool";
      break;
    default:
      kind = "float8 or other";
  }
  std::string name = kind + std::to_string(t.bits);
  if (t.lanes != 1) name += "x" + std::to_string(t.lanes);
  return name;
}

// The array's bytes in row-major order, copied element by element along its strides.
Tensor CopyStrided(const InputArray& a, DType dtype, const Shape& shape) {
  Tensor t = ValueOrThrow(Tensor::Allocate(dtype, shape));
  const size_t size = DTypeSize(dtype);
  const size_t ndim = a.ndim();
  const auto* base = static_cast<const std::byte*>(a.data());
  std::byte* out = t.mutable_data();
  std::vector<int64_t> index(ndim, 0);
  for (int64_t i = 0; i < t.element_count(); ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < ndim; ++d) offset += index[d] * a.stride(d);
    std::memcpy(out + i * static_cast<int64_t>(size), base + offset * static_cast<int64_t>(size),
                size);
    for (size_t d = ndim; d-- > 0;) {  // odometer over the shape
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return t;
}

bool RowMajor(const InputArray& a) {
  int64_t expected = 1;
  for (size_t d = a.ndim(); d-- > 0;) {
    if (a.shape(d) != 1 && a.stride(d) != expected) return false;
    expected *= static_cast<int64_t>(a.shape(d));
  }
  return true;
}

}  // namespace

std::optional<std::string> NumpyDTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "float32";
    case DType::kF64:
      return "float64";
    case DType::kF16:
      return "float16";
    case DType::kBF16:
      return std::nullopt;
    case DType::kI8:
      return "int8";
    case DType::kU8:
      return "uint8";
    case DType::kI32:
      return "int32";
    case DType::kI64:
      return "int64";
    case DType::kBool:
      return "bool";
    case DType::kI16:
      return "int16";
    case DType::kU16:
      return "uint16";
    case DType::kU32:
      return "uint32";
  }
  return std::nullopt;
}

InputTensor TensorFromPython(nb::handle value, const std::string& name,
                             std::optional<DType> expected) {
  InputArray array;
  bool copied = false;
  if (!nb::try_cast(value, array, /*convert=*/false)) {
    // Not an array in CPU memory: NumPy makes one of the model's dtype (a list, a scalar).
    if (nb::hasattr(value, "__dlpack_device__")) {
      const nb::tuple device = nb::borrow<nb::tuple>(value.attr("__dlpack_device__")());
      if (nb::cast<int>(device[0]) != static_cast<int>(nb::device::cpu::value)) {
        Throw(InvalidArgument("input \"" + name + "\" is in device memory (DLPack device type " +
                              std::to_string(nb::cast<int>(device[0])) +
                              "); pass an array in CPU memory"));
      }
    }
    nb::object numpy = nb::module_::import_("numpy");
    const std::optional<std::string> dtype = expected ? NumpyDTypeName(*expected) : std::nullopt;
    nb::object converted;
    try {
      // As NumPy reads it first: objects and strings are refused, not converted into
      // garbage ([None, 1.0, "2"] ran as [nan, -1, -2]); a scalar stays 0-d
      // (ascontiguousarray made it [1]).
      converted = numpy.attr("asarray")(value);
      const std::string kind = nb::cast<std::string>(converted.attr("dtype").attr("kind"));
      if (kind == "O" || kind == "U" || kind == "S" || kind == "V" || kind == "M" || kind == "m") {
        Throw(InvalidArgument("input \"" + name + "\" is not an array of numbers: NumPy reads " +
                              "it as " +
                              nb::cast<std::string>(converted.attr("dtype").attr("name")) +
                              " (objects, strings, dates), which is not converted to " +
                              (dtype ? *dtype : std::string("a number")) + "; pass numbers"));
      }
      if (dtype) {
        nb::object cast = converted.attr("astype")(*dtype);
        // Floats into an integer or bool input only when each is whole (no silent truncation).
        const std::string to_kind = nb::cast<std::string>(cast.attr("dtype").attr("kind"));
        if (kind == "f" && to_kind != "f" &&
            !nb::cast<bool>(numpy.attr("array_equal")(cast, converted))) {
          Throw(InvalidArgument("input \"" + name + "\" holds fractional numbers, which a " +
                                *dtype + " input would truncate; pass whole numbers"));
        }
        converted = cast;
      }
      nb::list requirements;
      requirements.append("C");
      converted = numpy.attr("require")(converted, nb::none(), requirements);
    } catch (const nb::python_error& e) {
      Throw(InvalidArgument("input \"" + name + "\" is not an array: " + e.what()));
    }
    if (!nb::try_cast(converted, array, false)) {
      Throw(InvalidArgument("input \"" + name + "\" is not an array of a Switchyard dtype"));
    }
    copied = true;
  }
  const std::optional<DType> dtype = DTypeOf(array.dtype());
  if (!dtype) {
    Throw(InvalidArgument("input \"" + name + "\" has dtype " + DLTypeName(array.dtype()) +
                          ", which Switchyard has not (f32, f16, bf16, f64, i8, u8, i32, i64, "
                          "bool)"));
  }
  Shape shape(array.ndim());
  for (size_t d = 0; d < array.ndim(); ++d) shape[d] = static_cast<int64_t>(array.shape(d));
  const auto address = reinterpret_cast<uintptr_t>(array.data());
  if (!RowMajor(array) || address % DTypeSize(*dtype) != 0) {
    return {CopyStrided(array, *dtype, shape), true};
  }
  // The view keeps the array (and so its Python owner) alive; its last reference may go
  // on a thread without the GIL (a Tensor outliving the call), so the deleter takes it.
  auto* held = new InputArray(std::move(array));
  std::shared_ptr<const void> owner(held, [](InputArray* a) {
    nb::gil_scoped_acquire gil;
    delete a;
  });
  const auto* data = static_cast<const std::byte*>(held->data());
  return {Tensor::View(*dtype, std::move(shape), std::move(owner), data), copied};
}

nb::object ArrayFromTensor(Tensor tensor) {
  if (tensor.dtype() == DType::kBF16) {
    Tensor wide = ValueOrThrow(Tensor::Allocate(DType::kF32, tensor.shape()));
    const auto bits = tensor.values<uint16_t>();
    auto out = wide.mutable_values<float>();
    for (size_t i = 0; i < bits.size(); ++i) out[i] = BFloat16ToFloat(bits[i]);
    tensor = std::move(wide);
  }
  std::vector<size_t> shape(tensor.shape().begin(), tensor.shape().end());
  const nb::dlpack::dtype dtype = DLTypeOf(tensor.dtype());
  const bool writable = tensor.writable();
  void* data = const_cast<std::byte*>(tensor.data());
  auto* kept = new Tensor(std::move(tensor));
  nb::capsule owner(kept, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  if (writable) {
    return nb::ndarray<nb::numpy>(data, shape.size(), shape.data(), owner, nullptr, dtype).cast();
  }
  return nb::ndarray<nb::numpy, nb::ro>(data, shape.size(), shape.data(), owner, nullptr, dtype)
      .cast();
}

}  // namespace sy::python
