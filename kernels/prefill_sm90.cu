// Prefill for Hopper (sm_90a): FlashAttention forward on warpgroup MMA (wgmma) with
// Skip-Softmax (SPEC section 1). Same plan and decisions as kernels/prefill.cu (block_m 16,
// block_n 64, 1 split, KV tiles visited last to first); only the arithmetic engine differs.
//
// One CTA = 128 query rows of one (sequence, query head) = two consumer warpgroups of 64 rows
// (at d = 64 192 rows = three: NWG); each warp's 16 rows are one row tile of the
// plan and decide their skips alone (a warp vote), so the CTA's size changes no decision. At
// d = 64 a warpgroup's Q K^T and P V of a visit take the tensor cores 512 cycles, less than its
// own softmax chain (~1900 cycles, from run 83's 400 TFLOP/s), so two warpgroups left them idle; a third one's MMAs fill that time
// (FlashAttention-3's d = 64 tiles are 192 rows too): dense +14-25 %, Skip-Softmax +7-28 % (run
// 167, bench/RESULTS.md session 25; paged +14-28 %, run 170). At d = 128 (O 64 registers) three do not fit: with P V
// retired before S was issued so that they would, they were 4-19 % slower (run 168).
// A visit is VN keys: two plan tiles (128 keys, "halves") at d <= 128; at d = 256 one plan tile
// (64 keys, NH = 1), so that O (128 fp32 registers per consumer thread), S (32) and P (16) fit
// the consumers' registers, and two ring slots (Q 64 KB + 4 x 32 KB) the shared memory; there K
// and V have separate barriers (KV_SPLIT below), so each is copied a visit ahead of its use.
// S = Q K^T reads Q and K from shared memory; O += P V takes the bf16/fp16 probabilities P from
// registers and V from shared memory. Tiles live in 128-byte-swizzled layout (rows of 64
// elements, 16-byte chunk c of row r at c ^ (r % 8); a 128-column head is two such blocks), the
// canonical K-major layout for Q and K and N-major (transposed B) layout for V.
//
// Warp specialisation (FA3's layout): a third, producer warpgroup issues every copy (Q, then K
// and V of each visit into a ring of NB slots as soon as the slot is free) and holds few
// registers (setmaxnreg). Non-paged layouts: one producer warp, TMA (one thread issues a box of
// 64 head columns x 64 keys per copy; the bytes complete the slot's full mbarrier), 24 registers,
// so the consumers get 240 (session 14: dense +1-4 %, Skip-Softmax +4-10 % against two cp.async
// teams, which also took issue slots from the consumers; bench/RESULTS.md). Paged layouts: two
// teams of 64 threads (56 registers, consumers 224) take visits in turn; in a team, thread 0
// issues a TMA box of K per page chunk of its visit and thread 32 one of V (maps over the page
// pools, the page looked up in the block table (at d = 128 with pages under 64 keys a visit's
// pages at once: paged_boxes); run 173: +65-78 % at d = 64, 2.4-2.9x at d = 128
// against the teams' cp.async copies, which now only copy a sequence's last, partial visit, or
// everything when the host has no maps: the driver refused them), cp.async copies publishing a
// visit once they have landed and are fenced to the async proxy. At d = 256 (a 64-key visit is
// 16 boxes of K and 16 of V with 16-key pages, and those of one thread go out one after another)
// two producer warpgroups make two teams of four warps, warp w issuing K's (w even) or V's (w
// odd) boxes of column blocks w / 2 and w / 2 + 2: at 16-key pages dense +9-11 %, Skip-Softmax
// +11-14 %, at 64-key pages +0-3 % (run 190). The same at d = 128 sped up skipping at 16-key
// pages by up to 9 % but slowed 64-key pages by 1-3 % and dense 16-key pages at 16K-32K by 2 %,
// so d = 128 keeps one producer warpgroup (bench/RESULTS.md, session 29). The consumer
// warpgroups only compute: they wait on the full barrier and release the slot on its empty barrier once its P V is done. The
// consumer warpgroups take turns on the tensor cores (FA3's ping-pong, two named barriers): in
// its turn a warpgroup issues S_t and the P V of its previous visit, then hands over, so one
// warpgroup's softmax runs while the other's MMAs do. No CTA-wide barrier in the loop. (Without
// the turns, each warpgroup issuing when ready, the skip kernel was 1.5-5 % slower when skipping:
// bench/RESULTS.md, session 11.)
//
// Skipping: a warp whose 16 rows all vote to skip visit t leaves out its softmax and zeroes its
// part of P_t; the warpgroup's P V_t (one wgmma for its 64 rows) is issued in the next turn
// unless all four warps skipped. The warps leave their decisions in shared memory and read them
// after the next turn barrier, which they pass anyway, so the skip specialisation adds no
// barrier to the dense loop (with 64-row tiles, the warpgroup's 128-thread barrier-and per
// visit held the skip kernel with nothing skipped at 0.79-0.83x of dense, with warp tiles
// 0.90-0.92x; bench/RESULTS.md, session 5). The dense
// specialisation contains no vote. (Issuing S_{t+1} in the same turn as P V_{t-1}, FA3's
// intra-warpgroup overlap on top of this, measured 5-10 % slower: bench/RESULTS.md, run 20b.
// S a whole visit ahead, so that a skipped visit's maxima and votes run beside its next S, needs a
// second score buffer: in registers it did not fit beside O and P (session 59: every wgmma
// serialised); with P through shared memory instead (stmatrix, P V reading A from shared memory)
// it fit, passed every check, and ran dense at 0.85-0.94x and Skip-Softmax at 0.79-0.95x of this
// loop on an H100 whatever the ring depths and with V waited for only when kept (session 67,
// runs 316-321, bench/runs/session67/psmem-rejected.patch; its row maxima placed between the
// next S's k-steps gained 1-3 % at 87-92 % skipped: run 322, session 68). Visits of three plan
// tiles (192 keys, m64n192k16 S, a ring of two 96 KB slots with split K and V barriers), so that
// a skipped visit's turn and waits serve more keys: skipped visits +5 % at most at 75-92 %
// skipped, -3..-8 % at ~50 % (run 328, session 69, bench/runs/session69/visit192-rejected.patch).)
//
// ptxas keeps the wgmma pipeline asynchronous only if no other code writes or reads the
// accumulators of an unfinished wgmma on any path (warnings C7514/C7515/C7520, rejected by
// tests/kernels_compile.rs): scores are never written outside the tensor cores, the group
// count per turn is fixed (an empty commit when nothing is kept), waits are unconditional, and
// the "P V pending" flag is made warp-uniform with a vote.
//
// Q is deliberately not kept in registers: ptxas (CUDA 13.0) was seen reusing the registers of a
// register-A wgmma operand inside the KV loop (d = 64), so S takes both operands from shared
// memory.

