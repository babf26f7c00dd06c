#!/usr/bin/env bash
# Data-parallel training over MPI (issue 17) against one process, through the
# command line: `mpirun -np K plastic train` must give model.safetensors
# bitwise equal to `plastic train` with the same global batch, because each
# rank computes a contiguous range of every batch's tiles and the ranks sum
# the tiles' gradients in tile order (runtime/distributed/communicator.h,
# runtime/batch/tile_shard.h), the order one process sums them in
# (runtime/batch/ordered_sum.h). f64, 2 epochs, --threads 1 per rank.
#
#   mpi_train.sh BUILD_DIR CASE
#
# CASE:
#   flipflop NP    gnODE on the synthetic flip-flop (paper 003 Sec. 6.1), N = H = 8
#   character NP   Delta-rule CDE FWP (paper 000 Eqs. 23-25, 32) on UEA
#                  CharacterTrajectories, small dims; skipped (77) without the data
#   kill           rank 1 of 2 is killed (SIGKILL) in epoch 2: the job must end
#                  non-zero with a message, and `--resume` under mpirun must
#                  finish with the parameters of an uninterrupted run
#   disagree       ranks started with another --batch, --epochs or data are
#                  refused before the first step with one message; agreeing
#                  ranks record their count in run.json; eval and predict
#                  ranks given other parameters, data, --split, --series-alone
#                  or command are refused alike
#   tune NP        `mpirun -np NP plastic tune`: the ranks share each rung's
#                  trials and reach tune.jsonl's rows and the best run's
#                  parameters of a search in one process, bitwise (gnODE on
#                  the flip-flop, 4 random trials, successive halving)
#   refused        (a build without MPI) a process that looks launched by mpirun
#                  (OMPI_COMM_WORLD_SIZE set) is refused with exit 2 and a message,
#                  rather than train as K independent copies
# NP = 3 with 4 tiles of 8 lanes per batch of 32 (and 3 in the last batch)
# checks a batch that does not divide evenly over the ranks.
set -euo pipefail
build=$(cd "$1" && pwd)
case_name=$2
np=${3:-2}
root=$(cd "$(dirname "$0")/../.." && pwd)
plastic=$build/plastic
data_dir=${PLASTIC_DATA:-$root/../shared/data}
work=$(mktemp -d "${TMPDIR:-/tmp}/plastic-mpi-XXXXXX")
trap 'rm -rf "$work"' EXIT
mpirun=(mpirun --oversubscribe --bind-to none)

fail() {
  echo "FAIL: $*"
  exit 1
}

same_parameters() { # DIR_A DIR_B
  cmp "$1/model.safetensors" "$2/model.safetensors" ||
    fail "model.safetensors of $1 and $2 differ"
  echo "PASS: $2/model.safetensors is bitwise that of $1"
}

if [ "$case_name" = refused ]; then
  set +e
  out=$(OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 "$plastic" train \
    "$root/examples/gnode_flipflop.ode" --data synthetic:flipflop --out "$work/refused" 2>&1)
  code=$?
  set -e
  echo "$out"
  [ "$code" -eq 2 ] || fail "exit code $code, expected 2"
  grep -q "no MPI support" <<<"$out" || fail "no message says that MPI support was not built"
  [ ! -e "$work/refused" ] || fail "the refused run created its folder"
  echo "PASS: refused under mpirun without MPI support"
  exit 0
fi

