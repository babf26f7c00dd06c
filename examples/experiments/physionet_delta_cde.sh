#!/usr/bin/env bash
# Delta-rule CDE fast weight programmer (examples/fwp_delta_cde_predelta.ode,
# the Delta CDE the model zoo points at PhysioNet; paper 000 Eqs. 23-25, 32
# pre-delta) on PhysioNet 2019, partial training set B, in the OI and no-OI
# settings of Kidger et al. / paper 000 (first 72 hours, "ever septic"
# label, stays split 70/15/15 stratified by label; the epoch of lowest
# validation loss kept). Reports the test AUROC and wall time of each.
#
#   examples/experiments/physionet_delta_cde.sh [oi|nooi|both]   (default both)
#
# Channels: the reader gives the 34 time-varying columns (+ 34 observation
# counts with --oi) and the loader prepends time, so the model's path input
# is 35 channels (no-OI: the file's d_in = 1 + d_feat) or 69 (OI), set
# with --set d_in=... so one model file serves both settings. The archive is extracted into $PLASTIC_BUILD/data/physionet2019
# (never into the source tree). Training is shortened to EPOCHS (default 30)
# epochs at lr 1e-3, batch 128 (Table 3's lr 4e-5 / batch 1024 would need far
# more epochs than a ~15 minute budget); all stays are used.
source "$(dirname "$0")/common.sh"

which=${1:-both}
case "$which" in oi|nooi|both) ;; *) echo "usage: $0 [oi|nooi|both]" >&2; exit 2 ;; esac

physionet_stays
need_plastic
epochs=${EPOCHS:-30}

run() { # run NAME D_IN [--oi]
  local name=$1 d_in=$2; shift 2
  local out=${OUT:-$BUILD/runs}/physionet_delta_cde_$name
  local start=$SECONDS
  "$PLASTIC" train "$ROOT/examples/fwp_delta_cde_predelta.ode" --set d_in="$d_in" --data "$data" "$@" \
    --lr 1e-3 --batch 128 --epochs "$epochs" --schedule cosine --optimizer adam \
    --dtype f32 --threads "$THREADS" --seed 0 --no-progress --out "$out"
  local seconds=$((SECONDS - start))
  echo "physionet_delta_cde ($name): test AUROC $(summary_value "$out" test auroc), wall time ${seconds} s (run folder $out)"
}

[ "$which" = oi ] || run nooi 35
[ "$which" = nooi ] || run oi 69 --oi