#define NWG PREFILL90_CONSUMER_WGS  // consumer warpgroups of 64 rows (host: src/cuda/nvrtc.rs prefill90_consumer_wgs: 3 at d = 64, else 2)
#define BM (64 * NWG)  // query rows per CTA
#define BN 64   // the plan's KV tile
#define VN PREFILL90_SLOT_KEYS  // keys per visit and ring slot (host: 128, at d = 256 64)
#define NH (VN / BN)            // plan tiles per visit: 2, at d = 256 1
#define NPWG PREFILL90_PRODUCER_WGS  // producer warpgroups (host: src/cuda/nvrtc.rs prefill90_producer_wgs: 2 for paged caches at d = 256, else 1)
#define NTHREADS (128 * (NWG + NPWG))  // consumer warpgroups 0 .. NWG - 1, then the producer(s)
#define NB PREFILL90_SLOTS  // K/V buffer slots (host: src/cuda/nvrtc.rs prefill90_ring: 3, at d = 256 2)
// Registers per thread after the split (setmaxnreg; what the launch bounds give every thread at
// launch is 384 x 168, with three consumer warpgroups or two producer warpgroups 512 x 128).
// Paged: two producer teams (TMA, cp.async for partial visits), 128 x 56 + 256 x 224, with three
// consumer warpgroups (d = 64) 128 x 32 + 384 x 160, with two producer warpgroups (d = 256)
// 256 x 32 + 256 x 224 (at 32 registers the teams' copy loop is unrolled twice, not fully: the
// full unroll spilled).
// Otherwise one producer warp issues TMA copies (FlashAttention-3's budgets): 128 x 24 + 256 x
// 240, with three consumer warpgroups 128 x 24 + 384 x 160.
// A full barrier (and Q's) expects one arrival per thread of the copying team (paged) or of the
// producer warp (TMA).
#if PAGED
#define PRODUCER_REGS (NWG == 3 || NPWG == 2 ? 32 : 56)
#define CONSUMER_REGS (NWG == 3 ? 160 : 224)  // 128 x 32 + 384 x 160 = 256 x 32 + 256 x 224 = 128 x 56 + 256 x 224 = 65536
#define FULL_ARRIVALS (KV_SPLIT ? PTEAM / 2 : PTEAM)  // (KV_SPLIT: K's warps of the team, or V's)
#define Q_ARRIVALS PTEAM
#else
#define PRODUCER_REGS 24
#define CONSUMER_REGS (NWG == 3 ? 160 : 240)
#define FULL_ARRIVALS 32
#define Q_ARRIVALS 32
#endif
// KV_SPLIT: K and V of a slot have their own full and empty barriers (the d = 256 kernel, and
// the d = 128 one with OVERLAP_SPLIT below; run 213, bench/RESULTS.md session 36: contiguous
// dense +21-46 %, padded d = 160 +30-42 %). With one barrier pair per slot and a ring of two,
// K_{t+1} could be copied only once P V_{t-1} had released visit t - 1's slot (in the second
// warpgroup's turn of visit t), so the first warpgroup's next S waited for a whole 64 KB copy
// every visit. With separate barriers K of visit t is released after S_t and V after P V_t:
// K_{t+1} is copied during visit t, V_{t+1} during visit t + 1, a visit ahead of their use each.
// Layout of `bars`: full K [NB] | empty K [NB] | full V [NB] | empty V [NB] | Q; without the
// split, full [NB] | empty [NB] | Q.
// PV_OVERLAP (session 55; on by default since session 56, off where the host defines
// PREFILL90_PV_OVERLAP 0: src/cuda/nvrtc.rs, `BLASST_PREFILL_PV_OVERLAP=0`): S_t and P V_{t-1}
// in separate commit groups, each P V chain unconditional, so the row maxima and exponentials of
// S_t run while P V_{t-1} does (see the loop; in the Skip-Softmax kernel since session 66 the
// row maxima and decisions only: its wait for P V_{t-1} comes before the softmax's branches).
// On an H100 (bench/RESULTS.md, runs 291-294):
// dense +1.5..+11 %, Skip-Softmax -2..+8 % up to ~70 % skipped, -8..+1 % at 75-92 % (a skipped
// visit has no P V to overlap); the whole GPU suite, memcheck and racecheck pass with it (run 293). The
// d = 128 kernel only: not at d = 256 (KV_SPLIT: its slots' K and V barriers), not at d = 64
// (three consumer warpgroups of 160 registers: its skip kernel spilled 224 bytes with it), not
// in the calibration sweep.
#ifndef PREFILL90_PV_OVERLAP
#define PREFILL90_PV_OVERLAP 1
#endif
#define PV_OVERLAP (PREFILL90_PV_OVERLAP && !SWEEP && HEAD_DIM <= 128 && NWG == 2)
// OVERLAP_SPLIT (session 65; where the host defines PREFILL90_OVERLAP_SPLIT 1: since session 66
// the Skip-Softmax kernel over pages under 64 keys and the dense one under 32, elsewhere with
// `BLASST_PREFILL_OVERLAP_SPLIT=1`, src/cuda/nvrtc.rs `Variant::with_small_pages`):
// the overlapped d = 128 kernel with KV_SPLIT's barriers. With one barrier pair per slot the
// overlap releases a slot only in retire_pv, a softmax after S_t; split, K of visit t is released
// as soon as S_t is done (the wait for S_t) and V of visit t - 1 in retire_pv, so the producer's
// copies of K run up to a visit earlier. Over pages under 64 keys (many boxes per visit) that
// turned the overlap's loss into a gain (run 310 on an H100, bench/RESULTS.md session 66: over
// 16-key pages dense -1..+3 % and Skip-Softmax +4..+14 % against the kernel without the overlap,
// which those pages ran in sessions 62-65); contiguous and over 64-key pages it costs dense
// 0.4-6.7 % and gains only at 75 % skipped or more, so it stays off there.
#ifndef PREFILL90_OVERLAP_SPLIT
#define PREFILL90_OVERLAP_SPLIT 0
#endif
#define KV_SPLIT (HEAD_DIM > 128 || (PV_OVERLAP && PREFILL90_OVERLAP_SPLIT))
// INT_MAXIMA (session 61): the row maxima of unmasked visits as integer maxima of three
// (VIMNMX3: two maxima per instruction at FMNMX's issue rate), the float tree where some lane's
// scores are all negative or zero (see the loop); the same maxima bit for bit. On an H100 (run
// 305, bench/RESULTS.md session 61) dense +1.2..+4.3 %, Skip-Softmax +0.7..+4.2 %. Off where the
// host defines PREFILL90_INT_MAXIMA 0 (src/cuda/nvrtc.rs, `BLASST_PREFILL_INT_MAXIMA=0`).
#ifndef PREFILL90_INT_MAXIMA
#define PREFILL90_INT_MAXIMA 1
#endif
#define INT_MAXIMA PREFILL90_INT_MAXIMA
// LATE_CHECK (session 68; off where the host defines PREFILL90_LATE_CHECK 0, src/cuda/nvrtc.rs,
// `BLASST_PREFILL_LATE_CHECK=0`): INT_MAXIMA's check for lanes whose integer maxima are not
// their float maxima is voted on after the quad shuffles (see the loop for how the vote is kept
// there), not before them, so the shuffles of a visit's row maxima (a skipped visit's critical
// path, ~280-410 cycles for ~55 instructions in run 324's profile) no longer wait for the check's
// dependent chain and vote; the rare warp that fails the check takes the float tree and shuffles again. The same
// maxima bit for bit. On an H100 (run 325, bench/RESULTS.md session 68) d = 128 dense
// +0.7..+1.7 % (one row +4.7 %), Skip-Softmax +0.6..+3.0 %; d = 64 -0.6..+2.2 %. (Testing a
// lane's two rows with `&` instead of `&&` before the vote, so that ptxas does not chain them,
// measured -2..+3 % alone and nothing over LATE_CHECK: not kept.)
#ifndef PREFILL90_LATE_CHECK
#define PREFILL90_LATE_CHECK 1
#endif
#define LATE_CHECK (PREFILL90_LATE_CHECK && INT_MAXIMA)
#define EMPTY_OFF (NB * 8)       // a slot's empty barrier past its full one
#define VBAR_OFF (2 * NB * 8)    // V's barriers past K's (KV_SPLIT)
#define CH (HEAD_DIM / 8)  // 16-byte chunks per row
#define Q_BYTES (BM * HEAD_DIM * 2)
// The 64-column TMA boxes that hold data: all of a kernel's own head dim; at a padded head dim
// of the d = 256 kernel up to 192 (e.g. 160) the fourth box lies wholly past it and is neither
// copied nor read (S's k-steps stop at DIM16, P V's columns at PV_N). Issued, such boxes only
// zero-filled shared memory. KV_DATA_BYTES: the bytes of K's (or V's) boxes of a visit.
#define DATA_BOXES ((DIM + 63) / 64)
#define KV_DATA_BYTES (DATA_BOXES * VN * 128)
#define KV_BYTES (VN * HEAD_DIM * 2)

#if defined(BLASST_BF16)
#define WG_T "bf16"
#else
#define WG_T "f16"
#endif

// Byte offset of 16-byte chunk `c` of row `r` in a tile of `rows` rows stored as 128-byte
// swizzled blocks of 64 columns.
DEVI u32 swz128(int rows, int r, int c) {
  return (u32)((c >> 3) * rows * 128 + r * 128 + (((c & 7) ^ (r & 7)) << 4));
}

// wgmma shared-memory matrix descriptor, 128-byte swizzle.
DEVI u64 smem_desc(u32 addr, u32 lbo, u32 sbo) {
  return (u64)((addr & 0x3FFFFu) >> 4) | ((u64)(lbo >> 4) << 16) | ((u64)(sbo >> 4) << 32) | (1ull << 62);
}
DEVI void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
DEVI void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> DEVI void wg_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
// Makes this thread's completed cp.async writes visible to the tensor cores' async proxy.
DEVI void fence_async_smem() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// Keeps the compiler from touching accumulators across the asynchronous MMA.
template <int N> DEVI void reg_fence(float (&d)[N]) {
  #pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// Accumulator operands of the wgmma wrappers below: 32 or 64 fp32 registers per thread.
#define WG_D32(d) \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), \
      "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), \
      "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), \
      "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define WG_D64(d) \
  WG_D32(d), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), \
      "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), \
      "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), \
      "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
      "+f"(d[63])
// Accumulator register lists: WG_Lk names operands %0 .. %(4k - 1) (k groups of 8 columns).
#define WG_L1 "%0,%1,%2,%3"
#define WG_L2 WG_L1 ",%4,%5,%6,%7"
#define WG_L3 WG_L2 ",%8,%9,%10,%11"
#define WG_L4 WG_L3 ",%12,%13,%14,%15"
#define WG_L5 WG_L4 ",%16,%17,%18,%19"
#define WG_L6 WG_L5 ",%20,%21,%22,%23"
#define WG_L7 WG_L6 ",%24,%25,%26,%27"
#define WG_L8 WG_L7 ",%28,%29,%30,%31"
#define WG_L9 WG_L8 ",%32,%33,%34,%35"
#define WG_L10 WG_L9 ",%36,%37,%38,%39"
#define WG_L11 WG_L10 ",%40,%41,%42,%43"
#define WG_L12 WG_L11 ",%44,%45,%46,%47"
#define WG_L13 WG_L12 ",%48,%49,%50,%51"
#define WG_L14 WG_L13 ",%52,%53,%54,%55"
#define WG_L15 WG_L14 ",%56,%57,%58,%59"
#define WG_L16 WG_L15 ",%60,%61,%62,%63"
#define WG_R32 "{" WG_L8 "}"
#define WG_R64 "{" WG_L16 "}"

