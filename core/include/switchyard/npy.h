// NumPy's .npy format (version 1.0, 2.0 and 3.0 headers) for tensors: what `switchyard
// run` reads inputs from and writes outputs to, and how tests load references produced
// by NumPy scripts. Little-endian, C order. bf16 has no NumPy dtype and is not
// supported here (convert to f32 first).
#pragma once

#include <filesystem>
#include <span>
#include <string>

#include "switchyard/tensor.h"

namespace sy {

// Parses .npy bytes. Rejects, naming `source_name`: bad magic, unsupported versions,
// headers that are not the expected dict, Fortran order, big-endian or unsupported
// dtypes, bad shapes, and data shorter or longer than the shape needs.
Expected<Tensor> ParseNpy(std::span<const std::byte> bytes, const std::string& source_name);
Expected<Tensor> ReadNpy(const std::filesystem::path& path);

// Version 1.0 header (2.0 if the header would not fit), header padded to 64 bytes.
Expected<std::string> SerializeNpy(const Tensor& tensor);
Status WriteNpy(const std::filesystem::path& path, const Tensor& tensor);

}  // namespace sy
