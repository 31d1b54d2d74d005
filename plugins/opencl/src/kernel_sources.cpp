#include "kernel_sources.h"

#include "cl_runtime.h"

namespace sy::opencl {

std::string_view KernelSource(std::string_view name) {
  for (const EmbeddedKernelSource& s : EmbeddedKernelSources()) {
    if (s.name == name) return s.text;
  }
  throw sy_sdk::Error(SY_ERROR_INTERNAL,
                      "no embedded OpenCL kernel source named " + std::string(name));
}

std::string_view ComputeTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32:
    case DType::kF16:
    case DType::kBF16:
      return "float";
    case DType::kF64:
      return "double";
    default:
      return "long";
  }
}

std::string SlotDefines(char slot, DType dtype) {
  const std::string x(1, slot);
  std::string st, ct = std::string(ComputeTypeName(dtype)), load, store, rt;
  bool is_float = IsFloat(dtype);
  switch (dtype) {
    case DType::kF32:
      st = "float", rt = "uint";
      load = "((p)[i])", store = "((p)[i] = (v))";
      break;
    case DType::kF64:
      st = "double", rt = "ulong";
      load = "((p)[i])", store = "((p)[i] = (v))";
      break;
    case DType::kF16:
      // Storage only (no cl_khr_fp16 needed): vload_half / vstore_half_rte are core.
      st = "half", rt = "ushort";
      load = "vload_half((i), (p))", store = "vstore_half_rte((v), (i), (p))";
      break;
    case DType::kBF16:
      st = "ushort", rt = "ushort";
      load = "sy_bf16_to_float((p)[i])", store = "((p)[i] = sy_float_to_bf16(v))";
      break;
    case DType::kI8:
      st = "char", rt = "uchar";
      break;
    case DType::kU8:
      st = "uchar", rt = "uchar";
      break;
    case DType::kI32:
      st = "int", rt = "uint";
      break;
    case DType::kI64:
      st = "long", rt = "ulong";
      break;
    case DType::kI16:
      st = "short", rt = "ushort";
      break;
    case DType::kU16:
      st = "ushort", rt = "ushort";
      break;
    case DType::kU32:
      st = "uint", rt = "uint";
      break;
    case DType::kBool:
      st = "uchar", rt = "uchar";
      load = "((long)((p)[i] != 0))", store = "((p)[i] = (uchar)((v) != 0))";
      break;
  }
  if (!is_float && dtype != DType::kBool) {
    load = "((long)(p)[i])";
    store = "((p)[i] = (" + st + ")(v))";
  }
  std::string out;
  out += "#define ST_" + x + " " + st + "\n";
  out += "#define CT_" + x + " " + ct + "\n";
  out += "#define RT_" + x + " " + rt + "\n";
  out += "#define LOAD_" + x + "(p, i) " + load + "\n";
  out += "#define STORE_" + x + "(p, i, v) " + store + "\n";
  out += "#define IS_FLOAT_" + x + " " + (is_float ? "1" : "0") + "\n";
  out += "#define IS_F64_" + x + " " + (dtype == DType::kF64 ? "1" : "0") + "\n";
  return out;
}

std::string AssembleProgram(std::string_view family, const std::string& defines, bool uses_f64) {
  std::string source;
  if (uses_f64) {
    source += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#define SY_HAS_FP64 1\n";
  }
  source += defines;
  source += "#line 1 \"common.cl\"\n";
  source += KernelSource("common");
  source += "\n#line 1 \"" + std::string(family) + ".cl\"\n";
  source += KernelSource(family);
  return source;
}

std::string BuildOptions(const Device& device) {
  std::string options = "-cl-std=CL1.2";
  if (device.correctly_rounded_div_sqrt) options += " -cl-fp32-correctly-rounded-divide-sqrt";
  return options;
}

}  // namespace sy::opencl
