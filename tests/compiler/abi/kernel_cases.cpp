// KernelCases of the 14 ABI kernels (see kernel_cases.h). Each reference is
// written from the ABI's definition of the kernel and evaluates the model's
// IR functions with the interpreter.
#include "tests/compiler/abi/kernel_cases.h"

#include <algorithm>
#include <stdexcept>

#include "compiler/abi/kernels.h"
#include "runtime/solvers/tableau.h"

namespace plastic::test {

using abi::KernelId;
using model::FnKind;
using model::FnRole;
using A = ArgSpec;

namespace {

struct Ctx {
  const model::ModelFunctions& fns;
  const abi::ModelLayout& L;
  const plastic_model& m;
  const ir::Function& fn(FnRole role) const {
    const ir::Function* f = fns.find(role);
    if (!f) throw std::runtime_error("no function " + model::to_string(role));
    return *f;
  }
  // Adds every gradient output "d.*" of `r` to `out` under the ABI arg names.
  void scatter(const ir::Function& f, const std::map<std::string, Vec>& r,
               std::map<std::string, Vec>& out,
               const std::map<std::string, std::string>& role_to_arg, int64_t u_block_size,
               const std::function<int64_t(int)>& block = {}) const {
    for (const auto& [name, value] : r) {
      GradPlace p = grad_place(fns, L, f, name);
      auto it = role_to_arg.find(p.role);
      if (p.role.empty() || it == role_to_arg.end()) continue;
      Vec& dst = out[it->second];
      int64_t size = p.role == "z"       ? L.n_state
                     : p.role == "theta" ? L.n_params
                     : p.role == "y"     ? L.n_outputs
                                         : u_block_size;
      if (dst.empty()) dst.assign(static_cast<size_t>(size), 0.0);
      int64_t base = p.offset + (p.node >= 0 ? block(p.node) : 0);
      for (size_t i = 0; i < value.size(); ++i)
        dst.at(static_cast<size_t>(base) + i) += value[i];
    }
  }
};

Vec copy_out(const std::map<std::string, Vec>& r, const std::vector<abi::Slice>& slices,
             int64_t total, const std::string& prefix = "") {
  Vec v(static_cast<size_t>(total), 0.0);
  for (const abi::Slice& s : slices) {
    const Vec& x = r.at(prefix + s.name);
    for (size_t i = 0; i < x.size(); ++i)
      v[static_cast<size_t>(s.offset) + i] = x[i];
  }
  return v;
}

template <class Fn> Fn as(void* p) {
  return reinterpret_cast<Fn>(p);
}

} // namespace

std::vector<KernelCase> make_cases(const model::ModelFunctions& fns, const abi::ModelLayout& L,
                                   const plastic_model& m) {
  Ctx c{fns, L, m};
  const int64_t n = L.n_state, P = L.n_params, mi = L.n_input, o = L.n_outputs, g = L.n_targets;
  std::vector<KernelCase> cases;
  auto add = [&](KernelId id, void* fn, uint64_t scratch, std::vector<ArgSpec> args, auto call,
                 auto ref) {
    if (!fn) return;
    KernelCase k;
    k.name = std::string(abi::kernel_name(id));
    k.fn = fn;
    k.scratch = scratch;
    // Zero-sized arrays are passed as (unused) pointers to one element.
    for (ArgSpec& a : args)
      a.size = std::max<int64_t>(a.size, 1);
    k.args = std::move(args);
    k.call = call;
    k.reference = ref;
    cases.push_back(std::move(k));
  };
  const plastic_kernels& K = m.kernels;
  const plastic_scratch_sizes& S = m.scratch;
  const FnKind out_kind = L.readout == PLASTIC_READOUT_EACH_OBSERVATION ? FnKind::ObservationOutputs
                                                                        : FnKind::FinalOutputs;

  add(
      KernelId::InitState, (void*)K.init_state, S.init_state,
      {{"theta", P, true}, {"u0", mi}, {"z0", n, false, A::Set}},
      [](void* f, const std::vector<void*>& p, double, double, void* s) {
        as<plastic_init_state_fn>(f)(nullptr, p[0], p[1], p[2], s);
      },
      [c](const std::map<std::string, Vec>& x) {
        SampleArrays a{.theta = &x.at("theta"), .u = &x.at("u0")};
        return std::map<std::string, Vec>{
            {"z0", copy_out(evaluate_sample(c.fns, c.L, c.fn(FnKind::Init), a), c.L.states,
                            c.L.n_state)}};
      });
  add(
      KernelId::InitStateVjp, (void*)K.init_state_vjp, S.init_state_vjp,
      {{"theta", P, true},
       {"u0", mi},
       {"z0_bar", n, false, A::In, true},
       {"theta_bar", P, true, A::Acc},
       {"u0_bar", mi, false, A::Acc}},
      [](void* f, const std::vector<void*>& p, double, double, void* s) {
        as<plastic_init_state_vjp_fn>(f)(nullptr, p[0], p[1], p[2], p[3], p[4], s);
      },
      [c, mi](const std::map<std::string, Vec>& x) {
        SampleArrays a{.theta = &x.at("theta"), .u = &x.at("u0"), .ct_states = &x.at("z0_bar")};
        const ir::Function& f = c.fn(FnKind::InitVjp);
        std::map<std::string, Vec> out;
        c.scatter(f, evaluate_sample(c.fns, c.L, f, a), out,
                  {{"theta", "theta_bar"}, {"u", "u0_bar"}}, mi);
        return out;
      });
  add(
      KernelId::Field, (void*)K.field, S.field,
      {{"z", n}, {"theta", P, true}, {"u", mi}, {"dz", n, false, A::Set}},
      [](void* f, const std::vector<void*>& p, double t, double, void* s) {
        as<plastic_field_fn>(f)(nullptr, t, p[0], p[1], p[2], p[3], s);
      },
      [c](const std::map<std::string, Vec>& x) {
        SampleArrays a{
            .z = &x.at("z"), .theta = &x.at("theta"), .u = &x.at("u"), .t = x.at("t")[0]};
        return std::map<std::string, Vec>{
            {"dz", copy_out(evaluate_sample(c.fns, c.L, c.fn(FnKind::Field), a), c.L.states,
                            c.L.n_state)}};
      });
  add(
      KernelId::FieldVjp, (void*)K.field_vjp, S.field_vjp,
      {{"z", n},
       {"theta", P, true},
       {"u", mi},
       {"a", n, false, A::In, true},
       {"z_bar", n, false, A::Acc},
       {"theta_bar", P, true, A::Acc},
       {"u_bar", mi, false, A::Acc}},
      [](void* f, const std::vector<void*>& p, double t, double, void* s) {
        as<plastic_field_vjp_fn>(f)(nullptr, t, p[0], p[1], p[2], p[3], p[4], p[5], p[6], s);
      },
      [c, mi](const std::map<std::string, Vec>& x) {
        SampleArrays a{.z = &x.at("z"),
                       .theta = &x.at("theta"),
                       .u = &x.at("u"),
                       .ct_states = &x.at("a"),
                       .t = x.at("t")[0]};
        const ir::Function& f = c.fn(FnKind::FieldVjp);
        std::map<std::string, Vec> out;
        c.scatter(f, evaluate_sample(c.fns, c.L, f, a), out,
                  {{"z", "z_bar"}, {"theta", "theta_bar"}, {"u", "u_bar"}}, mi);
        return out;
      });
  add(
      KernelId::AdjointField, (void*)K.adjoint_field, S.adjoint_field,
      {{"z", n},
       {"a", n, false, A::In, true},
       {"theta", P, true},
       {"u", mi},
       {"dz", n, false, A::Set},
       {"da", n, false, A::Set},
       {"dtheta", P, true, A::Set, false, m.field_theta_begin, m.field_theta_end},
       {"u_bar", mi, false, A::Acc}},
      [](void* f, const std::vector<void*>& p, double t, double, void* s) {
        as<plastic_adjoint_field_fn>(f)(nullptr, t, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7],
                                        s);
      },
      [c, mi](const std::map<std::string, Vec>& x) {
        SampleArrays a{.z = &x.at("z"),
                       .theta = &x.at("theta"),
                       .u = &x.at("u"),
                       .a_states = &x.at("a"),
                       .t = x.at("t")[0]};
        std::map<std::string, Vec> r = evaluate_sample(c.fns, c.L, c.fn(FnKind::AdjointSystem), a);
        std::map<std::string, Vec> out{{"dz", copy_out(r, c.L.states, c.L.n_state)},
                                       {"da", copy_out(r, c.L.states, c.L.n_state, "adj.")}};
        Vec dtheta(static_cast<size_t>(c.L.n_params), 0.0);
        for (const abi::ParamEntry& p : c.L.params)
          if (auto it = r.find("adj." + p.name); it != r.end())
            for (size_t i = 0; i < it->second.size(); ++i)
              dtheta[static_cast<size_t>(p.c.offset) + i] = it->second[i];
        out["dtheta"] = dtheta;
        SampleArrays v = a;
        v.ct_states = &x.at("a");
        const ir::Function& f = c.fn(FnKind::FieldVjp);
        c.scatter(f, evaluate_sample(c.fns, c.L, f, v), out, {{"u", "u_bar"}}, mi);
        return out;
      });

