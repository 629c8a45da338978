# t_foreign.sh --- another project's corrupt and odd images: e2fsprogs'
# own test images (tests/*/image.gz and image.bz2 of its source package,
# which tests/install-deps.sh unpacks into $E2SECRM_FOREIGN_DIR).  This
# project made none of them, so they hold damage its own corpus does not
# think of.
#
# Each image runs three times, -f given (many are marked not clean):
#
#   shipped  as it is, with --all-free --free-inodes: every free block
#            and record is written, so a block or record taken for free
#            that is not shows;
#   flagged  every record that ever held a file made +s
#            (e2secrm-fstool flag), default mode: every deleted file's
#            blocks, names, records and journal copies are wiped, every
#            live one's kept;
#   sanitize flagged again, with --sanitize: the disposal mode, every
#            free block and record, all the journal, all directory slack.
#
# And is judged by what a user would check:
#
#   - -n writes nothing and exits 0, 4 or 8;
#   - -y, run through tests/e2secrm-cut uncut, writes nothing before
#     every check has passed (t_gate's gate);
#   - -n and -y agree on refusing (exit bit 8), and on finding nothing
#     (exit 0);
#   - a refused -y wrote nothing and named the image in its message;
#   - otherwise -y exits 0, 1, 4 or 5; -n's actions (--json-plan) are
#     -y's, and -y wrote them, in order; and e2fsck -fy makes the same
#     tree of the image before and after it (every name reached from the
#     root, its mode, size and link target, every mapped block as it
#     reads: e2secrm-fstool tree; nothing live was lost, whatever the
#     damage); in the default mode, a second -y has nothing left to
#     wipe (no exit bit 1): what the first planned, it wrote;
#   - no live record (its bit set in the inode bitmap) is edited but
#     where the plan says so, and never one the run questioned: every
#     record whose raw bytes -y changed (e2secrm-fstool records, against
#     the image as given, or as e2fsck -E journal_only replays it when it
#     needs recovery) is an inline directory whose removed names -y's
#     plan lists (a names action naming it), and is not in the JSON's
#     questioned list (lib/find/sanity.c: flags or maps that contradict each
#     other are left for e2fsck).
#
# No status >= 124 (a hang or a crash).  One PASS or FAIL per image and
# run; the whole is skipped, as skipped, when the images are not there.
. "$(dirname "$0")/../lib.sh"

FOREIGN=${E2SECRM_FOREIGN_DIR:-/var/cache/e2secrm-tests/e2fsprogs}
FSTOOL=${E2SECRM_FSTOOL:-$(dirname "$E2SECRM")/../tests/e2secrm-fstool}

if [ ! -f "$FOREIGN/.complete-tests" ]; then
	skip foreign "e2fsprogs' test images not in $FOREIGN (install-deps.sh)"
	exit 0
fi
GATE=${E2SECRM_CUT_PROG:-$(dirname "$E2SECRM")/../tests/e2secrm-cut}
if [ ! -x "$GATE" ]; then
	fail foreign "no $GATE (make check builds it)"
	exit 0
fi
if [ ! -x "$FSTOOL" ]; then
	fail foreign "no $FSTOOL (make check builds it)"
	exit 0
fi

W=$T/w
mkdir -p "$W"

# unpack SRC DST: the image of one e2fsprogs test.
unpack() {
	case $1 in
	*.gz)	gzip -dc "$1" >"$2" ;;
	*.bz2)	bzip2 -dc "$1" >"$2" ;;
	esac
}

# tree IMG OUT [JOURNAL]: what a user reads of IMG once e2fsck -fy has
# repaired it (with its external JOURNAL, if it has one).
tree() {
	timeout 120 e2fsck -fy ${3:+-j "$3"} "$1" >/dev/null 2>&1
	timeout 120 "$FSTOOL" tree "$1" >"$2" 2>&1
	echo "exit $?" >>"$2"
}

# live_edits ORIG: the live records -y edited in $W/y.img that its plan
# does not name, or that it questioned; prints them, one a line, with
# why.  ORIG as -y saw it: replayed first when it needs recovery.
live_edits() {
	cp "$1" "$W/b.img"
	[ -n "$JNL" ] && cp "$JNL" "$W/b.jnl"
	if dumpe2fs -h "$W/b.img" 2>/dev/null | grep -q needs_recovery; then
		timeout 60 e2fsck -fy -E journal_only ${JNL:+-j "$W/b.jnl"} \
			"$W/b.img" >/dev/null 2>&1
	fi
	# No bitmap to read: nothing is called live, nothing is checked.
	"$FSTOOL" records "$W/b.img" >"$W/rec.before" 2>/dev/null || return 0
	"$FSTOOL" records "$W/y.img" >"$W/rec.after" 2>/dev/null
	planned=" $(jq -r '.actions[]? | select(.kind == "names") | .inode' \
		"$W/y.json" 2>/dev/null | sort -u | tr '\n' ' ') "
	questioned=" $(jq -r '.questioned[]?.inode' "$W/y.json" 2>/dev/null |
		tr '\n' ' ') "
	awk 'NR == FNR { a[$1] = $2; next }
	     ($1 in a) && a[$1] != $2 { print $1 }' \
		"$W/rec.after" "$W/rec.before" |
	while read -r i; do
		case $questioned in
		*" $i "*) echo "$i (questioned)"; continue ;;
		esac
		case $planned in
		*" $i "*) ;;
		*) echo "$i (not planned)" ;;
		esac
	done
}

