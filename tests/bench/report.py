#!/usr/bin/python3
# report.py --- turn the bench's raw rows into BENCHMARKS.md (medians,
# ratios, targets, slope); owned by tests/bench, run by bench.sh.
#
#   report.py RESULTS.tsv[+MORE.tsv] FACTS.tsv[+MORE.tsv] OUT.md E2SECRM
#   report.py --scale RESULTS.tsv FACTS.tsv BENCHMARKS.md E2SECRM
#   report.py --incremental RESULTS.tsv FACTS.tsv BENCHMARKS.md E2SECRM
#
# The second form (make bench-scale) writes only the scale image's
# section of BENCHMARKS.md, between the SCALE_BEGIN and SCALE_END marks;
# the third (bench-incremental.sh, issue 37) only the incremental one,
# between INC_BEGIN and INC_END; each form keeps the others' sections.
import csv
import datetime
import os
import platform
import statistics
import subprocess
import sys

TOOLS = ["en", "jmap", "fsck", "ddj", "ey", "ddwy", "zf", "eaf", "ddwaf"]
TOOL_DESC = {
    "en": "`e2secrm -n`",
    "jmap": "`e2secrm -n --journal-map >/dev/null`",
    "fsck": "`e2fsck -fn`",
    "ddj": "`dd` of the journal extents to /dev/null (1 MiB reads)",
    "ey": "`e2secrm -y` (default mode)",
    "ddwy": "`dd` writing the bytes `e2secrm -y` wiped (conv=fsync)",
    "zf": "`zerofree`",
    "eaf": "`e2secrm -y --all-free`",
    "ddwaf": "`dd` writing the bytes `--all-free` wiped (conv=fsync)",
}
E2SECRM_TOOLS = ["en", "jmap", "ey", "eaf"]


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True,
                              text=True, timeout=20).stdout.strip()
    except Exception:
        return ""


def machine():
    cpu = sh("lscpu | sed -n 's/^Model name: *//p' | head -1")
    mem = sh("awk '/MemTotal/ {printf \"%.1f GiB\", $2/1048576}' "
             "/proc/meminfo")
    fs = sh("df -T %s | awk 'NR==2 {print $2\" on \"$1}'" %
            os.environ.get("BENCH_DIR", "/var/tmp"))
    virt = sh("systemd-detect-virt 2>/dev/null") or "unknown"
    e2fs = sh("dpkg-query -W -f='${Version}' e2fsprogs")
    zf = sh("dpkg-query -W -f='${Version}' zerofree")
    return ("%s, %s CPUs (shared with other sessions), %s RAM, "
            "virtualization %s, kernel %s; images on %s; e2fsprogs %s, "
            "zerofree %s" % (cpu, os.cpu_count(), mem, virt,
                             platform.release(), fs, e2fs, zf))


def fmt_s(x):
    if x is None:
        return "-"
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    if x >= 1:
        return "%.2f" % x
    return "%.3f" % x


def fmt_b(n):
    n = float(n)
    for unit in ["B", "KiB", "MiB", "GiB", "TiB"]:
        if abs(n) < 1024 or unit == "TiB":
            return ("%.0f %s" if unit == "B" else "%.1f %s") % (n, unit)
        n /= 1024


SCALE_BEGIN = "<!-- bench-scale: begin (make bench-scale writes this section) -->"
SCALE_END = "<!-- bench-scale: end -->"


INC_BEGIN = ("<!-- bench-incremental: begin (bench-incremental.sh writes "
             "this section) -->")
INC_END = "<!-- bench-incremental: end -->"


def cut(text, begin, end):
    """(text without the section between begin and end, the section or "")."""
    a = text.find(begin)
    b = text.find(end)
    if a < 0 or b < a:
        return text, ""
    return (text[:a].rstrip("\n") + "\n" + text[b + len(end):].lstrip("\n"),
            text[a:b + len(end)])


def split_scale(path):
    """(text without the scale and incremental sections, both sections
    in that order, or ""): each writer replaces its own and keeps the
    other's."""
    try:
        text = open(path).read()
    except OSError:
        return "", ""
    text, scale = cut(text, SCALE_BEGIN, SCALE_END)
    text, inc = cut(text, INC_BEGIN, INC_END)
    return text, "\n\n".join(x for x in (scale, inc) if x)


def load(tsv, facts_path):
    rows = list(csv.DictReader(open(tsv), delimiter="\t"))
    facts = {}
    for line in open(facts_path):
        parts = line.rstrip("\n").split("\t")
        if len(parts) == 3:
            facts.setdefault(parts[0], {})[parts[1]] = parts[2]
    return rows, facts


