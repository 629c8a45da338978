/*
 * e2secrm.h --- the interface of the e2secrm engine.
 *
 * The engine finds what is left of secure-delete (EXT2_SECRM_FL) files on
 * an unmounted ext2/3/4 filesystem and overwrites it.  It knows nothing of
 * argv, stdout or terminals: the command in e2secrm/ drives it through the
 * calls below and prints what it reports.  Every call returns an errcode_t
 * from libext2fs or from the e2sr error table (e2sr_err.et).
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#ifndef E2SECRM_H
#define E2SECRM_H

#include <signal.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>
#include "e2sr_err.h"
#include "journal.h"

/* The context holds overlays by pointer; they are lib/util's (util.h). */
struct e2sr_overlay;

#define E2SR_VERSION		"0.1.0"
#define E2SR_DATE		"3-Dec-2026"

/* What to wipe besides the residues of secure-delete files. */
#define E2SR_FREE_ALL		0x0001	/* every free block */
#define E2SR_FREE_IF_LOST	0x0002	/* E2SR_UNTRACED_ANSWER, if needed */
#define E2SR_FREE_JOURNAL	0x0004	/* every journal block but its sb */
#define E2SR_FREE_DIRSLACK	0x0008	/* every removed name in every dir */
#define E2SR_FREE_INODES	0x0010	/* every free inode record */
/* Where what no history traces may lie: all of it answers a loss. */
#define E2SR_UNTRACED_ANSWER	(E2SR_FREE_ALL | E2SR_FREE_JOURNAL | \
				 E2SR_FREE_DIRSLACK)
/* --sanitize: everything that is not live, for disposal. */
#define E2SR_SANITIZE		(E2SR_FREE_ALL | E2SR_FREE_JOURNAL | \
				 E2SR_FREE_DIRSLACK | E2SR_FREE_INODES)

/* Flags for e2sr_open() */
#define E2SR_OPEN_RDONLY	0x0001	/* -n: never write */
#define E2SR_OPEN_FORCE		0x0002	/* -f: accept a filesystem not clean */
#define E2SR_OPEN_LISTING	0x0004	/* --journal-map: read what is there */

/* How freed blocks are overwritten; names and inodes are always zeroed. */
enum e2sr_method {
	E2SR_METHOD_ZERO = 0,
	E2SR_METHOD_RANDOM,
	E2SR_METHOD_DISCARD,	/* discard where it reads back zeros */
	E2SR_METHOD_SECDISCARD,	/* BLKSECDISCARD, then as discard */
};

/* What a file is now, as far as the live inode table tells. */
enum e2sr_state {
	E2SR_STATE_LIVE = 0,	/* in the inode bitmap, linked */
	E2SR_STATE_ORPHAN,	/* in the inode bitmap, no links: e2fsck's */
	E2SR_STATE_DELETED,	/* free record that still carries the flag */
	E2SR_STATE_UNCLEAR,	/* bitmap and record or names disagree, or */
				/* the record itself (e2sr_file.questioned) */
	E2SR_STATE_HISTORIC,	/* only in the journal: record reused */
};

/* What a run of blocks in a block map holds. */
enum e2sr_extent_kind {
	E2SR_EXT_DATA = 0,	/* file contents */
	E2SR_EXT_UNWRITTEN,	/* preallocated: old bytes of anyone */
	E2SR_EXT_TREE,		/* extent index or leaf block */
	E2SR_EXT_IND,		/* indirect, double or triple indirect block */
	E2SR_EXT_EA,		/* extended attribute block */
};

/* Why a block map is incomplete. */
#define E2SR_MAP_EMPTY		0x0001	/* record holds no map at all */
#define E2SR_MAP_DAMAGED	0x0002	/* part of the map could not be read */
#define E2SR_MAP_REUSED		0x0004	/* part of the map is in use again */
#define E2SR_MAP_INLINE		0x0008	/* contents live in the record */
#define E2SR_MAP_SYMLINK	0x0010	/* fast symlink: target in i_block */
#define E2SR_MAP_JOURNAL	0x0020	/* maps read from journal copies */
#define E2SR_MAP_WIPED		0x0040	/* a tree block a run wiped, after */
					/* what it mapped (blockmap.c) */
#define E2SR_MAP_KEPT		0x0080	/* the map the last run kept of */
					/* it, live then (since.c) */
#define E2SR_MAP_UNPROVEN	0x0100	/* in use: what it (a directory: */
					/* a file made in it) may have */
					/* had between two full commits */
					/* cannot be accounted for */
					/* (discover_owners.c) */
/* What of a deleted map may have pointed to blocks we cannot know. */
#define E2SR_MAP_LOST		(E2SR_MAP_EMPTY | E2SR_MAP_DAMAGED | \
				 E2SR_MAP_REUSED)

/*
 * discover.c: a generation of an inode number that is an inventory
 * file's under another generation (a flag set late, after `chattr -v`).
 */
struct e2sr_gen {
	ext2_ino_t		ino;
	__u32			generation;
};

/*
 * intent.c: a life a run proved secure-delete, saved before its first
 * write for the run after a cut (never a name or content).
 */
struct e2sr_life {
	ext2_ino_t		ino;
	__u32			generation;
	__u32			lost;		/* E2SR_MAP_LOST bits it had */
};

/*
 * intent.c: what a run saw of the superblock when it saved its lives:
 * the fields only a mount (mount count, mount time) or e2fsck (last
 * check) change, never e2secrm.  A dd copy shares the UUID; a run that
 * finds them changed cannot tell the copy it runs on from the one the
 * lives were proved on (intent.c says what it trusts then).
 */
struct e2sr_fs_mark {
	__u32			mnt_count;	/* s_mnt_count */
	__u64			mtime;		/* s_mtime, with _hi */
	__u64			lastcheck;	/* s_lastcheck, with _hi */
};

/* watch_io.c: the first read or write the device failed for good. */
struct e2sr_io_failure {
	errcode_t		error;
	int			write;
	unsigned long long	block;		/* in block_size units */
	unsigned int		count;		/* blocks, or 1 for bytes */
	unsigned int		bytes;		/* a byte-sized transfer */
	unsigned int		block_size;
	char			device[256];
};

