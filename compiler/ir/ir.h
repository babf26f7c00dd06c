// The compiler core's IR, in one include: what the lowering from the
// checked AST needs to build and inspect IR.
//
//   Context ctx;                                   // owns every node (context.h)
//   const Node* W = ctx.state("W", {4, 20, 20});   // leaves: time/state/param/input/arg
//   const Node* k = softmax(matvec(Wk, dx), 1);    // checked factories (ops.h)
//   Function field("delta", {t, W, ...}, {{"dW", dW}});   // function.h
//   std::string text = print(field);               // printer.h; parse_function reads it back
//
// Derivatives are in compiler/autodiff (function_ad.h, ode.h), optimisation
// passes in compiler/passes (pipeline.h), evaluation in compiler/interp.
#pragma once

#include "compiler/ir/context.h"
#include "compiler/ir/einsum.h"
#include "compiler/ir/error.h"
#include "compiler/ir/function.h"
#include "compiler/ir/node.h"
#include "compiler/ir/ops.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/traversal.h"
#include "compiler/ir/verifier.h"