  // Fused steps: blocks of u_stages per stage; node k read from its first stage.
  const rt::ButcherTableau* method = rt::find_tableau(L.step_method);
  const model::ModelStep* step = fns.step(method);
  const ad::RkStep* info = step ? &step->info : nullptr;
  if (info) {
    const int64_t s = static_cast<int64_t>(info->stage_node.size());
    auto block = [info, mi](int node) -> int64_t {
      for (size_t i = 0; i < info->stage_node.size(); ++i)
        if (info->stage_node[i] == node) return static_cast<int64_t>(i) * mi;
      throw std::runtime_error("node without stage");
    };
    add(
        KernelId::Step, (void*)K.step, S.step,
        {{"z0", n}, {"theta", P, true}, {"u_stages", s * mi}, {"z1", n, false, A::Set}},
        [](void* f, const std::vector<void*>& p, double t, double h, void* sc) {
          as<plastic_step_fn>(f)(nullptr, t, h, p[0], p[1], p[2], p[3], sc);
        },
        [c, block, method](const std::map<std::string, Vec>& x) {
          SampleArrays a{.z = &x.at("z0"),
                         .theta = &x.at("theta"),
                         .u = &x.at("u_stages"),
                         .block_of_node = block,
                         .t = x.at("t")[0],
                         .h = x.at("h")[0]};
          const ir::Function& f = c.fn({FnKind::Step, method});
          return std::map<std::string, Vec>{
              {"z1", copy_out(evaluate_sample(c.fns, c.L, f, a), c.L.states, c.L.n_state)}};
        });
    add(
        KernelId::StepVjp, (void*)K.step_vjp, S.step_vjp,
        {{"z0", n},
         {"theta", P, true},
         {"u_stages", s * mi},
         {"z1_bar", n, false, A::In, true},
         {"z0_bar", n, false, A::Set},
         {"theta_bar", P, true, A::Acc},
         {"u_stages_bar", s * mi, false, A::Acc}},
        [](void* f, const std::vector<void*>& p, double t, double h, void* sc) {
          as<plastic_step_vjp_fn>(f)(nullptr, t, h, p[0], p[1], p[2], p[3], p[4], p[5], p[6], sc);
        },
        [c, block, method, s, mi](const std::map<std::string, Vec>& x) {
          SampleArrays a{.z = &x.at("z0"),
                         .theta = &x.at("theta"),
                         .u = &x.at("u_stages"),
                         .block_of_node = block,
                         .ct_states = &x.at("z1_bar"),
                         .t = x.at("t")[0],
                         .h = x.at("h")[0]};
          std::map<std::string, Vec> out;
          std::map<std::string, std::string> args{
              {"z", "z0_bar"}, {"theta", "theta_bar"}, {"u", "u_stages_bar"}};
          const ir::Function& f = c.fn({FnKind::StepVjp, method});
          c.scatter(f, evaluate_sample(c.fns, c.L, f, a), out, args, s * mi, block);
          if (const ir::Function* st = c.fns.find({FnKind::StepStaticVjp, method}))
            c.scatter(*st, evaluate_sample(c.fns, c.L, *st, a), out, {{"u", "u_stages_bar"}},
                      s * mi, block);
          return out;
        });
    const bool fsal = method->fsal;
    add(
        KernelId::StepAdaptive, (void*)K.step_adaptive, S.step_adaptive,
        {{"z0", n},
         {"theta", P, true},
         {"u_stages", s * mi},
         {"k_first", n},
         {"z1", n, false, A::Set},
         {"err", n, false, A::Set},
         {"k_last", n, false, fsal ? A::Set : A::In}},
        [](void* f, const std::vector<void*>& p, double t, double h, void* sc) {
          as<plastic_step_adaptive_fn>(f)(nullptr, t, h, p[0], p[1], p[2], p[3], p[4], p[5], p[6],
                                          sc);
        },
        [c, block, method, s, mi, fsal](const std::map<std::string, Vec>& x) {
          SampleArrays a{.z = &x.at("z0"),
                         .theta = &x.at("theta"),
                         .u = &x.at("u_stages"),
                         .block_of_node = block,
                         .t = x.at("t")[0],
                         .h = x.at("h")[0]};
          std::map<std::string, Vec> r =
              evaluate_sample(c.fns, c.L, c.fn({FnKind::Step, method}), a);
          std::map<std::string, Vec> out{{"z1", copy_out(r, c.L.states, c.L.n_state)},
                                         {"err", copy_out(r, c.L.states, c.L.n_state, "err.")}};
          if (fsal) {
            // f(t + h, z1) with the sample at t + h: the block of the first
            // stage at node c = 1 (runtime/abi.h).
            const auto& nodes = c.fns.step(method)->info.nodes;
            const int at_end =
                static_cast<int>(std::find(nodes.begin(), nodes.end(), 1.0) - nodes.begin());
            const int64_t b = block(at_end);
            Vec last(x.at("u_stages").begin() + b, x.at("u_stages").begin() + b + mi);
            SampleArrays fa{.z = &out["z1"],
                            .theta = &x.at("theta"),
                            .u = &last,
                            .t = x.at("t")[0] + x.at("h")[0]};
            out["k_last"] = copy_out(evaluate_sample(c.fns, c.L, c.fn(FnKind::Field), fa),
                                     c.L.states, c.L.n_state);
          }
          return out;
        });
    // FSAL: k_first is the ABI's f(t, z0, u(t)), the first stage the kernel
    // takes instead of recomputing it.
    if (fsal && !cases.empty() && cases.back().name == "step_adaptive")
      cases.back().derive = [c, block, mi](const std::map<std::string, Vec>& x) {
        Vec first(x.at("u_stages").begin() + block(0), x.at("u_stages").begin() + block(0) + mi);
        SampleArrays fa{.z = &x.at("z0"), .theta = &x.at("theta"), .u = &first, .t = x.at("t")[0]};
        return std::map<std::string, Vec>{
            {"k_first", copy_out(evaluate_sample(c.fns, c.L, c.fn(FnKind::Field), fa), c.L.states,
                                 c.L.n_state)}};
      };
    // err = h sum e_i k_i cancels terms of size h|k| (sum e_i = 0): its
    // rounding is relative to that size, measured by the step's increment.
    if (!cases.empty() && cases.back().name == "step_adaptive")
      cases.back().scale_floor = [](const std::string& arg, const std::map<std::string, Vec>& x,
                                    const std::map<std::string, Vec>& ref) {
        if (arg != "err") return 0.0;
        double s = 0;
        const Vec& z0 = x.at("z0");
        const Vec& z1 = ref.at("z1");
        for (size_t i = 0; i < z1.size(); ++i)
          s = std::max(s, std::abs(z1[i] - z0[i]));
        return s;
      };
    // The fused adjoint step against the adjoint system (the adjoint_field
    // kernel's function) stepped stage by stage here: K_i = G(t + c_i h,
    // Y0 + h sum_j a_ij K_j, u at the stage's node), Y1 = Y0 + h sum_i b_i K_i,
    // dtheta = h sum_i b_i adj.<param>(stage i). Independent of
    // ad::build_adjoint_step: it checks the substitution, the stage sums,
    // the shared nodes and the quadrature's lane sum at once.
    // Embedded pairs also write the error estimates err = h sum_i e_i K_i
    // ([z; a]) and dtheta_err.
    const bool adaptive = method->adaptive();
    std::vector<ArgSpec> adjoint_args{
        {"z0", n},
        {"a0", n, false, A::In, true},
        {"theta", P, true},
        {"u_stages", s * mi},
        {"z1", n, false, A::Set},
        {"a1", n, false, A::Set},
        {"dtheta", P, true, A::Set, false, m.field_theta_begin, m.field_theta_end}};
    if (adaptive) {
      adjoint_args.push_back({"err", 2 * n, false, A::Set});
      adjoint_args.push_back(
          {"dtheta_err", P, true, A::Set, false, m.field_theta_begin, m.field_theta_end});
    }
    add(
        KernelId::AdjointStep, (void*)K.adjoint_step, S.adjoint_step, adjoint_args,
        [adaptive](void* f, const std::vector<void*>& p, double t, double h, void* sc) {
          as<plastic_adjoint_step_fn>(f)(nullptr, t, h, p[0], p[1], p[2], p[3], p[4], p[5], p[6],
                                         adaptive ? p[7] : nullptr, adaptive ? p[8] : nullptr, sc);
        },
        [c, block, info, method, s, mi](const std::map<std::string, Vec>& x) {
          const rt::ButcherTableau& tab = *method;
          const double t = x.at("t")[0], h = x.at("h")[0];
          const size_t ns = static_cast<size_t>(c.L.n_state);
          const size_t P = static_cast<size_t>(c.L.n_params);
          std::vector<Vec> kz, ka, g; // per stage: dz, da, dtheta
          for (int i = 0; i < s; ++i) {
            Vec z = x.at("z0"), a = x.at("a0");
            for (int j = 0; j < i; ++j)
              for (size_t e = 0; e < ns; ++e) {
                z[e] += h * tab.A(i, j) * kz[static_cast<size_t>(j)][e];
                a[e] += h * tab.A(i, j) * ka[static_cast<size_t>(j)][e];
              }
            const auto from =
                x.at("u_stages").begin() + block(info->stage_node[static_cast<size_t>(i)]);
            Vec u(from, from + mi);
            SampleArrays sa{.z = &z,
                            .theta = &x.at("theta"),
                            .u = &u,
                            .a_states = &a,
                            .t = t + tab.c[static_cast<size_t>(i)] * h};
            std::map<std::string, Vec> r =
                evaluate_sample(c.fns, c.L, c.fn(FnKind::AdjointSystem), sa);
            kz.push_back(copy_out(r, c.L.states, c.L.n_state));
            ka.push_back(copy_out(r, c.L.states, c.L.n_state, "adj."));
            Vec gi(P, 0.0);
            for (const abi::ParamEntry& p : c.L.params)
              if (auto it = r.find("adj." + p.name); it != r.end())
                for (size_t e = 0; e < it->second.size(); ++e)
                  gi[static_cast<size_t>(p.c.offset) + e] = it->second[e];
            g.push_back(gi);
          }
          Vec z1 = x.at("z0"), a1 = x.at("a0"), dtheta(P, 0.0);
          Vec err(2 * ns, 0.0), dtheta_err(P, 0.0);
          for (int i = 0; i < s; ++i) {
            const size_t iu = static_cast<size_t>(i);
            const double w = h * tab.b[iu], we = tab.adaptive() ? h * tab.e[iu] : 0.0;
            for (size_t e = 0; e < ns; ++e) {
              z1[e] += w * kz[iu][e];
              a1[e] += w * ka[iu][e];
              err[e] += we * kz[iu][e];
              err[ns + e] += we * ka[iu][e];
            }
            for (size_t e = 0; e < P; ++e) {
              dtheta[e] += w * g[iu][e];
              dtheta_err[e] += we * g[iu][e];
            }
          }
          std::map<std::string, Vec> out{{"z1", z1}, {"a1", a1}, {"dtheta", dtheta}};
          if (tab.adaptive()) {
            out["err"] = err;
            out["dtheta_err"] = dtheta_err;
            // Not an argument: the size of the terms dtheta_err cancels.
            double terms = 0;
            for (const Vec& gi : g)
              for (double v : gi)
                terms = std::max(terms, std::abs(h * v));
            out["dtheta_terms"] = {terms};
          }
          return out;
        });
    // The error estimates cancel terms of the size of the step's increment
    // (sum e_i = 0): their rounding is relative to that, for dtheta_err the
    // largest h * (-a^T df/dtheta) of a stage.
    if (adaptive && !cases.empty() && cases.back().name == "adjoint_step")
      cases.back().scale_floor = [](const std::string& arg, const std::map<std::string, Vec>& x,
                                    const std::map<std::string, Vec>& ref) {
        double s = 0;
        if (arg == "err") {
          const Vec &z0 = x.at("z0"), &a0 = x.at("a0"), &z1 = ref.at("z1"), &a1 = ref.at("a1");
          for (size_t i = 0; i < z1.size(); ++i)
            s = std::max({s, std::abs(z1[i] - z0[i]), std::abs(a1[i] - a0[i])});
        } else if (arg == "dtheta_err") {
          s = ref.at("dtheta_terms")[0];
        }
        return s;
      };
  }