# judge NAME ORIG OPTIONS...: one image, one run, one verdict.
judge() {
	name=$1 orig=$2
	shift 2
	s0=$(sha "$orig")
	cp "$orig" "$W/n.img"
	rm -f "$W/n.json" "$W/y.json" "$W/n.jnl" "$W/y.jnl" "$W/r.jnl"
	# An external journal: each run gets its own copy, given with -j.
	if [ -n "$JNL" ]; then
		cp "$JNL" "$W/n.jnl"
		cp "$JNL" "$W/y.jnl"
		cp "$JNL" "$W/r.jnl"
	fi
	timeout 60 "$E2SECRM" -f -n "$@" ${JNL:+-j "$W/n.jnl"} \
		--json "$W/n.json" --json-plan "$W/n.img" >"$W/n.out" 2>&1
	rn=$?
	cp "$orig" "$W/y.img"
	# Through the gate (tests/e2secrm-cut, uncut): exit 98 on a write
	# before every check has passed.
	timeout 60 "$GATE" -f -y "$@" ${JNL:+-j "$W/y.jnl"} \
		--json "$W/y.json" --json-plan "$W/y.img" >"$W/y.out" 2>&1
	ry=$?
	if [ "$ry" = 98 ]; then
		fail "$name" "-y wrote before every check had passed"
		return
	fi
	if [ "$rn" -ge 124 ] || [ "$ry" -ge 124 ]; then
		fail "$name" "hang or crash: -n exit $rn, -y exit $ry"
		return
	fi
	if [ "$(sha "$W/n.img")" != "$s0" ]; then
		fail "$name" "-n wrote to the image"
		return
	fi
	case $rn in 0|4|8) ;; *)
		fail "$name" "-n exit $rn"; return ;;
	esac
	if [ $((rn & 8)) -ne $((ry & 8)) ]; then
		fail "$name" "-n exit $rn but -y exit $ry: refusals differ"
		return
	fi
	if [ $((ry & 8)) -ne 0 ]; then
		if [ "$(sha "$W/y.img")" != "$s0" ]; then
			fail "$name" "-y refused (exit $ry) but wrote"
		elif ! grep -q "$W/y.img" "$W/y.out"; then
			fail "$name" "-y refused without naming the image"
		else
			pass "$name"
		fi
		return
	fi
	case $ry in 0|1|4|5) ;; *)
		fail "$name" "-y exit $ry"; return ;;
	esac
	# -n found nothing exactly when -y found nothing.
	if [ $((rn == 0)) -ne $((ry == 0)) ]; then
		fail "$name" "-n exit $rn but -y exit $ry"
		return
	fi
	# Action for action: what -n planned, -y planned and wrote.
	n_plan=$(jq -c .actions "$W/n.json" 2>/dev/null)
	y_plan=$(jq -c .actions "$W/y.json" 2>/dev/null)
	y_done=$(jq -c .written "$W/y.json" 2>/dev/null)
	if [ -z "$n_plan" ] || [ "$n_plan" = null ] ||
	   [ "$n_plan" != "$y_plan" ] || [ "$y_plan" != "$y_done" ]; then
		fail "$name" "the actions of -n, -y's plan and -y's writes differ"
		return
	fi
	edits=$(live_edits "$orig")
	if [ -n "$edits" ]; then
		fail "$name" "-y edited live records: $(echo $edits)"
		return
	fi
	if [ $# -eq 0 ]; then
		cp "$W/y.img" "$W/again.img"
		timeout 60 "$E2SECRM" -f -y ${JNL:+-j "$W/y.jnl"} \
			"$W/again.img" >"$W/again.out" 2>&1
		ra=$?
		if [ "$ra" -ge 124 ] || [ $((ra & 1)) -ne 0 ]; then
			fail "$name" "a second -y exit $ra: $(head -c 300 "$W/again.out")"
			return
		fi
	fi
	cp "$orig" "$W/r.img"
	tree "$W/r.img" "$W/before" ${JNL:+"$W/r.jnl"}
	tree "$W/y.img" "$W/after" ${JNL:+"$W/y.jnl"}
	if ! diff "$W/before" "$W/after" >"$W/diff" 2>&1; then
		fail "$name" "e2fsck -fy's tree differs after -y (exit $ry): $(head -c 300 "$W/diff")"
		return
	fi
	pass "$name"
}

n=0
for src in "$FOREIGN"/tests/*/image.gz "$FOREIGN"/tests/*/image.bz2; do
	[ -f "$src" ] || continue
	test=$(basename "$(dirname "$src")")
	unpack "$src" "$W/orig.img" || continue
	# A test with its external journal (f_ext_journal) runs with it.
	JNL=
	if [ -f "$(dirname "$src")/journal.gz" ]; then
		gzip -dc "$(dirname "$src")/journal.gz" >"$W/orig.jnl" &&
			JNL=$W/orig.jnl
	fi
	judge "foreign $test shipped" "$W/orig.img" --all-free --free-inodes
	if "$FSTOOL" flag "$W/orig.img" >/dev/null 2>&1; then
		judge "foreign $test flagged" "$W/orig.img"
		judge "foreign $test flagged sanitize" "$W/orig.img" --sanitize
	fi
	n=$((n + 1))
done
if [ "$n" -lt 100 ]; then
	fail foreign "only $n images in $FOREIGN"
fi
