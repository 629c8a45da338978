#!/bin/bash
# profile.sh --- profile one e2secrm run on a cached bench image (owned by
# tests/bench): syscall counts (strace -c), a perf call-graph profile
# (perf record -g, software cpu-clock), and optionally callgrind.
#
#   profile.sh IMAGE MODE [callgrind]
#     IMAGE  smoke small many huge (built by mkimage.sh first)
#     MODE   n (e2secrm -n), y (e2secrm -y), allfree (-y --all-free),
#            jmap (-n --journal-map)
#
# Output in $BENCH_DIR/profile/IMAGE-MODE.{strace,perf,callgrind}.txt.
# Writing modes run on a fresh copy for each tool.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${BENCH_DIR:=/var/tmp/e2secrm-bench}"
: "${E2SECRM:=$top/e2secrm/e2secrm}"
im=$1 mode=$2 cg=${3:-}
bash "$here/mkimage.sh" "$im"
case $mode in
n)	args="-n" ;;
y)	args="-y" ;;
allfree) args="-y --all-free" ;;
jmap)	args="-n --journal-map" ;;
*)	echo "profile.sh: unknown mode $mode" >&2; exit 16 ;;
esac
out=$BENCH_DIR/profile
mkdir -p "$out"
copy=$out/copy.img
trap 'rm -f "$copy" "$out/perf.data" "$out/perf.data.old"' EXIT
fresh() { rm -f "$copy"; cp --sparse=always "$BENCH_DIR/$im.img" "$copy"; sync; }
base=$out/$im-$mode

fresh
# shellcheck disable=SC2086
strace -c -f -o "$base.strace.txt" "$E2SECRM" $args "$copy" >/dev/null 2>&1 || true
echo "== $base.strace.txt"; head -25 "$base.strace.txt"

fresh
# shellcheck disable=SC2086
perf record -q -g -e cpu-clock -F 2000 -o "$out/perf.data" \
	"$E2SECRM" $args "$copy" >/dev/null 2>&1 || true
{
	echo "# perf report --no-children (self time), then callers"
	perf report -i "$out/perf.data" --stdio --no-children \
		--sort dso,sym -g none --percent-limit 0.5 2>/dev/null
	echo
	echo "# with children, call graph (caller), top entries"
	perf report -i "$out/perf.data" --stdio --children \
		--sort sym -g caller,0.5,callee --percent-limit 2 2>/dev/null |
		head -300
	echo
	echo "# source lines of the hottest symbols"
	perf report -i "$out/perf.data" --stdio --no-children \
		--sort sym,srcline -g none --percent-limit 0.5 2>/dev/null |
		head -80
} >"$base.perf.txt"
echo "== $base.perf.txt"; grep -v '^#' "$base.perf.txt" | grep -v '^$' | head -30

if [ "$cg" = callgrind ]; then
	fresh
	# shellcheck disable=SC2086
	valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" \
		"$E2SECRM" $args "$copy" >/dev/null 2>&1 || true
	callgrind_annotate --inclusive=no "$out/cg.out" 2>/dev/null |
		head -60 >"$base.callgrind.txt"
	rm -f "$out/cg.out"
	echo "== $base.callgrind.txt"; head -40 "$base.callgrind.txt"
fi
