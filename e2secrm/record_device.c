/*
 * record_device.c --- what the device of a --record is, for its
 * certificate.
 *
 * Owns the device's identity as the record gives it, record_identify():
 * the path resolved, block device or image file, its size, and for a
 * block device its disk (a partition's identity is its disk's), vendor,
 * model, serial number, WWN, media type and a loop device's backing
 * file, read from sysfs and, for what sysfs does not give, udev's
 * database; for an image file, the sha256 of the image as the run left
 * it.  What is unknown stays "".  The rest of the record is record.c's.
 *
 * Copyright (C) 2026 The e2secrm authors.
 * This file may be redistributed under the terms of the GNU General Public
 * License, version 2.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "record.h"

/* The first line of a sysfs or udev value, blanks trimmed; 0 if none. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *s, *e;

	buf[0] = 0;
	if (!f)
		return 0;
	if (!fgets(buf, len, f))
		buf[0] = 0;
	fclose(f);
	for (s = buf; *s == ' ' || *s == '\t'; s++)
		;
	e = s + strlen(s);
	while (e > s && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*e = 0;
	memmove(buf, s, e - s + 1);
	return buf[0] != 0;
}

static void sysfs_value(const char *name, const char *file, char *buf,
			size_t len)
{
	char path[PATH_MAX];

	if (buf[0])
		return;
	snprintf(path, sizeof(path), "/sys/class/block/%s/%s", name, file);
	read_line(path, buf, len);
}

/* E:KEY=value lines of udev's database, for what sysfs did not give. */
static void udev_values(unsigned int maj, unsigned int min,
			struct dev_id *d)
{
	static const struct {
		const char	*key;
		size_t		off;
	} keys[] = {
		{ "E:ID_VENDOR=", offsetof(struct dev_id, vendor) },
		{ "E:ID_MODEL=", offsetof(struct dev_id, model) },
		{ "E:ID_SERIAL_SHORT=", offsetof(struct dev_id, serial) },
		{ "E:ID_SERIAL=", offsetof(struct dev_id, serial) },
		{ "E:ID_WWN_WITH_EXTENSION=", offsetof(struct dev_id, wwn) },
		{ "E:ID_WWN=", offsetof(struct dev_id, wwn) },
	};
	char path[64], line[512];
	size_t k, n;
	FILE *f;

	snprintf(path, sizeof(path), "/run/udev/data/b%u:%u", maj, min);
	f = fopen(path, "re");
	if (!f)
		return;
	/* Earlier keys in the table win: read the file once per key. */
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		char *field = (char *)d + keys[k].off;

		if (*field)
			continue;
		rewind(f);
		n = strlen(keys[k].key);
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			if (!strncmp(line, keys[k].key, n) && line[n]) {
				snprintf(field, 128, "%s", line + n);
				break;
			}
		}
	}
	fclose(f);
}

static void block_identity(const struct stat *st, struct dev_id *d)
{
	char link[PATH_MAX], sys[PATH_MAX], path[PATH_MAX + 32], rot[8];
	char *slash;
	unsigned int dmaj = major(st->st_rdev), dmin = minor(st->st_rdev);
	uint64_t sectors;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", dmaj, dmin);
	if (!realpath(link, sys))
		return;
	slash = strrchr(sys, '/');
	snprintf(d->name, sizeof(d->name), "%s", slash + 1);
	snprintf(d->disk, sizeof(d->disk), "%s", d->name);
	/* A partition's identity is its disk's: the parent directory. */
	snprintf(path, sizeof(path), "%s/partition", sys);
	if (!access(path, F_OK)) {
		*slash = 0;
		slash = strrchr(sys, '/');
		if (slash)
			snprintf(d->disk, sizeof(d->disk), "%s", slash + 1);
		snprintf(path, sizeof(path), "/sys/class/block/%s/dev",
			 d->disk);
		if (read_line(path, link, sizeof(link)))
			sscanf(link, "%u:%u", &dmaj, &dmin);
	}
	snprintf(path, sizeof(path), "/sys/class/block/%s/size", d->name);
	if (read_line(path, link, sizeof(link)) &&
	    sscanf(link, "%" SCNu64, &sectors) == 1) {
		d->size = sectors * 512;	/* sysfs: 512-byte units */
		d->have_size = 1;
	}
	sysfs_value(d->disk, "device/vendor", d->vendor, sizeof(d->vendor));
	sysfs_value(d->disk, "device/model", d->model, sizeof(d->model));
	sysfs_value(d->disk, "device/serial", d->serial, sizeof(d->serial));
	sysfs_value(d->disk, "serial", d->serial, sizeof(d->serial));
	sysfs_value(d->disk, "device/wwid", d->wwn, sizeof(d->wwn));
	sysfs_value(d->disk, "wwid", d->wwn, sizeof(d->wwn));
	udev_values(dmaj, dmin, d);
	snprintf(path, sizeof(path), "/sys/class/block/%s/loop/backing_file",
		 d->disk);
	if (read_line(path, d->backing, sizeof(d->backing))) {
		snprintf(d->media, sizeof(d->media),
			 "loop device over a file (backing file below)");
		return;
	}
	snprintf(path, sizeof(path), "/sys/class/block/%s/queue/rotational",
		 d->disk);
	if (read_line(path, rot, sizeof(rot)))
		snprintf(d->media, sizeof(d->media), "%s", rot[0] == '1' ?
			 "magnetic (the kernel reports a rotational device)" :
			 "non-rotational (flash or virtual, as the kernel "
			 "reports it)");
}

void record_identify(const char *device, struct dev_id *d)
{
	struct stat st;

	memset(d, 0, sizeof(*d));
	if (stat(device, &st)) {
		d->type = DEV_MISSING;
		return;
	}
	if (!realpath(device, d->real))
		snprintf(d->real, sizeof(d->real), "%s", device);
	if (S_ISBLK(st.st_mode)) {
		d->type = DEV_BLOCK;
		block_identity(&st, d);
	} else if (S_ISREG(st.st_mode)) {
		d->type = DEV_FILE;
		d->size = st.st_size;
		d->have_size = 1;
		snprintf(d->media, sizeof(d->media), "image file");
		/* After the run: the hash of the image as it was left. */
		if (sha256_file(device, d->sha256))
			snprintf(d->sha_error, sizeof(d->sha_error), "%s",
				 strerror(errno));
	} else {
		d->type = DEV_OTHER;
	}
}
