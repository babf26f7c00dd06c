// The name a command's messages start with: "plastic" for the driver, a
// model binary's own name (`./flipflop: --data is required`) for a binary,
// which runs the same runtime code (model_cli.h). Set once, first thing in
// main.
#pragma once

#include <string>

namespace plastic::rt {

/// The program's name for messages ("plastic" unless set).
const std::string& program_name();
/// Sets it (a model binary: the file name it was started as).
void set_program_name(std::string name);

} // namespace plastic::rt
