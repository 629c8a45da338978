#!/usr/bin/python3
# mkfiles.py --- the file workload of a bench image (owned by tests/bench).
#
# Run by mkimage.sh inside a loop-mounted filesystem.  Creates NFILES
# files in nested directories, with sizes drawn from a mix, without a fork
# per file; sets the secure-delete flag (chattr +s, FS_IOC_SETFLAGS) on a
# fraction of them; syncs; then deletes a fraction of all files (+s ones
# in the same proportion), so the journal holds the deletions.
#
#   mkfiles.py ROOT NFILES SECRM_FRAC DELETE_FRAC MIX SEED
#
# MIX names a size mix: "mixed" (small image), "small" (many image),
# "large" (huge image).  Contents are pseudo-random bytes, never zeros,
# so freed blocks are real residues that a wipe must write.
import fcntl
import os
import random
import struct
import sys

FS_IOC_GETFLAGS = 0x80086601
FS_IOC_SETFLAGS = 0x40086602
FS_SECRM_FL = 0x00000001

MIXES = {
    # (weight, min bytes, max bytes)
    "mixed": [(75, 0, 4096), (22, 4096, 65536), (3, 65536, 524288)],
    "small": [(90, 0, 4096), (10, 4096, 32768)],
    "large": [(60, 0, 65536), (35, 65536, 1048576), (5, 1048576, 8388608)],
}


def pick_size(rng, mix):
    r = rng.uniform(0, sum(w for w, _, _ in mix))
    for w, lo, hi in mix:
        if r < w:
            return rng.randint(lo, hi)
        r -= w
    return mix[-1][1]


def main():
    root, nfiles, secrm_frac, del_frac, mixname, seed = sys.argv[1:7]
    nfiles = int(nfiles)
    secrm_frac = float(secrm_frac)
    del_frac = float(del_frac)
    mix = MIXES[mixname]
    rng = random.Random(int(seed))
    pool = rng.randbytes(16 << 20)
    # Nested directories: about 60 files a leaf, 3 levels deep.
    leaves = max(1, nfiles // 60)
    fan = max(2, int(round(leaves ** (1.0 / 3))))
    dirs = []
    for a in range(fan):
        for b in range(fan):
            for c in range(fan):
                dirs.append(os.path.join(root, "d%02d" % a, "e%02d" % b,
                                         "f%02d" % c))
    for d in dirs:
        os.makedirs(d, exist_ok=True)
    files = []
    nsecrm = 0
    for i in range(nfiles):
        path = os.path.join(dirs[i % len(dirs)], "file%07d" % i)
        size = pick_size(rng, mix)
        secrm = rng.random() < secrm_frac
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            if secrm:
                buf = bytearray(4)
                fcntl.ioctl(fd, FS_IOC_GETFLAGS, buf)
                flags = struct.unpack("i", buf)[0] | FS_SECRM_FL
                fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("i", flags))
                nsecrm += 1
            off = rng.randrange(0, 8 << 20)
            left = size
            while left:
                n = min(left, len(pool) - off)
                os.write(fd, pool[off:off + n])
                left -= n
                off = 0
        finally:
            os.close(fd)
        files.append((path, secrm))
    os.sync()
    ndel = ndel_secrm = 0
    for path, secrm in files:
        if rng.random() < del_frac:
            os.unlink(path)
            ndel += 1
            ndel_secrm += secrm
    os.sync()
    print("files=%d secrm=%d deleted=%d deleted_secrm=%d dirs=%d" %
          (nfiles, nsecrm, ndel, ndel_secrm, len(dirs)))


if __name__ == "__main__":
    main()
