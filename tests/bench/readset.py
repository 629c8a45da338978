#!/usr/bin/python3
# readset.py --- the bytes a command reads from an image, and a replay of
# them (owned by tests/bench; used by bench.sh for the scale image).
#
#   readset.py trace IMAGE OUT.ranges -- CMD...
#       Runs CMD under strace (-f -y: every read system call that names
#       IMAGE's path, pread64/preadv/preadv2/read/readv), and writes the
#       byte ranges it read, sorted and merged, one "START LENGTH" a line.
#       Prints: calls=N bytes_read=N (with repeats) bytes_unique=N
#       extents=N reads_without_offset=N
#   readset.py replay IMAGE RANGES
#       Reads exactly those ranges from IMAGE in disk order, one pread
#       of at most 1 MiB at a time into one buffer (dd's way: one read in
#       flight, no page-cache bypass): the floor for reading the same
#       bytes.  Prints the bytes read, then seconds=S: from the open to
#       the last read, not the interpreter's start.
#   readset.py jsum IMAGE RANGES BSIZE OUT
#       Writes an 8-byte digest of every block of RANGES (blocks: the
#       journal's extents, "START LENGTH" a line, in log order) to OUT.
#   readset.py jdiff IMAGE RANGES BSIZE SUMS
#       Prints journal_blocks=N changed=N: how many of those blocks differ
#       from the digests jsum kept.  Taken before and after a churn, the
#       journal the kernel wrote between, whatever any tool reports (a
#       block rewritten with the same bytes is not counted: the digest of
#       a jbd2 block holds its sequence, so only a copy of an unchanged
#       block can be).
#   readset.py io OUT -- CMD...
#       Runs CMD and writes to OUT its rchar and read_bytes (/proc/PID/io,
#       read before it is reaped), its max RSS, and its seconds from the
#       fork to its exit: the command's own time, not this interpreter's
#       start (cold after drop_caches, 0.2 s on the bench machine).
#   readset.py data IMAGE BYTES
#       Prints dd commands reading BYTES bytes of IMAGE's allocated data
#       (SEEK_DATA/SEEK_HOLE, never a hole), in order, 1 MiB reads: the
#       sequential floor for as many bytes.
import bisect
import os
import re
import subprocess
import sys
import time

LINE = re.compile(r'^(?:\d+\s+)?(pread64|preadv2?|readv?)\((\d+)<([^>]*)>,'
                  r'(.*)\)\s+=\s+(-?\d+)')


def trace(image, out, cmd):
    real = os.path.realpath(image)
    log = out + ".strace"
    subprocess.run(["strace", "-f", "-y", "-s0", "-o", log, "-e",
                    "trace=pread64,preadv,preadv2,read,readv"] + cmd,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ranges = []
    calls = total = nooff = 0
    for line in open(log):
        m = LINE.match(line)
        if not m or m.group(3) != real:
            continue
        call, args, ret = m.group(1), m.group(4), int(m.group(5))
        if ret <= 0:
            continue
        calls += 1
        total += ret
        if call in ("read", "readv"):
            nooff += 1
            continue
        # The offset is the last argument (preadv2: before the flags).
        parts = [p.strip() for p in args.split(",")]
        off = int(parts[-2] if call == "preadv2" else parts[-1])
        ranges.append((off, ret))
    os.unlink(log)
    ranges.sort()
    merged = []
    for off, n in ranges:
        if merged and off <= merged[-1][0] + merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], off + n - last[0]))
        else:
            merged.append((off, n))
    with open(out, "w") as f:
        for off, n in merged:
            f.write("%d %d\n" % (off, n))
    print("calls=%d bytes_read=%d bytes_unique=%d extents=%d "
          "reads_without_offset=%d" % (calls, total,
                                       sum(n for _, n in merged),
                                       len(merged), nooff))


def replay(image, rpath):
    t0 = time.monotonic()
    fd = os.open(image, os.O_RDONLY)
    buf = bytearray(1 << 20)
    mv = memoryview(buf)
    done = 0
    for line in open(rpath):
        off, n = map(int, line.split())
        while n > 0:
            k = os.preadv(fd, [mv[:min(n, len(buf))]], off)
            if k <= 0:
                break
            off += k
            n -= k
            done += k
    os.close(fd)
    print(done)
    print("seconds=%.4f" % (time.monotonic() - t0))


