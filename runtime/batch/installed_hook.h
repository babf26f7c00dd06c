// A process-wide hook the driver installs for the duration of a run: the
// runtime calls it where it has something only the compiler can explain
// (a non-finite value's source line, the field's stability report), and
// finds it empty in a model binary, which has no compiler. One slot per hook
// type; a scope installs a hook and restores the previous one when it dies.
//
//   using Explainer = std::function<std::string(const Event&)>;
//   HookScope<Explainer> scope(make_explainer(...));   // the driver
//   if (const Explainer& e = installed_hook<Explainer>()) e(event);   // the runtime
#pragma once

#include <utility>

namespace plastic::rt {

namespace detail {
template <class Hook> Hook& hook_slot() {
  static Hook hook;
  return hook;
}
} // namespace detail

/// The installed hook of this type (empty when none is).
template <class Hook> const Hook& installed_hook() {
  return detail::hook_slot<Hook>();
}

/// Installs a hook until the scope dies, then restores the previous one.
/// Not thread safe: install before a run starts.
template <class Hook> class HookScope {
public:
  explicit HookScope(Hook hook)
      : saved_(std::exchange(detail::hook_slot<Hook>(), std::move(hook))) {}
  ~HookScope() { detail::hook_slot<Hook>() = std::move(saved_); }
  HookScope(const HookScope&) = delete;
  HookScope& operator=(const HookScope&) = delete;

private:
  Hook saved_;
};

} // namespace plastic::rt
