// The names autodiff gives the leaves and outputs it creates, written once.
//
// The tensor IR identifies a function's leaves and outputs by name (its
// printed form parses back), so these spellings are part of what autodiff
// hands on: the ABI assembler binds "ct.<state>" to the cotangent buffer and
// "d.<param>" to theta_bar, gradcheck pairs "d.<input>" with the input.
// Producers make such names and consumers take them apart only through this
// header, by kind, never by spelling out a prefix.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace plastic::ad {

/// The step size argument of a fused step (Op::Arg, scalar).
inline constexpr std::string_view kStepSizeName = "step.h";

/// A name derived from another one: "<prefix><of>".
enum class Derived {
  Cotangent,     ///< "ct.<output>": a VJP's input seeding <output>
  Gradient,      ///< "d.<input>": a VJP's output, the cotangent of <input>
  Adjoint,       ///< "a.<state>": an adjoint input of the continuous adjoint system
  AdjointRate,   ///< "adj.<state|param>": that system's -a^T df/d<state|param>
  ErrorEstimate, ///< "err.<state>": an embedded pair's local error estimate
  FirstStage,    ///< "k_first.<state>": an FSAL step's given first-stage rate f(t, z0)
  LastStage,     ///< "k_last.<state>": an FSAL step's last-stage rate f(t + h, z1)
};

/// The prefix of `kind` ("ct.", "d.", ...): for maps of names laid out like
/// the states.
constexpr std::string_view prefix(Derived kind) {
  switch (kind) {
  case Derived::Cotangent:
    return "ct.";
  case Derived::Gradient:
    return "d.";
  case Derived::Adjoint:
    return "a.";
  case Derived::AdjointRate:
    return "adj.";
  case Derived::ErrorEstimate:
    return "err.";
  case Derived::FirstStage:
    return "k_first.";
  case Derived::LastStage:
    return "k_last.";
  }
  return "";
}

/// The `kind` name of `of`: derived_name(Gradient, "W") == "d.W".
inline std::string derived_name(Derived kind, std::string_view of) {
  return std::string(prefix(kind)) + std::string(of);
}

/// What a `kind` name is derived from ("W" for Gradient and "d.W"), or
/// nullopt when `name` is not a `kind` name.
inline std::optional<std::string_view> derived_from(Derived kind, std::string_view name) {
  if (!name.starts_with(prefix(kind))) return std::nullopt;
  return name.substr(prefix(kind).size());
}

} // namespace plastic::ad
