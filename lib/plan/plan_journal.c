/*
 * plan_journal.c --- which journal blocks hold residues of secure-delete
 * files.
 *
 * The journal part of the plan: every journal block that holds a
 * copy of a secure-delete record (found by discover.c), a copy of any
 * block of such a file's maps, live or historic (data with data=journal,
 * extent, indirect and EA blocks), a copy of a directory block that names
 * such an inode, live entry or removed, and every fast-commit block with
 * such an inode or name.  Every stale block of the log, attributed or
 * not (a later transaction may have overwritten its descriptor), is also
 * searched for the bytes of the names those entries gave, where no
 * header is left to say they are names.
 *
 * A copy that holds only a secure-delete file's residue goes whole (data,
 * tree blocks); a copy shared with other files (an inode table block, a
 * directory block) loses only the secure-delete bytes: the record's slot,
 * an entry's inode and name, the name bytes found.  The rest, other
 * files' residue included, is theirs, and the default mode promises to
 * touch only what belongs to secure-delete files.
 *
 * This file owns what is planned, and why: the record copies discovery
 * found, the copies of every map block, the entries and name bytes the
 * name search found (plan_journal_names.c), the fast-commit blocks, and
 * with --all-journal the whole log.  The entries themselves are
 * plan_journal_entry.c's; settling them against what the blocks hold is
 * plan_journal_settle.c's, and the descriptors' seals
 * plan_journal_seal.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <string.h>

#include "plan_journal_int.h"
#include "e2secrm.h"
#include "util.h"
#include "journal.h"
#include "find.h"

/* Copies of every block any map of a secure-delete file names. */
static errcode_t plan_map_copies(struct jplan *p)
{
	struct e2sr_ctx *ctx = p->ctx;
	const struct e2sr_version *v;
	size_t i, j, k, n;
	blk64_t b;
	errcode_t err;

	for (i = 0; i < ctx->inv.count; i++) {
		const struct e2sr_file *f = &ctx->inv.files[i];

		if (f->state == E2SR_STATE_ORPHAN ||
		    f->state == E2SR_STATE_UNCLEAR)
			continue;
		for (j = 0; j < f->map_count; j++) {
			const struct e2sr_extent *e = &f->map[j];

			for (b = e->pblk; b < e->pblk + e->len; b++) {
				v = e2sr_history_versions(&ctx->history, b,
							  &n);
				for (k = 0; k < n; k++) {
					err = e2sr_jplan_whole(&ctx->plan,
							       v[k].jblock,
							       E2SR_JWHY_MAP,
							       f->ino);
					if (err)
						return err;
				}
			}
		}
	}
	return 0;
}

/*
 * Every entry naming a secure-delete inode in a directory copy, from
 * what e2sr_journal_names noted: its inode, name length, type and name
 * go; its rec_len stays, so that the other entries of the copy still
 * chain as they did.
 */
static errcode_t plan_dir_copies(struct jplan *p)
{
	struct e2sr_ctx *ctx = p->ctx;
	__u32 *hashes;
	unsigned char *blob;
	size_t i, n, len;
	errcode_t err;

	if (!ctx->names.have) {
		err = e2sr_journal_names(ctx, &hashes, &n, &blob, &len);
		ext2fs_free_mem(&hashes);
		ext2fs_free_mem(&blob);
		if (err)
			return err;
	}
	for (i = 0; i < ctx->names.copy_count; i++) {
		const struct e2sr_name_copy *c = &ctx->names.copies[i];

		if (!e2sr_ino_set_has(&p->set, c->ino))
			continue;
		err = e2sr_jplan_part(&ctx->plan, c->jblock, E2SR_JWHY_NAME,
				      c->ino, c->off, 4);
		if (!err)
			err = e2sr_jplan_part(&ctx->plan, c->jblock,
					      E2SR_JWHY_NAME, c->ino,
					      c->off + 6, 2 + c->name_len);
		if (err)
			return err;
	}
	return 0;
}