/* unseen.c: a run of blocks an owner wrote, and when. */
struct e2sr_owned {
	blk64_t			pblk;
	__u32			len;
	__u32			tid;
};

struct e2sr_extent {
	blk64_t		pblk;		/* first physical block */
	blk64_t		lblk;		/* logical block (data kinds only) */
	__u32		len;		/* number of blocks */
	__u16		kind;		/* enum e2sr_extent_kind */
	__u16		nfree;		/* how many are free now (capped) */
	__u16		historic;	/* from a journal copy of the record */
	__u32		seq;		/* historic: the copy's transaction,
					 * 0 if not known */
};

/* One secure-delete file: identity, state and block map. */
struct e2sr_file {
	ext2_ino_t		ino;
	__u32			generation;
	enum e2sr_state		state;
	__u16			mode;
	__u16			links;
	__u32			flags;
	__u32			dtime;
	__u64			size;
	__u32			map_status;	/* E2SR_MAP_* */
	errcode_t		map_error;	/* first error met in the map */
	struct e2sr_extent	*map;
	size_t			map_count;
	size_t			map_alloc;
	blk64_t			free_blocks;	/* mapped and free now */
	__u32			versions;	/* journal copies of the record */
	__u32			versions_mapped; /* distinct maps among them */
	int			had_data;	/* some version had size/blocks */
	blk64_t			blocks_said;	/* most a version counted */
	ext2_ino_t		ea_owner;	/* an EA inode: whose value */
	ext2_ino_t		parent;		/* live: a directory naming it */
	__u16			questioned;	/* enum e2sr_question */
};

/*
 * sanity.c: why a record's flags or maps contradict each other, as
 * e2fsck's pass 1 would question it.  Such a record is never edited, nor
 * the blocks it maps: it is left for e2fsck.
 */
enum e2sr_question {
	E2SR_Q_NONE = 0,
	E2SR_Q_INLINE_EXTENTS,	/* inline data and extents flags */
	E2SR_Q_INLINE_FEATURE,	/* inline data flag, no inline_data */
	E2SR_Q_SPECIAL_MAP,	/* device, fifo, socket with a map */
	E2SR_Q_EXTENTS_FEATURE,	/* extents flag, no extents feature */
	E2SR_Q_INDEX,		/* htree flag where it cannot be */
	E2SR_Q_INLINE_NO_DATA,	/* inline data flag, no system.data */
	E2SR_Q_INLINE_SIZE,	/* inline dir or symlink, size not its data */
	E2SR_Q_SYMLINK,		/* symlink size, flags or target disagree */
	E2SR_Q_EXTENT_HEADER,	/* extents flag, header does not verify */
	E2SR_Q_EXTENT_NOFLAG,	/* an extent header, no extents flag */
	E2SR_Q_DIR_SIZE,	/* directory size not a multiple of blocks */
	E2SR_Q_COUNT
};

/* What the run left of a questioned record (e2sr_question_entry.left). */
#define E2SR_LEFT_FILE		0x0001	/* a secure-delete file, whole */
#define E2SR_LEFT_NAMES		0x0002	/* removed names in the directory */
#define E2SR_LEFT_UNWRITTEN	0x0004	/* its unwritten extents */
#define E2SR_LEFT_RECORD	0x0008	/* its free record (--free-inodes) */
#define E2SR_LEFT_BLOCKS	0x0010	/* free blocks another reading of */
					/* it maps (--all-free) */

struct e2sr_question_entry {
	ext2_ino_t		ino;
	__u16			why;		/* enum e2sr_question */
	__u16			left;		/* E2SR_LEFT_*; 0: nothing */
	__u16			seen;		/* E2SR_LEFT_*: what the scan */
						/* passed by (unwritten, */
						/* blocks) */
};

/*
 * kinds.c: the residue kinds, in the order the reports list them.  Each
 * counts one thing, or two (free inode records, and the inode table
 * blocks they take).
 */
enum e2sr_kind_id {
	E2SR_KIND_DATA,
	E2SR_KIND_META,
	E2SR_KIND_NAMES,
	E2SR_KIND_RECORDS,
	E2SR_KIND_JOURNAL,
	E2SR_KIND_ALL_FREE,
	E2SR_KIND_UNWRITTEN,
	E2SR_KIND_FREE_RECORDS,
	E2SR_KIND_COUNT
};

/* Why a journal block is in the plan. */
enum e2sr_jwhy {
	E2SR_JWHY_RECORD = 0,	/* a version of a secure-delete record */
	E2SR_JWHY_MAP,		/* a copy of a block of one of its maps */
	E2SR_JWHY_NAME,		/* a directory copy naming it */
	E2SR_JWHY_FC,		/* a fast-commit block with its inode/name */
	E2SR_JWHY_DESC,		/* the descriptor of such copies, */
				/* sealed again (struct e2sr_seal) */
	E2SR_JWHY_ALL,		/* --all-journal: stale, whoever's */
	E2SR_JWHY_NAMEBYTES,	/* the bytes of a known name, no header */
};

/*
 * The order the journal's blocks are written in: what identifies a
 * secure-delete file goes after what it identifies, so that a run cut
 * anywhere leaves a re-run the evidence for what is left.  The bytes of
 * its names without a header first (the entries say they are its
 * names); then copies of its blocks and the entries naming it (its
 * record versions say they are its); then the versions of its record
 * that do not carry the flag (the flagged ones make them its); then the
 * flagged versions and fast-commit blocks.  A block goes once, at the
 * latest stage of what is in it.
 */
enum e2sr_jstage {
	E2SR_JSTAGE_BYTES = 0,
	E2SR_JSTAGE_COPIES,
	E2SR_JSTAGE_RECORDS,
	E2SR_JSTAGE_FLAGGED,
	E2SR_JSTAGES
};

/*
 * A journal block, or a part of one, to overwrite.  A stale copy shared
 * with other files' residue loses only the secure-delete bytes (a
 * record's slot, an entry's inode and name): @len is then nonzero, and
 * the block must still read as planned (@crc_before) when it is written,
 * and, when --verify reads it back, as @crc_after (made only then).
 * Parts are zeroed, whatever the method.
 */
