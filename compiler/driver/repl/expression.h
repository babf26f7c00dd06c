// Looking inside a model with the reference interpreter: an expression in
// the model's language evaluated on the current parameters and one sample
// (`softmax(Wk @ dx(0))`, `W(T)`), and the state trajectory of one sample.
//
// The expression is checked by the real front end as an extra final output
// of the current source, so it may use every name the model declares and
// its errors are the front end's located diagnostics. States are the
// interpreter's own solve of the model's field with its solver's Butcher
// tableau at the model's step (adaptive solvers: at a fixed step of
// (t_end - t0) / 100), jumps applied at observations: a reference to look
// at, not the kernels' numbers.
#pragma once

#include <cstdint>
#include <string>

#include "compiler/driver/repl/command_table.h"

namespace plastic::driver::repl {

/// Prints the value of `expr` on the current sample; returns an exit code.
int evaluate_expression(ReplState& state, const std::string& expr);

/// Prints every state at the sample's observations; with `plot` non-empty
/// also plots them (gnuplot) to that PNG. Returns an exit code.
int print_trajectory(ReplState& state, int64_t sample, const std::string& plot);

} // namespace plastic::driver::repl
