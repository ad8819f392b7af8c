#!/usr/bin/env bash
# Everything the GPU machine runs, in one call: the prefill checks against PyTorch
# (bench/check_prefill.py) and of paged prefill against a float32 reference
# (bench/check_paged_prefill.py), GPU tests (with the default kernels, and again
# with the portable mma.sync prefill and decode kernels on Hopper, and the prefill tests with
# BLASST_PREFILL_TMA=0, and at d = 128 with BLASST_PREFILL_PV_OVERLAP=0), the same under compute-sanitizer
# (memcheck), the demo on the GPU, the benchmark (prefill, paged prefill: ~25 s in run 175,
# decode) and the head-dim-256 timings. Logs go to $OUT
# (at most 8 files come back from the device machine: run.log, gpu_tests.log, memcheck.log,
# bench.log, bench.json, smi.log, d256.log, the plot).
# Build first on the CPU machine: scripts/build-device.sh (puts binaries under target/device).
# Time on the H200: without the portable kernels' tests (SKIP_MMA_TESTS=1) 599 s in run 147,
# before the precompile step. The GPU tests took 244 s there, compiling kernels on first use,
# and 125 s with every kernel in the disk cache (run 150; its precompile compiled 54 kernels and
# found 102 cached in 6 s; all 156 cold took 13.4 s in run 152). The GPU tests with the portable
# kernels take another ~140 s (run 148). Run 181 (session 28, a fresh machine): everything but
# memcheck and the benchmark in 385 s (GPU tests 120 s, threads and contexts 25 s, portable
# kernels 124 s, no-TMA 86 s); memcheck over the three binaries 150 s (run 182); the benchmark
# and the d = 256 timings ~400 s. A full run passes the device tool's limit of 600 s per call:
# run SKIP_MMA_TESTS=1 when the portable kernels have not changed, or split it into calls
# (e.g. SKIP_SANITIZER=1 SKIP_BENCH=1; SKIP_TESTS=1 SKIP_BENCH=1; SKIP_TESTS=1 SKIP_SANITIZER=1).
# The GPU tests emulating GPUs with less shared memory (SKIP_EMULATED_TESTS=1 skips them) take
# another ~210 s (runs 199-200); since session 52 more (run 271 on an H100: the 100 KB emulation
# 177 s, the A100 one over 200 s, its 48- and 64-row cases now run as row tiles instead of being refused).
# Run 297 (session 57, a fresh H100) with SKIP_MMA_TESTS=1
# SKIP_EMULATED_TESTS=1 SKIP_SANITIZER=1 SKIP_BENCH=1: precompile and the two checks 48 s, GPU tests
# 254 s, the follow-ups through BLASST_DECODE_WARPS=0 234 s; the no-TMA step did not fit in 560 s.
# Knobs: SKIP_TESTS, SKIP_MMA_TESTS, SKIP_EMULATED_TESTS, SKIP_NO_WARPS_TESTS, SKIP_NO_TMA_TESTS, SKIP_SANITIZER, SANITIZE_FILTER,
# MEMCHECK_TIMEOUT (the first memcheck, default 400 s), SANITIZER_OPTS (every memcheck's options),
# SKIP_THREADS_SANITIZER, SKIP_ONE_SPLIT_TESTS (the one-split tile-by-tile test under memcheck, ~100 s,
# run 241), SKIP_RACECHECK (racecheck and synccheck, ~130 s, since session 54), SKIP_BENCH, BENCH_ARGS,
# BENCH_TIMEOUT.
set -uo pipefail
# $OUT, $LOG, BLASST_CACHE_DIR, `step` and the sanitizer steps (since session 77).
source "$(dirname "$0")/../bench/runs/common.sh"
export RUST_BACKTRACE=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$LOG" 2>&1
# A further run of GPU tests after the first: appended to gpu_tests.log under "===== LABEL",
# "NAME exit N" into it and run.log, its last result line shown.
# more_gpu_tests LABEL NAME SECONDS [VAR=VALUE ...] BINARY [ARGUMENTS ...]
more_gpu_tests() {
  local label=$1 name=$2 secs=$3
  shift 3
  echo "===== $label" >> "$OUT/gpu_tests.log"
  timeout "$secs" env "$@" >> "$OUT/gpu_tests.log" 2>&1
  echo "$name exit $?" | tee -a "$OUT/gpu_tests.log" "$LOG"
  grep -E "test result" "$OUT/gpu_tests.log" | tail -1
}
# Every kernel variant for this GPU, compiled on all cores into the disk cache before anything
# needs one: the tests then load them. Compiled one at a time on first use, they had cost the
# GPU tests ~65 s in the decode occupancy test alone (run 149).
step "precompile"
[ -f target/device/build-info.txt ] && sed 's/^/  build: /' target/device/build-info.txt | tee -a "$LOG"
timeout 180 target/device/blasst precompile >> "$LOG" 2>&1
echo "precompile exit $?" | tee -a "$LOG"
# The padded head dims of the GPU tests (tests/gpu.rs padded_head_dims: kernels of their own,
# not among the default ones; 156 in 13 s in run 202).
timeout 90 target/device/blasst precompile --head-dims 40,96,160 > /dev/null 2>&1
echo "precompile (padded head dims) exit $?" | tee -a "$LOG"
step "prefill smoke check vs PyTorch"
timeout 120 python3 bench/check_prefill.py --lib target/device/libblasst.so >> "$LOG" 2>&1
echo "check_prefill exit $?" | tee -a "$LOG"
grep -E "^BAD|mismatches" "$LOG" | head -12
step "paged prefill vs a float32 reference"
timeout 120 python3 bench/check_paged_prefill.py target/device/libblasst.so >> "$LOG" 2>&1
echo "check_paged_prefill exit $?" | tee -a "$LOG"
grep -E "^BAD|bad cases" "$LOG" | tail -4
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  step "gpu tests"
  # (400 s: session 44's cases of 384 decode CTAs, 50000 keys, made the run longer than run 244's 219 s.)
  timeout 400 target/device/gpu_tests --test-threads=1 --nocapture > "$OUT/gpu_tests.log" 2>&1
  echo "gpu tests exit $?" | tee -a "$OUT/gpu_tests.log" "$LOG"
  grep -E "^test |test result" "$OUT/gpu_tests.log" | tail -12
  # The row-tile warps decode kernel with its producer warp held 20 us between each tile's
  # decision wait and its V-slot wait (BLASST_DECODE_WARPS_PRODUCER_DELAY_NS, a compile-time test
  # switch): the window in which, before session 48's fix, consumers that all skipped a tile could
  # free its V slot twice and deadlock the CTA (the tree before the fix hung here: run 256). The
  # tile-by-tile test at d = 128 (its cases of 17-64 packed rows run that kernel).
  step "tile-by-tile gpu test at d = 128, warps decode kernel's producer delayed 20 us"
  more_gpu_tests BLASST_DECODE_WARPS_PRODUCER_DELAY_NS=20000 "gpu tests (delayed warps producer)" 150 \
    BLASST_TEST_HEAD_DIMS=128 BLASST_DECODE_WARPS_PRODUCER_DELAY_NS=20000 target/device/gpu_tests --test-threads=1 \
    skip_decisions_match_the_cpu_tile_by_tile
  # The d = 128 Hopper prefill kernels without the P V overlap (BLASST_PREFILL_PV_OVERLAP=0, a
  # compile-time switch users may set: the kernels before session 56): the prefill tests that
  # compare with the CPU, tile by tile and bit for bit (a fresh process, so the switch is read
  # before any kernel is loaded).
  step "prefill gpu tests at d = 128 with BLASST_PREFILL_PV_OVERLAP=0"
  more_gpu_tests BLASST_PREFILL_PV_OVERLAP=0 "gpu tests (overlap off)" 200 \
    BLASST_TEST_HEAD_DIMS=128 BLASST_PREFILL_PV_OVERLAP=0 target/device/gpu_tests --test-threads=1 \
    dense_matches skip_decisions_match_the_cpu skip_kernel_that_skips_nothing
  # Calls from eight threads at once from a cold start, and calls after a device reset (its own
  # binary: a fresh process, with its own disk cache directory).
  step "gpu tests: threads and device reset"
  more_gpu_tests gpu_threads "gpu threads tests" 200 target/device/gpu_threads --test-threads=1 --nocapture
  # Which context a call runs in: the stream's when none is current; a stream of another
  # context refused (its own binary: a failure cannot leave the other tests' contexts broken).
  step "gpu tests: contexts"
  more_gpu_tests gpu_contexts "gpu contexts tests" 100 target/device/gpu_contexts --test-threads=1 --nocapture
  if [ "${SKIP_MMA_TESTS:-0}" != 1 ]; then
    step "gpu tests, BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma"
    more_gpu_tests "BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma" "gpu tests (mma)" 400 \
      BLASST_LOG=debug BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma target/device/gpu_tests --test-threads=1 --nocapture
    # Which kernel families this process loaded: BLASST_LOG=debug names each kernel on its first
    # load, on stderr, which libtest passes through only with --nocapture (runs 165 and 180 ran
    # without it and listed nothing).
    sed -n '/^===== BLASST_PREFILL_KERNEL=mma/,$p' "$OUT/gpu_tests.log" | grep -oE "(loaded|compiled) blasst_[a-z0-9_]+" \
      | sed -E 's/^[a-z]+ //; s/_(f16|bf16)_d[0-9]+.*//' | sort | uniq -c | tee -a "$LOG"
  fi
  if [ "${SKIP_EMULATED_TESTS:-0}" != 1 ]; then
    # The plans, decode pipeline depths and launch bounds of GPUs with less shared memory, on
    # this GPU with the portable kernels (BLASST_SMEM_PER_SM, since session 31): an A100 (164 KB
    # per SM) and the GPUs of 100 KB (sm_86, sm_89, sm_120; head dim 256 there on the compact
    # prefill kernel since session 53, and its decode calls on the 32-key decode kernel since
    # session 54). The driver-occupancy test is
    # left out: the driver still sees this GPU's memory. ~130 s and ~80 s (runs 199, 200; more
    # since: run 273's A100 emulation on an H100 205 s).
    for emu in "167936 64,128,256 40,96,160" "102400 64,128,256 40,96,160"; do
      set -- $emu
      step "gpu tests emulating $1 bytes of shared memory per SM, head dims $2 and $3 (portable kernels)"
      more_gpu_tests "BLASST_SMEM_PER_SM=$1 BLASST_TEST_HEAD_DIMS=$2 BLASST_TEST_PADDED_HEAD_DIMS=$3" "gpu tests (emulating $1)" 330 \
        BLASST_SMEM_PER_SM=$1 BLASST_TEST_HEAD_DIMS=$2 BLASST_TEST_PADDED_HEAD_DIMS=$3 BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma \
        target/device/gpu_tests --test-threads=1 --skip decode_plan_counts
    done
  fi
  if [ "${SKIP_NO_WARPS_TESTS:-0}" != 1 ]; then
    # The 16-row plans of calls of several row tiles at d = 128 (two CTAs per SM; the
    # three-per-SM build of sessions 44-47 was removed in session 48), which the row-tile warps
    # kernel replaced in sessions 45 (contiguous) and 47 (paged) (BLASST_DECODE_WARPS=0, the A/B
    # switch): the dense and tile-by-tile tests at d = 128 (run 259: pass).
    step "gpu tests, BLASST_DECODE_WARPS=0 (d = 128)"
    more_gpu_tests BLASST_DECODE_WARPS=0 "gpu tests (no warps kernel)" 200 \
      BLASST_DECODE_WARPS=0 BLASST_TEST_HEAD_DIMS=128 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile
  fi
  if [ "${SKIP_NO_TMA_TESTS:-0}" != 1 ]; then
    # The Hopper prefill kernel's cp.async path for every copy (taken when the driver refuses a
    # tensor map): the dense and tile-by-tile tests.
    step "gpu tests, BLASST_PREFILL_TMA=0"
    more_gpu_tests BLASST_PREFILL_TMA=0 "gpu tests (no TMA)" 200 \
      BLASST_PREFILL_TMA=0 target/device/gpu_tests --test-threads=1 dense_matches skip_decisions_match_the_cpu_tile
  fi