SCALE_TOOLS = [
    ("en", "`e2secrm -n`"),
    ("ey", "`e2secrm -y` (on a fresh copy; warm: `-n` on that copy first)"),
    ("jmap", "`e2secrm -n --journal-map >/dev/null`"),
    ("fsck", "`e2fsck -fn`"),
    ("ddr", "the byte ranges `e2secrm -n` reads, replayed in disk order "
     "(readset.py replay: <= 1 MiB preads, one in flight, as dd)"),
    ("ddn", "`dd` of as many bytes of the image's data, sequential, 1 MiB"),
    ("ddj", "`dd` of the journal extents, 1 MiB"),
    ("ddwy", "`dd` writing the bytes `e2secrm -y` wiped (conv=fsync)"),
]


def scale_main(tsv, facts_path, out, e2secrm):
    rows, facts = load(tsv, facts_path)
    f = facts.get("scale", {})
    g = lambda k, d="?": f.get(k, d)
    data = {}
    errors = []
    for r in rows:
        d = data.setdefault((r["cache"], r["tool"]), [])
        d.append(r)
        rc = int(r["rc"])
        if (rc >= 8 if r["tool"] in E2SECRM_TOOLS else rc != 0):
            errors.append("%s %s run %s: exit status %d" %
                          (r["cache"], r["tool"], r["rep"], rc))

    def med(ca, t, k="seconds"):
        d = data.get((ca, t))
        if not d:
            return None
        return statistics.median(float(r[k] or 0) for r in d)

    def rss(t):
        v = [int(r["maxrss_kib"] or 0) for ca in ("cold", "warm")
             for r in data.get((ca, t), [])]
        return max(v) if v else None

    reps = max((int(r["rep"]) for r in rows), default=0)
    L = [SCALE_BEGIN, "", "## The scale image (make bench-scale)", ""]
    L.append("Regenerated by `make bench-scale` (tests/bench/bench.sh "
             "scale); do not edit by hand.")
    L.append("")
    L.append("- Date: %s" %
             datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"))
    L.append("- Machine: %s" % machine())
    L.append("- e2secrm: %s, tree %s" % (
        sh("%s -V 2>&1 | head -1" % e2secrm),
        sh("git -C %s rev-parse --short HEAD 2>/dev/null" %
           os.path.dirname(os.path.abspath(__file__))) or "?"))
    L.append("- Runs: each command %d time(s) cold (sync and drop_caches "
             "before every timed command) then warm, in the same run; "
             "medians. Read-only commands run on the cached image itself; "
             "`-y` on a fresh `cp --sparse=always` copy." % reps)
    L.append("")
    L.append("### The image")
    L.append("")
    L.append("- Recipe: `%s` (mkscale.sh; parameters SCALE_FILES, "
             "SCALE_SIZE, SCALE_SECRM)" % g("meta_recipe"))
    L.append("- %s files written (%s with +s), %s deleted (%s of them +s), "
             "%s more created and deleted among them (inode tables and "
             "directory blocks written for real), %s leaf directories, %s "
             "fragmented files, %s fsync'd churn files (fast commits: %s)" % (
                 g("meta_files"), g("meta_secrm"), g("meta_deleted"),
                 g("meta_deleted_secrm"), g("meta_extra_deleted"),
                 g("meta_leaves"), g("meta_fragmented"),
                 g("meta_churn_fsyncs"),
                 g("meta_fast_commit_info").split(";")[1]
                 if ";" in g("meta_fast_commit_info") else "?"))
    L.append("- %s inodes, %s groups (%s inode-uninit), block size %s; "
             "journal %s, every block written by a data=journal filler of "
             "1.25x, then %s journal blocks logged by the files (%s more "
             "wraps, jbd2's statistics)" % (
                 g("meta_inodes"), g("groups"), g("groups_inode_uninit"),
                 g("block_size"), fmt_b(g("journal_bytes", 0)),
                 g("meta_journal_blocks_logged_by_files"),
                 g("meta_journal_wraps_by_files")))
    L.append("- On disk: %s allocated of %s (the image is sparse where "
             "blocks were never written or were trimmed)" % (
                 fmt_b(int(g("meta_allocated_kib", 0)) * 1024),
                 g("meta_size")))
    L.append("- Build: journal fill %s s + files %s s + e2fsck check %s s "
             "= **%s s** (built %s)" % (
                 g("meta_build_journal_fill_s"), g("meta_build_files_s"),
                 g("meta_build_fsck_s"), g("meta_build_total_s"),
                 g("meta_built")))
    L.append("")
    L.append("### What each reads (strace of every read of the image)")
    L.append("")
    L.append("| command | read calls | bytes read | distinct bytes | "
             "extents (merged) | device reads, cold (GNU time, inputs) |")
    L.append("|---|---|---|---|---|---|")
    for t, name in (("en", "e2secrm -n"), ("fsck", "e2fsck -fn")):
        inp = med("cold", t, "in_kib")
        L.append("| %s | %s | %s | %s | %s | %s |" % (
            name, g("readset_%s_calls" % t),
            fmt_b(g("readset_%s_bytes_read" % t, 0)),
            fmt_b(g("readset_%s_bytes_unique" % t, 0)),
            g("readset_%s_extents" % t),
            "-" if inp is None else fmt_b(inp * 1024)))
    inp = med("cold", "ey", "in_kib")
    L.append("| e2secrm -y | - | - | - | - | %s |" %
             ("-" if inp is None else fmt_b(inp * 1024)))
    L.append("")
    L.append("### Results: median seconds")
    L.append("")
    L.append("| command | cold s | warm s | max RSS | device reads cold | "
             "what |")
    L.append("|---|---|---|---|---|---|")
    for t, desc in SCALE_TOOLS:
        c, w = med("cold", t), med("warm", t)
        if c is None and w is None:
            continue
        r = rss(t)
        inp = None if t == "ddwy" else med("cold", t, "in_kib")
        L.append("| %s | %s | %s | %s | %s | %s |" % (
            t, fmt_s(c), fmt_s(w), "-" if r is None else fmt_b(r * 1024),
            "-" if inp is None else fmt_b(inp * 1024), desc))
    by = med("cold", "ey", "bytes")
    L.append("")
    L.append("`e2secrm -y` wiped %s." % fmt_b(by or 0))
    L.append("")
    L.append("### Targets (issue 30)")
    L.append("")
    L.append("| target | cold | warm |")
    L.append("|---|---|---|")

    def ratio(a, b):
        return None if a is None or b in (None, 0) else a / b

    def cell(r, lim):
        if r is None:
            return "n/a"
        return "%.2f %s" % (r, "met" if r <= lim else "**missed**")

    for name, a, b, lim in (
            ("`-n` / `e2fsck -fn` <= 0.5", "en", "fsck", 0.5),
            ("`-y` / `e2fsck -fn` <= 0.5", "ey", "fsck", 0.5),
            ("`-n` / dd of its bytes (ddr) <= 1.5", "en", "ddr", 1.5),
            ("`-n` / dd of as many bytes (ddn) <= 1.5", "en", "ddn", 1.5)):
        L.append("| %s | %s | %s |" % (
            name, cell(ratio(med("cold", a), med("cold", b)), lim),
            cell(ratio(med("warm", a), med("warm", b)), lim)))
    re_, rf = rss("en"), rss("fsck")
    L.append("| max RSS `-n` / `e2fsck -fn` <= 0.5 (%s / %s) | %s | |" % (
        fmt_b((re_ or 0) * 1024), fmt_b((rf or 0) * 1024),
        cell(ratio(re_, rf), 0.5)))
    L.append("| (no target) `-y` / `dd` writing the bytes it wiped (ddwy) "
             "| %s | %s |" % tuple(
                 "n/a" if x is None else "%.2f" % x for x in (
                     ratio(med("cold", "ey"), med("cold", "ddwy")),
                     ratio(med("warm", "ey"), med("warm", "ddwy")))))
    L.append("")
    L.append("The targets of the cold runs are the issue's; warm ratios "
             "are shown for comparison. Where the time goes: PROFILE.md.")
    jb, jc = g("journal_bytes", 0), med("cold", "ddj")
    if jc:
        L.append("")
        L.append("Cold means the guest's page cache was dropped: the "
                 "virtual disk's host may still hold the image (here `dd` "
                 "read the %s journal cold at %.1f GB/s), so the dd floors "
                 "are those of this VM's disk, far below a physical "
                 "disk's, and a cold run differs from a warm one mostly "
                 "by the guest's copies." % (fmt_b(jb), int(jb) / jc / 1e9))
    if errors:
        L.append("")
        L.append("Errors in this run: " + "; ".join(errors))
    L.append("")
    L.append(SCALE_END)
    section = "\n".join(L)
    try:
        text = open(out).read()
    except OSError:
        text = ""
    rest, _ = cut(text, SCALE_BEGIN, SCALE_END)
    rest, inc = cut(rest, INC_BEGIN, INC_END)
    open(out, "w").write(rest.rstrip("\n") + "\n\n" + section + "\n" +
                         ("\n" + inc + "\n" if inc else ""))
    print(section)
    sys.exit(1 if errors else 0)

INC_TOOLS = [
    ("inc-n", "`-n --json-plan`, incremental"),
    ("full-n", "`-n --full --json-plan`"),
    ("inc-y", "`-y --skip-zero --json-plan`, incremental"),
    ("full-y", "`-y --skip-zero --full --json-plan` (on a copy)"),
]


def inc_main(tsv, facts_path, out, e2secrm):
    """The incremental section (bench-incremental.sh, issue 37): per churn,
    the incremental run against --full on the same image, cold, with the
    floor (journal logged since the last run + group descriptors)."""
    rows, facts = load(tsv, facts_path)
    churns = []
    for r in rows:
        if r["image"] not in churns:
            churns.append(r["image"])
    base = facts.get(churns[0].split("@")[0], {}) if churns else {}
    # Several runs of one command (the -n ones run twice, in both
    # orders): the median of each figure, the worst exit status.
    runs = {}
    for r in rows:
        runs.setdefault((r["image"], r["tool"]), []).append(r)
    row = {}
    for k, rs in runs.items():
        m = dict(rs[0])
        for c in ("seconds", "maxrss_kib", "in_kib", "bytes"):
            m[c] = str(statistics.median(float(x[c] or 0) for x in rs))
        m["rc"] = str(max(int(x["rc"]) for x in rs))
        m["n"] = len(rs)
        row[k] = m

    def num(x):
        try:
            return float(x)
        except (TypeError, ValueError):
            return None

    def ratio(a, b):
        a, b = num(a), num(b)
        return a / b if a is not None and b else None

    def fr(x, lim=None):
        if x is None:
            return "-"
        t = "%.2f" % x if x >= 0.01 else "%.4f" % x
        if lim is None:
            return t
        return t + (" met" if x <= lim else " **missed**")

    L = [INC_BEGIN, "", "## Incremental runs (issue 37)", ""]
    L.append("Regenerated by tests/bench/bench-incremental.sh (run by "
             "`make bench-scale` after the scale section, or `make "
             "bench-incremental` alone); do not edit by hand.")
    L.append("")
    L.append("- Date: %s" %
             datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"))
    L.append("- Machine: %s" % machine())
    L.append("- e2secrm: %s, tree %s" % (
        sh("%s -V 2>&1 | head -1" % e2secrm),
        sh("git -C %s rev-parse --short HEAD 2>/dev/null" %
           os.path.dirname(os.path.abspath(__file__))) or "?"))
    L.append("- Method: on a `cp --sparse=always` copy of the scale image "
             "(%s groups, %s-byte descriptors, journal %s), for each churn: "
             "a clean run `-y --all-free-if-lost --skip-zero --state-dir S` "
             "(the first run cannot trace deletions older than the ring and "
             "keeps no state unless that is answered), then churn.py through "
             "the kernel (loop mount, `noinit_itable,noatime`: of the picked "
             "fraction of the files a "
             "third deleted, a third appended to, a sixth renamed; as many "
             "created as deleted, half of them in a new `+s` directory and a "
             "third of those deleted again; sync, umount), then, each cold "
             "(sync and drop_caches first), once: `-n` incremental and `-n "
             "--full` on the same image (each with a copy of S), then `-y "
             "--skip-zero` incremental on the image and `-y --skip-zero "
             "--full` on a copy of it, each as cron runs it, without `-v` "
             "(whose listing names every live `+s` file by its path, reading "
             "the directories up to the root: about 0.6 s cold on this image, "
             "for either kind).  Bytes read: every read of the image "
             "traced (readset.py, strace; distinct bytes), and the device "
             "reads GNU time counts."
             % (base.get("groups", "?"), base.get("desc_size", "?"),
                fmt_b(base.get("journal_bytes", 0))))
    L.append("- Floor: what an incremental run cannot skip, the journal "
             "the kernel wrote since the last run (every log block whose "
             "bytes changed between the clean run and the end of the "
             "churn, digests taken by readset.py jsum/jdiff: descriptors, "
             "commits, revokes, each copy, the fast-commit area) x the "
             "block size, plus the group descriptor blocks (%s).  The "
             "`-v` line's \"blocks logged since\" (distinct filesystem "
             "blocks, a block logged in five transactions counted once) "
             "is shown beside it: it was the floor until 2026-12-07, and "
             "is smaller." % fmt_b(base.get("gdt_bytes", 0)))
    L.append("")
    L.append("### The churns")
    L.append("")
    L.append("| churn | files listed | deleted (of them +s) | appended | "
             "renamed | created (+s; +s deleted again) | churn s | "
             "distinct blocks logged since | journal written since | "
             "floor |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for im in churns:
        f = facts.get(im, {})
        g = lambda k, d="?": f.get(k, d)
        bs = int(base.get("block_size", 4096))
        L.append("| %s | %s | %s (%s) | %s | %s | %s (%s; %s) | %s | %s blocks "
                 "(%s) | %s blocks (%s) | %s |" % (
                     im.split("@")[1], g("churn_listed"), g("churn_deleted"),
                     g("churn_secrm_hit"), g("churn_appended"),
                     g("churn_renamed"), g("churn_created"),
                     g("churn_created_secrm"),
                     g("churn_created_secrm_deleted"), g("churn_s"),
                     g("logged_blocks"),
                     fmt_b(int(g("logged_blocks", "0")) * bs),
                     g("journal_written_blocks"),
                     fmt_b(int(g("journal_written_blocks", "0")) * bs),
                     fmt_b(g("floor_bytes", 0))))
    L.append("")
    L.append("### Results (cold; `-n`: median of two runs, one in each "
             "order; `-y`: one run)")
    L.append("")
    L.append("| churn | command | kind (groups read) | distinct bytes read "
             "(strace) | bytes read (rchar) | device reads | seconds | max "
             "RSS | bytes / full | bytes / floor | time / full | plan = "
             "`--full`'s |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    errors = []
    for im in churns:
        f = facts.get(im, {})
        floor = num(f.get("floor_bytes"))
        for t, desc in INC_TOOLS:
            r = row.get((im, t))
            if r is None:
                continue
            if int(r["rc"]) >= 8:
                errors.append("%s %s: exit status %s" % (im, t, r["rc"]))
            kind = "%s (%s)" % (f.get(t + "_run", "?"),
                                f.get(t + "_groups_read", "?"))
            uniq = f.get("readset_%s_bytes_unique" % t)
            dev = float(r["in_kib"]) * 1024
            full = "full-" + t.split("-")[1]
            fuq = f.get("readset_%s_bytes_unique" % full)
            fdev = float(row[(im, full)]["in_kib"]) * 1024 if (im, full) in row else None
            inc = t.startswith("inc")
            rchar = num(r["bytes"]) if r.get("note") == "rchar" else None
            frchar = (num(row[(im, full)]["bytes"])
                      if (im, full) in row and
                      row[(im, full)].get("note") == "rchar" else None)
            if uniq is not None:
                by_full = ratio(uniq, fuq)
                by_floor = ratio(uniq, floor)
            elif rchar is not None:
                by_full = ratio(rchar, frchar)
                by_floor = ratio(rchar, floor)
            else:
                by_full = ratio(dev, fdev)
                by_floor = ratio(dev, floor)
            tfull = ratio(r["seconds"], row[(im, full)]["seconds"]) if (im, full) in row else None
            eq = f.get("plans_equal_" + t.split("-")[1], "?") if inc else ""
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                im.split("@")[1], desc, kind,
                fmt_b(uniq) if uniq is not None else "-",
                fmt_b(rchar) if rchar is not None else "-",
                fmt_b(dev), fmt_s(num(r["seconds"])),
                fmt_b(float(r["maxrss_kib"]) * 1024),
                fr(by_full, 0.25 if inc else None) if inc else "1",
                fr(by_floor, 2 if inc else None),
                fr(tfull, 0.25 if inc else None) if inc else "1",
                ("**%s**" % eq if eq == "no" else eq)))
        if f.get("y_skipped"):
            L.append("| %s | `-y` | skipped: %s | | | | | | | | | |" % (
                im.split("@")[1], f["y_skipped"]))
    L.append("")
    L.append("Bytes: distinct bytes are every byte range the run read from "
             "the image, traced by readset.py (strace) in a separate, untimed "
             "run; rchar is what the timed run's read calls returned "
             "(/proc/PID/io, repeats and holes included); device reads are "
             "GNU time's inputs, cold.  Ratios use the distinct bytes "
             "(a `-y` run is traced on the work copy before the timed one, "
             "and the churned image put back after; rchar where a row has "
             "no trace).  Device reads are not comparable "
             "across copies: `--full -y` runs on a `cp --sparse=always` copy "
             "of the churned image, where the blocks the clean run zeroed "
             "(the journal's stale copies, free space) became holes, read "
             "with no I/O.  Max RSS is not below about 11 MiB, the io "
             "wrapper's (the kernel keeps a forked child's peak across "
             "exec).  Targets (issue 37): incremental bytes <= 0.25 x "
             "the full run's and <= 2 x the floor, time <= 0.25 x the full "
             "run's, the plan (`jq -S .actions` of `--json-plan`) equal to "
             "`--full`'s.")
    L.append("")
    L.append("### Where the runs' bytes go (distinct bytes, strace)")
    L.append("")
    L.append("| churn | command | journal | inode tables | bitmaps | "
             "superblock + descriptors | the rest (directories, maps, +s "
             "records' blocks) | total |")
    L.append("|---|---|---|---|---|---|---|---|")
    for im in churns:
        f = facts.get(im, {})
        for t in ("inc-n", "full-n", "inc-y", "full-y"):
            k = lambda c: f.get("split_%s_%s" % (t, c))
            if k("journal") is None:
                continue
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                im.split("@")[1], t, fmt_b(k("journal")), fmt_b(k("itable")),
                fmt_b(k("bitmaps")), fmt_b(k("sbgdt")), fmt_b(k("other")),
                fmt_b(f.get("readset_%s_bytes_unique" % t, 0))))
    L.append("")
    L.append("What each run said of its kind (and an incremental one of "
             "the journal):")
    L.append("")
    for im in churns:
        f = facts.get(im, {})
        for t, _ in INC_TOOLS:
            v = f.get(t + "_vline")
            j = f.get(t + "_jline")
            if v:
                L.append("- %s %s: `%s`%s" % (
                    im.split("@")[1], t, v.split(": ", 1)[-1],
                    "; `%s`" % j if j else ""))
    if errors:
        L.append("")
        L.append("Errors in this run: " + "; ".join(errors))
    L.append("")
    L.append(INC_END)
    section = "\n".join(L)
    try:
        text = open(out).read()
    except OSError:
        text = ""
    rest, _ = cut(text, INC_BEGIN, INC_END)
    open(out, "w").write(rest.rstrip("\n") + "\n\n" + section + "\n")
    print(section)
    sys.exit(1 if errors else 0)


