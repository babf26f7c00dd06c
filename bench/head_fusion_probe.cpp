// bench_head_fusion: what keeping each head's fast weights in L1 across a
// step's passes could buy, measured on a model of the passes themselves.
//
// The speech Delta CDE's fused rk4 step (examples/fwp_delta_cde.ode, after
// reassociation and factoring) touches its tile of fast weights twice:
//
//   pass A  y_s[h,r] = Σ_c W0[h,r,c] k_s[h,c]          (three distinct keys)
//   pass B  W1[h,r,c] = W0[h,r,c] + Σ_s e_s[h,r] k_s[h,c]
//
// with only per-row work (the stage values e_s from y_s) between them. The
// compiler schedules each pass over every head before the next (stage-major),
// so a tile of 4 × 20 × 20 weights × lanes (51 KB in f32 at 8 lanes) streams
// from L2 three times per step: A reads W0, B reads it again and writes W1.
// Heads do not interact, so a head-major schedule (A, e and B for one head,
// then the next) reads each head's 12.8 KB block from L2 once and again from
// L1. This program times both schedules over a direct-method tape (each step
// writes a fresh slot, as `step` does), with the loops written the way the
// loop IR emits them: lanes innermost, four rows × three keys of
// accumulators in pass A. It is a probe of a schedule the compiler does not
// have, not a measurement of the compiler: the ratio between its two rows is
// what it reports. Two more rows separate the levers: pass B with its rows
// blocked like pass A's (each key loaded once per four rows), and both
// schedules on two alternating tiles that stay in cache instead of the tape.
// The last rows (state_tape, factor_tape) price a tape of each step's
// rank-one factors instead of its state, forward and reverse sweep together
// (see "A tape of stage factors" below).
//
//   bench_head_fusion --benchmark_repetitions=10
//     --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true
//   (one command line). bench/README.md's numbers come from a Clang 19 build
//   of this file, the compiler the JIT's kernels come from: see there.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace {

#if defined(__AVX512F__)
constexpr int kLanes = 16;
#else
constexpr int kLanes = 8;
#endif
constexpr int kHeads = 4;
constexpr int kHead = 20; // d_head
constexpr int kKeys = 3;  // rk4's four stages, two at one time node
constexpr int kRowBlock = 4;
constexpr int kSteps = 160;                                // the speech series' observations
constexpr std::size_t kBlock = std::size_t{kHead} * kHead; // sample-vectors
constexpr std::size_t kTile = kHeads * kBlock;

/// One sample-vector: the lanes of a tile, as the kernels hold them.
using Vec = float __attribute__((vector_size(kLanes * sizeof(float))));

/// One step's per-head inputs: the keys and the rows' values.
struct HeadInputs {
  Vec key[kKeys][kHead];
  Vec value[kKeys][kHead];
};

/// Pass A for one head: y[s][r] = Σ_c w[r][c] key[s][c], four rows at a time.
void contract_keys(const Vec* w, const HeadInputs& in, Vec (*y)[kHead]) {
  for (int r0 = 0; r0 < kHead; r0 += kRowBlock) {
    Vec acc[kKeys][kRowBlock] = {};
    for (int c = 0; c < kHead; ++c)
      for (int r = 0; r < kRowBlock; ++r)
        for (int s = 0; s < kKeys; ++s)
          acc[s][r] += w[(r0 + r) * kHead + c] * in.key[s][c];
    for (int s = 0; s < kKeys; ++s)
      for (int r = 0; r < kRowBlock; ++r)
        y[s][r0 + r] = acc[s][r];
  }
}

/// The per-row work between the passes: e_s = h (v_s - y_s), as the delta
/// rule's error scaled by the step (the tanh and rates are a few per cent
/// of the step and do not touch the weights).
void stage_errors(const HeadInputs& in, Vec (*y)[kHead]) {
  for (int s = 0; s < kKeys; ++s)
    for (int r = 0; r < kHead; ++r)
      y[s][r] = 0.25F * (in.value[s][r] - y[s][r]);
}

