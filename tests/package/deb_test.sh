#!/usr/bin/env bash
# The Debian package, end to end: `cpack -G DEB` in the build folder, the
# .deb unpacked with dpkg-deb into a temporary root (no root rights, no
# apt), and there: `plastic --version`, the README's training job, a model
# binary, examples/embed built against the package's CMake files, the
# Python module imported from Debian's dist-packages, the man pages and the
# completion script.
#
# Usage: deb_test.sh BUILD_DIR SOURCE_DIR   ($CMAKE and $CPACK name the tools)
set -euo pipefail
cmake=${CMAKE:-cmake}
cpack=${CPACK:-cpack}
if ! command -v dpkg-deb >/dev/null || ! command -v dpkg-shlibdeps >/dev/null; then
  echo "deb_test: skipped: dpkg-deb and dpkg-shlibdeps (Debian's dpkg-dev) are needed"
  exit 77
fi
build=$(realpath "$1")
source=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "deb_test: $*" >&2; exit 1; }

# A package of its own: not the build folder's, which a person may be using.
(cd "$work" && "$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
deb=$(ls "$work"/out/plastic_*_amd64.deb) || fail "no plastic_<version>_amd64.deb in $work/out"
version=$(dpkg-deb -f "$deb" Version)
[[ $(basename "$deb") == "plastic_${version}_amd64.deb" ]] || fail "unexpected name $(basename "$deb")"
depends=$(dpkg-deb -f "$deb" Depends)
for dep in libllvm19 libclang-common-19-dev; do
  [[ $depends == *"$dep"* ]] || fail "Depends lacks $dep: $depends"
done

root="$work/root"
dpkg-deb -x "$deb" "$root"
usr="$root/usr"
plastic="$usr/bin/plastic"
[[ $("$plastic" --version) == "plastic $version" ]] || fail "--version says $("$plastic" --version)"
for f in share/man/man1/plastic.1 share/man/man1/plastic-train.1 share/doc/plastic/copyright \
         share/bash-completion/completions/plastic include/plastic/plastic.h \
         lib/cmake/Plastic/PlasticConfig.cmake share/plastic/editors/plastic.tmLanguage.json; do
  [[ -s "$usr/$f" ]] || fail "the package lacks /usr/$f"
done
bash -n "$usr/share/bash-completion/completions/plastic" || fail "the completion script is not bash"

# The README's job (fewer epochs: this checks the package, not the model).
cd "$work"
"$plastic" train "$source/examples/gnode_flipflop.ode" --data synthetic:flipflop --set N=24 --set H=64 \
  --batch 10 --lr 1e-2 --clip 1 --optimizer adamw --epochs 3 --no-progress --out run >train.log 2>&1 ||
  { cat train.log; fail "the packaged plastic does not train"; }
[[ -s run/model.safetensors ]] || fail "training wrote no model.safetensors"

# A model binary: linked from the package's lib/plastic.
"$plastic" build "$source/examples/gnode_flipflop.ode" --set N=24 --set H=64 -o flipflop >build.log 2>&1 ||
  { cat build.log; fail "the packaged plastic does not build a model binary"; }
./flipflop --help >/dev/null || fail "the model binary does not run"

# examples/embed against the package's CMake files.
"$cmake" -S "$source/examples/embed" -B embed -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$usr" >embed.log 2>&1 && "$cmake" --build embed >>embed.log 2>&1 ||
  { cat embed.log; fail "examples/embed does not build against the package"; }
[[ -x embed/classify ]] || fail "examples/embed built no classify"

# The Python module, where Debian's python3 looks for packages.
if [[ -d "$usr/lib/python3/dist-packages/plastic" ]]; then
  PYTHONPATH="$usr/lib/python3/dist-packages" /usr/bin/python3 -c \
    "import plastic, sys; sys.exit(plastic.__version__ != '$version')" ||
    fail "the packaged Python module does not import"
fi
echo "deb_test: $(basename "$deb") ($(du -h "$deb" | cut -f1)) unpacks, trains, builds and embeds"
