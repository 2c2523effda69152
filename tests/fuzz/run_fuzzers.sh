#!/usr/bin/env bash
# File: tests/fuzz/run_fuzzers.sh
#
# Builds every tests/fuzz/*_fuzz.cc as a libFuzzer target (clang, ASan + UBSan)
# and runs each for a fixed time on a scratch copy of its seed corpus.
#
#   bash tests/fuzz/run_fuzzers.sh [BUILD_DIR]    (default: <repository>/build/fuzz)
#
# Environment:
#   FUZZ_SECONDS   seconds of fuzzing per target (default 30)
#   FUZZ_JOBS      parallel compiles (default 2)
#   FUZZ_TIMEOUT   seconds one input may run before it counts as a hang (default 30)
#   FUZZ_TARGETS   space-separated subset of target names to build and run
#   FUZZ_STRICT_SOURCES=1   a target whose listed sources leave symbols
#                  undefined fails instead of falling back to every source
#                  (ctest's run sets it)
#   FUZZ_BUILD_ONLY=1   build, do not run
#   CXX            the compiler (default clang++; it must support -fsanitize=fuzzer)
#
# Sources: each target links against an archive of the engine sources the fuzz
# targets need. Those are listed per target below, or in the target file itself
# with a comment line "// fuzz-sources: engine/a.cc engine/expr/*.cc" (globs are
# relative to the repository root). When a link still fails on undefined symbols,
# every RocksDB-free engine source is compiled into the archive and the link is
# retried, with a note saying so (with FUZZ_STRICT_SOURCES=1, as ctest runs it,
# the target fails instead: that fallback is minutes of ASan compiles on a cold
# two-core machine, which a stale list would cost every CI run). Each source is compiled once (to BUILD_DIR/obj)
# and recompiled only when it or a header it includes changes.
#
# Corpus: tests/fuzz/corpus/<name>/, where <name> is the "// fuzz-corpus: NAME"
# of the target file, or the target name without "_fuzz", or the first word of
# it (item_codec_fuzz -> corpus/item). The corpus is copied to
# BUILD_DIR/run/<target>/corpus before each run: nothing is written into the
# repository. A dictionary tests/fuzz/<target>.dict is used when present.
#
# Result: any crash, sanitizer report, leak, hang or out-of-memory fails the
# target; its reproducer path and the command to replay it are printed. The
# last line is "fuzz: N passed, M failed"; the exit status is 0 only when
# nothing failed (build failures count as failures).

set -u -o pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
BUILD=${1:-$ROOT/build/fuzz}  # a relative BUILD_DIR is relative to the current directory
case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_JOBS=${FUZZ_JOBS:-2}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-30}
FUZZ_STRICT_SOURCES=${FUZZ_STRICT_SOURCES:-0}
CXX=${CXX:-clang++}
case "$CXX" in *clang++*) ;; *) CXX=clang++ ;; esac  # libFuzzer needs clang

