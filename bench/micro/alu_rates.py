"""Issue rate and latency of the instructions a skipped prefill visit spends its time in (the
row maxima: FMNMX; the alternatives: integer max of two and (session 61) of three, packed
bf16x2 max, compare-and-select, FADD for reference), measured with clock64 inside one CTA per
multiprocessor (CuPy's NVRTC):
  python3 bench/micro/alu_rates.py
Prints cycles per warp instruction per scheduler for W warps per scheduler (throughput, 8
independent chains per thread) and for one chain (latency)."""
import cupy as cp

OPS = {
    "FMNMX (max.f32)": ("f", "max.f32 %0, %0, %1;"),
    "FADD": ("f", "add.f32 %0, %0, %1;"),
    "IMNMX (max.s32)": ("r", "max.s32 %0, %0, %1;"),
    # (session 61) two chained max.s32, which ptxas fuses into one three-input VIMNMX3 on sm_90
    # (checked in the SASS): two maxima per instruction.
    "VIMNMX3 (max.s32 x 2)": ("r", "{.reg .s32 t; max.s32 t, %0, %1; max.s32 %0, t, %2;}"),
    "HMNMX2 (max.bf16x2)": ("r", "max.bf16x2 %0, %0, %1;"),
    "FSETP+FSEL": ("f", "{.reg .pred p; setp.gt.f32 p, %1, %0; selp.f32 %0, %1, %0, p;}"),
}
# One kernel per (instruction, chains): everything the loop does is known at compile time, so
# the values stay in registers (a runtime switch had put them in local memory).
TEMPLATE = r"""
extern "C" __global__ void NAME(float *out, long long *cyc, int iters) {
  T x[8];
  for (int j = 0; j < 8; ++j) x[j] = CONV(threadIdx.x * 0.001f + j);
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
    #pragma unroll
    for (int r = 0; r < 4; ++r) {
      #pragma unroll
      for (int j = 0; j < CHAINS; ++j) asm volatile(ASM : "+CW"(x[j]) : "CR"(x[(j + 1) & 7]), "CR"(x[(j + 2) & 7]));
    }
  }
  long long t1 = clock64();
  float s = 0.f;
  for (int j = 0; j < 8; ++j) s += (float)x[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x % 32 == 0) cyc[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = t1 - t0;
}
"""
SRC = ""
for n, (name, (c, asm)) in enumerate(OPS.items()):
    for chains in (8, 1):
        SRC += (TEMPLATE.replace("NAME", f"k{n}_{chains}").replace("CHAINS", str(chains))
                .replace("ASM", '"' + asm + '"').replace('"+CW"', f'"+{c}"').replace('"CR"', f'"{c}"')
                .replace("T x", "float x" if c == "f" else "unsigned x")
                .replace("CONV", "" if c == "f" else "(unsigned)"))
mod = cp.RawModule(code=SRC, options=("-arch=sm_90",))
sms = cp.cuda.Device().attributes["MultiProcessorCount"]
iters = 2048
for op, name in enumerate(OPS):
    for chains in (8, 1):
        for wps in (1, 2, 3):
            threads = 128 * wps
            out = cp.zeros(sms * threads, cp.float32)
            cyc = cp.zeros(sms * threads // 32, cp.int64)
            for _ in range(2):
                mod.get_function(f"k{op}_{chains}")((sms,), (threads,), (out, cyc, cp.int32(iters)))
            cp.cuda.Device().synchronize()
            c = float(cyc.get().mean())
            per_thread_ops = iters * 4 * chains
            # cycles per warp instruction per scheduler: each scheduler runs wps warps.
            print(f"{name:22} chains {chains} warps/scheduler {wps}: "
                  f"{c / per_thread_ops:6.2f} cycles per instruction per warp, "
                  f"{c / (per_thread_ops * wps):6.2f} per instruction per scheduler", flush=True)