struct e2sr_jplan {
	__u32			jblock;
	__u16			why;		/* enum e2sr_jwhy */
	__u8			settled;	/* a part: its crcs are made */
	__u8			sealed;		/* its transaction is written */
						/* in one piece (a seal's) */
	__u8			stage;		/* enum e2sr_jstage: a block's */
						/* entries share the latest */
	ext2_ino_t		ino;		/* whose (0: DESC, NAMEBYTES) */
	__u32			off;		/* a part: first byte */
	__u32			len;		/* a part: bytes; 0: whole */
	__u32			crc_before;	/* a part: the block, planned */
	__u32			crc_after;	/* and written */
};

/*
 * A tag to set in a descriptor the run seals again: the copy it tags is
 * rewritten, and its checksum must say what is written (plan_journal_seal.c).
 */
/*
 * The most a sealed transaction spans, descriptor to last copy sealed:
 * it is read and written in one piece (wipe_io.c's chunk).
 */
#define E2SR_SEAL_SPAN_BYTES	(1024 * 1024)

struct e2sr_seal {
	__u32			desc;		/* the descriptor's jblock */
	__u32			index;		/* of the tag in it */
	__u32			jblock;		/* of the copy it tags */
	__u32			csum;		/* of the copy as written */
	__u8			stage;		/* the copy's */
};

/*
 * Why an action is in the plan: the rule that produced it.  A journal
 * action's why is E2SR_WHY_JOURNAL plus its enum e2sr_jwhy.
 */
enum e2sr_why {
	E2SR_WHY_FREED = 0,	/* a +s file's block, free now */
	E2SR_WHY_ENTRY,		/* a removed entry naming a +s inode */
	E2SR_WHY_ENTRY_JOURNAL,	/* a removed entry a journal copy names */
	E2SR_WHY_NAME_BYTES,	/* a +s name's bytes without a header */
	E2SR_WHY_DIR_SLACK,	/* --dir-slack: any removed entry */
	E2SR_WHY_RECORD,	/* a deleted +s record */
	E2SR_WHY_FREE_ALL,	/* --all-free */
	E2SR_WHY_FREE_IF_LOST,	/* --all-free-if-lost: a map is lost */
	E2SR_WHY_UNWRITTEN,	/* a live file's unwritten extent */
	E2SR_WHY_FREE_RECORD,	/* --free-inodes: a free record */
	E2SR_WHY_REUSED_SLACK,	/* a +s block a live directory reused: */
				/* the bytes past its entries */
	E2SR_WHY_SLACK_BYTES,	/* --dir-slack: bytes past the entries */
	E2SR_WHY_JOURNAL,	/* + enum e2sr_jwhy */
	E2SR_WHY_COUNT = E2SR_WHY_JOURNAL + E2SR_JWHY_NAMEBYTES + 1
};

/*
 * One write of the plan: what it overwrites, whose residue that is and
 * why.  The target is a run of blocks (@blk, @count: filesystem blocks,
 * or journal blocks for the journal kind), a record (@ino), or a part of
 * a block (@off, @len, nonzero @len), which must still read as planned
 * (@crc over the part) when it is written.  A directory's parts name the
 * directory in @ino and its block by ordinal (the n-th block with data,
 * or of an inline directory's parts) in @blk.  A live file's unwritten
 * run names the file in @ino and where the run starts in it in @lblk.
 * A journal block says in @jstage the stage it is written in.
 */
struct e2sr_action {
	__u16			kind;		/* enum e2sr_kind_id */
	__u16			why;		/* enum e2sr_why */
	ext2_ino_t		owner;		/* whose residue; 0: not known */
	ext2_ino_t		ino;		/* record, directory or file */
	__u32			off;		/* a part: first byte */
	__u32			len;		/* a part: bytes; 0: whole */
	__u32			crc;		/* a part: its bytes, planned */
	__u32			lblk;		/* unwritten: in the file */
	__u8			jstage;		/* journal: enum e2sr_jstage */
	blk64_t			blk;
	blk64_t			count;		/* blocks; 1 for a part */
};

/* A journal copy with a directory entry naming an inventory inode. */
struct e2sr_name_copy {
	__u32			jblock;
	ext2_ino_t		ino;
	__u32			off;		/* of the entry in the block */
	__u32			name_len;
};

/*
 * A journal block that holds a version of a secure-delete record: @len
 * bytes at @off (the slot), or, for a fast commit's, the whole block.
 */
struct e2sr_jcopy {
	__u32			jblock;
	ext2_ino_t		ino;
	__u32			off;
	__u32			len;
	__u8			flagged;	/* the version carries +s */
};

/*
 * A preallocated extent of a live file: allocated, reads as zeros.
 * @residue_of: the secure-delete inode whose old bytes are in it (@ino
 * itself for its own), 0 when not known (--all-free takes them all).
 */
struct e2sr_unwritten {
	ext2_ino_t		ino;
	__u32			len;
	__u32			lblk;		/* ext4's are 32-bit */
	ext2_ino_t		residue_of;
	blk64_t			pblk;
};

/* A run of inode table blocks holding free records with residue. */
struct e2sr_itable_run {
	blk64_t			blk;
	__u32			count;
	dgrp_t			group;
};

/*
 * The records of the inventory's files as the live pass took them from
 * the inode tables, as the disk holds them (live_records.c): discovery
 * reads them again, and the next run keeps them.
 */
struct e2sr_rec_at {
	ext2_ino_t		ino;
	__u32			at;		/* its bytes: at * size */
};

struct e2sr_live_recs {
	unsigned char		*bytes;
	size_t			bytes_alloc;
	struct e2sr_rec_at	*at;
	size_t			count;
	size_t			alloc;
	__u32			size;		/* bytes a record */
	int			sorted;		/* at[] by inode */
};