FLAGS=(-std=c++20 -O1 -g -fno-omit-frame-pointer
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
INCLUDES=(-I"$ROOT" -I"$ROOT/engine/include")
LIBS=(-Wl,--as-needed -lsimdjson -lpthread)

# Engine sources per known target (the union is compiled; a target may also
# declare its own with "// fuzz-sources:").
declare -A TARGET_SOURCES=(
  [item_codec_fuzz]="engine/item_codec.cc engine/attribute_value.cc"
  [expr_parser_fuzz]="engine/expr/*.cc engine/number.cc engine/attribute_value.cc
                      engine/status.cc"
  [request_decoder_fuzz]="engine/api/json_decode.cc engine/api/json_encode.cc
                          engine/api/streams_json.cc
                          engine/api/json_writer.cc engine/api/base64.cc
                          engine/status.cc engine/attribute_value.cc"
)

log() { printf '%s\n' "$*" >&2; }

if ! command -v "$CXX" >/dev/null 2>&1; then
  log "fuzz: $CXX not found"
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi
if command -v ccache >/dev/null 2>&1 && [ "${FUZZ_CCACHE:-1}" != 0 ]; then
  COMPILE=(ccache "$CXX")
else
  COMPILE=("$CXX")
fi

mkdir -p "$BUILD/obj" "$BUILD/bin" "$BUILD/run" || exit 1

# Objects built with other flags or another compiler are thrown away.
STAMP="$("$CXX" --version | head -n1) ${FLAGS[*]} ${INCLUDES[*]}"
if [ "$(cat "$BUILD/flags.stamp" 2>/dev/null)" != "$STAMP" ]; then
  rm -f "$BUILD"/obj/*.o "$BUILD"/obj/*.d "$BUILD"/bin/*
  printf '%s' "$STAMP" >"$BUILD/flags.stamp"
fi

# ---------------------------------------------------------------- sources

# Engine sources that do not need RocksDB: everything under engine/ (not the
# unit tests, not index/) that includes neither RocksDB nor the DB internals.
pure_sources() {
  local f
  for f in "$ROOT"/engine/*.cc "$ROOT"/engine/expr/*.cc "$ROOT"/engine/api/*.cc; do
    [ -f "$f" ] || continue
    if grep -Eq '#include[[:space:]]*[<"](rocksdb/|engine/db_impl\.h|engine/rocksdb_status\.h|index/)' "$f"; then
      continue
    fi
    printf '%s\n' "${f#"$ROOT"/}"
  done
}

# The sources a target declares (its "// fuzz-sources:" lines) or the table's.
target_sources() {
  local name=$1 file=$2 declared pattern f
  declared=$(sed -n 's|^[[:space:]]*//[[:space:]]*fuzz-sources:||p' "$file" | tr '\n' ' ')
  if [ -z "${declared// /}" ]; then
    declared=${TARGET_SOURCES[$name]-}
  fi
  if [ -z "${declared// /}" ]; then
    pure_sources
    return
  fi
  for pattern in $declared; do
    for f in "$ROOT"/$pattern; do
      [ -f "$f" ] && printf '%s\n' "${f#"$ROOT"/}"
    done
  done
}

obj_of() {  # engine/expr/parser.cc -> BUILD/obj/engine_expr_parser.o
  local rel=${1%.cc}
  printf '%s/obj/%s.o' "$BUILD" "${rel//\//_}"
}

# True when the object exists and neither its source nor any header recorded in
# its dependency file is newer.
up_to_date() {
  local obj=$1 dep=${1%.o}.d word
  [ -f "$obj" ] && [ -f "$dep" ] || return 1
  # The .d file: "obj: src hdr hdr \<newline> hdr ..."
  for word in $(sed -e 's/\\$//' -e 's/^[^:]*://' "$dep"); do
    [ -e "$word" ] || return 1
    [ "$word" -nt "$obj" ] && return 1
  done
  return 0
}

# compile SRC_ABS OBJ: compiles when out of date; the compiler's output goes to
# OBJ.log (shown on failure).
compile() {
  local src=$1 obj=$2
  if up_to_date "$obj"; then return 0; fi
  log "  compile ${src#"$ROOT"/}"
  local cmd=("${FLAGS[@]}" "${INCLUDES[@]}" -MMD -MF "${obj%.o}.d" -c "$src" -o "$obj")
  if ! nice "${COMPILE[@]}" "${cmd[@]}" >"${obj%.o}.log" 2>&1 &&
     ! { [ "${COMPILE[0]}" = ccache ] && grep -q '^ccache:' "${obj%.o}.log" &&
         nice "$CXX" "${cmd[@]}" >"${obj%.o}.log" 2>&1; }; then
    log "fuzz: compiling ${src#"$ROOT"/} failed:"
    sed -n '1,40p' "${obj%.o}.log" >&2
    rm -f "$obj"
    return 1
  fi
}

# compile_all SRC...: compiles the (repository-relative) sources, FUZZ_JOBS at
# a time; false when any fails.
compile_all() {
  local src pids=() ok=0 pid
  for src in "$@"; do
    compile "$ROOT/$src" "$(obj_of "$src")" &
    pids+=($!)
    if [ "${#pids[@]}" -ge "$FUZZ_JOBS" ]; then
      wait "${pids[0]}" || ok=1
      pids=("${pids[@]:1}")
    fi
  done
  for pid in "${pids[@]}"; do wait "$pid" || ok=1; done
  return $ok
}

