#!/usr/bin/python3
# mkscale.py --- the file workload of the scale image (owned by
# tests/bench; run by mkscale.sh inside a loop-mounted filesystem).
#
#   mkscale.py ROOT NFILES NSECRM SEED WORKERS
#
# A deep tree (5 levels under ROOT, uneven fan-out, leaves of 5 to 200
# names, a few directories of 20 000 names with multi-level htrees) of
# NFILES files with a server-like size mix (see MIX, from mkfiles.py's
# pick_size), contents pseudo-random so freed blocks are real residue.
# In every leaf, interleaved with the real files, EXTRA_FRAC as many extra
# empty files are created and deleted again, so the inode table blocks
# and directory blocks they sat in are written for real (and dirents are
# left deleted).  NSECRM of the files get +s (FS_IOC_SETFLAGS); a third of
# those and DELETE_FRAC of the others are deleted.  A few files are
# written fragmented (small appends to several files in turn, fsync after
# each, so delayed allocation cannot merge them).  Last, a churn of small
# files each written and fsync'd (fast commits) then deleted.  WORKERS
# processes share the leaves.  Prints key=value counts.
import fcntl
import os
import random
import struct
import sys
import multiprocessing as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkfiles import FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_SECRM_FL, pick_size  # noqa: E402

# (weight, min bytes, max bytes): a quarter empty, most under a block,
# some large, a few very large; about 7 KiB a file on disk (each file
# takes whole 4 KiB blocks), so 2 million files hold about 14 GiB: the
# image and the bench's one copy of it fit this machine's free disk.
MIX = [(25, 0, 0), (65, 1, 4096), (8.5, 4097, 32768), (1.3, 32768, 262144),
       (0.04, 262144, 2097152), (0.002, 4194304, 67108864)]
EXTRA_FRAC = 0.25
DELETE_FRAC = 0.10
SECRM_DELETE_FRAC = 0.33
NFRAG = 16            # fragmented files
FRAG_CHUNK = 65536    # bytes per append
FRAG_ROUNDS = 128     # appends per fragmented file (8 MiB each)
CHURN = 20000         # fsync'd small files written then deleted
BIGDIRS = 4           # directories of BIGDIR_N names
BIGDIR_N = 20000


def setsecrm(fd):
    buf = bytearray(4)
    fcntl.ioctl(fd, FS_IOC_GETFLAGS, buf)
    flags = struct.unpack("i", buf)[0] | FS_SECRM_FL
    fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("i", flags))


