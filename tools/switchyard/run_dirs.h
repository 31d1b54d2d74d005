// `switchyard run --run-dir DIR...`: one session, many requests, each from a folder of
// inputs with the outputs to expect; how a model with run-time sizes is shown to run at
// several shapes in one session (docs/dynamic-shapes.md).
#pragma once

#include <filesystem>
#include <utility>

#include <boost/program_options.hpp>

#include "model_setup.h"
#include "switchyard/tensor.h"

namespace sy::cli {

// Whether `actual` matches the .npy file at `path` elementwise
// (|a - b| <= atol + rtol * |b|, NaN only against NaN, shapes equal), and the largest
// finite |a - b|.
Expected<std::pair<bool, double>> CompareWithNpy(const Tensor& actual,
                                                 const std::filesystem::path& path, double rtol,
                                                 double atol);

// Runs prepared.session once per --run-dir DIR, in order: inputs from
// DIR/inputs/<name>.npy, outputs checked against DIR/expected/<name>.npy where that file
// exists. Prints one line per run and per output; returns the command's exit code.
int RunDirs(PreparedModel& prepared, const boost::program_options::variables_map& vm);

}  // namespace sy::cli
