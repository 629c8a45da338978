# plan.awk --- the operations of one aged filesystem, chosen from a seed;
# owned by tests/aged.  mkaged.sh runs them; check-aged.sh runs the plan
# again only to name the writer of each token left.
#
# It simulates what the operations do to files (inodes, names, the byte
# ranges each write put in a file) and prints them as shell lines for
# mkaged.sh to run on a mounted image.  Every write puts one "chunk" of
# repeated token lines in a file; only at the end, when the simulation
# knows which chunks are still part of a live file, does a chunk's token
# get its class:
#   KEEP-<tag>-cNNNNNN    the chunk is in a file that is live at the end
#   SECRET-<tag>-cNNNNNN  it was dropped (deleted, truncated, punched,
#                         replaced) and its file had the s flag
#   FREE-<tag>-cNNNNNN    it was dropped and its file never had the flag
# That is why the ops are kept in memory and printed in END: a line names
# its chunks as @C<id>@, replaced there by the token.
#
# Variables (-v): seed, cycles, nfiles (creates per cycle), tag,
# crash_end (1: the last cycle ends in a crash), maxkb (largest create),
# tokfile (token and class, one a line), livefile (live paths at the end).
#
# Randomness is our own Park-Miller generator, not awk's rand(): mawk and
# gawk differ, and an image must be the same wherever it is rebuilt.

function rnd(n) {
	rs = (rs * 16807) % 2147483647
	return int(n * (rs / 2147483647))
}
function between(a, b) { return a + rnd(b - a + 1) }
function out(s) { ops[++nops] = s }

