#!/usr/bin/env python3
"""Whether two directories of cubins hold the same code: compares every ELF section but the
debug ones (line tables move with any edit of a kernel's source text, comments included).

Used to decide whether a kernel-source edit needs a GPU re-run (no GPU needed here):

    export LD_LIBRARY_PATH=<the PyPI NVRTC wheel's nvidia/cu13/lib>
    BLASST_DUMP_DIR=/tmp/before target/release/examples/ptxas_report sm_90a decode90  # old tree
    BLASST_DUMP_DIR=/tmp/after  target/release/examples/ptxas_report sm_90a decode90  # new tree
    python3 scripts/cubin-diff.py /tmp/before /tmp/after

Exit status 0 when every cubin of either directory is in both and matches outside its debug
sections, 1 otherwise (each difference is printed).
"""
import os
import struct
import sys


def sections(path):
    """Section name -> bytes of a 64-bit little-endian ELF file (NOBITS sections left out)."""
    b = open(path, "rb").read()
    if b[:4] != b"\x7fELF" or b[4] != 2:
        sys.exit(f"{path}: not a 64-bit ELF file")
    shoff = struct.unpack_from("<Q", b, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    names = hdrs[shstrndx][4]
    out = {}
    for name_off, kind, _flags, _addr, off, size, *_ in hdrs:
        name = b[names + name_off : b.index(b"\0", names + name_off)].decode()
        if kind != 8:  # SHT_NOBITS has no bytes in the file
            out[name] = b[off : off + size]
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a_dir, b_dir = sys.argv[1], sys.argv[2]
    a_files, b_files = set(os.listdir(a_dir)), set(os.listdir(b_dir))
    bad = 0
    for f in sorted(a_files ^ b_files):
        print(f"{f}: only in {a_dir if f in a_files else b_dir}")
        bad += 1
    for f in sorted(a_files & b_files):
        a, b = sections(os.path.join(a_dir, f)), sections(os.path.join(b_dir, f))
        diff = sorted(n for n in set(a) | set(b) if "debug" not in n and a.get(n) != b.get(n))
        if diff:
            print(f"{f}: differs in {', '.join(diff)}")
            bad += 1
    print(f"{len(a_files & b_files)} cubins compared, {bad} differ outside their debug sections")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
