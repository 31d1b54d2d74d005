// The base of the prepared kernels that only move or scale what they read (concat, slice,
// batch_norm, add/sub/mul/div by a per-channel operand): they take the tensors they accept
// and output 0 in either layout, and join them (PreparedKernel::JoinsLayouts), so the
// executable stores all of them alike (CpuExecutable::ChooseLayouts): one flag says which.
#pragma once

#include <memory>
#include <span>

#include "kernel.h"

namespace sy::cpu {

class JoinedLayoutKernel : public PreparedKernel {
 public:
  bool JoinsLayouts() const override { return true; }
  bool AcceptsChannelsLastOutput(size_t index) const override { return index == 0; }
  void UseLayouts(std::span<const Layout> /*inputs*/, std::span<const Layout> outputs) override {
    channels_last_ = outputs[0] == Layout::kChannelsLast;
  }

 protected:
  // For Resized: `resized` (this op at other sizes, or nullptr) in this kernel's layout.
  std::unique_ptr<PreparedKernel> KeepLayout(std::unique_ptr<PreparedKernel> resized) const {
    if (auto* k = static_cast<JoinedLayoutKernel*>(resized.get()); k != nullptr) {
      k->channels_last_ = channels_last_;
    }
    return resized;
  }

  bool channels_last_ = false;  // every joined tensor stored channels-last (NHWC)
};

}  // namespace sy::cpu