  add(
      KernelId::Output, (void*)K.output, S.output,
      {{"z", n}, {"theta", P, true}, {"u", mi}, {"y", o, false, A::Set}},
      [](void* f, const std::vector<void*>& p, double t, double, void* s) {
        as<plastic_output_fn>(f)(nullptr, t, p[0], p[1], p[2], p[3], s);
      },
      [c, out_kind](const std::map<std::string, Vec>& x) {
        SampleArrays a{
            .z = &x.at("z"), .theta = &x.at("theta"), .u = &x.at("u"), .t = x.at("t")[0]};
        return std::map<std::string, Vec>{
            {"y",
             copy_out(evaluate_sample(c.fns, c.L, c.fn(out_kind), a), c.L.outputs, c.L.n_outputs)}};
      });
  add(
      KernelId::OutputVjp, (void*)K.output_vjp, S.output_vjp,
      {{"z", n},
       {"theta", P, true},
       {"u", mi},
       {"y_bar", o, false, A::In, true},
       {"z_bar", n, false, A::Acc},
       {"theta_bar", P, true, A::Acc},
       {"u_bar", mi, false, A::Acc}},
      [](void* f, const std::vector<void*>& p, double t, double, void* s) {
        as<plastic_output_vjp_fn>(f)(nullptr, t, p[0], p[1], p[2], p[3], p[4], p[5], p[6], s);
      },
      [c, out_kind, mi](const std::map<std::string, Vec>& x) {
        SampleArrays a{.z = &x.at("z"),
                       .theta = &x.at("theta"),
                       .u = &x.at("u"),
                       .ct_outputs = &x.at("y_bar"),
                       .t = x.at("t")[0]};
        const ir::Function& f = c.fn(model::vjp_of(out_kind));
        std::map<std::string, Vec> out;
        c.scatter(f, evaluate_sample(c.fns, c.L, f, a), out,
                  {{"z", "z_bar"}, {"theta", "theta_bar"}, {"u", "u_bar"}}, mi);
        return out;
      });
  add(
      KernelId::Loss, (void*)K.loss, S.loss, {{"y", o}, {"target", g}, {"loss", 1, false, A::Set}},
      [](void* f, const std::vector<void*>& p, double, double, void* s) {
        as<plastic_loss_fn>(f)(nullptr, p[0], p[1], p[2], s);
      },
      [c](const std::map<std::string, Vec>& x) {
        SampleArrays a{.target = &x.at("target"), .y = &x.at("y")};
        return std::map<std::string, Vec>{
            {"loss", evaluate_sample(c.fns, c.L, c.fn(FnKind::Loss), a).at("loss")}};
      });
  add(
      KernelId::LossVjp, (void*)K.loss_vjp, S.loss_vjp,
      {{"y", o}, {"target", g}, {"loss_bar", 1, false, A::In, true}, {"y_bar", o, false, A::Acc}},
      [](void* f, const std::vector<void*>& p, double, double, void* s) {
        as<plastic_loss_vjp_fn>(f)(nullptr, p[0], p[1], p[2], p[3], s);
      },
      [c](const std::map<std::string, Vec>& x) {
        SampleArrays a{.target = &x.at("target"), .y = &x.at("y")};
        a.ct_named["loss"] = &x.at("loss_bar");
        const ir::Function& f = c.fn(FnKind::LossVjp);
        std::map<std::string, Vec> out;
        c.scatter(f, evaluate_sample(c.fns, c.L, f, a), out, {{"y", "y_bar"}}, 0);
        return out;
      });
  add(
      KernelId::Jump, (void*)K.jump, S.jump,
      {{"z_minus", n}, {"theta", P, true}, {"u", mi}, {"z_plus", n, false, A::Set}},
      [](void* f, const std::vector<void*>& p, double t, double, void* s) {
        as<plastic_jump_fn>(f)(nullptr, t, p[0], p[1], p[2], p[3], s);
      },
      [c](const std::map<std::string, Vec>& x) {
        SampleArrays a{
            .z = &x.at("z_minus"), .theta = &x.at("theta"), .u = &x.at("u"), .t = x.at("t")[0]};
        return std::map<std::string, Vec>{
            {"z_plus", copy_out(evaluate_sample(c.fns, c.L, c.fn(FnKind::Jump), a), c.L.states,
                                c.L.n_state)}};
      });
  add(
      KernelId::JumpVjp, (void*)K.jump_vjp, S.jump_vjp,
      {{"z_minus", n},
       {"theta", P, true},
       {"u", mi},
       {"z_plus_bar", n, false, A::In, true},
       {"z_minus_bar", n, false, A::Acc},
       {"theta_bar", P, true, A::Acc},
       {"u_bar", mi, false, A::Acc}},
      [](void* f, const std::vector<void*>& p, double t, double, void* s) {
        as<plastic_jump_vjp_fn>(f)(nullptr, t, p[0], p[1], p[2], p[3], p[4], p[5], p[6], s);
      },
      [c, mi](const std::map<std::string, Vec>& x) {
        SampleArrays a{.z = &x.at("z_minus"),
                       .theta = &x.at("theta"),
                       .u = &x.at("u"),
                       .ct_states = &x.at("z_plus_bar"),
                       .t = x.at("t")[0]};
        const ir::Function& f = c.fn(FnKind::JumpVjp);
        std::map<std::string, Vec> out;
        c.scatter(f, evaluate_sample(c.fns, c.L, f, a), out,
                  {{"z", "z_minus_bar"}, {"theta", "theta_bar"}, {"u", "u_bar"}}, mi);
        return out;
      });

