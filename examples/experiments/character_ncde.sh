#!/usr/bin/env bash
# The NCDE baseline (examples/ncde_character.ode; Kidger et al. 2020, paper
# 002 Eqs. 3-5) on the same CharacterTrajectories split as
# character_delta_cde.sh (the given test file, 15% of training held out for
# validation, the epoch of lowest validation loss kept).
#
#   examples/experiments/character_ncde.sh
#
# Prints the test accuracy and the wall time.
source "$(dirname "$0")/common.sh"

data=$DATA/uea/CharacterTrajectories
[ -f "$data/CharacterTrajectories_TRAIN.ts" ] && [ -f "$data/CharacterTrajectories_TEST.ts" ] ||
  skip "CharacterTrajectories not found in $data (set PLASTIC_DATA to the real-data folder)"
need_plastic
out=${OUT:-$BUILD/runs/character_ncde}
epochs=${EPOCHS:-100}

start=$SECONDS
"$PLASTIC" train "$ROOT/examples/ncde_character.ode" --data "$data" \
  --lr 1e-3 --batch 32 --epochs "$epochs" --schedule cosine --optimizer adam --select loss --patience 0 \
  --dtype f32 --threads "$THREADS" --seed 0 --no-progress --out "$out"
seconds=$((SECONDS - start))

acc=$(summary_value "$out" test accuracy)
echo "character_ncde: test accuracy $acc, wall time ${seconds} s (run folder $out)"