// D(64 x 128, fp32) (+)= A(64 x 16, shared memory via `da`, K-major) * B(16 x 128, shared memory
// via `db`, K-major); scale_d == 0 overwrites D.
DEVI void wgmma_ss_n128(float (&d)[64], u64 da, u64 db, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." WG_T "." WG_T " " WG_R64 ", %64, %65, p, 1, 1, 0, 0;\n}\n"
               : WG_D64(d)
               : "l"(da), "l"(db), "r"(scale_d));
}
// D(64 x 64, fp32) (+)= A(64 x 16, shared memory via `da`, K-major) * B(16 x 64, shared memory
// via `db`, K-major); scale_d == 0 overwrites D. (S of a 64-key visit, d = 256.)
DEVI void wgmma_ss_n64(float (&d)[32], u64 da, u64 db, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." WG_T "." WG_T " " WG_R32 ", %32, %33, p, 1, 1, 0, 0;\n}\n"
               : WG_D32(d)
               : "l"(da), "l"(db), "r"(scale_d));
}
// D(64 x 64, fp32) (+)= A(64 x 16, registers) * B(16 x 64, shared memory via `db`).
// scale_d == 0 overwrites D; TB = 1 reads B N-major (transposed).
template <int TB> DEVI void wgmma_n64(float (&d)[32], const u32 (&a)[4], u64 db, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." WG_T "." WG_T " " WG_R32 ", {%32,%33,%34,%35}, %36, p, 1, 1, %38;\n}\n"
               : WG_D32(d)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TB));
}
// D(64 x 128, fp32) (+)= A(64 x 16, registers) * B(16 x 128, shared memory via `db`), D being
// accumulators OFF ... OFF + 63 of `d` (at d = 256, O is two such column blocks).
// scale_d == 0 overwrites D; TB = 1 reads B N-major (transposed).
template <int TB, int OFF = 0, int N> DEVI void wgmma_n128(float (&d)[N], const u32 (&a)[4], u64 db, int scale_d) {
  static_assert(OFF + 64 <= N, "accumulator block out of range");
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." WG_T "." WG_T " " WG_R64 ", {%64,%65,%66,%67}, %68, p, 1, 1, %70;\n}\n"
               : WG_D64((d + OFF))
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(TB));
}

#if DIM != HEAD_DIM
// Padded head dims: P V computes only O's columns that hold data. O's last block of columns
// (d = 64 and 128: the only one; d = 256: the second block of 128) is PV_N = DIM - (its first
// column) wide, and its MMA is m64nPV_Nk16 (any multiple of 8) instead of the block's full
// width: the columns past DIM would only add P x 0. The wrappers list every accumulator of the
// block as an operand (so the input operands keep wgmma_n64's / wgmma_n128's numbers) and hand
// the instruction the first PV_N / 2 of them; the others stay zero, never written.
#define PV_N (HEAD_DIM == 256 ? DIM - 128 : DIM)
// PV_NS: PV_N as the instruction's text; PV_RL: its accumulator registers.
#if PV_N == 8
#define PV_NS "8"
#define PV_RL WG_L1
#elif PV_N == 16
#define PV_NS "16"
#define PV_RL WG_L2
#elif PV_N == 24
#define PV_NS "24"
#define PV_RL WG_L3
#elif PV_N == 32
#define PV_NS "32"
#define PV_RL WG_L4
#elif PV_N == 40
#define PV_NS "40"
#define PV_RL WG_L5
#elif PV_N == 48
#define PV_NS "48"
#define PV_RL WG_L6
#elif PV_N == 56
#define PV_NS "56"
#define PV_RL WG_L7
#elif PV_N == 64
#define PV_NS "64"
#define PV_RL WG_L8
#elif PV_N == 72
#define PV_NS "72"
#define PV_RL WG_L9
#elif PV_N == 80
#define PV_NS "80"
#define PV_RL WG_L10
#elif PV_N == 88
#define PV_NS "88"
#define PV_RL WG_L11
#elif PV_N == 96
#define PV_NS "96"
#define PV_RL WG_L12
#elif PV_N == 104
#define PV_NS "104"
#define PV_RL WG_L13
#elif PV_N == 112
#define PV_NS "112"
#define PV_RL WG_L14
#elif PV_N == 120
#define PV_NS "120"
#define PV_RL WG_L15
#else
#error "PV_N must be a multiple of 8 below the block's width"
#endif
#if HEAD_DIM == 64
// D (the first PV_N columns of O's 64) += A(64 x 16, registers) * B(16 x PV_N, shared, N-major).
template <int OFF, int N> DEVI void wgmma_pv_last(float (&d)[N], const u32 (&a)[4], u64 db) {
  static_assert(OFF == 0 && N == 32, "O is one block of 64 columns");
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n" PV_NS "k16.f32." WG_T "." WG_T " {" PV_RL "}, {%32,%33,%34,%35}, %36, p, 1, 1, %38;\n}\n"
               : WG_D32(d)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1), "n"(1));
}
#else
// D (the first PV_N columns of the block of 128 at accumulator OFF) += A(64 x 16, registers) *
// B(16 x PV_N, shared, N-major).
template <int OFF, int N> DEVI void wgmma_pv_last(float (&d)[N], const u32 (&a)[4], u64 db) {
  static_assert(OFF + 64 <= N, "accumulator block out of range");
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n" PV_NS "k16.f32." WG_T "." WG_T " {" PV_RL "}, {%64,%65,%66,%67}, %68, p, 1, 1, %70;\n}\n"
               : WG_D64((d + OFF))
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1), "n"(1));
}
#endif
#endif
// O's last block of columns (at accumulator OFF: d = 64 and 128, 0, O's only block; d = 256, 64,
// its second block of 128) += P V of one 16-key step: the block's full width at a kernel's own
// head dim, the columns that hold data (wgmma_pv_last) at a padded one.
#if DIM != HEAD_DIM
#define PV_LAST(OFF, O, a, db) wgmma_pv_last<OFF>(O, a, db)
#elif HEAD_DIM == 64
#define PV_LAST(OFF, O, a, db) wgmma_n64<1>(O, a, db, 1)
#else
#define PV_LAST(OFF, O, a, db) wgmma_n128<1, OFF>(O, a, db, 1)
#endif

// Waits until this producer thread's cp.async copies have landed and fences them to the async
// proxy (the tensor cores read them); the thread then publishes them on an mbarrier.
DEVI void land_copies() {
  cp_async_commit();
  cp_async_wait<0>();
  fence_async_smem();
}

// Where K or V comes from: contiguous and ragged layouts: row 0 of this (sequence, KV head);
// paged: the page pool (each row's page is looked up in the block table).
struct KvSrc {
  const u16 *g;
  i64 bs, rs, hs;
};

DEVI KvSrc kv_src(const KernelParams &p, const Seq &s, int b, int kh, const u16 *base, i64 bs, i64 rs, i64 hs) {
  KvSrc k;
  k.bs = bs, k.rs = rs, k.hs = hs;
#if PAGED
  k.g = base;
#else
  k.g = base + kv_offset(p, s, b, 0, kh, bs, rs, hs);
#endif
  return k;
}

#if PAGED
// The paged producer is two teams of PTEAM threads (the first half of the producer warps: even
// visits, the second half: odd visits); 64 threads, at d = 256 128 (two producer warpgroups).
// Thread `pt` of a team copies 16-byte chunk pt % CH of rows pt / CH + i * P_RSTEP;
// P_RSTEP is 4 (d = 128 and 256) or 8 (d = 64).
#define PTEAM (64 * NPWG)
#define CB_STEP (PTEAM / 64)  // a team's warps that issue K's (or V's) boxes, one column block in CB_STEP each
#define P_ITERS (VN * CH / PTEAM)
#define P_RSTEP (PTEAM / CH)

// K or V rows v * VN ... (visit v's two plan tiles) into a swizzled buffer, this producer
// thread's share; rows at or past the sequence's end are zero-filled (only the last visit has any).
DEVI void load_kv(const KernelParams &p, const Seq &s, int b, int kh, const KvSrc &k, u32 dst, int j, int pt) {
  const int c = pt % CH, r0 = pt / CH, rem = s.lk - j * VN;
  // Row r0 + i * P_RSTEP lands at KV_DST(i). Its swizzle pattern is row r0 + (i * P_RSTEP) % 8's:
  // at d <= 128 row r0's when i * P_RSTEP is a multiple of 8, row r0 + P_RSTEP's otherwise; at
  // d = 256 one of four rows'.
#if P_RSTEP >= 4
  const u32 d0 = dst + swz128(VN, r0, c), d1 = dst + swz128(VN, r0 + P_RSTEP, c) - P_RSTEP * 128;
#define KV_DST(i) ((((i) * P_RSTEP) % 8 == 0 ? d0 : d1) + (u32)((i) * P_RSTEP * 128))
#else
  u32 dr[8 / P_RSTEP];
  #pragma unroll
  for (int j = 0; j < 8 / P_RSTEP; ++j) dr[j] = dst + swz128(VN, r0 + j * P_RSTEP, c) - j * P_RSTEP * 128;
#define KV_DST(i) (dr[((i) * P_RSTEP) % 8 / P_RSTEP] + (u32)((i) * P_RSTEP * 128))
#endif
#if PRODUCER_REGS == 32
  #pragma unroll 2  // (unrolled fully, ptxas spilled at 32 registers)
#else
  #pragma unroll
#endif
  for (int i = 0; i < P_ITERS; ++i) {
    const int r = r0 + i * P_RSTEP;
    const bool valid = r < rem && dim_chunk(c);
    const u16 *src = valid ? k.g + kv_offset(p, s, b, j * VN + r, kh, k.bs, k.rs, k.hs) + c * 8 : k.g;
    cp_async16(KV_DST(i), src, valid);
  }
#undef KV_DST
}

DEVI void load_q(const KernelParams &p, const Seq &s, int b, int h, u32 dst, int r0, int pt) {
  const int chunk = pt % CH;
  #pragma unroll
  for (int i = 0; i < BM * CH / PTEAM; ++i) {
    const int r = pt / CH + i * P_RSTEP;
    const bool valid = r0 + r < s.lq;
    const u16 *src = p.q + (valid ? q_offset(p, s, b, r0 + r, h, p.q_batch_stride, p.q_row_stride, p.q_head_stride) : 0);
    cp_async16(dst + swz128(BM, r, chunk), src + (dim_chunk(chunk) ? chunk * 8 : 0), valid && dim_chunk(chunk));
  }
}
#endif

