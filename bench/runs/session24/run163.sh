#!/usr/bin/env bash
# Run 163 (session 24): the benchmark (bench/bench.py, all tables) and the head-dim-256 timings
# on this session's tree (target/device built from b60c5c8; the later commits change comments and
# documents only), after the precompile step, check_prefill and the demo. The tests ran in run 160.
SKIP_TESTS=1 SKIP_SANITIZER=1 scripts/device-check.sh
