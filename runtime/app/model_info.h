// What a model binary knows about how it was built, beyond its ABI table:
// the source file and its hash, the --set overrides and the dims they gave,
// the target CPU, and the Plastic version that compiled it. `plastic build`
// embeds it in the model's object as one exported NUL-terminated JSON
// string, so the ABI table (runtime/abi.h) stays as it is and an object
// without it (an older `--emit-obj`) still links: the model binary's main
// references the symbol weakly.
//
// The JSON object's keys (all optional to a reader):
//   "plastic_version": "0.1.0"
//   "source":  {"file": "fwp_delta_cde.ode", "fnv1a64": "3f2a9c0d1b2e4f56"}
//   "sets":    {"d_head": 8, ...}          the --set overrides
//   "dims":    {"d_in": 21, ...}           every dim of the model after them
//   "target":  {"cpu": "x86-64-v3", "description": "x86_64-pc-linux-gnu, cpu ..."}
#pragma once

/// The symbol of the JSON string: `extern "C" const char plastic_model_info_v1[]`.
#define PLASTIC_MODEL_INFO_SYMBOL "plastic_model_info_v1"