#if !PAGED
// The producer warp's cp.async copy of `rows` rows of a tile stored as swz128(rows, ...), row r
// from src + r * rs (rows at or past `valid_rows` zero-filled): the visits and the Q tile that a
// TMA box would read past the sequence (its last ones), or every copy when tma is 0. Not
// unrolled: the producer has 24 registers.
DEVI void warp_copy_rows(u32 dst, const u16 *src, i64 rs, int rows, int valid_rows, int lane) {
  #pragma unroll 1
  for (int i = lane; i < rows * CH; i += 32) {
    const int r = i / CH, c = i % CH;
    const bool valid = r < valid_rows && dim_chunk(c);
    cp_async16(dst + swz128(rows, r, c), valid ? (const void *)(src + (i64)r * rs + c * 8) : (const void *)src, valid);
  }
}
#endif

// Named barriers (0 is __syncthreads): 1 .. NWG, the tensor-core turns of the consumer
// warpgroups (in a ring: 0, 1, (2,) 0, ...); NWG + 1, the consumers' end-of-kernel count.
// NWG + 2 + team: a paged producer team (d = 256).
#define BAR_TURN 1        // + wg: "warpgroup wg may issue its MMAs" (256 threads: 128 sync, 128 arrive)
#define BAR_END (1 + NWG)  // the consumers' counts are summed (NWG x 128 threads)
#define BAR_TEAM (2 + NWG)  // + team: a paged producer team's threads (KV_SPLIT's cp.async copies)
// The consumer warpgroup whose turn follows warpgroup w's (with two, the exact expression of the
// two-warpgroup kernel before session 25, whose SASS is unchanged).
#define NEXT_WG(w) (NWG == 2 ? (w) ^ 1 : ((w) == NWG - 1 ? 0 : (w) + 1))
DEVI void named_sync(int id, int n) { asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory"); }
DEVI void named_arrive(int id, int n) { asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(n) : "memory"); }


#if PAGED
// Issues one visit's TMA boxes of K or V (`map`) from a paged cache: a box of 64 head columns x
// min(page size, 64) rows per page chunk (a chunk never straddles a page), its page read from the
// block table, into the slot at `dst` (tile layout: column block cb at cb x VN x 128 bytes).
//
// Pages under 64 keys at d = 128 (a 128-key visit is up to 8 chunks, 16 boxes per thread): the
// visit's pages are read at once, then the boxes issued (the chunk's page moves down the registers;
// the loop stays rolled), where each box waited for its own read: run 193, 16-key pages dense
// +1-5 %, Skip-Softmax +2-7 %. Elsewhere each box waits for its own read: with the reads at once,
// 64- and 256-key pages at d = 128 were 1-7 % slower, d = 256 1-6 % (runs 191-192), and d = 64
// (32-register producers) spilled.
DEVI void paged_boxes(const KernelParams &p, const TensorMap &map, u32 dst, int v, int kh, u32 bar, int cb0) {
  const int pb = min(1 << p.page_size_log2, BN), pmask = (1 << p.page_size_log2) - 1;
  const int *table = p.block_table + (i64)seq_index(p) * p.block_table_stride;
#if HEAD_DIM == 128 && NWG == 2 && NPWG == 1
  if (p.page_size_log2 < 6) {
    // (One producer warpgroup: cb0 is 0 and the thread issues every column block.)
    const int nc = VN / pb, *tv = table + ((v * VN) >> p.page_size_log2);  // chunk c: page tv[c]
    int page[VN / 16];
    #pragma unroll
    for (int c = 0; c < VN / 16; ++c) page[c] = c < nc ? tv[c] : 0;
    #pragma unroll 1
    for (int c = 0; c < nc; ++c) {
      const int r = c * pb, key = v * VN + r;
      #pragma unroll
      for (int cb = 0; cb < DATA_BOXES; ++cb) tma_load_4d(dst + (u32)(cb * VN * 128 + r * 128), map, cb * 64, kh, key & pmask, page[0], bar);
      #pragma unroll
      for (int i = 0; i + 1 < VN / 16; ++i) page[i] = page[i + 1];
    }
    return;
  }
#endif
  #pragma unroll 1
  for (int r = 0; r < VN; r += pb) {
    const int key = v * VN + r, page = table[key >> p.page_size_log2];
    #pragma unroll
    for (int i = 0; i < HEAD_DIM / 64 / CB_STEP; ++i) {
      const int cb = cb0 + i * CB_STEP;
      if (DATA_BOXES == HEAD_DIM / 64 || cb < DATA_BOXES) tma_load_4d(dst + (u32)(cb * VN * 128 + r * 128), map, cb * 64, kh, key & pmask, page, bar);
    }
  }
}
#endif

extern "C" __global__ void __launch_bounds__(NTHREADS, 1) KERNEL_NAME(const __grid_constant__ KernelParams p) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ __align__(8) u64 bars[(KV_SPLIT ? 4 : 2) * NB + 1];  // see KV_SPLIT
  __shared__ u32 counts[2];                       // the CTA's visited and skipped tiles
  pdl_wait();
  if (threadIdx.x < 2) counts[threadIdx.x] = 0;  // read after __syncthreads
#if SKIP
  // [warpgroup][visit & 1][half]: byte w = warp w kept that half (plan tile) of the visit.
  __shared__ u32 wkeep[NWG][2][NH];
  if (threadIdx.x < NWG * 2 * NH) (&wkeep[0][0][0])[threadIdx.x] = 0;  // read after __syncthreads
#endif
#if SWEEP
  __shared__ u32 scount[4 * NWG][32];  // [consumer warp][candidate]
  for (int i = threadIdx.x; i < 4 * NWG * 32; i += NTHREADS) scount[i / 32][i % 32] = 0;  // read after __syncthreads
#endif
  // The swizzle pattern is a function of the address: tiles start on 1024-byte boundaries.
  const u32 sQ = (smem_u32(smem) + 1023u) & ~1023u;
  const u32 sK = sQ + Q_BYTES;        // NB buffers
  const u32 sV = sK + NB * KV_BYTES;  // NB buffers
  const u32 full0 = smem_u32(bars), qfull = full0 + (KV_SPLIT ? 4 : 2) * NB * 8;

  const int mb = gridDim.x - 1 - blockIdx.x;  // longest (causal) blocks first
  const int h = blockIdx.y;
  // The CTA's sequence through seq_index at each use (common.cuh: the d = 256 paged variants
  // read %ctaid.z again there; held in a register across the kernel, they spilled it).
  const int kh = h / p.group;
  const Seq s = load_seq(p, seq_index(p));
  const int r0 = mb * BM;
  if (r0 >= s.lq) return;
  // The warpgroup index through a shuffle: the compiler then knows it (and the role branch below)
  // is warp-uniform and keeps the loop's bookkeeping in uniform registers (CUTLASS does the same).
  const int wg = __shfl_sync(0xffffffffu, threadIdx.x / 128, 0);
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  // This thread's rows: rbase and rbase + 8 (wgmma accumulator layout, 16 rows per warp).
  const int rbase = r0 + wg * 64 + warp * 16 + lane / 4;

  // The CTA loads and computes the plan's KV tiles visible to any of its BM rows (n_vis), NH
  // per visit (d <= 128: visit t holds tiles 2v and 2v + 1, v = nv - 1 - t; when n_vis is odd,
  // the first visit's upper tile is masked for every row; d = 256: visit t holds tile v). Each warp's 16 rows are one row tile of the
  // plan, which visits those of its own rows (nvw <= n_vis; the others are fully masked for it).
#if HEAD_DIM <= 128
  const int n_vis = visible_tiles(p, s, r0, BM, BN);
  const int nv = (n_vis + NH - 1) / NH;
  const int nvw = visible_tiles(p, s, rbase - lane / 4, 16, BN);
#else
  const auto visits = [&] { return (visible_tiles(p, s, r0, BM, BN) + NH - 1) / NH; };
  const auto warp_tiles = [&] { return visible_tiles(p, s, rbase - lane / 4, 16, BN); };