/// Pass B for one head: w1 = w0 + Σ_s e_s ⊗ key_s.
void update_weights(const Vec* w0, const HeadInputs& in, const Vec (*e)[kHead], Vec* w1) {
  for (int r = 0; r < kHead; ++r)
    for (int c = 0; c < kHead; ++c) {
      Vec sum = w0[r * kHead + c];
      for (int s = 0; s < kKeys; ++s)
        sum += e[s][r] * in.key[s][c];
      w1[r * kHead + c] = sum;
    }
}

/// Pass B with the rows blocked as pass A's: each key loaded once per
/// kRowBlock rows instead of once per row (7 loads per 12 FMAs, not 16).
void update_weights_blocked(const Vec* w0, const HeadInputs& in, const Vec (*e)[kHead], Vec* w1) {
  for (int r0 = 0; r0 < kHead; r0 += kRowBlock)
    for (int c = 0; c < kHead; ++c) {
      Vec key[kKeys];
      for (int s = 0; s < kKeys; ++s)
        key[s] = in.key[s][c];
      for (int r = r0; r < r0 + kRowBlock; ++r) {
        Vec sum = w0[r * kHead + c];
        for (int s = 0; s < kKeys; ++s)
          sum += e[s][r] * key[s];
        w1[r * kHead + c] = sum;
      }
    }
}

/// A tape of kSteps + 1 tiles (each step writes a fresh one, as the direct
/// method's `step` does) or two that the steps alternate between (what the
/// same loops cost with the state in cache), and every step's inputs.
struct Problem {
  int slots;
  std::vector<Vec> tape;
  std::vector<HeadInputs> inputs = std::vector<HeadInputs>(std::size_t{kSteps} * kHeads);
  explicit Problem(bool fresh_slots)
      : slots(fresh_slots ? kSteps + 1 : 2), tape(kTile * std::size_t(slots)) {
    for (std::size_t i = 0; i < kTile; ++i)
      for (int l = 0; l < kLanes; ++l)
        tape[i][l] = 0.01F * std::sin(0.1F * float(i + l));
    for (std::size_t i = 0; i < inputs.size(); ++i)
      for (int s = 0; s < kKeys; ++s)
        for (int c = 0; c < kHead; ++c)
          for (int l = 0; l < kLanes; ++l) {
            // Softmax-like keys (positive, summing to about 1) and values of order 1.
            inputs[i].key[s][c][l] = (1.0F + 0.5F * std::cos(float(i + s + c + l))) / kHead;
            inputs[i].value[s][c][l] = std::sin(float(3 * i + s + 5 * c + l));
          }
  }
  const Vec* state(int step) const { return tape.data() + std::size_t(step % slots) * kTile; }
  Vec* next(int step) { return tape.data() + std::size_t((step + 1) % slots) * kTile; }
  const HeadInputs& in(int step, int head) const {
    return inputs[std::size_t(step) * kHeads + head];
  }
};

using Update = void (*)(const Vec*, const HeadInputs&, const Vec (*)[kHead], Vec*);

/// The rows' unit: nanoseconds per sample (lane) and step.
void count_sample_steps(benchmark::State& st) {
  st.counters["ns_per_sample_step"] =
      benchmark::Counter(double(kSteps) * kLanes, benchmark::Counter::kIsIterationInvariantRate |
                                                      benchmark::Counter::kInvert);
}

/// Step t of the compiler's schedule, every pass over all heads before the
/// next: pass A, the stage errors (left in y), pass B into the next slot.
void stage_major_step(Problem& p, int t, Update update, Vec (*y)[kKeys][kHead]) {
  for (int h = 0; h < kHeads; ++h)
    contract_keys(p.state(t) + h * kBlock, p.in(t, h), y[h]);
  for (int h = 0; h < kHeads; ++h)
    stage_errors(p.in(t, h), y[h]);
  for (int h = 0; h < kHeads; ++h)
    update(p.state(t) + h * kBlock, p.in(t, h), y[h], p.next(t) + h * kBlock);
}

/// Every pass over all heads before the next: the compiler's schedule.
void stage_major(benchmark::State& st, Update update, bool fresh_slots) {
  Problem p(fresh_slots);
  static Vec y[kHeads][kKeys][kHead];
  for (auto _ : st) {
    for (int t = 0; t < kSteps; ++t)
      stage_major_step(p, t, update, y);
    benchmark::DoNotOptimize(p.tape.data());
    benchmark::ClobberMemory();
  }
  count_sample_steps(st);
}

