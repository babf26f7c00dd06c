// Text printer of the loop IR (`plastic emit --loops`).
//
// One line per statement, loops as indented blocks, expressions inline:
//
//   func @matvec f64 x4 (ctx: opaque, W: varying[1600] readonly, k: varying[80] readonly,
//                         y: varying[80], scratch: scratch) {
//     var acc: varying
//     for h in 0..4 {
//       for i in 0..20 {
//         acc = 0
//         for j in 0..20 {
//           acc = fma(W[400*h + 20*i + j], k[20*h + j], acc)
//         }
//         y[20*h + i] = acc
//       }
//     }
//   }
//
// Expressions print as trees; a compound node used more than once in a
// statement is printed once as `let %N = ...` on the line before it, so the
// output stays linear in the size of the DAG. Stores print `=`, `+=`, and
// `+= lanesum(...)` for the uniform-accumulating lane sum.
#pragma once

#include <string>

#include "compiler/loops/loop_ir.h"

namespace plastic::loops {

/// The function as text (ends with a newline).
std::string print(const Function& fn);
/// All functions of the module, separated by blank lines, after a header line.
std::string print(const Module& module);
/// One affine index, e.g. "400*h + 20*i + j + 3".
std::string print_index(const Function& fn, const Index& index);

} // namespace plastic::loops
