"""ctypes binding of libblasst.so's attention call, for benchmarks on the GPU machine.

The struct mirrors include/blasst.h (blasst_attn_params); its size is checked against
blasst_attn_params_init at load time.
"""
import ctypes as C
import os

import torch

# The scripts set the kernel switches (BLASST_PREFILL_KERNEL=mma, BLASST_DECODE_KERNEL=mma, ...)
# between calls to compare kernels in one process; the library reads them once per process
# unless this is set before its first call (src/switches.rs).
os.environ.setdefault("BLASST_LIVE_SWITCHES", "1")
if os.environ["BLASST_LIVE_SWITCHES"] != "1":
    raise RuntimeError("the benchmark scripts switch kernels between calls: BLASST_LIVE_SWITCHES must be 1")

BF16, F16 = 1, 0
CUDA = 0


class Params(C.Structure):
    _fields_ = [
        ("struct_size", C.c_uint32), ("device", C.c_uint32), ("dtype", C.c_uint32),
        ("batch_size", C.c_uint32), ("num_q_heads", C.c_uint32), ("num_kv_heads", C.c_uint32),
        ("head_dim", C.c_uint32), ("max_seqlen_q", C.c_uint32), ("max_seqlen_kv", C.c_uint32),
        ("causal", C.c_uint32), ("softmax_scale", C.c_float), ("threshold_scale_factor", C.c_float),
        ("q", C.c_void_p), ("q_batch_stride", C.c_int64), ("q_row_stride", C.c_int64), ("q_head_stride", C.c_int64),
        ("k", C.c_void_p), ("k_batch_stride", C.c_int64), ("k_row_stride", C.c_int64), ("k_head_stride", C.c_int64),
        ("v", C.c_void_p), ("v_batch_stride", C.c_int64), ("v_row_stride", C.c_int64), ("v_head_stride", C.c_int64),
        ("o", C.c_void_p), ("o_batch_stride", C.c_int64), ("o_row_stride", C.c_int64), ("o_head_stride", C.c_int64),
        ("cu_seqlens_q", C.c_void_p), ("cu_seqlens_kv", C.c_void_p), ("seqused_kv", C.c_void_p),
        ("block_table", C.c_void_p), ("block_table_stride", C.c_int64), ("page_size", C.c_uint32),
        ("lse", C.c_void_p), ("skip_stats", C.c_void_p), ("workspace", C.c_void_p), ("workspace_size", C.c_size_t),
        ("plan", C.c_void_p), ("num_pages", C.c_uint32),
    ]


class Plan(C.Structure):
    _fields_ = [(n, C.c_uint32) for n in ("struct_size", "phase", "block_m", "block_n", "num_kv_splits", "reverse_kv")]