/// One head at a time through both passes: its block read from L2 once.
void head_major(benchmark::State& st, Update update, bool fresh_slots) {
  Problem p(fresh_slots);
  static Vec y[kKeys][kHead];
  for (auto _ : st) {
    for (int t = 0; t < kSteps; ++t)
      for (int h = 0; h < kHeads; ++h) {
        contract_keys(p.state(t) + h * kBlock, p.in(t, h), y);
        stage_errors(p.in(t, h), y);
        update(p.state(t) + h * kBlock, p.in(t, h), y, p.next(t) + h * kBlock);
      }
    benchmark::DoNotOptimize(p.tape.data());
    benchmark::ClobberMemory();
  }
  count_sample_steps(st);
}

// ---- A tape of stage factors instead of states ------------------------------
//
// The direct method's reverse sweep reads each step's z0 back from its tape
// slot. For a rank-one rule z1 = z0 + Σ_s e_s ⊗ k_s, so the sweep could
// instead keep the state in cache and rebuild z0 = z1 − Σ_s e_s ⊗ k_s from a
// tape of the factors (2 × 3 × 20 sample-vectors per head, not 400). The
// rows below time a forward and a reverse sweep both ways. The reverse step
// is the part of `step_vjp` that touches the fast weights: pass A again on
// z0, W0ᵀ ē (pass C) and the adjoint's rank-one update z̄ += Σ_s ē_s ⊗ k_s.

/// One step's factors for one head: the stage errors and the keys.
struct Factors {
  Vec e[kKeys][kHead];
  Vec key[kKeys][kHead];
};

/// Pass C for one head: g[s][c] = Σ_r w[r][c] ebar[s][r] (the keys'
/// cotangent through W0ᵀ ē), four rows at a time.
void contract_rows(const Vec* w, const Vec (*ebar)[kHead], Vec (*g)[kHead]) {
  for (int s = 0; s < kKeys; ++s)
    for (int c = 0; c < kHead; ++c)
      g[s][c] = Vec{};
  for (int r = 0; r < kHead; ++r)
    for (int c = 0; c < kHead; ++c)
      for (int s = 0; s < kKeys; ++s)
        g[s][c] += w[r * kHead + c] * ebar[s][r];
}

/// The fast-weight part of one head's `step_vjp`: recompute the stage
/// errors from w0, then W0ᵀ ē and z̄ += Σ_s ē_s ⊗ k_s (ē taken as e: the
/// values do not change the time).
void reverse_step(const Vec* w0, const HeadInputs& in, Vec* wbar) {
  Vec e[kKeys][kHead];
  Vec g[kKeys][kHead];
  contract_keys(w0, in, e);
  stage_errors(in, e);
  contract_rows(w0, e, g);
  update_weights(wbar, in, e, wbar);
  benchmark::DoNotOptimize(g);
}

/// z0 = z1 − Σ_s e_s ⊗ k_s from one step's taped factors.
void unwind(const Vec* w1, const Factors& f, Vec* w0) {
  for (int r = 0; r < kHead; ++r)
    for (int c = 0; c < kHead; ++c) {
      Vec sum = w1[r * kHead + c];
      for (int s = 0; s < kKeys; ++s)
        sum -= f.e[s][r] * f.key[s][c];
      w0[r * kHead + c] = sum;
    }
}

/// Pass A fused with the unwind: each element of z0 is rebuilt from z1 and
/// the factors, stored for the passes after, and contracted with the keys
/// while it is in a register.
void contract_keys_unwinding(const Vec* w1, const Factors& f, const HeadInputs& in, Vec (*y)[kHead],
                             Vec* w0) {
  for (int r0 = 0; r0 < kHead; r0 += kRowBlock) {
    Vec acc[kKeys][kRowBlock] = {};
    for (int c = 0; c < kHead; ++c)
      for (int r = 0; r < kRowBlock; ++r) {
        Vec w = w1[(r0 + r) * kHead + c];
        for (int s = 0; s < kKeys; ++s)
          w -= f.e[s][r0 + r] * f.key[s][c];
        w0[(r0 + r) * kHead + c] = w;
        for (int s = 0; s < kKeys; ++s)
          acc[s][r] += w * in.key[s][c];
      }
    for (int s = 0; s < kKeys; ++s)
      for (int r = 0; r < kRowBlock; ++r)
        y[s][r0 + r] = acc[s][r];
  }
}