# make_archive ARCHIVE SRC...: an archive of the sources' objects (rebuilt when
# an object is newer or the member list changed).
make_archive() {
  local archive=$1 objs=() src members
  shift
  for src in "$@"; do
    [ -f "$(obj_of "$src")" ] && objs+=("$(obj_of "$src")")
  done
  members=$(printf '%s\n' "${objs[@]}" | sort)
  if [ -f "$archive" ] && [ "$(cat "$archive.members" 2>/dev/null)" = "$members" ]; then
    local newer=0 o
    for o in "${objs[@]}"; do [ "$o" -nt "$archive" ] && newer=1; done
    [ $newer = 0 ] && return 0
  fi
  rm -f "$archive"
  ar rcs "$archive" "${objs[@]}" && printf '%s' "$members" >"$archive.members"
}

# ---------------------------------------------------------------- targets

declare -a TARGETS=()
for f in "$SCRIPT_DIR"/*_fuzz.cc; do
  [ -f "$f" ] || continue
  name=$(basename "$f" .cc)
  if [ -n "${FUZZ_TARGETS-}" ] && [[ " $FUZZ_TARGETS " != *" $name "* ]]; then continue; fi
  TARGETS+=("$name")
done

if [ "${#TARGETS[@]}" -eq 0 ]; then
  log "fuzz: no targets in $SCRIPT_DIR"
  echo "fuzz: 0 passed, 0 failed"
  exit 0
fi

# The union of every target's engine sources, compiled once.
declare -A WANT=()
declare -a ENGINE_SRCS=()
for name in "${TARGETS[@]}"; do
  while IFS= read -r src; do
    [ -n "$src" ] || continue
    if [ -z "${WANT[$src]-}" ]; then WANT[$src]=1; ENGINE_SRCS+=("$src"); fi
  done < <(target_sources "$name" "$SCRIPT_DIR/$name.cc")
done

log "fuzz: building ${#TARGETS[@]} target(s) in $BUILD"
ARCHIVE="$BUILD/obj/libfuzzdeps.a"
ENGINE_OK=1
compile_all "${ENGINE_SRCS[@]}" || ENGINE_OK=0
make_archive "$ARCHIVE" "${ENGINE_SRCS[@]}" || ENGINE_OK=0
FULL_ARCHIVE_BUILT=0

# The target files themselves.
TARGET_SRCS=()
for name in "${TARGETS[@]}"; do TARGET_SRCS+=("tests/fuzz/$name.cc"); done
compile_all "${TARGET_SRCS[@]}"

# link NAME: links BUILD/bin/NAME; retries once with every RocksDB-free source
# when symbols are missing.
link() {
  local name=$1 obj bin
  obj=$(obj_of "tests/fuzz/$name.cc")
  bin="$BUILD/bin/$name"
  [ -f "$obj" ] || return 1
  if [ -f "$bin" ] && [ ! "$obj" -nt "$bin" ] && [ ! "$ARCHIVE" -nt "$bin" ]; then return 0; fi
  log "  link $name"
  if nice "$CXX" "${FLAGS[@]}" "$obj" "$ARCHIVE" "${LIBS[@]}" -o "$bin" >"$BUILD/bin/$name.link.log" 2>&1; then
    return 0
  fi
  if grep -q 'undefined reference' "$BUILD/bin/$name.link.log" && [ "$FUZZ_STRICT_SOURCES" = 1 ]; then
    # ctest's run: the fallback below compiles every RocksDB-free source under
    # ASan, minutes on a cold two-core machine, so a stale list fails here.
    log "fuzz: $name needs engine sources its \"// fuzz-sources:\" lines do not list" \
        "(a file split?); add the files defining:"
    grep -o 'undefined reference to .*' "$BUILD/bin/$name.link.log" | sort -u | head -n 10 >&2
    rm -f "$bin"
    return 1
  fi
  if grep -q 'undefined reference' "$BUILD/bin/$name.link.log" && [ $FULL_ARCHIVE_BUILT = 0 ]; then
    log "fuzz: note: $name needs more engine sources than listed; compiling all RocksDB-free ones"
    grep -o 'undefined reference to .*' "$BUILD/bin/$name.link.log" | sort -u | head -n 5 >&2
    mapfile -t ALL_PURE < <(pure_sources)
    local merged=("${ENGINE_SRCS[@]}" "${ALL_PURE[@]}")
    mapfile -t merged < <(printf '%s\n' "${merged[@]}" | sort -u)
    compile_all "${merged[@]}" || true
    make_archive "$ARCHIVE" "${merged[@]}"
    FULL_ARCHIVE_BUILT=1
    if nice "$CXX" "${FLAGS[@]}" "$obj" "$ARCHIVE" "${LIBS[@]}" -o "$bin" >"$BUILD/bin/$name.link.log" 2>&1; then
      return 0
    fi
  fi
  log "fuzz: linking $name failed:"
  sed -n '1,30p' "$BUILD/bin/$name.link.log" >&2
  rm -f "$bin"
  return 1
}

corpus_of() {
  local name=$1 file=$2 declared base
  declared=$(sed -n 's|^[[:space:]]*//[[:space:]]*fuzz-corpus:[[:space:]]*\([^[:space:]]*\).*|\1|p' "$file" | head -n1)
  base=${name%_fuzz}
  for c in "$declared" "$base" "${base%%_*}"; do
    if [ -n "$c" ] && [ -d "$SCRIPT_DIR/corpus/$c" ]; then
      printf '%s' "$SCRIPT_DIR/corpus/$c"
      return
    fi
  done
}