if [ "$case_name" = disagree ]; then
  # Ranks started with different options or data (mpirun's MPMD form: one
  # command line per rank) are refused on every rank before the first step,
  # with one message naming what differs; no hang, no heap corruption.
  flipflop=("$root/examples/gnode_flipflop.ode" --set N=8 --set H=8)
  base=(--data synthetic:flipflop --dtype f64 --seed 3 --threads 1 --no-progress)
  refused() { # WHAT EXPECTED_TEXT RANK0_COMMAND... -- RANK1_COMMAND...
    local what=$1 text=$2; shift 2
    local first=() second=()
    while [ "$1" != -- ]; do first+=("$1"); shift; done; shift
    second=("$@")
    set +e
    timeout 120 "${mpirun[@]}" -np 1 "$plastic" "${first[@]}" : -np 1 "$plastic" "${second[@]}" \
      >"$work/$what.log" 2>&1
    local code=$?
    set -e
    cat "$work/$what.log"
    [ "$code" -ne 0 ] && [ "$code" -ne 124 ] || fail "$what: exit code $code (124: it hung)"
    grep -q "ranks of this job disagree: $text" "$work/$what.log" ||
      fail "$what: no message names the difference ('$text')"
    [ "$(grep -c 'disagree' "$work/$what.log")" -eq 1 ] || fail "$what: said more than once"
    [ ! -e "$work/$what/model.safetensors" ] || fail "$what: the refused job wrote parameters"
    [ ! -e "$work/$what.csv" ] || fail "$what: the refused job wrote predictions"
    echo "PASS: $what refused: $(grep -o 'disagree: .*' "$work/$what.log" | head -c 120)"
  }
  train=(train "${flipflop[@]}")
  refused batch "--batch is 16 on rank 1 and 32 on rank 0" \
    "${train[@]}" "${base[@]}" --batch 32 --epochs 2 --out "$work/batch" -- \
    "${train[@]}" "${base[@]}" --batch 16 --epochs 2 --out "$work/batch"
  refused epochs "--epochs is 3 on rank 1 and 2 on rank 0" \
    "${train[@]}" "${base[@]}" --batch 32 --epochs 2 --out "$work/epochs" -- \
    "${train[@]}" "${base[@]}" --batch 32 --epochs 3 --out "$work/epochs"
  refused data "the data as read is" \
    "${train[@]}" "${base[@]}" --epochs 2 --out "$work/data" -- \
    "${train[@]}" --data synthetic:flipflop-fixed "${base[@]:2}" --epochs 2 --out "$work/data"
  # Agreeing ranks train, and the run records how many there were.
  "${mpirun[@]}" -np 2 "$plastic" train "${flipflop[@]}" "${base[@]}" \
    --epochs 1 --out "$work/agreed" >"$work/agreed.log" 2>&1 ||
    { cat "$work/agreed.log"; fail "agreeing ranks failed"; }
  grep -q '"ranks": 2' "$work/agreed/run.json" || fail "run.json does not record 2 ranks"
  echo "PASS: agreeing ranks train; run.json records 2 ranks"
  # eval and predict: every rank the same parameters, data, --split and
  # --series-alone, or no rank evaluates. (The second run differs from the
  # first in its --lr only: the same synthetic data, other parameters.)
  "$plastic" train "${flipflop[@]}" "${base[@]}" --lr 3e-2 --epochs 1 --out "$work/other" \
    >"$work/other.log" 2>&1 || { cat "$work/other.log"; fail "the second run failed"; }
  evaluate=(eval "${flipflop[@]}" --threads 1 --parameters "$work/agreed" --split validation)
  refused eval_split "--split is train on rank 1 and validation on rank 0" \
    "${evaluate[@]}" -- "${evaluate[@]:0:$((${#evaluate[@]} - 1))}" train
  refused eval_parameters "the parameters' digest is" \
    "${evaluate[@]}" -- eval "${flipflop[@]}" --threads 1 --parameters "$work/other" \
    --split validation
  refused eval_data "the data as prepared is" \
    "${evaluate[@]}" -- "${evaluate[@]}" --seed 5 # other synthetic trials
  predict=(predict "${flipflop[@]}" --threads 1 --parameters "$work/agreed" --split validation)
  refused predict_alone "--series-alone is true on rank 1 and false on rank 0" \
    "${predict[@]}" --output "$work/predict_alone.csv" -- \
    "${predict[@]}" --output "$work/predict_alone.csv" --series-alone
  refused eval_predict "the command is predict on rank 1 and eval on rank 0" \
    "${evaluate[@]}" -- "${predict[@]}" --output "$work/eval_predict.csv"
  "${mpirun[@]}" -np 2 "$plastic" "${predict[@]}" --series-alone --output "$work/agreed.csv" \
    >"$work/predicted.log" 2>&1 || { cat "$work/predicted.log"; fail "agreeing ranks' predict failed"; }
  echo "PASS: agreeing ranks predict ($(($(wc -l <"$work/agreed.csv") - 1)) rows)"
  exit 0
fi

if [ "$case_name" = tune ]; then
  search=("$root/examples/gnode_flipflop.ode" --set N=8 --set H=8 --data synthetic:flipflop
    --dtype f64 --batch 50 --epochs 4 --min-epochs 1 --eta 2 --trials 4 --weight-decay 0
    --jobs 1)
  "$plastic" tune "${search[@]}" --out "$work/one" >"$work/one.log" 2>&1 ||
    { cat "$work/one.log"; fail "tune in one process failed"; }
  "${mpirun[@]}" -np "$np" "$plastic" tune "${search[@]}" --out "$work/ranks" \
    >"$work/ranks.log" 2>&1 || { cat "$work/ranks.log"; fail "tune on $np ranks failed"; }
  cat "$work/ranks.log"
  rows() { python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for r in rows: r.pop("seconds")
print(json.dumps(sorted(rows, key=lambda r: (r["trial"], r["rung"])), sort_keys=True))' "$1/tune.jsonl"; }
  [ "$(rows "$work/one")" = "$(rows "$work/ranks")" ] ||
    fail "tune.jsonl on $np ranks differs from one process"
  echo "PASS: tune.jsonl on $np ranks equals one process's ($(wc -l <"$work/ranks/tune.jsonl") rows)"
  same_parameters "$work/one/best" "$work/ranks/best"
  [ "$(ls "$work/ranks/logs" | wc -l)" -eq 4 ] || fail "not every trial has its log"
  exit 0
fi

case $case_name in
  flipflop | kill)
    model=(train "$root/examples/gnode_flipflop.ode" --set N=8 --set H=8
           --data synthetic:flipflop)
    ;;
  character)
    data=$data_dir/uea/CharacterTrajectories
    [ -f "$data/CharacterTrajectories_TRAIN.ts" ] || {
      echo "SKIP: CharacterTrajectories not found in $data (set PLASTIC_DATA)"
      exit 77
    }
    model=(train "$root/examples/fwp_delta_cde_character.ode" --set heads=2 --set d_head=4
           --set d_ff=8 --data "$data")
    ;;
  *)
    echo "usage: $0 BUILD_DIR flipflop|character|kill|refused [NP]" >&2
    exit 2
    ;;