/// reverse_step with its first pass rebuilding z0 (see above).
void reverse_step_unwinding(const Vec* w1, const Factors& f, const HeadInputs& in, Vec* w0,
                            Vec* wbar) {
  Vec e[kKeys][kHead];
  Vec g[kKeys][kHead];
  contract_keys_unwinding(w1, f, in, e, w0);
  stage_errors(in, e);
  contract_rows(w0, e, g);
  update_weights(wbar, in, e, wbar);
  benchmark::DoNotOptimize(g);
}

/// Today's direct method: every step writes a fresh state slot, the reverse
/// sweep reads it back (`fresh_slots` false: two alternating slots, the
/// same loops with the states in cache — a bound, not a method).
void state_tape(benchmark::State& st, bool fresh_slots) {
  Problem p(fresh_slots);
  std::vector<Vec> wbar(kTile);
  static Vec y[kHeads][kKeys][kHead];
  for (auto _ : st) {
    for (int t = 0; t < kSteps; ++t)
      stage_major_step(p, t, update_weights, y);
    for (int t = kSteps - 1; t >= 0; --t)
      for (int h = 0; h < kHeads; ++h)
        reverse_step(p.state(t) + h * kBlock, p.in(t, h), wbar.data() + h * kBlock);
    benchmark::DoNotOptimize(wbar.data());
    benchmark::ClobberMemory();
  }
  count_sample_steps(st);
}

/// The stage-factor tape: the state alternates between two tiles that stay
/// in cache, each step also writes its factors, and the reverse sweep
/// rebuilds each z0 from z1 — in a pass of its own before the reverse step
/// reads it, or (`fused`) inside the reverse step's first pass.
void factor_tape(benchmark::State& st, bool fused) {
  Problem p(false);
  std::vector<Factors> tape(std::size_t{kSteps} * kHeads);
  std::vector<Vec> later(kTile), earlier(kTile), wbar(kTile);
  static Vec y[kHeads][kKeys][kHead];
  for (auto _ : st) {
    for (int t = 0; t < kSteps; ++t) {
      stage_major_step(p, t, update_weights, y);
      for (int h = 0; h < kHeads; ++h) {
        Factors& f = tape[std::size_t(t) * kHeads + h];
        for (int s = 0; s < kKeys; ++s)
          for (int r = 0; r < kHead; ++r) {
            f.e[s][r] = y[h][s][r];
            f.key[s][r] = p.in(t, h).key[s][r];
          }
      }
    }
    std::copy(p.state(kSteps), p.state(kSteps) + kTile, later.begin());
    for (int t = kSteps - 1; t >= 0; --t) {
      for (int h = 0; h < kHeads; ++h) {
        const Factors& f = tape[std::size_t(t) * kHeads + h];
        if (fused) {
          reverse_step_unwinding(later.data() + h * kBlock, f, p.in(t, h),
                                 earlier.data() + h * kBlock, wbar.data() + h * kBlock);
        } else {
          unwind(later.data() + h * kBlock, f, earlier.data() + h * kBlock);
          reverse_step(earlier.data() + h * kBlock, p.in(t, h), wbar.data() + h * kBlock);
        }
      }
      later.swap(earlier);
    }
    benchmark::DoNotOptimize(wbar.data());
    benchmark::ClobberMemory();
  }
  count_sample_steps(st);
}

} // namespace

BENCHMARK_CAPTURE(state_tape, on_the_tape, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(state_tape, in_cache_bound, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(factor_tape, unwind_pass, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(factor_tape, unwind_in_pass_a, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(stage_major, row_by_row, update_weights, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(head_major, row_by_row, update_weights, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(stage_major, rows_blocked, update_weights_blocked, true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(head_major, rows_blocked, update_weights_blocked, true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(stage_major, row_by_row_in_cache, update_weights, false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(head_major, rows_blocked_in_cache, update_weights_blocked, false)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