#endif

  if (threadIdx.x == 0) {
    for (int i = 0; i < (KV_SPLIT ? 2 : 1) * NB; ++i) {  // (K's and V's with KV_SPLIT)
      const u32 b = full0 + 8 * (i % NB) + (i / NB) * VBAR_OFF;
      mbar_init(b, FULL_ARRIVALS);
      mbar_init(b + EMPTY_OFF, 4 * NWG);  // one per consumer warp when the slot is free again
    }
    mbar_init(qfull, Q_ARRIVALS);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();  // the mbarriers (and the sweep counters) are initialised

  if (wg >= NWG) {
    // The producer: Q, then K and V of visit t (keys (nv - 1 - t) * VN ...) into slot t % NB
    // once the consumers released the slot's previous visit (t - NB). Two teams take turns by
    // visit; a team waits for its own copies, fences them to the async proxy (the tensor cores
    // read them) and publishes the visit on the slot's full barrier, so a visit is published
    // as soon as it has landed, not after the next visit's slot was freed and its copies issued
    // (with one team, the skipped visits waited ~100-300 cycles per visit for that). Q travels
    // with visit 0 (team 0).
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(PRODUCER_REGS));
#if HEAD_DIM > 128
    const int nv = visits();  // after the split (see the consumers')
#endif
#if !PAGED
    // Non-paged layouts: one warp issues TMA copies (lane 0; the other lanes arrive), one box of
    // 64 head columns x 64 keys (K, V) or BM rows (Q) each; a visit or Q tile that would read
    // past its sequence (the last ones of a sequence whose length is not a multiple of 128,
    // where a box would read the next sequence's rows or, with seqused_kv, unwritten cache
    // rows, whose V would reach P V as 0 x NaN) is copied by the warp with cp.async instead,
    // zero-filled. Also the whole call when the host could not encode the maps (tma = 0).
    if (threadIdx.x >= NWG * 128 + 32 || nv == 0) return;
    const int lane = threadIdx.x % 32;
    if (p.tma && r0 + BM <= s.lq) {
      if (lane == 0) {
        mbar_expect_tx(qfull, DATA_BOXES * BM * 128);
        #pragma unroll
        for (int cb = 0; cb < DATA_BOXES; ++cb)
          tma_load_4d(sQ + (u32)(cb * BM * 128), p.tmap_q, cb * 64, h, (p.cu_q ? s.q_start : 0) + r0, p.cu_q ? 0 : seq_index(p), qfull);
      } else {
        mbar_arrive(qfull);
      }
    } else {
      warp_copy_rows(sQ, p.q + q_offset(p, s, seq_index(p), r0, h, p.q_batch_stride, p.q_row_stride, p.q_head_stride), p.q_row_stride, BM, s.lq - r0, lane);
      land_copies();
      mbar_arrive(qfull);
    }
    const KvSrc ksrc = kv_src(p, s, seq_index(p), kh, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride);
    const KvSrc vsrc = kv_src(p, s, seq_index(p), kh, p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride);
    const int row_base = p.cu_kv ? s.kv_start : 0, kb = p.cu_kv ? 0 : seq_index(p);
    for (int t = 0; t < nv; ++t) {
      const int slot = t % NB, v = nv - 1 - t;
      const u32 bar = full0 + 8 * slot, kd = sK + (u32)slot * KV_BYTES, vd = sV + (u32)slot * KV_BYTES;
      const u32 par = (u32)(t / NB - 1) & 1u;
#if KV_SPLIT
      // K's copy once K's slot is free, then V's once V's is (see KV_SPLIT); a visit copied with
      // cp.async waits for both and publishes both.
      if (p.tma && s.lk - v * VN >= VN) {
        #pragma unroll
        for (int kv = 0; kv < 2; ++kv) {
          const u32 b = bar + (u32)(kv * VBAR_OFF);
          if (t >= NB) mbar_wait(b + EMPTY_OFF, par);
          if (lane == 0) {
            mbar_expect_tx(b, KV_DATA_BYTES);
            #pragma unroll
            for (int hf = 0; hf < NH; ++hf)
              #pragma unroll
              for (int cb = 0; cb < DATA_BOXES; ++cb)
                tma_load_4d((kv ? vd : kd) + (u32)(cb * VN * 128 + hf * BN * 128), kv ? p.tmap_v : p.tmap_k, cb * 64, kh,
                            row_base + v * VN + hf * BN, kb, b);
          } else {
            mbar_arrive(b);
          }
        }
      } else {
        if (t >= NB) {
          mbar_wait(bar + EMPTY_OFF, par);
          mbar_wait(bar + VBAR_OFF + EMPTY_OFF, par);
        }
        warp_copy_rows(kd, ksrc.g + (i64)v * VN * ksrc.rs, ksrc.rs, VN, s.lk - v * VN, lane);
        warp_copy_rows(vd, vsrc.g + (i64)v * VN * vsrc.rs, vsrc.rs, VN, s.lk - v * VN, lane);
        land_copies();
        mbar_arrive(bar);
        mbar_arrive(bar + VBAR_OFF);
      }
#else
      if (t >= NB) mbar_wait(bar + EMPTY_OFF, par);
      if (p.tma && s.lk - v * VN >= VN) {
        if (lane == 0) {
          mbar_expect_tx(bar, 2 * KV_DATA_BYTES);
          #pragma unroll
          for (int hf = 0; hf < NH; ++hf)
            #pragma unroll
            for (int cb = 0; cb < DATA_BOXES; ++cb) {
              const u32 off = (u32)(cb * VN * 128 + hf * BN * 128);
              const int row = row_base + v * VN + hf * BN;
              tma_load_4d(kd + off, p.tmap_k, cb * 64, kh, row, kb, bar);
              tma_load_4d(vd + off, p.tmap_v, cb * 64, kh, row, kb, bar);
            }
        } else {
          mbar_arrive(bar);
        }
      } else {
        warp_copy_rows(kd, ksrc.g + (i64)v * VN * ksrc.rs, ksrc.rs, VN, s.lk - v * VN, lane);
        warp_copy_rows(vd, vsrc.g + (i64)v * VN * vsrc.rs, vsrc.rs, VN, s.lk - v * VN, lane);
        land_copies();
        mbar_arrive(bar);
      }
#endif
    }
    return;
#else
    const int team = (threadIdx.x - NWG * 128) / PTEAM, pt = threadIdx.x % PTEAM;
    if (nv > 0) {
#if !KV_SPLIT
      // K's and V's sources, held across the loop (the d = 256 kernel's two producer warpgroups,
      // 32 registers, make them where the cp.async copies need them: held, they spilled).
      const KvSrc ksrc = kv_src(p, s, seq_index(p), kh, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride);
      const KvSrc vsrc = kv_src(p, s, seq_index(p), kh, p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride);
#endif
      if (team == 0) load_q(p, s, seq_index(p), h, sQ, r0, pt);  // lands with visit 0's copies
      for (int t = team; t < nv; t += 2) {
        const int slot = t % NB, v = nv - 1 - t;
        const u32 bar = full0 + 8 * slot, par = (u32)(t / NB - 1) & 1u;
#if KV_SPLIT
        // Warp w of the team copies K (w even) or V (w odd), and waits for and publishes that
        // one's barriers only (see KV_SPLIT); the cp.async copies of a partial visit wait for both.
        // (At d = 128, OVERLAP_SPLIT: teams of two warps, warp 0 K's, warp 1 V's.)
        static_assert(NPWG == 2 || HEAD_DIM <= 128, "KV_SPLIT at d = 256: paged copies by teams of four warps");
        const u32 kvb = bar + (pt & 32 ? (u32)VBAR_OFF : 0u);
        if (p.tma && s.lk - v * VN >= VN) {
          if (t >= NB) mbar_wait(kvb + EMPTY_OFF, par);
          // Thread 0 (K) and 32 (V) arrive with their tensor's bytes, the warps' other threads
          // without; warps 0 and 2 issue K's boxes of column blocks 0 and 2, 1 and 3, warps 1
          // and 3 V's.
          if (pt == 0 || pt == 32) mbar_expect_tx(kvb, KV_DATA_BYTES);
          if (pt % 32 == 0) {
            if (pt & 32)
              paged_boxes(p, p.tmap_v, sV + (u32)slot * KV_BYTES, v, kh, kvb, pt >> 6);
            else
              paged_boxes(p, p.tmap_k, sK + (u32)slot * KV_BYTES, v, kh, kvb, pt >> 6);
          }
          if (t == 0) {
            land_copies();  // Q's cp.async copies
            mbar_arrive(qfull);
          }
          if (pt != 0 && pt != 32) mbar_arrive(kvb);
        } else {
          if (t >= NB) {
            mbar_wait(bar + EMPTY_OFF, par);
            mbar_wait(bar + VBAR_OFF + EMPTY_OFF, par);
          }
          // (K's source made, used and dropped before V's: both held, one spilled at 32 registers.)
          load_kv(p, s, seq_index(p), kh, kv_src(p, s, seq_index(p), kh, p.k, p.k_batch_stride, p.k_row_stride, p.k_head_stride),
                  sK + (u32)slot * KV_BYTES, v, pt);
          load_kv(p, s, seq_index(p), kh, kv_src(p, s, seq_index(p), kh, p.v, p.v_batch_stride, p.v_row_stride, p.v_head_stride),
                  sV + (u32)slot * KV_BYTES, v, pt);
          land_copies();
          if (t == 0) mbar_arrive(qfull);
          // Every thread of the team copied rows of both: all have landed before K's warps
          // publish K and V's warps V.
          // (The team from the thread index here: held across the loop, its barrier spilled.)
          named_sync(BAR_TEAM + (threadIdx.x >= NWG * 128 + PTEAM ? 1 : 0), PTEAM);
          mbar_arrive(kvb);
        }
#else
        if (t >= NB) mbar_wait(bar + EMPTY_OFF, par);
        if (p.tma && s.lk - v * VN >= VN) {
          // TMA (the host encoded maps over the page pool): a box of 64 head columns x PB rows
          // per page chunk of the visit (PB = min(page size, 64): a chunk never straddles a
          // page), its page looked up in the block table. Thread 0 of the team issues K's boxes
          // and thread 32 (the team's second warp) V's, each reading the table itself (against
          // one thread issuing both, run 177: at d = 128 with 16-key pages, whose visits take 32
          // boxes, dense +9-17 % and skipping +10-22 %; at d = 64 with 16-key pages skipping
          // +4-12 %; with 64-key pages within -1..+3 %). Thread 0 arrives on the slot's full
          // barrier with the visit's bytes, K's and V's, and the team's other 63 threads arrive
          // (V's bytes may land first: the transaction count may go below zero within a phase,
          // which cannot complete before thread 0's arrival). (A visit that reaches past the
          // sequence's end takes the cp.async copies below, zero-filled: a box would read the
          // page's unwritten rows.)
          // (One producer warpgroup: the d = 256 kernel's two take the KV_SPLIT copies above.)
          if (pt == 0) {
            mbar_expect_tx(bar, 2 * KV_DATA_BYTES);
            paged_boxes(p, p.tmap_k, sK + (u32)slot * KV_BYTES, v, kh, bar, 0);
          } else if (pt == 32) {
            paged_boxes(p, p.tmap_v, sV + (u32)slot * KV_BYTES, v, kh, bar, 0);
          }
          if (t == 0) {
            land_copies();  // Q's cp.async copies
            mbar_arrive(qfull);
          }
          if (pt != 0) mbar_arrive(bar);
        } else {
          load_kv(p, s, seq_index(p), kh, ksrc, sK + (u32)slot * KV_BYTES, v, pt);
          load_kv(p, s, seq_index(p), kh, vsrc, sV + (u32)slot * KV_BYTES, v, pt);
          land_copies();
          if (t == 0) mbar_arrive(qfull);
          mbar_arrive(bar);
        }
#endif
      }
    }
    return;
#endif
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMER_REGS));
#if HEAD_DIM > 128
  // Computed after the register split: kept across it, ptxas spilled one at d = 256 (paged).
  const int nv = visits(), nvw = warp_tiles();
