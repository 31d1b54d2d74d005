// Value names come from models, which may be hostile: a name is never used as a path or
// printed as it is. `switchyard run` reads <model>/inputs/<file> and writes --out/<file>
// with <file> = ValueFileName(name), and prints names through PrintableName.
#pragma once

#include <string>
#include <string_view>

namespace sy {

// "<name>.npy" with every byte that could leave the folder or hide the file escaped as
// %XX (two upper-case hex digits): '/', '\', '%', control characters (below 0x20 and
// 0x7f) and a leading '.'. An empty name is "%.npy". Everything else, UTF-8 included,
// stays, so "logits" is "logits.npy" and "/encoder/Add_output_0" is
// "%2Fencoder%2FAdd_output_0.npy". Distinct names give distinct files.
std::string ValueFileName(std::string_view name);

// `name` with control characters (below 0x20 and 0x7f, which could move a terminal's
// cursor or start an escape sequence) written as \n, \t, \r or \xNN, and '\' as "\\".
std::string PrintableName(std::string_view name);

}  // namespace sy
