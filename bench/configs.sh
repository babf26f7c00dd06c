# bench/configs.sh — the benchmark configurations, shared by run_reference.sh
# and run.sh so Plastic and the reference always run the same list.
# One line per configuration:
#   name | Plastic model file | reference script | gradients | extra flags for both |
#   Plastic-only flags | reference-only flags | lines replacing the model file's
# The last field, `;`-separated, replaces the model's line with the same first
# word (`solve …`, `gradient …`): run.sh writes the edited model to a
# temporary file, so a solver variant needs no copy of the model.
# The sizes are the files' defaults (the reference scripts' defaults equal
# the .ode dims); see README.md for where each setting comes from.
BENCH_CONFIGS=(
  "fwp_delta_cde|examples/fwp_delta_cde.ode|fwp_delta_cde.py|direct adjoint|--length 161"
  "ncde|bench/models/ncde_speech.ode|ncde.py|direct adjoint|--length 161"
  "nrde_depth2|examples/nrde_depth2.ode|nrde_depth2.py|direct adjoint|--length 2500"
  "gnode_flipflop|examples/gnode_flipflop.ode|gnode_flipflop.py|direct|--length 100|--dt 0.01"
  "fwp_delta_cde_dopri5|examples/fwp_delta_cde.ode|fwp_delta_cde.py|adjoint|--length 161||--solver dopri5 --rtol 1e-5 --atol 1e-7|solve dopri5 rtol 1e-5 atol 1e-7;gradient adjoint rtol 1e-5 atol 1e-7"
)