def leaves_for(root, nfiles, rng):
    """The leaf directories and how many real names each gets."""
    leaves = []
    left = nfiles
    for i in range(BIGDIRS):
        n = min(left, BIGDIR_N if nfiles >= 20 * BIGDIR_N else nfiles // 20)
        if n <= 0:
            break
        leaves.append((os.path.join(root, "big%d" % i), n))
        left -= n
    i = 0
    while left > 0:
        # 5 levels: uneven fan-out from the leaf's number.
        a, b, c, d = (i // 4096) % 64, (i // 256) % 16, (i // 16) % 16, i % 16
        path = os.path.join(root, "srv%02d" % a, "u%02d" % b, "p%02d" % c,
                            "q%02d" % d, "l%d" % (i % 3))
        n = min(left, rng.choice((5, 10, 20, 40, 60, 80, 120, 200)))
        leaves.append((path, n))
        left -= n
        i += 1
    return leaves


def work(args):
    root, wid, nworkers, leaves, secrm_p, seed = args
    rng = random.Random(seed * 1000 + wid)
    pool = rng.randbytes(16 << 20)
    made = secrm = extra = 0
    files = []
    for li, (path, n) in enumerate(leaves):
        if li % nworkers != wid:
            continue
        os.makedirs(path, exist_ok=True)
        nextra = int(n * EXTRA_FRAC + rng.random())
        names = [("f%d" % k, False) for k in range(n)] + \
                [("x%d" % k, True) for k in range(nextra)]
        rng.shuffle(names)
        for name, isextra in names:
            p = os.path.join(path, name)
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                if isextra:
                    extra += 1
                    files.append((p, 2))
                    continue
                s = rng.random() < secrm_p
                if s:
                    setsecrm(fd)
                    secrm += 1
                size = pick_size(rng, MIX)
                off = rng.randrange(0, 8 << 20)
                while size:
                    k = min(size, len(pool) - off, 1 << 20)
                    os.write(fd, pool[off:off + k])
                    size -= k
                    off = 0 if off + k >= len(pool) else off + k
                made += 1
                files.append((p, 1 if s else 0))
            finally:
                os.close(fd)
    os.sync()
    ndel = ndel_secrm = 0
    for p, kind in files:
        if kind == 2 or (kind == 1 and rng.random() < SECRM_DELETE_FRAC) or \
                (kind == 0 and rng.random() < DELETE_FRAC):
            os.unlink(p)
            if kind == 1:
                ndel_secrm += 1
            if kind != 2:
                ndel += 1
    return made, secrm, extra, ndel, ndel_secrm


def fragmented(root, rng, pool):
    d = os.path.join(root, "frag")
    os.makedirs(d, exist_ok=True)
    fds = [os.open(os.path.join(d, "frag%02d" % i),
                   os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
           for i in range(NFRAG)]
    for i, fd in enumerate(fds):
        if i % 4 < 2:
            setsecrm(fd)  # 8 fragmented +s files; 4 of them deleted
    for _ in range(FRAG_ROUNDS):
        for fd in fds:
            off = rng.randrange(0, len(pool) - FRAG_CHUNK)
            os.write(fd, pool[off:off + FRAG_CHUNK])
            os.fsync(fd)
    for fd in fds:
        os.close(fd)
    # Delete every other one, +s ones among them: fragmented residue.
    for i in range(0, NFRAG, 2):
        os.unlink(os.path.join(d, "frag%02d" % i))
    return NFRAG, NFRAG // 2


def churn(root, rng, pool):
    d = os.path.join(root, "churn")
    os.makedirs(d, exist_ok=True)
    for i in range(CHURN):
        p = os.path.join(d, "c%d" % (i % 512))
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        size = rng.randint(1, 65536)
        off = rng.randrange(0, len(pool) - size)
        os.write(fd, pool[off:off + size])
        os.fsync(fd)  # a fast commit
        os.close(fd)
        if i % 3 == 0:
            os.unlink(p)
    for name in os.listdir(d):
        os.unlink(os.path.join(d, name))
    os.sync()


def main():
    root, nfiles, nsecrm, seed, nworkers = sys.argv[1:6]
    nfiles, nsecrm, seed, nworkers = (int(nfiles), int(nsecrm), int(seed),
                                      int(nworkers))
    rng = random.Random(seed)
    pool = rng.randbytes(16 << 20)
    nfrag, nfrag_secrm = fragmented(root, rng, pool)
    leaves = leaves_for(root, nfiles - nfrag, rng)
    secrm_p = max(0.0, (nsecrm - nfrag_secrm) / max(1, nfiles - nfrag))
    with mp.Pool(nworkers) as p:
        res = p.map(work, [(root, w, nworkers, leaves, secrm_p, seed)
                           for w in range(nworkers)])
    made = sum(r[0] for r in res) + nfrag
    secrm = sum(r[1] for r in res) + nfrag_secrm
    extra = sum(r[2] for r in res)
    ndel = sum(r[3] for r in res) + NFRAG // 2
    ndel_secrm = sum(r[4] for r in res) + NFRAG // 4
    churn(root, rng, pool)
    print("files=%d secrm=%d deleted=%d deleted_secrm=%d extra_deleted=%d "
          "leaves=%d fragmented=%d churn_fsyncs=%d" %
          (made, secrm, ndel, ndel_secrm, extra, len(leaves), NFRAG, CHURN))


if __name__ == "__main__":
    main()
