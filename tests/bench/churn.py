#!/usr/bin/python3
# churn.py --- a day's churn through the kernel, for the incremental row
# of bench-scale (owned by tests/bench; run by bench-incremental.sh inside
# a loop-mounted filesystem).
#
#   churn.py ROOT FRACTION[c] SEED
#
# Lists every regular file under ROOT (sorted, so the pick depends only on
# the tree and SEED, never on readdir order) and picks FRACTION of them,
# at random over the whole tree, or with a trailing "c" (clustered) a run
# of consecutive names from a random start: a few subtrees, as a day's
# churn in one application's directories (the kernel keeps a directory's
# files in its group, so few groups change).  Of the picked files:
# a third deleted, a third appended to (1 byte to 64 KiB), a sixth renamed
# (within their directory: a dirent removed and one added); then creates
# as many new files as it deleted, in the directories of the picked files
# (the tree's own spread over groups), half of them in one new directory
# with +s, which they inherit (EXT4_FL_INHERITED has SECRM_FL), so the
# incremental run has new +s records and a new +s residue to find.  Files
# already +s are picked like the others (about 0.15% of the tree): some
# deletes and appends hit them.  Contents are pseudo-random: freed blocks
# are real residue.  Prints key=value counts.
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkfiles import FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_SECRM_FL, pick_size  # noqa: E402
from mkscale import MIX  # noqa: E402
import fcntl  # noqa: E402
import struct  # noqa: E402


def is_secrm(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        buf = bytearray(4)
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, buf)
        return bool(struct.unpack("i", buf)[0] & FS_SECRM_FL)
    except OSError:
        return False
    finally:
        os.close(fd)


def listing(root):
    out = []
    stack = [root]
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            for e in it:
                if e.name == "lost+found" and d == root:
                    continue
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                elif e.is_file(follow_symlinks=False):
                    out.append(e.path)
    out.sort()
    return out


def data(rng, n):
    return rng.randbytes(n) if n else b""


def main():
    root, frac, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    clustered = frac.endswith("c")
    frac = float(frac.rstrip("c"))
    rng = random.Random(seed)
    files = listing(root)
    n = max(6, int(len(files) * frac))
    if clustered:
        at = rng.randrange(len(files) - n + 1)
        picked = files[at:at + n]
        rng.shuffle(picked)
    else:
        picked = rng.sample(files, n)
    k3, k6 = n // 3, n // 6
    dele, app, ren = picked[:k3], picked[k3:2 * k3], picked[2 * k3:2 * k3 + k6]
    hit = sum(1 for p in dele + app if is_secrm(p))
    for p in dele:
        os.unlink(p)
    for p in app:
        with open(p, "ab") as f:
            f.write(data(rng, rng.randint(1, 65536)))
    for i, p in enumerate(ren):
        os.rename(p, "%s.r%d" % (p, i))
    sdir = os.path.join(root, "churn-secrm-%d" % seed)
    os.mkdir(sdir)
    fd = os.open(sdir, os.O_RDONLY)
    buf = bytearray(4)
    fcntl.ioctl(fd, FS_IOC_GETFLAGS, buf)
    flags = struct.unpack("i", buf)[0] | FS_SECRM_FL
    fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("i", flags))
    os.close(fd)
    dirs = sorted({os.path.dirname(p) for p in picked})
    made = made_s = 0
    for i in range(len(dele)):
        if i % 2:
            d, made_s = sdir, made_s + 1
        else:
            d = dirs[rng.randrange(len(dirs))]
            if not os.path.isdir(d):
                d = root
        with open(os.path.join(d, "churn-%d-%d" % (seed, i)), "wb") as f:
            f.write(data(rng, pick_size(rng, MIX)))
        made += 1
    # A third of the new +s files deleted again: +s residue born since
    # the last run, which only the journal and the new records show.
    gone = 0
    for i in range(1, len(dele), 6):
        os.unlink(os.path.join(sdir, "churn-%d-%d" % (seed, i)))
        gone += 1
    print("listed=%d picked=%d deleted=%d secrm_hit=%d appended=%d "
          "renamed=%d created=%d created_secrm=%d created_secrm_deleted=%d"
          % (len(files), n, len(dele), hit, len(app), len(ren), made,
             made_s, gone))


if __name__ == "__main__":
    main()