# ---------------------------------------------------------------- run

export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

passed=0
failed=0
for name in "${TARGETS[@]}"; do
  if ! link "$name"; then
    log "FAIL $name: build failed"
    failed=$((failed + 1))
    continue
  fi
  [ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && { passed=$((passed + 1)); continue; }

  run="$BUILD/run/$name"
  rm -rf "$run"
  mkdir -p "$run/corpus" "$run/artifacts"
  seeds=$(corpus_of "$name" "$SCRIPT_DIR/$name.cc")
  if [ -n "$seeds" ]; then
    cp -R "$seeds"/. "$run/corpus/"
  else
    log "fuzz: note: no seed corpus for $name (looked in $SCRIPT_DIR/corpus/)"
  fi
  dict=()
  [ -f "$SCRIPT_DIR/$name.dict" ] && dict=(-dict="$SCRIPT_DIR/$name.dict")

  log "fuzz: running $name for ${FUZZ_SECONDS}s (corpus ${seeds:-none})"
  "$BUILD/bin/$name" "$run/corpus" "${dict[@]}" \
    -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -max_len=8192 \
    -timeout="$FUZZ_TIMEOUT" -artifact_prefix="$run/artifacts/" \
    -print_final_stats=1 >"$run/fuzz.log" 2>&1
  rc=$?
  repro=$(find "$run/artifacts" -type f 2>/dev/null | sort | head -n1)
  if [ $rc -eq 0 ] && [ -z "$repro" ]; then
    stats=$(grep -E '^stat::number_of_executed_units' "$run/fuzz.log" | awk '{print $2}')
    log "PASS $name (${stats:-?} executions)"
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    log "FAIL $name (exit $rc); log: $run/fuzz.log"
    # The sanitizer, libFuzzer or property-check report.
    first=$(grep -n -m1 -E 'ERROR: |runtime error:|deadly signal|_fuzz: |^==[0-9]+== ' \
            "$run/fuzz.log" | cut -d: -f1)
    [ -n "$first" ] && sed -n "${first},$((first + 40))p" "$run/fuzz.log" >&2
    if [ -n "$repro" ]; then
      log "reproducer: $repro"
      log "replay:     $BUILD/bin/$name $repro"
    else
      tail -n 30 "$run/fuzz.log" >&2
    fi
  fi
done

echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
