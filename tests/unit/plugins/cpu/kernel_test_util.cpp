#include "kernel_test_util.h"

#include <gtest/gtest.h>

#include <memory>

#include "ref/ref_kernels.h"
#include "switchyard/npy.h"
#include "switchyard/op_schema.h"
#include "thread_pool.h"

namespace sy::cpu::test {

Tensor Make(DType dtype, Shape shape, const std::vector<double>& values) {
  Expected<Tensor> t = Tensor::Allocate(dtype, std::move(shape));
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return Tensor();
  EXPECT_EQ(static_cast<size_t>(t->element_count()), values.size()) << "Make: value count";
  const size_t n = std::min(values.size(), static_cast<size_t>(t->element_count()));
  for (size_t i = 0; i < n; ++i) {
    if (IsFloat(dtype)) {
      StoreFloat(dtype, t->mutable_data(), static_cast<int64_t>(i), values[i]);
    } else {
      StoreInt(dtype, t->mutable_data(), static_cast<int64_t>(i), static_cast<int64_t>(values[i]));
    }
  }
  return std::move(*t);
}

std::vector<double> Values(const Tensor& tensor) {
  std::vector<double> out(static_cast<size_t>(tensor.element_count()));
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] =
        IsFloat(tensor.dtype())
            ? LoadFloat(tensor.dtype(), tensor.data(), static_cast<int64_t>(i))
            : static_cast<double>(LoadInt(tensor.dtype(), tensor.data(), static_cast<int64_t>(i)));
  }
  return out;
}

Expected<std::vector<Tensor>> Run(const KernelTable& table, std::string_view op,
                                  const std::vector<Tensor>& inputs, Attrs attrs, int num_outputs,
                                  ThreadPool* pool) {
  return RunPrepared(table, op, inputs, {}, std::move(attrs), num_outputs, pool);
}

Expected<std::vector<Tensor>> RunPrepared(const KernelTable& table, std::string_view op,
                                          const std::vector<Tensor>& inputs,
                                          const std::vector<bool>& constant, Attrs attrs,
                                          int num_outputs, ThreadPool* pool, bool* prepared,
                                          std::string* implementation) {
  const OpSchema* schema = OpRegistry::Global().Find(op);
  if (schema == nullptr) return NotFound("no schema for op " + std::string(op));
  const KernelTable::Entry* entry = table.FindEntry(op);
  if (entry == nullptr) return NotFound("no kernel for op " + std::string(op));
  if (prepared != nullptr) *prepared = false;
  std::vector<TensorType> input_types;
  std::vector<ConstTensorView> input_views;
  for (const Tensor& t : inputs) {
    input_types.push_back(t.type());
    input_views.push_back({t.type(), t.data()});
  }
  SY_ASSIGN_OR_RETURN(std::vector<TensorType> output_types,
                      InferOutputTypes(*schema, input_types, attrs, num_outputs));
  // Kernels see what the plugin host sends: canonical attributes (op_schema.h).
  attrs = CanonicalAttrs(*schema, input_types, attrs);
  std::vector<Tensor> outputs;
  std::vector<TensorView> output_views;
  for (const TensorType& type : output_types) {
    SY_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(type.dtype, type.shape));
    outputs.push_back(std::move(t));
  }
  for (Tensor& t : outputs) output_views.push_back({t.type(), t.mutable_data()});
  KernelContext ctx{op, input_views, output_views, attrs, pool};
  if (entry->prepare != nullptr) {
    // As the executable does: the prepare sees the bytes of the inputs marked constant.
    std::vector<const std::byte*> constants;
    for (size_t i = 0; i < inputs.size(); ++i) {
      constants.push_back(i < constant.size() && constant[i] ? inputs[i].data() : nullptr);
    }
    std::unique_ptr<PreparedKernel> kernel = entry->prepare(
        {op, input_types, output_types, attrs, constants, pool ? pool->num_threads() : 1});
    if (kernel != nullptr) {
      if (prepared != nullptr) *prepared = true;
      if (implementation != nullptr) *implementation = kernel->Implementation();
      SY_RETURN_IF_ERROR(kernel->Run(ctx));
      return outputs;
    }
  }
  SY_RETURN_IF_ERROR(entry->fn(ctx));
  return outputs;
}

Expected<std::vector<Tensor>> RunRef(std::string_view op, const std::vector<Tensor>& inputs,
                                     Attrs attrs, int num_outputs) {
  return Run(RefKernels(), op, inputs, std::move(attrs), num_outputs);
}

Tensor RunRef1(std::string_view op, const std::vector<Tensor>& inputs, Attrs attrs) {
  Expected<std::vector<Tensor>> out = RunRef(op, inputs, std::move(attrs), 1);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status().ToString();
  if (!out.ok() || out->empty()) return Tensor();
  return std::move((*out)[0]);
}

Tensor LoadData(std::string_view relative) {
  const std::string path = std::string(SY_SOURCE_DIR) + "/tests/data/" + std::string(relative);
  Expected<Tensor> t = ReadNpy(path);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(*t) : Tensor();
}

}  // namespace sy::cpu::test
