#!/usr/bin/env bash
# Run 160 (session 24): the device check of b60c5c8, the review commits of session 23 that had
# not run on the GPU (nvrtc::require, ctx_from shared by gpu_shape_on and call_ctx, tests/common's
# same_out / new_stream / use_device). GPU tests with the Hopper kernels, gpu_threads,
# gpu_contexts; memcheck over the graph test (tests/common's run_in_graph), gpu_threads and
# gpu_contexts' first test; demo. No benchmark: no kernel changed.
SKIP_MMA_TESTS=1 SKIP_NO_TMA_TESTS=1 SKIP_BENCH=1 SANITIZE_FILTER=calls_replay_inside_a_cuda_graph \
  scripts/device-check.sh