  // Targets as the task encodes them: one-hot labels, 0/1 for BCE.
  for (KernelCase& k : cases)
    k.generate["target"] = [&L](std::mt19937_64& rng) {
      Vec v(static_cast<size_t>(std::max<int64_t>(L.n_targets, 1)));
      std::uniform_real_distribution<double> U(-1, 1);
      for (double& x : v)
        x = U(rng);
      for (const abi::Slice& s : L.targets) {
        if (L.task == PLASTIC_TASK_CLASSIFICATION) {
          for (int64_t i = 0; i < s.size; ++i)
            v[static_cast<size_t>(s.offset + i)] = 0;
          v[static_cast<size_t>(s.offset +
                                static_cast<int64_t>(rng() % static_cast<uint64_t>(s.size)))] = 1;
        } else if (L.task == PLASTIC_TASK_BINARY) {
          for (int64_t i = 0; i < s.size; ++i)
            v[static_cast<size_t>(s.offset + i)] = static_cast<double>(rng() % 2);
        }
      }
      return v;
    };
  // Slow weights of moderate size so activations stay in range.
  for (KernelCase& k : cases)
    k.generate["theta"] = [P](std::mt19937_64& rng) {
      Vec v(static_cast<size_t>(std::max<int64_t>(P, 1)));
      std::uniform_real_distribution<double> U(-0.3, 0.3);
      for (double& x : v)
        x = U(rng);
      return v;
    };
  return cases;
}

} // namespace plastic::test