struct e2sr_inventory {
	struct e2sr_file	*files;
	size_t			count;
	size_t			alloc;
	ext2_ino_t		inodes_scanned;
	ext2_ino_t		*dirs;		/* live directories */
	size_t			dir_count;
	size_t			dir_alloc;
	struct e2sr_jcopy	*jcopies;	/* journal blocks holding a */
	size_t			jcopy_count;	/* secure-delete record */
	size_t			jcopy_alloc;
	struct e2sr_unwritten	*unwritten;	/* live files' unwritten */
	size_t			unwritten_count; /* extents, noted with */
	size_t			unwritten_alloc; /* --all-free */
	/*
	 * Free blocks a secure-delete file may have gained and lost inside
	 * one transaction, named only by fast commits gone since
	 * (unseen.c); NULL when none.
	 */
	ext2fs_block_bitmap	unseen;
	blk64_t			unseen_count;
	/*
	 * Runs of blocks some owner wrote, by block, each with the newest
	 * transaction whose committed copies show it (unseen.c): a freed
	 * block of a historic map that an owner wrote after the map's
	 * transaction holds that owner's bytes.  NULL when not built.
	 */
	struct e2sr_owned	*owned;
	size_t			owned_count;
	struct e2sr_gen		*joined;	/* other generations of */
	size_t			joined_count;	/* inventory files, */
	size_t			joined_alloc;	/* (discover.c) */
	struct e2sr_question_entry *questions;	/* records questioned, */
	size_t			question_count;	/* sorted by inode */
	size_t			question_alloc;	/* (sanity.c) */
	struct e2sr_live_recs	recs;		/* (live_records.c) */
};

/*
 * The plan is data: what will be written, decided before the first write.
 * Bitmaps use the rbtree backend so that sparse sets stay small.
 */
struct e2sr_plan {
	ext2fs_block_bitmap	data_blocks;	/* freed contents */
	ext2fs_block_bitmap	meta_blocks;	/* freed tree, ind, EA blocks */
	ext2_ino_t		*inodes;	/* deleted records to scrub */
	size_t			inode_count;
	size_t			inode_alloc;
	blk64_t			data_count;
	blk64_t			meta_count;
	ext2_ino_t		*name_dirs;	/* dirs holding names to wipe */
	size_t			name_dir_count;
	size_t			name_dir_alloc;
	struct e2sr_action	*names;		/* the names, in walk order */
	size_t			name_count;
	size_t			name_alloc;
	size_t			name_dirs_damaged; /* could not be read */
	size_t			unrecoverable;	/* files whose map is gone */
	blk64_t			unseen_count;	/* of data_count: free blocks
						 * +s files may have had
						 * between two full commits
						 * (unseen.c) */
	size_t			left;		/* found, deliberately left */
	struct e2sr_jplan	*journal;	/* journal blocks, sorted */
	size_t			journal_count;
	size_t			journal_alloc;
	size_t			journal_blocks;	/* distinct blocks in it */
	size_t			journal_parts;	/* of them, written in part */
	struct e2sr_seal	*seals;		/* by descriptor, then tag */
	size_t			seal_count;
	size_t			seal_alloc;
	int			free_all;	/* wipe every free block too */
	/*
	 * What no history traces (a lost map, a gap in the journal's
	 * history, losses an earlier run left) may lie wherever files
	 * leave bytes.  --all-free-if-lost answers it there: free space,
	 * the journal's stale blocks, the removed names of every
	 * directory; @sanitize is the options with those added.
	 */
	int			untraced;
	int			answered;	/* untraced, all of it planned */
	int			sanitize;	/* E2SR_FREE_* it carries */
	int			has_journal;	/* the filesystem has one, open
						 * or not (read after close) */
	blk64_t			free_count;	/* free blocks in the bitmap */
	blk64_t			unwritten_count; /* blocks in the runs: */
	struct e2sr_unwritten	*unwritten;	/* unwritten extents of */
	size_t			unwritten_runs;	/* live files to zero, */
	size_t			unwritten_alloc; /* by file */
	/* What a kind that keeps its plan to itself holds (its .plan). */
	void			*kind_data[E2SR_KIND_COUNT];
	/*
	 * The whole plan as the kinds' rules put it, in write order:
	 * what -n lists, what is checked before the first write and what
	 * execute.c writes, action by action (plan.c's, made last).
	 */
	struct e2sr_action	*actions;
	size_t			action_count;
	size_t			action_alloc;
};

/* A run of a live directory's blocks, read once for the names in it. */
struct e2sr_dirrun {
	blk64_t			pblk;
	__u32			len;
	ext2_ino_t		dir;
	int			htree;		/* the directory is indexed */
};

/*
 * What is in use, as the inodes and directories in use say, not the
 * bitmaps: the second source every "free" is proven against (livemap.c).
 * Built during the inventory's inode scan; @complete once every check
 * passed.  Until then nothing counts as free.
 */
struct e2sr_livemap {
	ext2fs_block_bitmap	blocks;		/* maps, metadata, journal */
	ext2fs_block_bitmap	ea_blocks;	/* EA blocks among them */
	ext2fs_inode_bitmap	named;		/* named by a live entry */
	ext2fs_inode_bitmap	residue_dirs;	/* bytes past their entries */
	struct e2sr_dirrun	*dirruns;	/* live directories' blocks */
	size_t			dirrun_count;
	size_t			dirrun_alloc;
	ext2_ino_t		*inline_dirs;	/* live inline directories */
	size_t			inline_count;
	size_t			inline_alloc;
	unsigned char		*buf;		/* indirect blocks, dir reads */
	ext2fs_inode_bitmap	unwritten_inodes; /* live files with */
						/* unwritten extents */
	blk64_t			referenced;	/* blocks claimed by inodes */
	ext2_ino_t		linked_free;	/* first record with links */
						/* whose bit is clear, or 0 */
	ext2fs_block_bitmap	linked_blocks;	/* what such records map */
	int			linked_unknown;	/* one's map unreadable */
	ext2fs_block_bitmap	guessed;	/* what questioned records */
						/* may map read otherwise */
	int			complete;
};

