#!/usr/bin/env bash
# File: tests/install/test_install.sh
#
# Installs the build into a temporary prefix (cmake --install) and checks what
# an embedder gets: the headers and libraries in place, libdynarock.so with its
# SONAME exporting only dynarock_*, the examples/ project configured with
# find_package(Dynarock) against the prefix, built and run with their output
# checked against examples/expected/, and the C example built again with
# pkg-config alone.
#
#   bash tests/install/test_install.sh BUILD_DIR

set -euo pipefail
BUILD=$(cd "${1:?usage: test_install.sh BUILD_DIR}" && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PREFIX="$WORK/prefix"
fail() { echo "install test: $*" >&2; exit 1; }

cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log" >&2; fail "cmake --install failed"; }

for f in include/dynarock/dynarock.h include/dynarock/db.h include/dynarock/version.h \
         include/dynarock/requests.h include/dynarock/graph/graph.h include/dynarock/document/table.h \
         lib/libdynarock_engine.a lib/libdynarock_graph.a lib/libdynarock_document.a lib/pkgconfig/dynarock.pc \
         lib/cmake/Dynarock/DynarockConfig.cmake bin/dynarock; do
  [ -e "$PREFIX/$f" ] || fail "missing $f"
done
# Internal headers stay out.
[ ! -e "$PREFIX/include/engine" ] || fail "internal headers installed"

LIB="$PREFIX/lib/libdynarock.so"
[ -L "$LIB" ] || fail "libdynarock.so is not a link to the versioned library"
SONAME=$(readelf -d "$LIB" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$SONAME" = "libdynarock.so.0" ] || fail "SONAME is '$SONAME'"
OTHERS=$(nm -D --defined-only "$LIB" | awk '{print $3}' | grep -v '^dynarock_' | grep -v '^DYNAROCK_' || true)
[ -z "$OTHERS" ] || fail "symbols other than dynarock_* exported: $(echo "$OTHERS" | head -5)"
echo "install test: layout, SONAME $SONAME, $(nm -D --defined-only "$LIB" | grep -c ' dynarock_') exported functions"

# The examples, as a project of their own, through find_package(Dynarock).
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
cmake -S "$ROOT/examples" -B "$WORK/examples" "${GEN[@]}" -DCMAKE_PREFIX_PATH="$PREFIX" \
  -DCMAKE_BUILD_TYPE=Release >"$WORK/examples.log" 2>&1 ||
  { cat "$WORK/examples.log" >&2; fail "configuring examples/ against the prefix failed"; }
cmake --build "$WORK/examples" -j 2 >>"$WORK/examples.log" 2>&1 ||
  { tail -40 "$WORK/examples.log" >&2; fail "building examples/ failed"; }

export LD_LIBRARY_PATH="$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for ex in todo_app todo_document sensor_logger sensor_document graph_example c_todo; do
  "$WORK/examples/$ex" >"$WORK/$ex.out" 2>&1 || { cat "$WORK/$ex.out" >&2; fail "$ex failed"; }
  sed "s/@VERSION@/$(sed -n 's/^Version: //p' "$PREFIX/lib/pkgconfig/dynarock.pc")/" \
    "$ROOT/examples/expected/$ex.txt" >"$WORK/$ex.want"
  diff -u "$WORK/$ex.want" "$WORK/$ex.out" || fail "$ex printed something else"
  echo "install test: example $ex ok"
done

# pkg-config alone, from plain C.
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
cc "$ROOT/examples/c_api/c_todo.c" $(pkg-config --cflags --libs dynarock) -o "$WORK/c_todo_pc" ||
  fail "building with pkg-config failed"
"$WORK/c_todo_pc" >"$WORK/c_todo_pc.out"
diff -u "$WORK/c_todo.want" "$WORK/c_todo_pc.out" || fail "the pkg-config build printed something else"
echo "install test: pkg-config build ok"