def main():
    if sys.argv[1] == "--incremental":
        return inc_main(*sys.argv[2:6])
    if sys.argv[1] == "--scale":
        return scale_main(*sys.argv[2:6])
    tsv, facts_path, out, e2secrm = sys.argv[1:5]
    # Several runs may be merged: A.tsv+B.tsv, FA.tsv+FB.tsv.
    rows = []
    for t in tsv.split("+"):
        rows += list(csv.DictReader(open(t), delimiter="\t"))
    facts = {}
    lines = []
    for fp in facts_path.split("+"):
        lines += open(fp).readlines()
    for line in lines:
        parts = line.rstrip("\n").split("\t")
        if len(parts) == 3:
            facts.setdefault(parts[0], {})[parts[1]] = parts[2]
    images = []
    for r in rows:
        if r["image"] not in images:
            images.append(r["image"])
    data = {}
    errors = []
    for r in rows:
        key = (r["image"], r["cache"], r["tool"])
        d = data.setdefault(key, {"s": [], "rss": [], "bytes": [],
                                  "user": [], "sys": [], "note": r["note"]})
        rc = int(r["rc"])
        bad = rc >= 8 if r["tool"] in E2SECRM_TOOLS else rc != 0
        if r["tool"] == "fsck" and rc in (0,):
            bad = False
        if bad:
            errors.append("%s %s %s run %s: exit status %d" %
                          (r["image"], r["cache"], r["tool"], r["rep"], rc))
        d["s"].append(float(r["seconds"]))
        d["rss"].append(int(r["maxrss_kib"] or 0))
        d["bytes"].append(int(r["bytes"] or 0))
        d["user"].append(float(r["user"] or 0))
        d["sys"].append(float(r["sys"] or 0))

    def med(im, ca, tool, what="s"):
        d = data.get((im, ca, tool))
        if not d and ca == "warm":
            d = data.get((im, "cold", tool))  # slow: run cold only
        if not d or not d[what]:
            return None
        return statistics.median(d[what])

    def nruns(im, ca, tool):
        d = data.get((im, ca, tool))
        return len(d["s"]) if d else 0

    L = []
    now = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
    ver = sh("%s -V 2>&1 | head -1" % e2secrm)
    rev = sh("git -C %s rev-parse --short HEAD 2>/dev/null" %
             os.path.dirname(os.path.abspath(__file__)))
    L.append("# e2secrm benchmarks")
    L.append("")
    L.append("Regenerated by `make bench` (tests/bench/bench.sh); do not "
             "edit by hand.")
    L.append("")
    L.append("- Date: %s" % now)
    L.append("- Machine: %s" % machine())
    L.append("- e2secrm: %s, tree %s" % (ver, rev or "?"))
    reps = max((int(r["rep"]) for r in rows), default=0)
    L.append("- Runs: each command %d time(s) cold (drop_caches before "
             "every timed command) and warm (page cache holding the copy); "
             "figures are medians; every run on a copy of the cached image "
             "(`cp --sparse=always`), a fresh copy for every writing run."
             % reps)
    L.append("")
    L.append("## Images")
    L.append("")
    L.append("| image | size | files | +s | deleted (+s) | journal | "
             "inode tables read (all) | groups (inode-uninit) | on disk | "
             "build: journal fill + files = total |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for im in images:
        f = facts.get(im, {})
        g = lambda k: f.get(k, "?")
        L.append("| %s | %s | %s | %s | %s (%s) | %s | %s (%s) | %s (%s) | "
                 "%s | %s + %s = %s s |" % (
                     im, g("meta_size"), g("meta_files"), g("meta_secrm"),
                     g("meta_deleted"), g("meta_deleted_secrm"),
                     fmt_b(g("journal_bytes")),
                     fmt_b(g("itable_bytes_init")),
                     fmt_b(g("itable_bytes_all")), g("groups"),
                     g("groups_inode_uninit"),
                     fmt_b(int(g("meta_allocated_kib")) * 1024),
                     g("meta_build_journal_fill_s"), g("meta_build_files_s"),
                     g("meta_build_total_s")))
    L.append("")
    L.append("Build times are those of the cached image's own build (the "
             "`built` time in `$BENCH_DIR/NAME.meta`); a cached image costs "
             "nothing to reuse.")
    L.append("")
    L.append("## Results: median seconds (max RSS)")
    L.append("")
    L.append("| image | cache | " + " | ".join(TOOLS) + " |")
    L.append("|---|---|" + "---|" * len(TOOLS))
    for im in images:
        for ca in ("cold", "warm"):
            cells = []
            for t in TOOLS:
                s = med(im, ca, t)
                if s is None:
                    cells.append("-")
                    continue
                rss = max(data.get((im, ca, t), data.get((im, "cold", t),
                                                       {"rss": [0]}))["rss"])
                n = nruns(im, ca, t)
                cell = "%s (%s)" % (fmt_s(s), fmt_b(rss * 1024))
                if n == 0:
                    cell += " cold run"
                elif n < reps:
                    cell += " n=%d" % n
                cells.append(cell)
            L.append("| %s | %s | %s |" % (im, ca, " | ".join(cells)))
    L.append("")
    for t in TOOLS:
        L.append("- %s: %s" % (t, TOOL_DESC[t]))
    L.append("")
    L.append("Bytes written: ")
    L.append("")
    L.append("| image | e2secrm -y wiped | --all-free wiped | --all-free "
             "method |")
    L.append("|---|---|---|---|")
    for im in images:
        ey = med(im, "cold", "ey", "bytes")
        eaf = med(im, "cold", "eaf", "bytes")
        meth = facts.get(im, {}).get("allfree_flags", "none")
        L.append("| %s | %s | %s | %s |" % (
            im, fmt_b(ey or 0), fmt_b(eaf or 0),
            "zero (writes)" if meth == "none" else meth + " (holes punched, "
            "no dd write to compare)"))
    L.append("")

    # Targets.
    L.append("## Targets")
    L.append("")
    L.append("| image | cache | ey / fsck (<= 0.5) | zf / eaf (>= 2) | "
             "eaf / ddwaf (<= 1.25) | walk speed / dd speed = ddj / jmap "
             "(>= 0.8) |")
    L.append("|---|---|---|---|---|---|")

    def ratio(a, b):
        if a is None or b is None or b == 0:
            return None
        return a / b

    def cell(r, ok):
        if r is None:
            return "n/a"
        return "%.2f %s" % (r, "met" if ok(r) else "**missed**")

    for im in images:
        for ca in ("cold", "warm"):
            r1 = ratio(med(im, ca, "ey"), med(im, ca, "fsck"))
            r2 = ratio(med(im, ca, "zf"), med(im, ca, "eaf"))
            r3 = ratio(med(im, ca, "eaf"), med(im, ca, "ddwaf"))
            r4 = ratio(med(im, ca, "ddj"), med(im, ca, "jmap"))
            L.append("| %s | %s | %s | %s | %s | %s |" % (
                im, ca, cell(r1, lambda r: r <= 0.5),
                cell(r2, lambda r: r >= 2), cell(r3, lambda r: r <= 1.25),
                cell(r4, lambda r: r >= 0.8)))
    L.append("")
    big = [im for im in images if facts.get(im, {}).get("meta_size") == "2T"]
    for im in big:
        rss = max(max(data[k]["rss"]) for k in data
                  if k[0] == im and k[2] in E2SECRM_TOOLS)
        L.append("- Max RSS of e2secrm on the 2 TiB image (%s): %s: %s "
                 "(target <= 64 MiB)" % (
                     im, fmt_b(rss * 1024),
                     "met" if rss <= 65536 else "**missed**"))
        for t in E2SECRM_TOOLS:
            k = [max(data[k]["rss"]) for k in data
                 if k[0] == im and k[2] == t]
            if k:
                L.append("  - %s: %s" % (t, fmt_b(max(k) * 1024)))
    if not big:
        L.append("- Max RSS on the 2 TiB image: not measured in this run.")
    L.append("")

    # Slope of cost against inode-table + journal bytes.
    pts = []
    for im in images:
        f = facts.get(im, {})
        try:
            x = (int(f["itable_bytes_init"]) + int(f["journal_bytes"])) / 2**30
        except (KeyError, ValueError):
            continue
        pts.append((im, x))
    if len(pts) >= 2:
        L.append("### Cost against inode-table + journal bytes")
        L.append("")
        L.append("x = bytes of inode tables in initialised groups + journal "
                 "bytes. Slope in seconds per GiB of x; linear would make "
                 "the per-GiB figure the same for every image.")
        L.append("")
        L.append("| image | x (GiB) | " + " | ".join(
            "%s %s s (s/GiB)" % (t, ca) for t in ("en", "ey", "fsck")
            for ca in ("cold", "warm")) + " |")
        L.append("|---|---|" + "---|" * 6)
        for im, x in pts:
            cells = []
            for t in ("en", "ey", "fsck"):
                for ca in ("cold", "warm"):
                    s = med(im, ca, t)
                    cells.append("-" if s is None else "%s (%.3f)" %
                                 (fmt_s(s), s / x))
            L.append("| %s | %.3f | %s |" % (im, x, " | ".join(cells)))
        L.append("")
        for t in ("en", "ey"):
            for ca in ("cold", "warm"):
                xy = [(x, med(im, ca, t)) for im, x in pts
                      if med(im, ca, t) is not None]
                if len(xy) < 2:
                    continue
                segs = []
                for (x0, y0), (x1, y1) in zip(xy, xy[1:]):
                    if x1 != x0:
                        segs.append("%.3f" % ((y1 - y0) / (x1 - x0)))
                mx = sum(x for x, _ in xy) / len(xy)
                my = sum(y for _, y in xy) / len(xy)
                sxx = sum((x - mx) ** 2 for x, _ in xy)
                slope = (sum((x - mx) * (y - my) for x, y in xy) / sxx
                         if sxx else 0)
                L.append("- %s %s: least-squares slope %.3f s/GiB, "
                         "intercept %.3f s; pairwise slopes %s s/GiB" %
                         (t, ca, slope, my - slope * mx, ", ".join(segs)))
        L.append("")

    L.append("## What makes figures optimistic")
    L.append("")
    L.append(
        "- The images are sparse files. Blocks never written (most free "
        "space of the 8 GiB and 2 TiB images, inode tables of groups the "
        "kernel never touched) read back as zeros with no I/O: `zerofree` "
        "and `e2fsck -fn` reading them, and e2secrm reading inode tables, "
        "cost only CPU and page-cache copies there, where a real disk "
        "would read. zerofree also skips writing a free block that reads as "
        "zeros, so on a sparse image it writes only what deleted files "
        "left, while `e2secrm --all-free` (method zero) writes every free "
        "block: the zf / eaf ratio favours zerofree here much more than on "
        "a disk that has been full once.")
    L.append(
        "- The journal is written for real (a data=journal filler of 1.25x "
        "the journal's size at build time), so `dd` of the journal and the "
        "journal walk read real blocks; cold figures of both are honest, "
        "warm ones read the page cache.")
    L.append(
        "- The disk is virtual; cold reads may still hit the host's cache. "
        "`dd` writes go through the page cache and end with fsync, as "
        "e2secrm's writes do (flush at the end of each phase).")
    L.append(
        "- On an image whose free space is over half the free disk, "
        "`--all-free` runs with `-m discard` (holes punched) and has no dd "
        "write to compare with.")
    L.append("")
    if errors:
        L.append("## Errors in this run")
        L.append("")
        for e in errors:
            L.append("- " + e)
        L.append("")
    _, section = split_scale(out)
    if section:
        L += ["", section, ""]
    open(out, "w").write("\n".join(L))
    print("\n".join(L))
    # A command that failed fails the bench; a missed target does not.
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
