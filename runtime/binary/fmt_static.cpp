// The compiled part of {fmt} as a static library, for model binaries.
//
// Debian's libfmt-dev ships only the shared libfmt.so.9, so a model binary
// linked against it would need the libfmt9 package wherever it runs. This
// file is {fmt} 9's own src/format.cc (MIT licence): format-inl.h's
// definitions plus the template instantiations that format.h declares
// `extern`, compiled here so that `plastic build` output depends on nothing
// but the C and C++ standard libraries. CMake builds it only when the
// system's fmt is version 9 and has no static archive (cmake/PlasticModelLink.cmake).
#include <fmt/format-inl.h>

#if FMT_VERSION < 90000 || FMT_VERSION >= 100000
#error "fmt_static.cpp mirrors fmt 9's src/format.cc; link the system's libfmt instead"
#endif

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

#ifndef FMT_STATIC_THOUSANDS_SEPARATOR
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
#endif

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void vformat_to(buffer<char>&, string_view,
                                 basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
template FMT_API void buffer<wchar_t>::append(const wchar_t*, const wchar_t*);

} // namespace detail
FMT_END_NAMESPACE