#endif

  float O[HEAD_DIM / 2];
  #pragma unroll
  for (int i = 0; i < HEAD_DIM / 2; ++i) O[i] = 0.f;
  float m[2] = {NEG_INF, NEG_INF}, l[2] = {0.f, 0.f};
  // Masking. A visit needs masks iff some of its rows are padding or k0 > kfull (keys past the
  // sequence's end or past the causal limit of the CTA's first row). Row `row` sees keys up to
  // last_key(row) (-1: a padding row); this thread's entry (nt, e) of a visit is key
  // k0 + nt * 8 + e + 2 (lane % 4).
  const auto last_key = [&](int row) { return row < s.lq ? (p.causal ? min(row + s.lk - s.lq, s.lk - 1) : s.lk - 1) : -1; };
#if HEAD_DIM <= 128
  // Set up once (the per-visit form cost ~15 instructions between the S wait and the row
  // maxima); at d = 256 the paged kernels spilled these registers, so it keeps the per-visit form.
  const bool rows_partial = r0 + BM > s.lq;
  const int kfull = p.causal ? min(s.lk - VN, r0 + s.lk - s.lq - VN + 1) : s.lk - VN;
  const int vis[2] = {last_key(rbase) - 2 * (lane % 4), last_key(rbase + 8) - 2 * (lane % 4)};
#endif
  u32 skipped = 0;

  // Descriptors advance by adding (byte offset >> 4) to the start-address field (all shared
  // addresses are below 256 KB, so the 14-bit field never carries).
  const u64 dq = smem_desc(sQ + (u32)wg * 64 * 128, 16, 1024);
  // S = Q K^T of the visit in `slot` (64 rows x VN keys).
  auto issue_s = [&](float(&acc)[VN / 2], u32 k_slot) {
    const u64 dk = smem_desc(k_slot, 16, 1024);
    #pragma unroll
    for (int ks = 0; ks < DIM16; ++ks) {  // (padded head dims: the steps that hold data)
      const u64 da = dq + (u64)(((ks / 4) * (BM * 128) + (ks % 4) * 32) >> 4);
      const u64 db = dk + (u64)(((ks / 4) * (VN * 128) + (ks % 4) * 32) >> 4);
#if VN == 128
      wgmma_ss_n128(acc, da, db, ks);
#else
      wgmma_ss_n64(acc, da, db, ks);
#endif
    }
  };
  // O += P V of the visit in `slot`, the keys of its lower plan tile if `lo`, of its upper one
  // if `hi` (both warp-uniform). B is V read N-major; blocks of 64 head columns are VN * 128
  // bytes apart.
  auto issue_pv = [&](const u32(&pf)[VN / 16][4], u32 v_slot, bool lo, bool hi) {
    const u64 dv = smem_desc(v_slot, VN * 128, 1024);
    #pragma unroll
    for (int kk = 0; kk < VN / 16; ++kk) {
      if (kk < BN / 16 ? lo : hi) {
#if HEAD_DIM == 256
        // O is two blocks of 128 head columns; the second one's V starts 2 x 64 columns later.
        wgmma_n128<1>(O, pf[kk], dv + (u64)((kk * 16 * 128) >> 4), 1);
        PV_LAST(64, O, pf[kk], dv + (u64)((2 * VN * 128 + kk * 16 * 128) >> 4));
#else
        PV_LAST(0, O, pf[kk], dv + (u64)((kk * 16 * 128) >> 4));
#endif
      }
    }
  };

  // Ring slots of visits t and t - 1, and the phase of visit t's full barrier, carried from
  // visit to visit.
  // The slots' addresses are carried too (K of visits t and t - 1, the full barriers of both;
  // V is NB * KV_BYTES past K, an empty barrier NB * 8 past its full one), advanced by adding:
  // computed from the shared-memory base in the loop, ptxas rebuilt that base there every
  // visit (S2UR SR_CgaCtaId and two ULEA before the copies' wait).
  int cur = 0;
  u32 k_cur = sK, k_prv = sK + (NB - 1) * KV_BYTES, b_cur = full0, b_prv = full0 + 8 * (NB - 1);
  u32 ph = 0;
#if KV_SPLIT
  // Visit t - 1's phase, for V's barrier: ph, or the other one where visit t's slot is the
  // ring's first, t - 1's its last (derived, not carried: one register fewer).
  const auto ph_prv = [&] { return cur == 0 ? ph ^ 1u : ph; };
#endif
  float S[VN / 2];
  u32 Pc[VN / 16][4];  // P of the last visit; its P V is issued in the next visit's turn
  #pragma unroll
  for (int kk = 0; kk < VN / 16; ++kk) Pc[kk][0] = Pc[kk][1] = Pc[kk][2] = Pc[kk][3] = 0u;

#if SKIP
  // Whether any warp of this warpgroup kept half `hf` of visit u (each wrote its votes before
  // the turn barrier that precedes this read); a vote of all lanes so ptxas sees a warp-uniform
  // condition for the P V it guards.
  // The votes' shared addresses, wkeep[wg][t & 1] and wkeep[wg][(t - 1) & 1], are carried and
  // swapped each visit like the slots (derived from the shared base in the loop, ptxas rebuilt
  // that base every visit at d = 256).
  u32 wk_cur = smem_u32(&wkeep[wg][0][0]), wk_prv = wk_cur + NH * 4;
  auto kept = [&](bool valid, u32 wk, int hf) {
    u32 w;
    asm volatile("ld.volatile.shared.u32 %0, [%1];\n" : "=r"(w) : "r"(wk + 4u * hf));
    return __all_sync(0xffffffffu, valid && w != 0u);
  };
  auto vote = [&](int hf, bool skip) {
    asm volatile("st.volatile.shared.u8 [%0], %1;\n" ::"r"(wk_cur + 4u * hf + warp), "r"(skip ? 0u : 1u));
  };