class Blasst:
    def __init__(self, path):
        self.lib = C.CDLL(path)
        self.lib.blasst_last_error.restype = C.c_char_p
        self.lib.blasst_version.restype = C.c_char_p
        p = Params()
        self.lib.blasst_attn_params_init(C.byref(p))
        assert p.struct_size == C.sizeof(Params), (p.struct_size, C.sizeof(Params))
        self.version = self.lib.blasst_version().decode()

    def params(self, q, k, v, o, causal=False, factor=0.0, stats=None, lse=None,
               seqused=None, block_table=None, page_size=0, num_pages=0, max_seqlen_kv=None):
        """q, o: [B, Sq, Hq, D]; k, v: [B, Sk, Hkv, D] or page pools [P, page, Hkv, D]."""
        p = Params()
        self.lib.blasst_attn_params_init(C.byref(p))
        p.device = CUDA
        p.dtype = BF16 if q.dtype == torch.bfloat16 else F16
        B, Sq, Hq, D = q.shape
        p.batch_size, p.num_q_heads, p.num_kv_heads, p.head_dim = B, Hq, k.shape[2], D
        p.max_seqlen_q = Sq
        p.max_seqlen_kv = max_seqlen_kv if max_seqlen_kv is not None else k.shape[1]
        p.causal = int(causal)
        p.threshold_scale_factor = factor
        for name, t in (("q", q), ("k", k), ("v", v), ("o", o)):
            setattr(p, name, t.data_ptr())
            bs, rs, hs, ds = t.stride()
            assert ds == 1
            setattr(p, name + "_batch_stride", bs)
            setattr(p, name + "_row_stride", rs)
            setattr(p, name + "_head_stride", hs)
        if stats is not None:
            p.skip_stats = stats.data_ptr()
        if lse is not None:
            p.lse = lse.data_ptr()
        if seqused is not None:
            p.seqused_kv = seqused.data_ptr()
        if block_table is not None:
            p.block_table = block_table.data_ptr()
            p.block_table_stride = block_table.stride(0)
            p.page_size = page_size
            p.num_pages = num_pages
        return p

    def with_workspace(self, p):
        """Gives `p` a workspace of blasst_attn_workspace_size bytes (torch memory, kept alive
        with `p`), as an engine would preallocate; without one, split decode calls allocate it
        stream-ordered on every call."""
        size = C.c_size_t(0)
        st = self.lib.blasst_attn_workspace_size(C.byref(p), C.byref(size))
        if st != 0:
            raise RuntimeError(self.lib.blasst_last_error().decode())
        if size.value:
            ws = torch.empty(size.value, dtype=torch.uint8, device="cuda")
            p.workspace, p.workspace_size = ws.data_ptr(), size.value
            p._workspace = ws
        return p

    def run(self, p, stream=None):
        s = torch.cuda.current_stream().cuda_stream if stream is None else stream
        st = self.lib.blasst_attn_run(C.byref(p), C.c_void_p(s))
        if st != 0:
            raise RuntimeError(f"blasst_attn_run: status {st}: {self.lib.blasst_last_error().decode()}")

    def plan(self, p):
        out = Plan()
        st = self.lib.blasst_attn_plan(C.byref(p), C.byref(out))
        if st != 0:
            raise RuntimeError(self.lib.blasst_last_error().decode())
        return out


class Builds:
    """Several library builds in one process, from specs `path[:VAR=VALUE[,VAR=VALUE]]`: each
    build's calls run with its own environment settings (read by the library at every call, e.g.
    BLASST_PREFILL_KERNEL=mma or BLASST_DECODE_KERNEL=mma) and none of another build's. For the
    interleaved A/B scripts (bench/ab_prefill.py, bench/ab_decode.py)."""

    def __init__(self, specs):
        paths = [s.split(":", 1)[0] for s in specs]
        self.envs = [dict(kv.split("=", 1) for kv in s.split(":", 1)[1].split(",")) if ":" in s else {}
                     for s in specs]
        self.keys = sorted({k for e in self.envs for k in e})
        self.libs = [Blasst(p) for p in paths]
        self.names = [os.path.basename(os.path.dirname(os.path.abspath(p))) + "".join(f"[{k}={v}]" for k, v in e.items())
                      for p, e in zip(paths, self.envs)]

    def enter(self, i):
        """Sets build i's environment (and clears the other builds' settings)."""
        for k in self.keys:
            if k in self.envs[i]:
                os.environ[k] = self.envs[i][k]
            else:
                os.environ.pop(k, None)

    def run(self, i, p):
        """Build i's call of params p, with its environment."""
        self.enter(i)
        self.libs[i].run(p)


def size_args(args, default):
    """(sizes, libraries) of a decode script's arguments: every `--size BxL` (or `default` when
    there is none) and the other arguments that are neither options nor the values of `--size`,
    `--tokens`, `--heads` and `--d` (bench/ab_decode.py, bench/micro/profile_decode_kernels.py)."""
    sizes = [tuple(int(x) for x in args[i + 1].split("x")) for i, a in enumerate(args) if a == "--size"]
    libs = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] not in ("--size", "--tokens", "--heads", "--d"))]
    return sizes or default, libs