esac
# The sum's variants give the same bits: 3 ranks send the chain in
# segments of 100 doubles (several per gradient of these small models), and
# the Delta CDE on 2 ranks uses the Allgatherv variant.
[ "$np" = 3 ] && export PLASTIC_MPI_SEGMENT=100
[ "$case_name" = character ] && [ "$np" = 2 ] && export PLASTIC_MPI_SUM=gather
common=(--dtype f64 --epochs 2 --batch 32 --seed 3 --threads 1 --lr 1e-2 --no-progress)

"$plastic" "${model[@]}" "${common[@]}" --out "$work/single" >"$work/single.log" 2>&1 ||
  { cat "$work/single.log"; fail "the single-process run failed"; }

if [ "$case_name" != kill ]; then
  "${mpirun[@]}" -np "$np" "$plastic" "${model[@]}" "${common[@]}" --out "$work/ranks" \
    >"$work/ranks.log" 2>&1 || { cat "$work/ranks.log"; fail "mpirun -np $np failed"; }
  cat "$work/ranks.log"
  same_parameters "$work/single" "$work/ranks"
  # Rank 0 alone writes the log and prints: one line per epoch, one table.
  [ "$(wc -l <"$work/ranks/train.jsonl")" -eq 2 ] || fail "train.jsonl should hold 2 epochs"
  [ "$(grep -c '^best epoch' "$work/ranks.log")" -eq 1 ] ||
    fail "the summary should be printed once, by rank 0"
  # `plastic eval` under mpirun shards the tiles alike: the same numbers
  # (to the last printed digit) as one process, printed once.
  evaluate=(eval "${model[1]}" "${model[@]:2}" --dtype f64 --threads 1 --seed 3
            --parameters "$work/single" --split validation)
  "$plastic" "${evaluate[@]}" >"$work/eval_single.txt" 2>&1 ||
    { cat "$work/eval_single.txt"; fail "eval failed"; }
  "${mpirun[@]}" -np "$np" "$plastic" "${evaluate[@]}" >"$work/eval_ranks.txt" 2>&1 ||
    { cat "$work/eval_ranks.txt"; fail "eval under mpirun failed"; }
  diff <(grep '^validation' "$work/eval_single.txt") <(grep '^validation' "$work/eval_ranks.txt") ||
    fail "eval under mpirun differs from one process"
  [ "$(grep -c '^validation' "$work/eval_ranks.txt")" -eq 1 ] || fail "eval printed more than once"
  echo "PASS: eval under mpirun: $(grep '^validation' "$work/eval_ranks.txt")"
  # A model binary (`plastic build`) shares the runtime: the same under mpirun.
  if [ "$case_name" = flipflop ]; then
    "$plastic" build "${model[1]}" "${model[@]:2:4}" --dtype f64 -o "$work/model" >/dev/null ||
      fail "plastic build failed"
    "${mpirun[@]}" -np "$np" "$work/model" train --data synthetic:flipflop "${common[@]:2}" \
      --out "$work/binary" >"$work/binary.log" 2>&1 ||
      { cat "$work/binary.log"; fail "the model binary under mpirun failed"; }
    same_parameters "$work/single" "$work/binary"
  fi
  exit 0
fi

# kill: rank 1 kills itself at its 20th ordered sum (16 batches and one
# validation per epoch: batch 3 of epoch 2), after the epoch-1 checkpoint.
set +e
PLASTIC_MPI_TEST_KILL=1:20 "${mpirun[@]}" -np 2 "$plastic" "${model[@]}" "${common[@]}" \
  --out "$work/ranks" >"$work/killed.log" 2>&1
code=$?
set -e
cat "$work/killed.log"
[ "$code" -ne 0 ] || fail "the job with a killed rank ended with exit code 0"
grep -qi "signal 9\|killed" "$work/killed.log" || fail "no message says that a rank was killed"
[ -n "$(ls "$work/ranks/checkpoints")" ] || fail "no checkpoint left after the kill"
[ ! -e "$work/ranks/model.safetensors" ] || fail "a killed run wrote model.safetensors"
echo "PASS: the killed job ended with exit code $code and a message"
"${mpirun[@]}" -np 2 "$plastic" "${model[@]}" "${common[@]}" --out "$work/ranks" --resume \
  >"$work/resumed.log" 2>&1 || { cat "$work/resumed.log"; fail "--resume under mpirun failed"; }
cat "$work/resumed.log"
grep -q "resuming from epoch 2" "$work/resumed.log" || fail "the run did not resume from epoch 2"
same_parameters "$work/single" "$work/ranks"