#endif
  if (nv > 0) {
    mbar_wait(qfull, 0);                                // Q has landed
    if (wg == NWG - 1) named_arrive(BAR_TURN + 0, 2 * 128);  // warpgroup 0 takes the first turn
  }
  // Visit t. The warpgroups take turns on the tensor cores (FA3's ping-pong): in its turn a
  // warpgroup issues S_t = Q K_t^T and the P V of visit t - 1 (the halves some warp kept),
  // hands the turn over and waits for both, so the other warpgroup's MMAs run during this
  // one's softmax. Then, on S_t: mask, row maxima per plan tile (half), votes (SKIP: a warp
  // vote per half, upper tile first: the plan's order) | softmax of the kept halves into Pc |
  // rescale O. Nothing is in flight between visits (ptxas serialises a wgmma pipeline that
  // crosses the loop's back edge, C7515), and one P buffer does: P V_{t-1} is retired before
  // the softmax writes P_t.
  for (int t = 0; t < nv; ++t) {
    const int v = nv - 1 - t, k0 = v * VN;
    mbar_wait(b_cur, ph);  // copies of visit t (KV_SPLIT: its K)
#if KV_SPLIT
    if (t > 0) mbar_wait(b_prv + VBAR_OFF, ph_prv());  // V of visit t - 1
#if PV_OVERLAP && !SKIP
    else mbar_wait(b_cur + VBAR_OFF, ph);  // V of visit 0: the dense P V at t = 0 reads it (P zero)
#endif
#endif
    named_sync(BAR_TURN + wg, 2 * 128);
    // S_t first, so its issue does not wait for the decisions' shared-memory read; then the P V
    // of visit t - 1, per half, if any warp of this warpgroup kept it; one commit group. (P V
    // first measured ~1 % slower, dense and sparse: bench/runs/session8/ab2-s-first.log.)
    wg_fence();
    issue_s(S, k_cur);
#if PV_OVERLAP
    // S_t alone in its commit group, then P V_{t-1} in its own, so the row maxima and
    // exponentials of S_t run while P V_{t-1} does; the softmax waits for it before it rescales
    // O and writes Pc (retire_pv). Every P V chain is unconditional: a wgmma under a condition
    // makes ptxas close its group with a dummy wgmma, which the wait for S_t then waits behind
    // (run 143). Dense: at t = 0 P is zero and V is visit 0's (landed; rows and columns past the
    // data zero-filled): exact zeros, the output the tree's bit for bit (but where the caller's V
    // holds Inf or NaN in that visit, which makes the output non-finite either way).
    // Skip: one chain per case of kept halves, each with its commit.
    wg_commit();
#if SKIP
    {
      const bool pv_lo = kept(t > 0, wk_prv, 0), pv_hi = kept(t > 0, wk_prv, 1);
      const u32 vs = k_prv + NB * KV_BYTES;
      if (pv_lo && pv_hi) {
        issue_pv(Pc, vs, true, true);
        wg_commit();
      } else if (pv_lo) {
        issue_pv(Pc, vs, true, false);
        wg_commit();
      } else if (pv_hi) {
        issue_pv(Pc, vs, false, true);
        wg_commit();
      } else {
        wg_commit();
      }
    }
#else
    issue_pv(Pc, (t == 0 ? k_cur : k_prv) + NB * KV_BYTES, true, true);
    wg_commit();
#endif
    named_arrive(BAR_TURN + NEXT_WG(wg), 2 * 128);
    wg_wait<1>();
    reg_fence(S);
#else
#if SKIP
    const bool pv_lo = kept(t > 0, wk_prv, 0), pv_hi = NH == 2 && kept(t > 0, wk_prv, NH - 1);
#else
    const bool pv_lo = __all_sync(0xffffffffu, t > 0), pv_hi = pv_lo;
#endif
    issue_pv(Pc, k_prv + NB * KV_BYTES, pv_lo, pv_hi);
    wg_commit();
    named_arrive(BAR_TURN + NEXT_WG(wg), 2 * 128);
    wg_wait<0>();  // unconditional: ptxas then knows S, O and Pc are free on every path
    reg_fence(S);
    reg_fence(O);
#endif
#if PV_OVERLAP
    // (visit t - 1's slot is released once its P V is done: retire_pv; OVERLAP_SPLIT: its V
    // there, and K of visit t here, S_t being done)
#if KV_SPLIT
    if (lane == 0) mbar_arrive(b_cur + EMPTY_OFF);
#endif
#elif KV_SPLIT
    // K of visit t is done (S_t), and V of visit t - 1 (its P V).
    if (lane == 0) {
      mbar_arrive(b_cur + EMPTY_OFF);
      if (t > 0) mbar_arrive(b_prv + VBAR_OFF + EMPTY_OFF);
    }
#else
    // Visit t - 1 is done with its slot (its P V now).
    if (t > 0 && lane == 0) mbar_arrive(b_prv + EMPTY_OFF);
#endif

    // Keys past the sequence, past the causal limit, and padding rows are masked: left out of
    // the row maxima, probability zero. The scores are never written outside the tensor cores
    // (ptxas serialises the wgmma pipeline when other code writes accumulator registers, C7514/
    // C7515), so P is a separate array.
    // Masked visits only: entry (nt, e) is visible iff nt * 8 + e <= kl.
#if HEAD_DIM <= 128
    const bool need_mask = rows_partial || k0 > kfull;
    const int kl[2] = {vis[0] - k0, vis[1] - k0};
#else
    const bool need_mask = k0 + VN > s.lk || r0 + BM > s.lq || (p.causal && k0 + VN - 1 > r0 + s.lk - s.lq);
    int kl[2] = {VN, VN};
    if (need_mask) {
      #pragma unroll
      for (int hh = 0; hh < 2; ++hh) kl[hh] = last_key(rbase + hh * 8) - k0 - 2 * (lane % 4);
    }
#endif
    // Row maxima per half: mx[0] keys k0 .. k0 + 63 (plan tile 2v), mx[1] the next 64 (2v + 1).
    // The four (half, row) reductions are independent: one branch for all of them and the quad
    // shuffles interleaved, so their latencies overlap (a skipped visit's critical path).
    float mx[NH][2];
    const auto float_maxima = [&] {
      #pragma unroll
      for (int hf = 0; hf < NH; ++hf)
        #pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
          // A tree (depth 4), not a chain of 16.
          float a[8];
          #pragma unroll
          for (int i = 0; i < 8; ++i) a[i] = fmaxf(S[(hf * 8 + i) * 4 + hh * 2], S[(hf * 8 + i) * 4 + hh * 2 + 1]);
          #pragma unroll
          for (int w = 4; w >= 1; w /= 2)
            #pragma unroll
            for (int i = 0; i < w; ++i) a[i] = fmaxf(a[i], a[i + w]);
          mx[hf][hh] = a[0];
        }
    };
    // The row maxima of the quad's four lanes (the row's 64 keys of each half), on every lane.
    const auto quad_maxima = [&] {
      #pragma unroll
      for (int d = 1; d <= 2; d *= 2)
        #pragma unroll
        for (int i = 0; i < 2 * NH; ++i) mx[i / 2][i % 2] = fmaxf(mx[i / 2][i % 2], __shfl_xor_sync(0xffffffffu, mx[i / 2][i % 2], d));
    };
    if (need_mask) {
      #pragma unroll
      for (int hf = 0; hf < NH; ++hf)
        #pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
          float x = NEG_INF;
          #pragma unroll
          for (int nt = hf * 8; nt < hf * 8 + 8; ++nt)
            #pragma unroll
            for (int e = 0; e < 2; ++e)
              if (nt * 8 + e <= kl[hh]) x = fmaxf(x, S[nt * 4 + hh * 2 + e]);
          mx[hf][hh] = x;
        }
#if LATE_CHECK
      quad_maxima();  // (each branch shuffles its own: see LATE_CHECK below)
#endif
    } else {
#if INT_MAXIMA
      // The lane's maxima as signed integers, three at a time (VIMNMX3, one instruction on
      // sm_90: 8 per row and half instead of 15 FMNMX, depth 3). Between floats that are not
      // negative and not NaN (sign bit clear, bits at most +Inf's) the integer order is the float
      // order, and any such value is above every float with its sign bit set; so where a lane's
      // integer maximum is a float above zero (bits 1 .. +Inf's) it is that lane's fmaxf maximum
      // bit for bit (-0, +0 and a negative NaN, which fmaxf passes over, lose to it). Where some
      // lane's is not (all of its 16 scores negative or zero, or a positive NaN among them: bits
      // minus one, as unsigned, at or above +Inf's) the warp takes the float tree instead, so the
      // maxima, and every decision and output, are the float tree's in all cases (a zero maximum
      // keeps whatever sign fmaxf gives it).
      u32 worst = 0u;
      #pragma unroll
      for (int hf = 0; hf < NH; ++hf)
        #pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
          int e[16];
          #pragma unroll
          for (int i = 0; i < 16; ++i) e[i] = __float_as_int(S[(hf * 8 + i / 2) * 4 + hh * 2 + i % 2]);
          const int u0 = __vimax3_s32(__vimax3_s32(e[0], e[1], e[2]), __vimax3_s32(e[3], e[4], e[5]), __vimax3_s32(e[6], e[7], e[8]));
          const int u1 = __vimax3_s32(__vimax3_s32(e[9], e[10], e[11]), __vimax3_s32(e[12], e[13], e[14]), e[15]);
          const int x = max(u0, u1);
          worst = max(worst, (u32)x - 1u);
          mx[hf][hh] = __int_as_float(x);
        }
#if LATE_CHECK
      // The check voted on after the quad shuffles, which then do not wait for it (see
      // LATE_CHECK; the rare warp that fails it takes the float tree and shuffles again). The
      // vote is PTX of its own that names a shuffled maximum as an operand it does not use, so it
      // follows the shuffles (written with __any_sync, the vote was placed before them).
      quad_maxima();
      u32 redo;
      asm volatile("{\n.reg .pred p;\nsetp.ge.u32 p, %1, 0x7f800000;\nvote.sync.any.pred p, p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}\n"
                   : "=r"(redo)
                   : "r"(worst), "f"(mx[0][0]));
      if (redo) {
        float_maxima();
        quad_maxima();
      }
#else
      if (__any_sync(0xffffffffu, worst >= 0x7f800000u)) float_maxima();
#endif
#else
      float_maxima();
#endif
    }
#if !LATE_CHECK
    quad_maxima();
#endif
#if SKIP
    // Each half is one plan tile of the warp's 16 rows, decided by a warp vote, the upper tile
    // first (the plan visits tiles last to first), the lower one against the running maxima
    // that include the upper tile if it was kept. Tiles past the warp's own (>= nvw) are fully
    // masked: skipped, not counted. The warpgroup's P V of a half runs if any warp kept it: each
    // warp leaves its decisions in wkeep, read after the next turn barrier.
    //
    // With lambda <= 1 (log2_lambda <= 0, every practical threshold) a half that is skipped lies
    // below the running maxima, so max(m, its maxima) = m: the lower half's reference is
    // max(m, upper maxima) and the visit's new maxima are max(m, both maxima) whatever the
    // votes. Both votes and the new maxima then run side by side instead of in a chain that
    // holds up the exponentials of a kept visit; the decisions are exactly those of the chained
    // form, which lambda > 1 keeps. (+3-5 % with nothing skipped, +0-3 % when skipping:
    // bench/runs/session8/ab4-parallel-votes.log; session 6 had tried parallel votes alone, with
    // the maxima still computed after the votes, and measured no change.)
    bool skip_hi, skip_lo;
    float mn[2];  // the visit's new running maxima (kept halves only)
#if NH == 1
    // d = 256: one plan tile per visit ("lo"); the same parallel form for lambda <= 1.
    skip_hi = true;
    skip_lo = __all_sync(0xffffffffu, rows_vote_skip(mx[0][0], m[0], mx[0][1], m[1], p));
    #pragma unroll
    for (int hh = 0; hh < 2; ++hh) mn[hh] = p.log2_lambda <= 0.f || !skip_lo ? fmaxf(m[hh], mx[0][hh]) : m[hh];
    if (skip_lo && v < nvw) ++skipped;
#else
    if (p.log2_lambda <= 0.f) {
      const float m10 = fmaxf(m[0], mx[1][0]), m11 = fmaxf(m[1], mx[1][1]);
      skip_hi = __all_sync(0xffffffffu, rows_vote_skip(mx[1][0], m[0], mx[1][1], m[1], p));
      skip_lo = __all_sync(0xffffffffu, rows_vote_skip(mx[0][0], m10, mx[0][1], m11, p));
      mn[0] = fmaxf(m10, mx[0][0]);
      mn[1] = fmaxf(m11, mx[0][1]);
    } else {
      skip_hi = __all_sync(0xffffffffu, rows_vote_skip(mx[1][0], m[0], mx[1][1], m[1], p));
      const float m10 = skip_hi ? m[0] : fmaxf(m[0], mx[1][0]), m11 = skip_hi ? m[1] : fmaxf(m[1], mx[1][1]);
      skip_lo = __all_sync(0xffffffffu, rows_vote_skip(mx[0][0], m10, mx[0][1], m11, p));
      mn[0] = skip_lo ? m10 : fmaxf(m10, mx[0][0]);
      mn[1] = skip_lo ? m11 : fmaxf(m11, mx[0][1]);
    }
    if (skip_hi && 2 * v + 1 < nvw) ++skipped;
    if (skip_lo && 2 * v < nvw) ++skipped;