fi
if [ "${SKIP_SANITIZER:-0}" != 1 ]; then
  # Driver API errors are reported too (an API error is an error): until session 21 the
  # host-pointer test provoked cuPointerGetAttribute's CUDA_ERROR_INVALID_VALUE on purpose; the
  # pointer check now asks cuPointerGetAttributes, which raises none: 0 errors with API errors
  # reported over all GPU tests (run 148) and over gpu_threads (run 151). The tool follows child
  # processes (since session 71): the integer-maxima test runs its two forms in a child each.
  # The later runs append to memcheck.log; all memchecks take bench/runs/common.sh's options
  # (SANITIZER_OPTS, default --target-processes all).
  MEMCHECK_TIMEOUT=${MEMCHECK_TIMEOUT:-400} memcheck ${SANITIZE_FILTER:-}
  if [ "${SKIP_THREADS_SANITIZER:-0}" != 1 ]; then
    memcheck_binary gpu_threads 300 target/device/gpu_threads --test-threads=1
    memcheck_binary gpu_contexts 200 target/device/gpu_contexts --test-threads=1 a_thread_without_a_current_context
  fi
  if [ "${SKIP_ONE_SPLIT_TESTS:-0}" != 1 ]; then
    # One KV split per (sequence, KV head, row tile) (BLASST_DECODE_UNITS=1: the plan's target
    # of one CTA in all; the CPU backend plans with the same value): every decode case's split
    # then holds all its tiles, so the one-token 1 x 20000 case over 16-key pages runs one split
    # of 313 tiles, which the default plans never reach in a test this size: the small-page
    # decode kernel with 8-row tiles takes its block-table entries in lanes there
    # (kernels/decode_sm90.cu: splits of SMALL_PAGE_LANES_MIN_TILES = 128 tiles or more).
    # Only the tile-by-tile test: the dense test's split-coverage assertion (1, 2-4 and > 4
    # splits) cannot hold with one split per unit (run 241: its cases all passed, the assertion
    # failed, as it should).
    BLASST_DECODE_UNITS=1 memcheck_binary "tile by tile, BLASST_DECODE_UNITS=1 (one split per unit)" 200 \
      target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile
  fi
  if [ "${SKIP_RACECHECK:-0}" != 1 ]; then
    # racecheck (shared-memory hazards) and synccheck (barrier misuse) over the tile-by-tile
    # test's cases 0 (prefill), 6-7 (one-token decode), 8, 10, 12, 13 (speculative decode: the
    # row-tile warps kernel, contiguous and over 64- and 16-key pages), 14-15 (prefill over 16-
    # and 32-key pages; since session 66, whose synccheck found the overlapped skip kernel's
    # warps waiting for a wgmma group at different instructions: run 311), skip and dense kernels:
    # the Hopper kernels at d = 128, and the portable ones under the 100 KB emulation at d = 128
    # and 256 (since session 54: run 280 found racecheck unable to follow the warps kernel's
    # __syncwarp-then-lane-0 arrivals, now one arrival per lane; ~130 s on an H100 in all).
    for cfg in "hopper BLASST_TEST_HEAD_DIMS=128" \
      "portable BLASST_TEST_HEAD_DIMS=128,256 BLASST_SMEM_PER_SM=102400 BLASST_PREFILL_KERNEL=mma BLASST_DECODE_KERNEL=mma"; do
      set -- $cfg
      name=$1
      shift
      for tool in racecheck synccheck; do
        step "$tool ($name kernels), tile-by-tile cases 0,6,7,8,10,12,13,14,15"
        (export "$@" BLASST_TEST_CASES=0,6,7,8,10,12,13,14,15
          sanitize_binary $tool "$name kernels: $*" 200 \
            --print-limit 20 target/device/gpu_tests --test-threads=1 skip_decisions_match_the_cpu_tile_by_tile)
      done
    done
  fi