/* What a previous run saw of a filesystem's journal (its state file). */
struct e2sr_cover_prev {
	__u32			tid;		/* newest transaction it saw */
	__u64			tid_time;	/* its commit time, 0: none */
	__u32			tid_nsec;	/* and its nanoseconds */
	int			have_nsec;	/* tid_nsec known */
	__u32			sequence;	/* s_sequence it left: the next */
	__u32			head;		/* s_head it left, 0: none */
	__u64			run_time;	/* when it ran */
	__u32			unanswered;	/* losses it could not answer */
};

/*
 * Why a run scans everything (since.c): the first test of the proof that
 * failed.  E2SR_SINCE_INCREMENTAL: none did, the run reads what changed.
 * The command holds the words for each (report.c).
 */
enum e2sr_since_why {
	E2SR_SINCE_INCREMENTAL = 0,
	E2SR_FULL_ASKED,	/* --full */
	E2SR_FULL_NO_STATE,	/* no state file, or no state read */
	E2SR_FULL_STATE_BAD,	/* the state or its group file is damaged */
	E2SR_FULL_STATE_OLD,	/* written without what a proof needs */
	E2SR_FULL_NOT_CLEAN,	/* the last run left something */
	E2SR_FULL_INTENT,	/* a cut run's lives are pending */
	E2SR_FULL_AGE,		/* the last full scan is too old */
	E2SR_FULL_MODE,		/* the options read everything anyway */
	E2SR_FULL_NO_JOURNAL,	/* nothing proves what changed */
	E2SR_FULL_FEATURE,	/* ea_inode: EA inodes are read in full */
	E2SR_FULL_RESIZED,	/* blocks, inodes or groups changed */
	E2SR_FULL_SUPER,	/* the superblock changed outside the log */
	E2SR_FULL_CHECKED,	/* e2fsck checked it since */
	E2SR_FULL_COPY,		/* counters behind the last run's */
	E2SR_FULL_OFFLINE,	/* written offline since */
	E2SR_FULL_JOURNAL,	/* another journal than the last run's */
	E2SR_FULL_WRAPPED,	/* the log no longer reaches the last run */
	E2SR_FULL_ORPHANS,	/* orphans released outside the log */
	E2SR_FULL_GROUP,	/* group @why_arg changed outside the log */
	E2SR_FULL_WHY_COUNT
};

/* A group as a run left it: crc32c of its descriptor and bitmaps. */
struct e2sr_group_print {
	__u32			desc;
	__u32			bbitmap;
	__u32			ibitmap;
	__u32			flags;		/* bg_flags */
};

/* The superblock as a run left it: what the next one compares. */
struct e2sr_sb_print {
	__u64			blocks;
	__u64			kbytes_written;
	__u64			mtime;
	__u64			wtime;
	__u64			lastcheck;
	__u32			inodes;
	__u32			groups;
	__u32			mnt_count;
	__u32			last_orphan;
	__u32			fixed;		/* crc32c, the kernel's fields */
						/* cleared */
	__u32			journal;	/* crc32c of the log's identity */
};

/* A secure-delete record of the inventory, and a directory naming it. */
struct e2sr_secure {
	ext2_ino_t		ino;
	ext2_ino_t		parent;
};

/*
 * The map of a live secure-delete file as a run saw it: @count extents
 * from @first of e2sr_since_state.kept_ext.  A later run that finds the
 * file deleted, its map zeroed by the kernel and the journal's copies of
 * it wiped by that run, takes its blocks from here.
 */
struct e2sr_kept {
	ext2_ino_t		ino;
	__u32			generation;
	__u32			first;
	__u32			count;
};

/*
 * What a run keeps so that the next one can read only what changed
 * (since.c; the command's state files keep it): the filesystem as the
 * run left it, every record that carries the flag, and the directories
 * whose blocks hold bytes past their entries.
 */
struct e2sr_since_state {
	__u64			full_time;	/* the last full scan ended */
	__u32			full_tid;	/* the newest tid it saw */
	__u32			questions;	/* records it questioned */
	__u32			linked_free;	/* a linked record marked free */
	__u32			left;		/* it left something (exit 4) */
	struct e2sr_sb_print	sb;
	struct e2sr_group_print	*groups;	/* sb.groups of them */
	struct e2sr_secure	*secure;	/* by inode */
	size_t			secure_count;
	ext2_ino_t		*dirs;		/* residue dirs, sorted */
	size_t			dir_count;
	/*
	 * The record of each of secure[], as the disk held it, rec_size
	 * bytes each; none when rec_size is 0.
	 */
	unsigned char		*recs;
	__u32			rec_size;
	struct e2sr_kept	*kept;		/* live files' maps, by inode */
	size_t			kept_count;
	struct e2sr_extent	*kept_ext;
	size_t			kept_ext_count;
};

/* Trust a test of the proof without making it: the test suite's hook. */
#define E2SR_TRUST_AGE		0x0001
#define E2SR_TRUST_JOURNAL	0x0002
#define E2SR_TRUST_CHECKED	0x0004
#define E2SR_TRUST_OFFLINE	0x0008
#define E2SR_TRUST_ORPHANS	0x0010
#define E2SR_TRUST_SUPER	0x0020
#define E2SR_TRUST_GROUPS	0x0040

/*
 * Full or incremental (since.c).  The command sets the inputs (what the
 * last run kept, --full, the age) before the scan; the decision, the
 * groups to read and what the next run needs are since.c's.
 */