struct bytes_plan {
	struct e2sr_plan	*plan;
	const struct e2sr_name_set *set;
	const unsigned char	*b;
	__u32			jblock;
	__u32			inodes;		/* s_inodes_count */
	unsigned int		from;		/* where the search begins */
	errcode_t		err;
};

/*
 * A name whose header is whole and names an inode is that inode's entry:
 * a secure-delete inode's is planned with its header, any other file's
 * is that file's, even with a secure-delete file's name.  A header is
 * whole only inside the range searched: one that begins before it
 * overlaps what is in use there, the entry before it.  When the kernel
 * packs a leaf's entries after a split, a live name's last bytes land on
 * a stale entry's inode field and leave its lengths as they were: the
 * number read there is name bytes, in range or not.
 */
static int bytes_hit(void *priv, unsigned int off, unsigned int len)
{
	struct bytes_plan *bp = priv;
	const unsigned char *h;
	unsigned int rec_len;
	__u32 ino;

	if (off >= bp->from + 8) {
		h = bp->b + off - 8;
		ino = e2sr_get_le32(h);
		rec_len = h[4] | (h[5] << 8);
		if (ino && ino <= bp->inodes && h[6] == len &&
		    rec_len >= 8 + len && !(rec_len & 3))
			return 0;
	}
	bp->err = e2sr_jplan_part(bp->plan, bp->jblock, E2SR_JWHY_NAMEBYTES, 0,
				  off, len);
	return bp->err != 0;
}

/* One place a name may lie without its header: searched. */
static int bytes_in_slack(void *priv, unsigned int from, unsigned int to)
{
	struct bytes_plan *bp = priv;

	bp->from = from;
	e2sr_name_set_scan(bp->set, bp->b, from, to, 4, bytes_hit, bp);
	return bp->err != 0;
}

/*
 * In a block that reads as a directory block, a name without its header
 * lies where no entry's name does (e2sr_jplan_slack()); elsewhere, the
 * whole range.
 */
static errcode_t name_bytes_in(struct e2sr_ctx *ctx, __u32 jblock,
			       const unsigned char *b, unsigned int from,
			       unsigned int to, int dir, void *priv)
{
	struct bytes_plan bp;

	bp.plan = &ctx->plan;
	bp.set = priv;
	bp.b = b;
	bp.jblock = jblock;
	bp.inodes = ctx->fs->super->s_inodes_count;
	bp.from = from;
	bp.err = 0;
	e2sr_jplan_slack(b, from, to, dir, bytes_in_slack, &bp);
	return bp.err;
}