#endif
#else
#if SWEEP
#if NH == 1
    {
      const u32 mlo = warp_sweep_mask(p, mx[0][0], m[0], mx[0][1], m[1]);
      if (lane == 0 && v < nvw) sweep_count(scount[wg * 4 + warp], mlo);
    }
#else
    {
      const u32 mhi = warp_sweep_mask(p, mx[1][0], m[0], mx[1][1], m[1]);
      const u32 mlo = warp_sweep_mask(p, mx[0][0], fmaxf(m[0], mx[1][0]), mx[0][1], fmaxf(m[1], mx[1][1]));
      if (lane == 0 && 2 * v + 1 < nvw) sweep_count(scount[wg * 4 + warp], mhi);
      if (lane == 0 && 2 * v < nvw) sweep_count(scount[wg * 4 + warp], mlo);
    }
#endif
#endif
    float mn[2];
    #pragma unroll
    for (int hh = 0; hh < 2; ++hh) mn[hh] = NH == 1 ? fmaxf(m[hh], mx[0][hh]) : fmaxf(fmaxf(m[hh], mx[NH - 1][hh]), mx[0][hh]);
#endif
    // Online softmax (exp2 domain) over the kept halves (warp-uniform flags) into Pc; a skipped
    // half's P is zero (another warp of the warpgroup may keep it: its P V then adds nothing for
    // these rows); rescales O.
#if PV_OVERLAP
    // P V_{t-1} done: Pc and O free, visit t - 1's slot released (OVERLAP_SPLIT: its V's half).
    auto retire_pv = [&] {
      wg_wait<0>();
      reg_fence(O);
      if (t > 0 && lane == 0) mbar_arrive(b_prv + (KV_SPLIT ? VBAR_OFF : 0) + EMPTY_OFF);
    };
#endif
    auto softmax = [&](bool keep_lo, bool keep_hi, bool masked) {
      float P[VN / 2], ms[2], rs[2] = {0.f, 0.f}, al[2];
      #pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        ms[hh] = mn[hh] == NEG_INF ? 0.f : mn[hh] * p.scale_log2;
        al[hh] = fast_exp2(m[hh] * p.scale_log2 - ms[hh]);
      }
      // One branch per half (warp-uniform), both rows inside: 32 independent exponentials.
      #pragma unroll
      for (int hf = 0; hf < NH; ++hf) {
        const bool keep = hf ? keep_hi : keep_lo;
        if (!keep) {
          #pragma unroll
          for (int i = hf * 32; i < hf * 32 + 32; ++i) P[i] = 0.f;
        } else if (masked) {
          #pragma unroll
          for (int nt = hf * 8; nt < hf * 8 + 8; ++nt)
            #pragma unroll
            for (int hh = 0; hh < 2; ++hh)
              #pragma unroll
              for (int e = 0; e < 2; ++e) {
                const float x = nt * 8 + e <= kl[hh] ? fast_exp2(S[nt * 4 + hh * 2 + e] * p.scale_log2 - ms[hh]) : 0.f;
                P[nt * 4 + hh * 2 + e] = x;
                rs[hh] += x;
              }
        } else {
          #pragma unroll
          for (int nt = hf * 8; nt < hf * 8 + 8; ++nt)
            #pragma unroll
            for (int hh = 0; hh < 2; ++hh) {
              P[nt * 4 + hh * 2] = fast_exp2(S[nt * 4 + hh * 2] * p.scale_log2 - ms[hh]);
              P[nt * 4 + hh * 2 + 1] = fast_exp2(S[nt * 4 + hh * 2 + 1] * p.scale_log2 - ms[hh]);
              rs[hh] += P[nt * 4 + hh * 2] + P[nt * 4 + hh * 2 + 1];
            }
        }
      }
      #pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        l[hh] = l[hh] * al[hh] + rs[hh];
        m[hh] = mn[hh];
      }
#if PV_OVERLAP && !SKIP
      retire_pv();
#endif
      #pragma unroll
      for (int kk = 0; kk < VN / 16; ++kk) {
        Pc[kk][0] = pack2(P[kk * 8 + 0], P[kk * 8 + 1]);
        Pc[kk][1] = pack2(P[kk * 8 + 2], P[kk * 8 + 3]);
        Pc[kk][2] = pack2(P[kk * 8 + 4], P[kk * 8 + 5]);
        Pc[kk][3] = pack2(P[kk * 8 + 6], P[kk * 8 + 7]);
      }
      // Rescale O only when some row's maximum moved (al == 1 exactly otherwise); P V_{t-1} is
      // retired, P V_t not issued yet. (A visit that skips both halves moves no maximum.)
      if (__any_sync(0xffffffffu, al[0] != 1.f || al[1] != 1.f)) {
        #pragma unroll
        for (int dt = 0; dt < DIM / 8; ++dt) {  // (padded head dims: the columns that hold data)
          O[dt * 4 + 0] *= al[0], O[dt * 4 + 1] *= al[0];
          O[dt * 4 + 2] *= al[1], O[dt * 4 + 3] *= al[1];
        }
      }
    };
#if SKIP
    // One copy of the softmax per kind of visit, each compiled for constant flags: all skipped
    // first (the common case when skipping pays), masked (rare: the sequence's end, the causal
    // diagonal; flags as variables), both halves kept (the dense kernel's code: every visit when
    // nothing is skipped), one half kept. With the flags as variables in one copy (run 27) the
    // kept visits cost ~240-400 cycles more than the dense kernel's (bench/micro/
    // profile_visits.py); these copies made the skip kernel 2-6 % faster at every sparsity,
    // nothing skipped included (bench/ab_prefill.py, bench/runs/session7/ab2-fast3-fast4.log).
#if PV_OVERLAP
    // P V_{t-1} retired before the branches, at one instruction for every warp of the
    // warpgroup: wgmma.wait_group is .aligned (every thread of the warpgroup must execute the same
    // one), and the warps of a warpgroup take different branches (each decides its own halves).
    // Until session 66 each branch retired it (in the softmax, after the exponentials, as the
    // dense kernel does), which compute-sanitizer's synccheck reports as mismatched wgmma
    // instruction PCs between warps (run 311; the results were right in every test, but PTX
    // leaves it undefined). Here the exponentials no longer overlap P V_{t-1}, and on an H100
    // that was no slower (run 313: Skip-Softmax +0.1..+3.4 % at 48-92 % skipped, -2.6..+2.0 %
    // with nothing skipped). One wait after the branches instead (each branch's P packed into a
    // second buffer that Pc took after the wait) cost 4-11 % (run 312: 32 more live registers at
    // the join, 36 bytes of spills over paged caches).
    retire_pv();
#endif
    if (skip_lo && skip_hi) {
      // Zeroed here, not hoisted above the branch onto every visit's path (volatile).
      #pragma unroll
      for (int kk = 0; kk < VN / 16; ++kk)
        #pragma unroll
        for (int j = 0; j < 4; ++j) asm volatile("mov.b32 %0, 0;\n" : "=r"(Pc[kk][j]));
    } else if (need_mask) {
      softmax(!skip_lo, !skip_hi, true);
    } else if (!skip_lo && !skip_hi) {
      softmax(true, true, false);
    } else if (!skip_lo) {
      softmax(true, false, false);
    } else {
      softmax(false, true, false);
    }
    // The warp's decisions for the next turn (every lane stores the same bytes: no branch; after
    // the softmax, off its path).
    vote(0, skip_lo);
#if NH == 2
    vote(1, skip_hi);
#endif
    const u32 wk = wk_cur;
    wk_cur = wk_prv;
    wk_prv = wk;
#else
    softmax(true, true, need_mask);
#endif
    const bool wrap = cur == NB - 1;
    k_prv = k_cur;
    b_prv = b_cur;
    cur = wrap ? 0 : cur + 1;
    k_cur = wrap ? k_cur - (NB - 1) * KV_BYTES : k_cur + KV_BYTES;
    b_cur = wrap ? b_cur - 8 * (NB - 1) : b_cur + 8;
    ph ^= wrap ? 1u : 0u;
  }
  if (nv > 0) {
    // The last turn: P V of the last visit. The last warpgroup hands no turn back (the turns balance).
#if KV_SPLIT
    mbar_wait(b_prv + VBAR_OFF, ph_prv());
#endif
    named_sync(BAR_TURN + wg, 2 * 128);
#if SKIP
    const bool pv_lo = kept(true, wk_prv, 0), pv_hi = NH == 2 && kept(true, wk_prv, NH - 1);
#else
    const bool pv_lo = true, pv_hi = true;
#endif
    wg_fence();
    issue_pv(Pc, k_prv + NB * KV_BYTES, pv_lo, pv_hi);
    wg_commit();
    if (NWG == 2 ? wg == 0 : wg != NWG - 1) named_arrive(BAR_TURN + NEXT_WG(wg), 2 * 128);
    wg_wait<0>();  // unconditional: ptxas then knows O is free on every path
    reg_fence(O);
  }

  // Epilogue: normalise, write O and the natural-log LSE.
  #pragma unroll
  for (int hh = 0; hh < 2; ++hh) store_prefill_row(p, s, seq_index(p), h, rbase + hh * 8, &O[hh * 2], l[hh], m[hh]);
  // The consumer warps' counts (the producer has returned): BAR_END is their barrier.
  flush_cta_counts(p, counts, (u32)nvw, skipped, SWEEP_ROWS(scount), 4 * NWG, [] { named_sync(BAR_END, NWG * 128); });
}