def data(image, want):
    fd = os.open(image, os.O_RDONLY)
    end = os.fstat(fd).st_size
    off = 0
    while want > 0 and off < end:
        try:
            d = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:
            break
        h = os.lseek(fd, d, os.SEEK_HOLE)
        n = min(h - d, want)
        print("dd if='%s' of=/dev/null bs=1M iflag=skip_bytes,count_bytes "
              "skip=%d count=%d status=none" % (image, d, n))
        want -= n
        off = h
    os.close(fd)


def split(rpath, bsize, classes):
    regions = []
    names = []
    for spec in classes:
        name, path = spec.split("=", 1)
        names.append(name)
        for line in open(path):
            f = line.split()
            if len(f) >= 2:
                regions.append((int(f[0]) * bsize, int(f[1]) * bsize, name))
    regions.sort()
    got = dict((n, 0) for n in names + ["other"])
    starts = [r[0] for r in regions]
    for line in open(rpath):
        off, n = map(int, line.split())
        end = off + n
        # Regions do not overlap in practice (a filesystem's metadata);
        # walk those that may meet [off, end).
        i = max(0, bisect.bisect_right(starts, off) - 1)
        inside = 0
        while i < len(regions) and regions[i][0] < end:
            a, ln, name = regions[i]
            lo, hi = max(a, off), min(a + ln, end)
            if hi > lo:
                got[name] += hi - lo
                inside += hi - lo
            i += 1
        got["other"] += n - inside
    print(" ".join("%s=%d" % (k, got[k]) for k in names + ["other"]))


def io(out, cmd):
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    seconds = time.monotonic() - t0
    got = {}
    try:
        for line in open("/proc/%d/io" % pid):
            k, v = line.split(":")
            got[k] = int(v)
    except OSError:
        pass
    _, status, ru = os.wait4(pid, 0)
    with open(out, "w") as f:
        f.write("rchar=%d read_bytes=%d maxrss_kib=%d seconds=%.4f\n" % (
            got.get("rchar", 0), got.get("read_bytes", 0), ru.ru_maxrss,
            seconds))
    sys.exit(os.waitstatus_to_exitcode(status) & 255)


def journal_sums(image, ranges, bsize):
    """A short digest of every block of the journal, in log order."""
    import hashlib
    sums = []
    fd = os.open(image, os.O_RDONLY)
    try:
        for line in open(ranges):
            start, length = (int(x) for x in line.split()[:2])
            for at in range(start, start + length, 256):
                n = min(256, start + length - at)
                buf = os.pread(fd, n * bsize, at * bsize)
                for k in range(n):
                    sums.append(hashlib.blake2b(
                        buf[k * bsize:(k + 1) * bsize],
                        digest_size=8).digest())
    finally:
        os.close(fd)
    return sums


def jsum(image, ranges, bsize, out):
    with open(out, "wb") as f:
        f.write(b"".join(journal_sums(image, ranges, bsize)))


def jdiff(image, ranges, bsize, before):
    old = open(before, "rb").read()
    now = journal_sums(image, ranges, bsize)
    changed = sum(1 for i, d in enumerate(now)
                  if old[i * 8:(i + 1) * 8] != d)
    print("journal_blocks=%d changed=%d" % (len(now), changed))


def main():
    if sys.argv[1] == "trace" and sys.argv[4] == "--":
        trace(sys.argv[2], sys.argv[3], sys.argv[5:])
    elif sys.argv[1] == "replay":
        replay(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "data":
        data(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "io" and sys.argv[3] == "--":
        io(sys.argv[2], sys.argv[4:])
    elif sys.argv[1] == "jsum":
        jsum(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif sys.argv[1] == "jdiff":
        jdiff(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif sys.argv[1] == "split":
        split(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    else:
        sys.exit("usage: readset.py trace|replay|data|split|io|jsum|jdiff ...")


if __name__ == "__main__":
    main()
