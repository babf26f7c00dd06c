#!/usr/bin/env bash
# Regenerates generated/: the C++ backend's source of every model in
# examples/ at its default dims (f32, tiles of 8 lanes), as `plastic emit
# --cpp` and `--cpp-header` print it.
#
#   generated/regenerate.sh [PLASTIC [OUT]]     (default: build/plastic, generated/)
#
# tests/driver/generated_test.cpp runs this into a temporary folder and
# fails on any difference from the checked-in files.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
plastic="${1:-$root/build/plastic}"
out="${2:-$root/generated}"
for model in "$root"/examples/*.ode; do
  name="$(basename "$model" .ode)"
  mkdir -p "$out/$name"
  "$plastic" emit --cpp --dtype f32 "$model" >"$out/$name/$name.cpp"
  "$plastic" emit --cpp-header --dtype f32 "$model" >"$out/$name/$name.h"
done
