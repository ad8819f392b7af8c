# Simulates page-entries-in-lanes.patch's slot/batch bookkeeping (kernels/decode_sm90.cu PageEntries) against
# direct table reads: every K and V copy's entries, for 16- to 1024-key pages, KSLOTS 2-8, random split
# ranges and lengths. Run on the CPU: python3 bench/runs/session39/page-entries-in-lanes-sim.py (prints "ok 800").
import random
def run(n, hi, lk, log2, KSLOTS):
    e_log2 = 0 if log2 >= 6 else 6 - log2
    E = 1 << e_log2
    table = [random.randrange(1 << 20) for _ in range((lk >> log2) + 2)]
    TILE_OF = lambda t: hi - 1 - t
    def batch_entry(batch, lane):
        slot = batch * 32 + lane; t = slot >> e_log2; q = slot & (E - 1)
        if t >= n: return 0
        row = TILE_OF(t) * 64 + (q << min(log2, 6))
        return table[row >> log2] if row < lk else 0
    batch = 0
    cur = [batch_entry(0, l) for l in range(32)]; nxt = [batch_entry(1, l) for l in range(32)]; far = [batch_entry(2, l) for l in range(32)]
    def tile_entries(t):
        out = []
        for q in range(E):
            slot = (t << e_log2) + q
            b = slot >> 5
            assert b in (batch, batch + 1), (t, q, batch)
            out.append((cur if b == batch else nxt)[slot & 31])
        return out
    def expect(t):
        j = TILE_OF(t); res = []
        for q in range(E):
            row = j * 64 + (q << min(log2, 6))
            res.append(table[row >> log2] if row < lk else None)
        return res
    def check(t, got):
        for g, e in zip(got, expect(t)):
            if e is not None: assert g == e, (t, got, expect(t))
    for t in range(min(KSLOTS, n)): check(t, tile_entries(t))
    for it in range(n):
        if ((it << e_log2) >> 5) != batch:
            cur, nxt = nxt, far; batch += 1; far = [batch_entry(batch + 2, l) for l in range(32)]
        check(it, tile_entries(it))
        if it + KSLOTS < n: check(it + KSLOTS, tile_entries(it + KSLOTS))
random.seed(1)
cnt = 0
for log2 in (4, 5, 6, 8, 10):
    for KSLOTS in (2, 3, 5, 8):
        for _ in range(40):
            lk = random.randrange(1, 20000); T = (lk + 63) // 64
            lo = random.randrange(0, T); hi = random.randrange(lo + 1, T + 1)
            run(hi - lo, hi, lk, log2, KSLOTS); cnt += 1
print("ok", cnt)
