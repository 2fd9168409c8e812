#!/usr/bin/env python3
"""Compare two ELF files (CUDA cubins) section by section.

Usage: elf-compare.py A.cubin B.cubin [--ignore SECTION ...]

Exit 0 when both files have the same sections, in the same order, with identical headers
and contents (sections named with --ignore are compared by name only). Exit 1 and print the
first differences otherwise. objcopy cannot read CUDA ELF, so this reads the ELF64 headers
itself; cubins are always ELF64 little-endian.
"""
import struct
import sys


def sections(path):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise SystemExit(f"{path}: not a little-endian ELF64 file")
    e_shoff, = struct.unpack_from("<Q", data, 0x28)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = []
    for i in range(e_shnum):
        off = e_shoff + i * e_shentsize
        headers.append(struct.unpack_from("<IIQQQQIIQQ", data, off))
    strtab = headers[e_shstrndx]
    names_blob = data[strtab[4]:strtab[4] + strtab[5]]

    def name_of(h):
        end = names_blob.index(b"\0", h[0])
        return names_blob[h[0]:end].decode()

    out = []
    for h in headers:
        sh_type, sh_offset, sh_size = h[1], h[4], h[5]
        body = b"" if sh_type == 8 else data[sh_offset:sh_offset + sh_size]  # SHT_NOBITS has no bytes
        # Header fields that do not depend on file layout: type, flags, addr, size, link, info, align, entsize.
        out.append((name_of(h), (h[1], h[2], h[3], h[5], h[6], h[7], h[8], h[9]), body))
    return data[:0x40], out


def main(argv):
    ignore = set()
    files = []
    it = iter(argv[1:])
    for a in it:
        if a == "--ignore":
            ignore.add(next(it))
        else:
            files.append(a)
    if len(files) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    ha, a = sections(files[0])
    hb, b = sections(files[1])
    problems = []
    # ELF header: compare everything but the program- and section-header offsets (0x20..0x30),
    # which move when an ignored section changes size.
    if ha[:0x20] != hb[:0x20] or ha[0x30:] != hb[0x30:]:
        problems.append("ELF headers differ")
    if [s[0] for s in a] != [s[0] for s in b]:
        problems.append(f"section lists differ: {[s[0] for s in a]} vs {[s[0] for s in b]}")
    else:
        for (name, hdr_a, body_a), (_, hdr_b, body_b) in zip(a, b):
            if name in ignore:
                continue
            if hdr_a != hdr_b:
                problems.append(f"section {name}: header differs")
            elif body_a != body_b:
                problems.append(f"section {name}: contents differ")
    for p in problems[:10]:
        print(f"{files[0]} vs {files[1]}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