# A new chunk of a file, at the file's end.
function chunk(f, size,    c) {
	c = ++nch
	C_f[c] = f
	C_dead[c] = 0
	F_n[f]++
	F_c[f, F_n[f]] = c
	F_s[f, F_n[f]] = size
	F_size[f] += size
	return c
}
function hole(f, size) {
	F_n[f]++
	F_c[f, F_n[f]] = 0
	F_s[f, F_n[f]] = size
	F_size[f] += size
}
function newfile(plus) {
	nf++
	F_plus[nf] = plus
	F_nl[nf] = 0
	F_n[nf] = 0
	F_size[nf] = 0
	F_xa[nf] = 0
	return nf
}
function addname(p, f) {
	N_f[p] = f
	NL[++nn] = p
	NI[p] = nn
	F_nl[f]++
}
function delname(p,    i, f) {
	f = N_f[p]
	i = NI[p]
	NL[i] = NL[nn]
	NI[NL[i]] = i
	delete NL[nn]
	nn--
	delete NI[p]
	delete N_f[p]
	F_nl[f]--
	if (F_nl[f] == 0)
		killfile(f)
}
function killdata(f,    i) {
	for (i = 1; i <= F_n[f]; i++)
		if (F_c[f, i])
			C_dead[F_c[f, i]] = 1
}
function killfile(f) {
	killdata(f)
	if (F_xa[f])
		C_dead[F_xa[f]] = 1
}
function adddir(p, plus, root) {
	D[++nd] = p
	DI[p] = nd
	D_plus[p] = plus
	D_root[p] = root
}
function deldir(p,    i) {
	i = DI[p]
	D[i] = D[nd]
	DI[D[i]] = i
	delete D[nd]
	nd--
	delete DI[p]
	delete D_plus[p]
	delete D_root[p]
}
function dirof(p) { sub(/\/[^\/]*$/, "", p); return p }
function base(p) { sub(/.*\//, "", p); return p }
function size_create(    r) {
	r = rnd(100)
	if (r < 70)
		return between(64, 8192)
	if (r < 95)
		return between(8192, 65536)
	return between(65536, maxkb * 1024)
}

# create DIR: a new file; in a +s directory it inherits the flag, in a
# plain one it gets it from chattr with a quarter's chance, set while the
# file is still empty.
function create(d,    p, f, plus, c, x) {
	p = d "/f" (++serial)
	plus = D_plus[d] || rnd(100) < 25
	f = newfile(plus)
	addname(p, f)
	if (plus && !D_plus[d])
		out("mkplus " p)
	c = chunk(f, size_create())
	out("wr " p " @C" c "@ " F_s[f, F_n[f]])
	# Some xattr values: short ones stay in the inode, long ones take
	# an EA block.
	if (rnd(100) < 8) {
		x = ++nch
		C_f[x] = f
		C_dead[x] = 0
		F_xa[f] = x
		out("xa " p " @C" x "@ " (rnd(2) ? between(40, 90) : between(400, 900)))
	}
	return f
}
function pickname() { return nn ? NL[between(1, nn)] : "" }
function pickdir(plain_only,    d, tries) {
	for (tries = 0; tries < 20; tries++) {
		d = D[between(1, nd)]
		if (!plain_only || D_root[d] == "")
			return d
	}
	return "d0"
}

function op_append(    p, f, c) {
	if ((p = pickname()) == "") return
	f = N_f[p]
	c = chunk(f, between(256, 32768))
	out("ap " p " @C" c "@ " F_s[f, F_n[f]])
}
# An editor's save: swap file beside the file, the new text written to a
# temporary name (with the old file's s flag, as an editor keeping
# attributes would), renamed over the old name, swap removed.
function op_editor(    p, f, d, b, sw, nw, sf, g, c, sz) {
	if ((p = pickname()) == "") return
	f = N_f[p]
	d = dirof(p)
	b = base(p)
	sw = d "/." b ".swp"
	nw = d "/." b ".new"
	sf = newfile(D_plus[d])
	c = chunk(sf, between(1024, 12288))
	out("wf " sw " @C" c "@ " F_s[sf, 1])
	g = newfile(F_plus[f] || D_plus[d])
	addname(nw, g)
	if (F_plus[g] && !D_plus[d])
		out("mkplus " nw)
	sz = int(F_size[f] * between(75, 125) / 100)
	if (sz < 64) sz = between(64, 4096)
	c = chunk(g, sz)
	out("wf " nw " @C" c "@ " sz)
	out("mvf " nw " " p)
	delname(p)
	addname(p, g)
	delname(nw)
	out("rmf " sw)
	killfile(sf)
}
# truncate: drop the last piece (chunk or hole) or grow by a hole;
# sometimes to zero.
function op_truncate(    p, f, i) {
	if ((p = pickname()) == "") return
	f = N_f[p]
	if (rnd(100) < 10) {
		killdata(f)
		F_n[f] = 0
		F_size[f] = 0
		out("tr " p " 0")
		return
	}
	if (F_n[f] >= 2 && rnd(100) < 60) {
		i = F_n[f]
		if (F_c[f, i])
			C_dead[F_c[f, i]] = 1
		F_size[f] -= F_s[f, i]
		F_n[f]--
		out("tr " p " " F_size[f])
	} else {
		hole(f, between(4096, 65536))
		out("tr " p " " F_size[f])
	}
}
# punch: a whole chunk in the middle of a file becomes a hole.
function op_punch(    p, f, i, off, k) {
	if ((p = pickname()) == "") return
	f = N_f[p]
	if (F_n[f] < 3) return
	i = between(2, F_n[f] - 1)
	if (!F_c[f, i]) return
	off = 0
	for (k = 1; k < i; k++)
		off += F_s[f, k]
	C_dead[F_c[f, i]] = 1
	F_c[f, i] = 0
	out("ph " p " " off " " F_s[f, i])
}
function op_link(    p, q) {
	if ((p = pickname()) == "") return
	q = pickdir(1) "/l" (++serial)
	out("lk " p " " q)
	addname(q, N_f[p])
}
function op_unlink(    p) {
	if ((p = pickname()) == "") return
	out("rmf " p)
	delname(p)
}
function op_rename(    p, q, f) {
	if ((p = pickname()) == "") return
	q = pickdir(0) "/r" (++serial)
	f = N_f[p]
	out("mvf " p " " q)
	# The new name first, so that dropping the old one kills nothing.
	addname(q, f)
	delname(p)
}
function op_mkdir(    d, plus) {
	d = pickdir(1) "/d" (++serial)
	plus = D_plus[dirof(d)] || rnd(100) < 30
	out("md " d)
	if (plus && !D_plus[dirof(d)])
		out("splus " d)
	adddir(d, plus, "")
}
# A +s tree: a directory with the flag, two subdirectories that inherit
# it, files in all three; removed later with rm -rf.
function op_tree(    r, n, i, d) {
	r = "d" between(0, 7) "/t" (++serial)
	out("md " r)
	out("splus " r)
	adddir(r, 1, r)
	out("md " r "/a")
	out("md " r "/b")
	adddir(r "/a", 1, r)
	adddir(r "/b", 1, r)
	T[++nt] = r
	n = between(5, 20)
	for (i = 0; i < n; i++) {
		d = r
		if (i % 3 == 1) d = r "/a"
		if (i % 3 == 2) d = r "/b"
		create(d)
	}
}
function op_rmtree(    k, r, i, p, cnt, names, dirs) {
	if (nt == 0) return
	k = between(1, nt)
	r = T[k]
	T[k] = T[nt]
	delete T[nt]
	nt--
	out("rmtree " r)
	cnt = 0
	for (i = 1; i <= nn; i++)
		if (index(NL[i], r "/") == 1)
			names[++cnt] = NL[i]
	for (i = 1; i <= cnt; i++)
		delname(names[i])
	cnt = 0
	for (i = 1; i <= nd; i++)
		if (D_root[D[i]] == r)
			dirs[++cnt] = D[i]
	for (i = 1; i <= cnt; i++)
		deldir(dirs[i])
}
# The fast-commit case: +s temporary files written and fsync'ed, grown
# and fsync'ed again, unlinked at once (one after the other), while other
# files are appended to and fsync'ed in a second process beside them.
function op_storm(    n, i, d, p, f, c, m, q) {
	out("(")
	n = between(3, 8)
	for (i = 0; i < n; i++) {
		d = pickdir(1)
		p = d "/tmp" (++serial)
		f = newfile(1)
		if (!D_plus[d])
			out("mkplus " p)
		c = chunk(f, between(1024, 24576))
		out("wf " p " @C" c "@ " F_s[f, 1])
		c = chunk(f, between(4096, 65536))
		out("ap " p " @C" c "@ " F_s[f, 2])
		out("rmf " p)
		out("fsd " d)
		killfile(f)
	}
	out(") &")
	out("(")
	m = between(4, 10)
	for (i = 0; i < m; i++) {
		if ((q = pickname()) == "") break
		f = N_f[q]
		c = chunk(f, between(256, 16384))
		out("ap " q " @C" c "@ " F_s[f, F_n[f]])
	}
	out(") &")
	out("wait")
}

BEGIN {
	rs = seed % 2147483646 + 1
	rnd(1); rnd(1)
	nops = nch = nf = nn = nd = nt = serial = 0
	for (cy = 1; cy <= cycles; cy++) {
		# The middle cycle always ends in a crash, others by chance;
		# the last only when asked (crash_end).
		crash = (cy == cycles) ? crash_end : \
			(cy > 1 && (cy == int((cycles + 1) / 2) || rnd(100) < 20))
		out("begin_cycle " cy)
		# Eight top directories, every other one +s.
		for (i = 0; cy == 1 && i < 8; i++) {
			out("md d" i)
			if (i % 2) out("splus d" i)
			adddir("d" i, i % 2, "")
		}
		budget = nfiles * 2
		# Somewhere in the cycle, a pause longer than a short commit
		# interval (mkaged.sh decides how long), so that commit=5
		# means timer commits between the operations.
		tick = rnd(budget)
		for (k = 0; k < budget; k++) {
			if (k == tick) out("tick")
			r = rnd(100)
			if (r < 45) create(pickdir(0))
			else if (r < 55) op_append()
			else if (r < 62) op_editor()
			else if (r < 67) op_truncate()
			else if (r < 71) op_punch()
			else if (r < 75) op_link()
			else if (r < 89) op_unlink()
			else if (r < 95) op_rename()
			else if (r < 97) op_mkdir()
			else if (r < 98) op_tree()
			else if (r < 99) op_rmtree()
			else op_storm()
		}
		# Before a crash, what is not fsync'ed is made durable, so
		# that the plan and the disk agree on every file; the storm
		# after it is all fsync's and unlinks, which the journal
		# commit of shutdown -f keeps.
		if (crash) out("sync")
		op_storm()
		out("end_cycle " cy " " (crash ? "crash" : "clean"))
	}
}

END {
	for (c = 1; c <= nch; c++) {
		if (!C_dead[c] && F_nl[C_f[c]] > 0) cls = "KEEP"
		else if (F_plus[C_f[c]]) cls = "SECRET"
		else cls = "FREE"
		tok[c] = sprintf("%s-%s-c%06d", cls, tag, c)
		print tok[c], cls > tokfile
	}
	for (i = 1; i <= nops; i++) {
		s = ops[i]
		while (match(s, /@C[0-9]+@/)) {
			c = substr(s, RSTART + 2, RLENGTH - 3) + 0
			s = substr(s, 1, RSTART - 1) tok[c] substr(s, RSTART + RLENGTH)
		}
		print s
	}
	for (i = 1; i <= nn; i++)
		print NL[i] > livefile
}