struct e2sr_since {
	/* inputs */
	int			have_prev;
	struct e2sr_since_state	prev;
	int			force_full;
	unsigned int		full_days;	/* 0: every run is full */
	__u64			now;
	unsigned int		trust;		/* E2SR_TRUST_* */
	enum e2sr_since_why	preset;		/* the command's reason */
	char			preset_why[160]; /* and what it saw */
	/* the decision */
	int			decided;
	int			incremental;
	enum e2sr_since_why	why;
	__u32			why_arg;
	/*
	 * What the live pass reads besides the records the last run kept:
	 * the inode table blocks logged since it (their first inode,
	 * sorted) and the inodes the fast-commit area names (sorted).
	 */
	ext2_ino_t		*logged;
	size_t			logged_count;
	ext2_ino_t		*named;
	size_t			named_count;
	__u32			groups;		/* the filesystem's */
	__u32			groups_read;	/* with a record read */
	__u32			groups_changed;	/* explained by the log */
	__u32			table_blocks;	/* inode table blocks read */
	__u32			from_log;	/* blocks read from logged copies */
	__u32			from_kept;	/* records the last run kept */
	__u32			log_blocks;	/* logged since the last run */
	/* for the next run */
	struct e2sr_since_state	next;
	int			have_files;	/* next's records and dirs */
	int			have_fs;	/* next's sb and groups */
	/*
	 * The ring's facts (lib/find/ring_since.c): the last run's, which
	 * the command loads (have_ring); whether this run may take the log
	 * blocks the kernel did not write since from them (super_ok: the
	 * superblock tests passed); and this run's, which the command keeps
	 * (keep_ring).  ring_check walks the whole log as well and compares.
	 */
	struct e2sr_ring_facts	ring_prev;
	int			have_ring;
	int			super_ok;
	int			keep_ring;
	int			ring_check;
	struct e2sr_ring_facts	ring_next;
	int			ring_used;	/* this run's walk took them */
	int			ring_settled;	/* its writes are in ring_next */
	enum e2sr_rf_why	ring_why;	/* or why not */
	char			ring_preset[160]; /* the command's: why */
						/* none was loaded */
	__u32			ring_read;	/* log blocks the walk read */
	__u32			ring_fresh;	/* of them, written since */
	/*
	 * The positions the walk did not take from ring_prev (written
	 * since, by the kernel or this run): where its names index does
	 * not hold.  NULL when the walk took nothing from it.
	 */
	__u8			*ring_fresh_map;
	__u32			ring_blocks;	/* in the log */
};

/* Why the journal's history is complete, or is not (coverage.c). */
enum e2sr_cover_how {
	E2SR_COVER_NONE = 0,	/* no journal: coverage does not apply */
	E2SR_COVER_CREATION,	/* back to the journal's creation */
	E2SR_COVER_PREVIOUS,	/* back to the previous run */
	E2SR_COVER_GAP,		/* neither: deletions may be untraceable */
};

/*
 * Which transactions the journal still shows in full, and whether they
 * reach back to the previous run or to the journal's creation.  @prev is
 * set by the caller before the scan (from the state file); the rest is
 * e2sr_coverage_scan()'s.
 */
struct e2sr_coverage {
	int			have_prev;
	struct e2sr_cover_prev	prev;
	int			prev_mismatch;	/* prev is not this journal's */

	enum e2sr_cover_how	how;
	int			have_log;	/* a committed transaction */
	int			have_from;	/* from..newest are readable */
	__u32			newest;		/* newest committed tid */
	__u64			newest_time;
	__u32			newest_nsec;
	__u32			oldest;		/* oldest readable in full */
	__u64			oldest_time;
	__u32			from;		/* tids before it: not seen */
	__u32			bound;		/* tids from here on: not yet */
	int			ready;		/* e2sr_coverage_ready() ran */
};

/* Whether the journal was recovered before the run. */
enum e2sr_recovered {
	E2SR_RECOVERY_NONE = 0,		/* it did not need it */
	E2SR_RECOVERY_REPLAYED,		/* replayed to the device */
	E2SR_RECOVERY_VIEW,		/* dry run: replayed in memory */
};

/* One run put out with -m random, as --verify will read it back. */
struct e2sr_written {
	io_channel		io;
	blk64_t			blk;
	blk64_t			count;
	__u32			crc;
};

/* How many of a kind's places a report names before "and N more". */
#define E2SR_SHOW_FIRST	5

struct e2sr_stats {
	/* What was wiped, kind by kind, as e2sr_kinds[k].count names. */
	blk64_t		wiped[E2SR_KIND_COUNT][2];
	blk64_t		zero_skipped;	/* --skip-zero: already zeros */
	unsigned long	write_calls;
	blk64_t		discarded;	/* blocks discarded, zeros after */
	blk64_t		zeroed_out;	/* zeroed by the device */
	unsigned long	discard_fallback; /* runs written as zeros */
	unsigned long	secdiscard_fallback; /* runs without BLKSECDISCARD */
	/*
	 * --verify and --audit, by kind: blocks (or names and records)
	 * read, those that still hold residue, and the first of them.
	 */
	blk64_t		checked[E2SR_KIND_COUNT];
	blk64_t		unwiped[E2SR_KIND_COUNT];
	blk64_t		first_unwiped[E2SR_KIND_COUNT][E2SR_SHOW_FIRST];
	int		audit_random;	/* --audit -m random: blocks of */
					/* random bytes not judged */
	blk64_t		verified;	/* blocks read back */
	blk64_t		verify_bad;	/* reads that did not match */
	blk64_t		verify_first_bad;
	/* Seconds per phase of execute.c. */
	double		time_blocks;	/* freed data and metadata */
	double		time_free;	/* all free blocks, unwritten */
	double		time_records;	/* names, records, free records */
	double		time_journal;	/* journal copies */
	double		time_verify;	/* --verify */
};

enum e2sr_stage {
	E2SR_STAGE_SCAN = 1,
	E2SR_STAGE_WIPE_BLOCKS,
	E2SR_STAGE_SCRUB_INODES,
	E2SR_STAGE_NAMES,
	E2SR_STAGE_JOURNAL,
	E2SR_STAGE_FREE,
	E2SR_STAGE_UNWRITTEN,
	E2SR_STAGE_FREE_INODES,
	E2SR_STAGE_SCAN_ITABLES,	/* --free-inodes' planning read */
	E2SR_STAGE_COUNT
};

typedef void (*e2sr_progress_fn)(void *data, enum e2sr_stage stage,
				 unsigned long long cur,
				 unsigned long long max);
struct e2sr_action;
/* An action of the plan, written: in the order execute writes them. */
typedef void (*e2sr_action_fn)(void *data, const struct e2sr_action *a);

/*
 * What recovering the journal did, or would do (open.c's): the full
 * commits' replay, the fast commits' on top of it, and how it was done.
 */