static int cmp_key(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * What a block's kept index is asked for the names: the key of each's
 * first bytes, sorted.  Out of memory, none is asked: every block read.
 */
static void name_keys(const struct e2sr_name_cache *nc, struct name_query *q,
		      __u32 **keys)
{
	size_t i, n = 0;

	*keys = NULL;
	memset(q, 0, sizeof(*q));
	for (i = 0; i < nc->blob_len; i += 1 + nc->blob[i])
		if (nc->blob[i] >= E2SR_NAME_MIN)
			n++;
	if (!n || ext2fs_get_array(n, sizeof(**keys), keys))
		return;
	for (i = 0, n = 0; i < nc->blob_len; i += 1 + nc->blob[i])
		if (nc->blob[i] >= E2SR_NAME_MIN)
			(*keys)[n++] = e2sr_jplan_index_key(nc->blob + i + 1,
							    nc->blob[i]);
	qsort(*keys, n, sizeof(**keys), cmp_key);
	q->keys = *keys;
	q->nkeys = n;
}

/*
 * The bytes of every name the entries gave, wherever they stand in a
 * stale block, header or not: an htree split or a shorter name in the
 * same slot overwrites the header and leaves the name.  Entries start on
 * four bytes, and so do their names; a name is searched for only there,
 * so that the short names of secure-delete files do not cut into other
 * names.
 */
static errcode_t plan_name_bytes(struct jplan *p)
{
	struct e2sr_ctx *ctx = p->ctx;
	struct e2sr_name_set set;
	struct name_query q;
	__u32 *keys = NULL;
	errcode_t err;

	if (!ctx->names.blob_len)
		return 0;
	err = e2sr_name_set_init(&set, ctx->names.blob, ctx->names.blob_len);
	if (err || e2sr_name_set_empty(&set))
		goto out;
	name_keys(&ctx->names, &q, &keys);
	err = e2sr_jplan_name_blocks(ctx, keys ? &q : NULL, name_bytes_in,
				     &set);
out:
	ext2fs_free_mem(&keys);
	e2sr_name_set_free(&set);
	return err;
}

struct fc_plan {
	struct jplan	*p;
	ext2_ino_t	hit;
};

static errcode_t fc_rec(void *priv, const struct e2sr_fc_rec *rec)
{
	struct fc_plan *f = priv;

	if (!f->hit && e2sr_ino_set_has(&f->p->set, rec->ino))
		f->hit = rec->ino;
	return 0;
}

static errcode_t plan_fc_blocks(struct jplan *p)
{
	struct e2sr_ctx *ctx = p->ctx;
	struct e2sr_fcwalk fc;
	struct fc_plan f;
	const unsigned char *b;
	__u32 pos;
	errcode_t err;

	/* The walk says where the area is; each block is judged whole. */
	err = e2sr_fc_walk(ctx->journal, &fc);
	if (err)
		return err;
	f.p = p;
	for (pos = fc.first; pos < fc.end; pos++) {
		err = e2sr_journal_block(ctx->journal, pos, &b);
		if (err)
			break;
		f.hit = 0;
		err = e2sr_fc_parse_block(b, ctx->journal->blocksize, pos,
					  fc_rec, &f);
		if (err)
			break;
		if (!f.hit)
			continue;
		err = e2sr_jplan_whole(&ctx->plan, pos, E2SR_JWHY_FC, f.hit);
		if (err)
			break;
	}
	e2sr_fc_walk_free(&fc);
	return err;
}


errcode_t e2sr_plan_journal(struct e2sr_ctx *ctx)
{
	struct e2sr_plan *plan = &ctx->plan;
	struct jplan p;
	size_t i, n = 0;
	errcode_t err;

	plan->journal_count = 0;
	plan->journal_blocks = plan->journal_parts = 0;
	if (!ctx->journal)
		return 0;
	if (!ctx->history.built) {
		/* Discovery builds it; a run with no inventory may not. */
		err = e2sr_ring_history(ctx);
		if (err)
			return err;
	}
	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	/* The files left to e2fsck keep their copies with them. */
	err = e2sr_inventory_set(ctx, 1, &p.set);
	if (err)
		return err;
	n = p.set.n;

	for (i = 0; !err && i < ctx->inv.jcopy_count; i++) {
		if (!e2sr_ino_set_has(&p.set, ctx->inv.jcopies[i].ino))
			continue;	/* left to e2fsck with its file */
		err = e2sr_jplan_part(plan, ctx->inv.jcopies[i].jblock,
				      E2SR_JWHY_RECORD, ctx->inv.jcopies[i].ino,
				      ctx->inv.jcopies[i].off,
				      ctx->inv.jcopies[i].len);
		/* The versions that make the others its: last of all. */
		if (!err)
			plan->journal[plan->journal_count - 1].stage =
				ctx->inv.jcopies[i].flagged ||
				!ctx->inv.jcopies[i].len ?
				E2SR_JSTAGE_FLAGGED : E2SR_JSTAGE_RECORDS;
	}
	if (!err && n)
		err = plan_map_copies(&p);
	if (!err && n)
		err = plan_dir_copies(&p);
	if (!err && n)
		err = plan_name_bytes(&p);
	if (!err && n)
		err = plan_fc_blocks(&p);
	/* Disposal: the whole log and fast-commit area, once empty. */
	for (i = ctx->journal->jsb.first; !err &&
	     (plan->sanitize & E2SR_FREE_JOURNAL) &&
	     i < ctx->journal->jsb.maxlen; i++)
		err = e2sr_jplan_whole(plan, (__u32)i, E2SR_JWHY_ALL, 0);
	e2sr_ino_set_free(&p.set);
	if (err)
		return err;
	return e2sr_jplan_settle(ctx);
}
