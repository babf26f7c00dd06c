#!/usr/bin/env bash
# Acceptance run: the delta-rule CDE fast weight programmer (paper 000,
# Eqs. 23-25, 32) on UEA CharacterTrajectories, the given test file, 15% of
# the training file held out for validation (model selection: the epoch of
# lowest validation loss, every epoch trained: the recipe this file's
# numbers were measured with, before early stopping became the default).
#
#   examples/experiments/character_delta_cde.sh [--min-accuracy 0.95]
#
# Model: examples/fwp_delta_cde_character.ode (why it differs from
# fwp_delta_cde.ode: see its header). Settings chosen on the validation split.
# Prints the test accuracy and the wall time; with --min-accuracy, fails when
# the test accuracy is lower (the slow CTest test uses 0.95).
source "$(dirname "$0")/common.sh"

min_accuracy=""
while [ $# -gt 0 ]; do
  case "$1" in
    --min-accuracy) min_accuracy=$2; shift 2 ;;
    *) echo "usage: $0 [--min-accuracy X]" >&2; exit 2 ;;
  esac
done

data=$DATA/uea/CharacterTrajectories
[ -f "$data/CharacterTrajectories_TRAIN.ts" ] && [ -f "$data/CharacterTrajectories_TEST.ts" ] ||
  skip "CharacterTrajectories not found in $data (set PLASTIC_DATA to the real-data folder)"
need_plastic
out=${OUT:-$BUILD/runs/character_delta_cde}

start=$SECONDS
"$PLASTIC" train "$ROOT/examples/fwp_delta_cde_character.ode" --data "$data" \
  --lr 3e-3 --batch 32 --epochs 40 --schedule cosine --optimizer adam --select loss --patience 0 \
  --dtype f32 --threads "$THREADS" --seed 0 --no-progress --out "$out"
seconds=$((SECONDS - start))

acc=$(summary_value "$out" test accuracy)
echo "character_delta_cde: test accuracy $acc, wall time ${seconds} s (run folder $out)"
[ -z "$min_accuracy" ] || check_at_least "$acc" "$min_accuracy" "test accuracy"