struct e2sr_replay {
	struct e2sr_jrecovery	recovery;
	struct e2sr_overlay	*overlay;	/* fast commits, replayed */
	struct e2sr_journal	*ro_journal;	/* the view reads through it */
	enum e2sr_recovered	how;
	__u64			bytes;		/* written by the replay */
};

/*
 * A file deleted (no links) or being truncated while still open when the
 * system went down, on the orphan list or in the orphan file, and its
 * release by the run (orphan.c): decided and applied in memory at open,
 * as the kernel's mount or e2fsck -p would; written in
 * e2sr_begin_write() as one jbd2 transaction, then replayed.
 */
struct e2sr_orphan {
	ext2_ino_t		ino;
	__u16			links;		/* 0: deleted; else truncated */
	__u8			in_file;	/* orphan file, not the list */
	__u8			secrm;		/* the record has +s */
	__u64			size;		/* i_size (truncated to it) */
	blk64_t			freed;		/* blocks released */
	blk64_t			file_blk;	/* in_file: its block */
};

struct e2sr_orphans {
	struct e2sr_orphan	*v;
	size_t			n;
	enum e2sr_recovered	how;		/* VIEW, then REPLAYED */
	struct e2sr_overlay	*overlay;	/* the release, in memory */
	/* The journal as found: begin_write compares it, views read it. */
	struct e2sr_journal	*found_journal;
	/* Blocks logged before their release: the old map (orphan.c). */
	blk64_t			*ev_blk;
	unsigned char		*ev_data;
	size_t			nev;
	/* The release as one transaction: log blocks, the commit last. */
	unsigned char		*log;
	__u32			nlog;
	__u32			log_first;	/* journal block of log[0] */
	__u32			tid;
	size_t			nblocks;	/* fs blocks it carries */
	__u64			bytes;		/* written, log and replay */
};

/*
 * What the command asks of a run, set in one place before e2sr_open and
 * left alone by lib/.
 */
struct e2sr_options {
	enum e2sr_method	method;
	int			sanitize;	/* E2SR_FREE_* */
	int			verify;		/* read back what was wiped */
	int			skip_zero;	/* read first, write non-zero */
	const char		*ext_journal;	/* -j: external journal */
	io_manager		io_manager;	/* NULL: unix_io */
};

/*
 * What the command hooks into a run; lib/ checks them only through
 * hooks.c's helpers.
 */
struct e2sr_hooks {
	/* Set from a signal handler; checked at every safe point. */
	volatile sig_atomic_t	*cancel;
	e2sr_progress_fn	progress;
	void			*progress_data;
	e2sr_action_fn		done;		/* each action written */
	void			*done_data;
};

/*
 * The writer's own state (wipe_io.c, wipe_journal.c; verify.c reads the
 * runs -m random put out): nobody else's business.
 */
struct e2sr_writer {
	unsigned char		*wbuf;		/* one write's worth */
	unsigned char		*rbuf;		/* --skip-zero's read */
	size_t			wbuf_blocks;
	int			sec_fd;		/* for BLKSECDISCARD; -1: none */
	enum e2sr_stage		stage;		/* the progress of the writes: */
	blk64_t			stage_done;	/* units of the stage written, */
	blk64_t			stage_total;	/* of all it has in the list */
	struct e2sr_written	*written;	/* -m random runs, for --verify */
	size_t			written_count;
	size_t			written_alloc;
};

/*
 * What e2sr_journal_names found, once per run (plan_journal_names.c's): the
 * copies naming secure-delete inodes in log order, and the names.
 */
struct e2sr_name_cache {
	struct e2sr_name_copy	*copies;
	size_t			copy_count;
	size_t			copy_alloc;
	__u32			*hashes;
	size_t			hash_count;
	unsigned char		*blob;
	size_t			blob_len;
	int			have;
	/* Name blocks their kept index answered for, and those read. */
	__u32			passed_over;
	__u32			reads;
	/*
	 * A bit per log position (from map_first): the stale blocks the
	 * search looked at (asked or read), and of them the inode table
	 * copies; so that what the run writes of them is indexed again
	 * after the wipe (e2sr_jplan_index_written()).
	 */
	__u8			*name_map;
	__u8			*itable_map;
	__u32			map_first;
};

struct e2sr_ctx {
	ext2_filsys		fs;		/* read-only until begin_write */
	ext2_filsys		ro_fs;		/* after it: what was checked */
	struct ext2_super_block	sb_seen;	/* the superblock as found */
	char			*device;
	int			open_flags;
	struct e2sr_options	opts;		/* the command's, set once */
	char			detail[160];	/* more about the last error */

	struct e2sr_inventory	inv;
	struct e2sr_plan	plan;
	struct e2sr_stats	stats;

	ext2fs_block_bitmap	journal_blocks;	/* internal journal extent */
	ext2fs_block_bitmap	metadata_blocks; /* sb, gdt, bitmaps, tables */
	struct e2sr_livemap	live;		/* in use, by the inodes */

	struct e2sr_hooks	hooks;

	struct e2sr_writer	writer;		/* lib/write/'s */

	/* The journal: its log, what recovering it does, its index. */
	struct e2sr_journal	*journal;
	struct e2sr_replay	replay;
	struct e2sr_orphans	orphans;	/* released in the run */
	struct e2sr_history	history;	/* every journal copy */
	struct e2sr_name_cache	names;		/* plan_journal_names.c's */
	/* How far back the journal's history reaches (coverage.c). */
	struct e2sr_coverage	coverage;
	/* Whether this run reads everything or what changed (since.c). */
	struct e2sr_since	since;
	io_manager		io_manager;	/* opts' base, watched */
	/* The lives a cut run saved, sorted (intent.c). */
	struct e2sr_life	*prior;
	size_t			prior_count;
	/*
	 * The filesystem was mounted or checked since they were saved (or
	 * is another copy with the same UUID): the lives are still taken,
	 * what that run said of their maps is not (intent.c).
	 */
	int			prior_unproven;
};