fi
step "demo"
timeout 60 target/device/blasst demo --seqlen 4096 --heads 32 >> "$LOG" 2>&1; echo "demo exit $?" >> "$LOG"
tail -8 "$LOG"
if [ "${SKIP_BENCH:-0}" != 1 ]; then
  step "benchmark"
  # SM clock, power, temperature and throttle reasons once a second while the benchmark runs
  # (smi.log): a slow stretch in the tables can then be told from a slow kernel.
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
    --format=csv -l 1 > "$OUT/smi.log" 2>&1 &
  smi=$!
  PYTHONUNBUFFERED=1 timeout ${BENCH_TIMEOUT:-400} python3 bench/bench.py --lib target/device/libblasst.so --out "$OUT" ${BENCH_ARGS:-} > "$OUT/bench.log" 2>&1
  echo "bench exit $?" | tee -a "$OUT/bench.log" "$LOG"
  python3 bench/report.py "$OUT"/bench*.json 2>/dev/null | head -60 || tail -3 "$OUT/bench.log" | cut -c1-400
  # Issues 5 and 6's targets, met or missed (bench/targets.py, since session 54).
  python3 bench/targets.py "$OUT/bench.json" 2>/dev/null | tee -a "$LOG"
  step "head dim 256"
  # smi.log covers these timings too (one measurement each, not interleaved: a throttled second
  # shows there; run.log has the step's start time).
  timeout 120 python3 bench/head_dim_256.py target/device/libblasst.so > "$OUT/d256.log" 2>&1
  echo "head_dim_256 exit $?" | tee -a "$OUT/d256.log" "$LOG"
  kill $smi 2>/dev/null
  grep -E "^(prefill|decode)" "$OUT/d256.log"
fi
