#!/usr/bin/env bash
# The run scripts' shared steps (since session 30; `source bench/runs/common.sh` on the GPU
# machine, in the repository root, with $OUT set). Each step logs its name and time to
# $OUT/run.log and writes its own log under $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/blasst-out}  # (since session 53; the run scripts before it set both themselves)
mkdir -p "$OUT"
export BLASST_CACHE_DIR=/tmp/blasst-cache
export PYTHONUNBUFFERED=1  # (since session 44) the Python steps' logs as they are written
LOG="$OUT/run.log"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
# At most 8 files come back from $OUT (the device tool's limit): a run that writes more ends
# with `pack_out NAME`, which moves every file under $OUT but run.log into $OUT/NAME.tar.gz
# (since session 57). Files packed by an earlier call stay as they are (since session 72: a run
# may pack each part as it ends, so that a call cut by its time limit brings back what finished).
pack_out() {
  local files
  files=$(cd "$OUT" && find . -type f ! -name run.log ! -name "*.tar.gz" | sed 's|^\./||')
  [ -n "$files" ] || return 0
  (cd "$OUT" && tar czf "$1.tar.gz" $files && rm -f $files)
  echo "packed into $1.tar.gz: $(echo $files)" | tee -a "$LOG"
}
# The kernels of target/device (or of the build in $1, e.g. target/device-patch: its own blasst
# tool) compiled into the cache, so that no timing pays for a compile.
precompile() {
  local dir=${1:-target/device}
  step "precompile ($dir)"
  [ -f "$dir/build-info.txt" ] && sed 's/^/  build: /' "$dir/build-info.txt" | tee -a "$LOG"
  timeout 120 "$dir/blasst" precompile > /dev/null 2>&1
  echo "precompile exit $?" | tee -a "$LOG"
}
# A run's first steps (since session 53): the GPU's name and driver into run.log, then
# `precompile` (of $1, default target/device).
run_start() {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG"
  precompile "$@"
}
# bench/micro/smem100k_d256.py (d = 256 as a GPU of 100 KB runs it) in two processes, under the
# 100 KB emulation and with the GPU's own memory, both with the portable kernels, into
# $OUT/smem100k-d256.log (since session 53; run 276 has its own copy of this loop).
smem100k_d256() {
  local smem
  for smem in 102400 ""; do
    step "d = 256, BLASST_SMEM_PER_SM=$smem"
    BLASST_SMEM_PER_SM=$smem BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma \
      timeout 60 python3 bench/micro/smem100k_d256.py target/device/libblasst.so 2>&1 | tee -a "$OUT/smem100k-d256.log"
  done
}
# bench/check_paged_prefill.py with target/device; its exit status.
paged_check() {
  step "paged prefill check"
  timeout 90 python3 bench/check_paged_prefill.py target/device/libblasst.so > "$OUT/check.log" 2>&1
  local rc=$?
  echo "check exit $rc" | tee -a "$LOG"
  grep -E "^BAD|bad cases|num_pages given" "$OUT/check.log" | tail -4 | tee -a "$LOG"
  return $rc
}
# bench/check_prefill.py and bench/check_paged_prefill.py with the library of $1 (default
# target/device) into $OUT/check.log, `label` ($2) in the step's name (since session 60: runs
# 299-303 each had this block).
prefill_checks() {
  local dir=${1:-target/device}
  step "check_prefill and check_paged_prefill${2:+, $2}"
  timeout 120 python3 bench/check_prefill.py --lib "$dir/libblasst.so" > "$OUT/check.log" 2>&1
  echo "check_prefill exit $?" | tee -a "$LOG"
  timeout 120 python3 bench/check_paged_prefill.py "$dir/libblasst.so" >> "$OUT/check.log" 2>&1
  echo "check_paged_prefill exit $?" | tee -a "$LOG"
  grep -E "^BAD|mismatches|bad cases" "$OUT/check.log" | head -6 | tee -a "$LOG"
}
# The GPU tests of target/device whose names match the filters after `label` ($1), into
# $OUT/gpu-tests.log, or $OUT/$GPU_TESTS_LOG (GPU_TESTS_TIMEOUT, default 300 s; since session 60).
gpu_tests_named() {
  local label=$1 log="$OUT/${GPU_TESTS_LOG:-gpu-tests.log}"
  shift
  step "gpu tests, $label"
  timeout "${GPU_TESTS_TIMEOUT:-300}" target/device/gpu_tests --test-threads=1 "$@" > "$log" 2>&1
  echo "gpu tests exit $?" | tee -a "$LOG"
  grep -E "^test |test result|panicked|FAILED" "$log" | head -12 | tee -a "$LOG"
}
# compute-sanitizer racecheck over the first tile-by-tile prefill case at d = 128 (target/device),
# into $OUT/racecheck.log (RACECHECK_TIMEOUT, default 60 s; since session 60: runs 293, 299, 300
# and 303 each had this block).
racecheck_tile_case() {
  step "racecheck, tile-by-tile case 0 (prefill)"
  BLASST_TEST_HEAD_DIMS=128 BLASST_TEST_CASES=0 timeout "${RACECHECK_TIMEOUT:-60}" compute-sanitizer --tool racecheck \
    --error-exitcode 9 --print-limit 20 target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile \
    > "$OUT/racecheck.log" 2>&1
  echo "racecheck exit $?" | tee -a "$LOG"
  grep -E "SUMMARY|test result" "$OUT/racecheck.log" | tail -2 | tee -a "$LOG"
}
# Logs the GPU's name; exits the run script unless it contains $1 (e.g. H200), so that a lease
# of another GPU costs only its start (since session 60; run 287 has its own copy).
only_on() {
  gpu_is "$1" || { echo "not an $1: left out on $GPU_NAME" | tee -a "$LOG"; exit 0; }
}
# Whether the GPU's name contains $1 (e.g. H200); the name logged and left in GPU_NAME (since
# session 71: `only_on`, and run scripts that take another branch on another card).
gpu_is() {
  GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  echo "$GPU_NAME" | tee -a "$LOG"
  case "$GPU_NAME" in *"$1"*) return 0 ;; esac
  return 1
}
# An interleaved prefill A/B, target/device-base against target/device (AB_BUILDS, if set: those
# builds instead, e.g. "target/device/libblasst.so target/device-x/libblasst.so:VAR=1"; since
# session 65), and any further builds given, appended to $OUT/ab.log under `label`:
# ab LABEL [ab_prefill.py arguments...].
ab() {
  local label=$1
  shift
  step "ab $label"
  echo "===== $label" >> "$OUT/ab.log"
  PYTHONUNBUFFERED=1 timeout "${AB_TIMEOUT:-70}" python3 bench/ab_prefill.py \
    ${AB_BUILDS:-target/device-base/libblasst.so target/device/libblasst.so} "$@" >> "$OUT/ab.log" 2>&1
}
# A copy of target/device's library for a build switched by the environment (`ab_prefill.py`
# keeps the first kernel per variant in one library, so a switch needs a library of its own):
# switched_build NAME VAR=VALUE copies it into target/device-NAME/ and prints the A/B's build
# argument, target/device-NAME/libblasst.so:VAR=VALUE (since session 67), e.g.
# AB_BUILDS="target/device/libblasst.so $(switched_build x BLASST_PREFILL_X=1)" ab LABEL.
switched_build() {
  mkdir -p "target/device-$1" && cp target/device/libblasst.so "target/device-$1/"
  echo "target/device-$1/libblasst.so:$2"
}
# The GPU tests of target/device (tests/gpu.rs), all of them (GPU_TESTS_TIMEOUT seconds, default
# 400: since session 44 the suite takes ~335 s on the H200).
gpu_tests() {
  step "gpu tests (all)"
  timeout "${GPU_TESTS_TIMEOUT:-400}" target/device/gpu_tests --test-threads=1 > "$OUT/gpu-tests.log" 2>&1
  echo "gpu tests exit $?" | tee -a "$LOG"
  grep -E "test result|panicked|FAILED" "$OUT/gpu-tests.log" | head -5 | tee -a "$LOG"
}
# compute-sanitizer memcheck over the GPU tests whose names match the arguments (all of them
# without arguments: ~190 s on the H200, MEMCHECK_TIMEOUT=300; default 100 s). The tool is told
# to follow child processes (since session 71: the integer-maxima test runs two). That is the
# tool's default anyway (2025.3.1's --help: `--target-processes arg (=all)`; run 337, session
# 74), so the option only pins it; SANITIZER_OPTS, if set, replaces it.
memcheck_options() { echo "${SANITIZER_OPTS-"--target-processes all"}"; }
memcheck() {
  step "memcheck (${*:-all GPU tests}) $(memcheck_options)"
  timeout "${MEMCHECK_TIMEOUT:-100}" compute-sanitizer --tool memcheck $(memcheck_options) --error-exitcode 9 \
    target/device/gpu_tests --test-threads=1 "$@" > "$OUT/memcheck.log" 2>&1
  echo "memcheck exit $?" | tee -a "$LOG"
  grep -E "ERROR SUMMARY|test result|panicked" "$OUT/memcheck.log" | tail -5 | tee -a "$LOG"
}
# compute-sanitizer TOOL over any test binary, SECONDS at most, appended to $OUT/memcheck.log
# under "===== TOOL, LABEL" with "TOOL (LABEL) exit N" after it; that line and this run's last
# summary lines into run.log (since session 77: scripts/device-check.sh's sanitizer runs after its
# first memcheck, and memcheck_binary). Switches for the tests go before the call, the tool's
# options before the binary: [VAR=VALUE ...] sanitize_binary TOOL LABEL SECONDS [TOOL OPTIONS...] BINARY [ARGS...].
sanitize_binary() {
  local tool=$1 label=$2 secs=$3 log=/tmp/blasst-sanitize.log rc
  shift 3
  timeout "$secs" compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" > "$log" 2>&1
  rc=$?
  { echo "===== $tool, $label"; cat "$log"; echo "$tool ($label) exit $rc"; } >> "$OUT/memcheck.log"
  echo "$tool ($label) exit $rc" | tee -a "$LOG"
  grep -E "SUMMARY|test result" "$log" | tail -2 | tee -a "$LOG"
}
# memcheck over any test binary and arguments with `memcheck`'s options (SANITIZER_OPTS), as a step
# of its own (since session 75: run 344's threads, contexts and one-split runs):
# [VAR=VALUE ...] memcheck_binary LABEL SECONDS BINARY [ARGS...].
memcheck_binary() {
  local label=$1 secs=$2
  shift 2
  step "memcheck, $label"
  sanitize_binary memcheck "$label" "$secs" $(memcheck_options) "$@"
}
# The GPU tests (but the driver-occupancy one) emulating a GPU of $1 bytes of shared memory per
# SM with the portable kernels, at head dims $2 (since session 31), into $OUT/gpu-tests-$3.log.
# $4 (since session 32): the padded head dims of the padded-head-dim test (default none).
emulated_gpu_tests() {
  local smem=$1 dims=$2 name=$3 padded=${4-}
  step "gpu tests emulating $smem bytes of shared memory per SM, head dims $dims, padded $padded"
  BLASST_SMEM_PER_SM=$smem BLASST_TEST_HEAD_DIMS=$dims BLASST_TEST_PADDED_HEAD_DIMS=$padded BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma \
    timeout "${EMULATED_TIMEOUT:-330}" target/device/gpu_tests --test-threads=1 --skip decode_plan_counts > "$OUT/gpu-tests-$name.log" 2>&1
  echo "gpu tests (emulating $smem) exit $?" | tee -a "$LOG"
  grep -E "test result|panicked|FAILED" "$OUT/gpu-tests-$name.log" | head -5 | tee -a "$LOG"
}
# The GPU tests under both emulations, an A100 and a GPU of 100 KB (head dims 64/128/256, padded
# 40/96/160; the 100 KB one at 64/128, padded 40/96 before session 53, when d = 256 was refused
# there), the padded head dims' kernels compiled first (since session 52).
emulated_both() {
  timeout 60 target/device/blasst precompile --head-dims 40,96,160 > /dev/null 2>&1
  emulated_gpu_tests 167936 64,128,256 a100 40,96,160
  emulated_gpu_tests 102400 64,128,256 smem100k 40,96,160
}
# memcheck over the dense and tile-by-tile GPU tests emulating a GPU of $1 bytes of shared memory
# per SM with the portable kernels, at head dim $2, for at most $3 seconds, appended to
# $OUT/memcheck.log under "===== memcheck, $1 d = $2" (since session 52: the portable decode kernel's row
# tiles; since session 77 through memcheck_binary, so with memcheck's options).
emulated_memcheck() {
  local smem=$1 dim=$2 limit=$3
  BLASST_SMEM_PER_SM=$smem BLASST_TEST_HEAD_DIMS=$dim BLASST_TEST_PADDED_HEAD_DIMS= BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma \
    memcheck_binary "$smem d = $dim" "$limit" target/device/gpu_tests --test-threads=1 \
    dense_matches skip_decisions_match_the_cpu_tile_by_tile
}
# bench/micro/paged_layout.py (since session 39) into $OUT/NAME-paged-layout.log, its arguments
# after NAME: paged_layout NAME LIB... [--size BxL ...] [--pages P,...].
paged_layout() {
  local name=$1
  shift
  step "paged layout ($name)"
  timeout "${LAYOUT_TIMEOUT:-300}" python3 bench/micro/paged_layout.py "$@" > "$OUT/$name-paged-layout.log" 2>&1
  echo "paged layout exit $?" | tee -a "$LOG"
}
# A/B of target/device with the switch $2 set to 0 against its default (since session 44):
# speculative decode in bench/micro/paged_layout.py (4 tokens x GQA 8, contiguous and 16- and
# 64-key pages) and bench/ab_decode.py (8 tokens x GQA 4, dense and Skip-Softmax), into
# $OUT/$1-paged-layout.log and $OUT/$1-ab-decode.log: spec_ab NAME VAR.
spec_ab() {
  local name=$1 var=$2 lib=target/device/libblasst.so
  step "A/B $var: speculative decode, paged layout"
  timeout 100 python3 bench/micro/paged_layout.py "$lib:$var=0" "$lib" --tokens 4 --heads 32/4 \
    --size 4x32768 --size 1x131072 --size 16x32768 --pages 16,64 > "$OUT/$name-paged-layout.log" 2>&1
  echo "paged layout exit $?" | tee -a "$LOG"
  step "A/B $var: dense and Skip-Softmax, 8 tokens x GQA 4"
  timeout 100 python3 bench/ab_decode.py "$lib:$var=0" "$lib" --tokens 8 \
    --size 4x32768 --size 1x131072 --size 16x16384 > "$OUT/$name-ab-decode.log" 2>&1
  echo "ab decode exit $?" | tee -a "$LOG"
}
# gpu_threads and gpu_contexts of target/device (since session 48), into $OUT/gpu-threads.log.
gpu_threads_contexts() {
  step "gpu_threads, gpu_contexts"
  timeout 40 target/device/gpu_threads --test-threads=1 > "$OUT/gpu-threads.log" 2>&1
  echo "gpu threads exit $?" | tee -a "$LOG"
  timeout 20 target/device/gpu_contexts --test-threads=1 >> "$OUT/gpu-threads.log" 2>&1
  echo "gpu contexts exit $?" | tee -a "$LOG"
  grep -E "test result" "$OUT/gpu-threads.log" | tee -a "$LOG"
}
# bench/bench.py on target/device with the given arguments (since session 48), the SM clock,
# power and throttle reasons logged once a second into $OUT/smi.log; $OUT/bench.log and
# $OUT/bench.json. BENCH_TIMEOUT seconds (default 420); BENCH_LIB (since session 50) another
# build's library (default target/device/libblasst.so).
bench_logged() {
  step "benchmark ${*:-(all tables)}"
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
    --format=csv -l 1 > "$OUT/smi.log" 2>&1 &
  local smi=$!
  BENCH_NAME=bench timeout "${BENCH_TIMEOUT:-420}" python3 bench/bench.py --lib "${BENCH_LIB:-target/device/libblasst.so}" --out "$OUT" "$@" > "$OUT/bench.log" 2>&1
  echo "bench exit $?" | tee -a "$LOG"
  kill $smi 2>/dev/null
  # Issues 5 and 6's targets from it (since session 54), when it ran the tables they need.
  python3 bench/targets.py "$OUT/bench.json" > "$OUT/targets.md" 2>/dev/null && tee -a "$LOG" < "$OUT/targets.md"
}
# Nsight Compute over bench/profile_one.py MODE's calls of the kernels matching REGEX (at most
# COUNT launches): speed of light, warp states, memory, launch, occupancy and per-instruction
# stall samples, into $OUT/NAME-ncu.log, NAME-details.csv and NAME-stalls.log (bench/ncu_stalls.py);
# prints the headline metrics (since session 49; run 227's commands). NCU_FROM_START=off for modes
# that bracket their calls with cudaProfilerStart/Stop (paged-1sm):
# ncu_kernel NAME REGEX COUNT MODE [LIB].
ncu_kernel() {
  local name=$1 regex=$2 count=$3 mode=$4 lib=${5:-target/device/libblasst.so}
  step "ncu $name ($mode, $regex)"
  timeout "${NCU_TIMEOUT:-200}" ncu ${NCU_FROM_START:+--profile-from-start off} --section SpeedOfLight --section WarpStateStats --section SourceCounters \
    --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy -k "regex:$regex" -c "$count" -o "/tmp/$name" \
    python3 bench/profile_one.py "$lib" "$mode" > "$OUT/$name-ncu.log" 2>&1
  echo "ncu exit $?" | tee -a "$LOG"
  ncu -i "/tmp/$name.ncu-rep" --page details --csv > "$OUT/$name-details.csv" 2>/dev/null
  ncu -i "/tmp/$name.ncu-rep" --page source --csv --print-source sass > "/tmp/$name-src.csv" 2>/dev/null
  python3 bench/ncu_stalls.py "/tmp/$name-src.csv" 30 > "$OUT/$name-stalls.log" 2>&1
  grep -E "Duration|DRAM Throughput|Memory Throughput|L2 Hit|Issued Warp|No Eligible|Warp Cycles Per Issued|Achieved Occupancy" \
    "$OUT/$name-details.csv" | cut -c1-220 | head -30
  head -4 "$OUT/$name-stalls.log"
}
# The card's name and clocks into the log, then the kernels of target/device-base and target/device
# precompiled (since session 49: the start of an A/B run).
precompile_ab() {
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$LOG"
  precompile target/device-base
  precompile
}
# An H200's part of a two-call run (since session 75): part 1 the whole benchmark
# (BENCH_TIMEOUT, default 330 s), part 2 memcheck over every GPU test (MEMCHECK_TIMEOUT, default
# 480 s), each packed into $OUT/NAME-h200-bench.tar.gz or NAME-h200-memcheck.tar.gz:
# h200_part PART NAME.
h200_part() {
  if [ "$1" = 1 ]; then
    BENCH_TIMEOUT=${BENCH_TIMEOUT:-330} bench_logged
    pack_out "$2-h200-bench"
  else
    MEMCHECK_TIMEOUT=${MEMCHECK_TIMEOUT:-480} memcheck
    pack_out "$2-h200-memcheck"
  fi
}
# Whether compute-sanitizer follows a test's child processes (since session 71): the tool's
# --target-processes help, then `memcheck` over the integer-maxima test (which runs two children)
# with a log file per process (%p), with and without --target-processes all; the number of log
# files and their summaries into run.log (MEMCHECK_TIMEOUT per run, default 100 s). Run 337
# (session 74) answered it: the default is `all`, and %p names the tool's own process, so both
# passes wrote one log file, one summary for all three processes, 0 errors.
memcheck_children() {
  local opt d
  step "compute-sanitizer --help: target-processes"
  compute-sanitizer --version | tail -1 | tee -a "$LOG"
  compute-sanitizer --help 2>&1 | grep -A3 -- "--target-processes" | tee -a "$LOG"
  for opt in "--target-processes all" ""; do
    d="/tmp/san${opt:+-all}"
    rm -rf "$d" && mkdir -p "$d"  # (a warm machine may hold an earlier run's logs)
    SANITIZER_OPTS="$opt --log-file $d/%p.log" memcheck integer_row_maxima_match_the_float_tree_bit_for_bit
    echo "log files: $(ls "$d" | wc -l)" | tee -a "$LOG"
    grep -h "ERROR SUMMARY" "$d"/*.log | tee -a "$LOG"
  done
}
# compute-sanitizer TOOL ($1: racecheck, synccheck, memcheck) over the tile-by-tile test's cases
# $2 (e.g. 0,1,2,4) of target/device, into $OUT/sanitizers.log (SANITIZE_TIMEOUT, default 150 s;
# since session 67: runs 311-314 each had this loop). The caller's environment (e.g.
# BLASST_TEST_HEAD_DIMS) passes through.
sanitize_tile_cases() {
  local tool=$1 cases=$2
  step "$tool, tile-by-tile cases $cases"
  echo "===== $tool, cases $cases" >> "$OUT/sanitizers.log"
  BLASST_TEST_CASES=$cases timeout "${SANITIZE_TIMEOUT:-150}" compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 4 \
    target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile >> "$OUT/sanitizers.log" 2>&1
  echo "$tool exit $?" | tee -a "$LOG"
  grep -E "SUMMARY|test result" "$OUT/sanitizers.log" | tail -2 | tee -a "$LOG"
}