/* context.c */
errcode_t e2sr_ctx_new(struct e2sr_ctx **ret);
void e2sr_ctx_free(struct e2sr_ctx *ctx);

/* open.c, begin_write.c */
errcode_t e2sr_open(struct e2sr_ctx *ctx, const char *device, int flags);
errcode_t e2sr_begin_write(struct e2sr_ctx *ctx);
errcode_t e2sr_close(struct e2sr_ctx *ctx);

/* scan.c: the find stage, every pass in order */
errcode_t e2sr_inventory_scan(struct e2sr_ctx *ctx);

/* watch_io.c: what the device did under the run */
io_manager e2sr_io_watch(io_manager base);
int e2sr_io_watch_failure(struct e2sr_io_failure *f);
unsigned long e2sr_io_watch_retried(void);

/* intent.c: the lives a cut run saved, and those this one plans on */
void e2sr_intent_mark(const struct e2sr_ctx *ctx, struct e2sr_fs_mark *mark);
errcode_t e2sr_intent_set(struct e2sr_ctx *ctx, const struct e2sr_life *lives,
			  size_t count, const struct e2sr_fs_mark *saved);
errcode_t e2sr_intent_lives(const struct e2sr_ctx *ctx,
			    struct e2sr_life **ret, size_t *count);

/* plan.c */
errcode_t e2sr_plan_build(struct e2sr_ctx *ctx);
void e2sr_plan_free(struct e2sr_plan *plan);
__u32 e2sr_coverage_pending(const struct e2sr_ctx *ctx);
int e2sr_plan_empty(const struct e2sr_ctx *ctx);

/* ring_since.c: the walk of the log with the last run's ring facts */
errcode_t e2sr_ring_history(struct e2sr_ctx *ctx);
errcode_t e2sr_ring_settle(struct e2sr_ctx *ctx);
const struct e2sr_ring_facts *e2sr_ring_keep(struct e2sr_ctx *ctx);
int e2sr_ring_index(const struct e2sr_ctx *ctx, __u32 pos,
		    const unsigned char **p, size_t *len);
struct e2sr_ring_facts *e2sr_ring_index_out(struct e2sr_ctx *ctx);

/* since.c: full or incremental, and what the next run needs */
void e2sr_since_capture_fs(struct e2sr_ctx *ctx);
void e2sr_since_state_free(struct e2sr_since_state *st);
void e2sr_since_free(struct e2sr_since *s);

/* coverage.c */
void e2sr_coverage_next(const struct e2sr_ctx *ctx,
			struct e2sr_cover_prev *now);

/* blockmap.c */
const char *e2sr_extent_kind_name(enum e2sr_extent_kind kind);

/* sanity.c */
const char *e2sr_question_key(enum e2sr_question why);
const char *e2sr_question_text(enum e2sr_question why);

/* execute.c */
errcode_t e2sr_execute_check(struct e2sr_ctx *ctx);
errcode_t e2sr_execute(struct e2sr_ctx *ctx);
errcode_t e2sr_settle(struct e2sr_ctx *ctx);

/* execute.c: --audit, the plan's places read instead of written */
errcode_t e2sr_audit(struct e2sr_ctx *ctx);
blk64_t e2sr_audit_unwiped(const struct e2sr_ctx *ctx);
void e2sr_plan_actions(const struct e2sr_ctx *ctx, e2sr_action_fn fn,
		       void *data);

/* execute.c runs the phases 1 to E2SR_PHASES in turn. */
#define E2SR_PHASES	4

struct e2sr_kind_count {
	const char	*key;		/* JSON: "data_blocks"; NULL: none */
	const char	*label;		/* the report's line; NULL: on the */
					/* line of the first count */
	const char	*record;	/* the sanitisation record's row */
	const char	*unit;		/* "blocks" are whole blocks */
};

struct e2sr_kind {
	struct e2sr_kind_count	count[2];
	int		phase;		/* of execute, 1 to E2SR_PHASES */
	/* Listed by the report only when it says so; NULL: always. */
	int		(*shown)(const struct e2sr_ctx *ctx);
	/*
	 * A kind that plans on its own: its step, run after the blocks,
	 * records, unwritten extents and journal copies are planned, in
	 * table order; its data in plan.kind_data[k], freed by plan_free.
	 */
	errcode_t	(*plan)(struct e2sr_ctx *ctx);
	void		(*plan_free)(void *data);
	void		(*planned)(const struct e2sr_ctx *ctx, uint64_t n[2]);
	/*
	 * Its rule: what the plan holds of it, action by action, in write
	 * order (plan.c makes the plan's list of actions from the rules).
	 */
	void		(*actions)(const struct e2sr_ctx *ctx,
				   e2sr_action_fn fn, void *data);
	/* The progress stage its writes count in, in blocks or actions. */
	enum e2sr_stage	stage;
	/*
	 * Given its actions of the list, @n of them, in order: check them
	 * all before the first write, on the read-only handle (NULL:
	 * nothing to check), and write them, each checked again just
	 * before it is written, each told done (e2sr_action_done) once it
	 * is.  A target no longer as planned stops the run.
	 */
	errcode_t	(*check)(struct e2sr_ctx *ctx,
				 const struct e2sr_action *a, size_t n);
	errcode_t	(*apply)(struct e2sr_ctx *ctx,
				 const struct e2sr_action *a, size_t n);
	/* What it rewrote through libext2fs, read back; blocks: verify.c */
	errcode_t	(*verify)(struct e2sr_ctx *ctx);
};

extern const struct e2sr_kind *const e2sr_kinds[E2SR_KIND_COUNT];
int e2sr_kind_shown(const struct e2sr_ctx *ctx, enum e2sr_kind_id k);
const char *e2sr_why_key(int why);
const char *e2sr_jstage_key(int stage);
/* dirent.c: a directory part that is bare bytes, not an entry */
int e2sr_why_bytes(int why);
const char *e2sr_stage_label(enum e2sr_stage stage);
void e2sr_kind_counts(const struct e2sr_ctx *ctx, int done,
		      uint64_t n[E2SR_KIND_COUNT][2]);

#endif /* E2SECRM_H */
