// SPDX-License-Identifier: GPL-2.0
/*
 * cache.c - what a restarted usched need not do again: the transfer
 * calibration and the programs' binaries, kept as files in the cache
 * directory (the cache setting: "cache" beside the state file, so
 * /run/tq/cache; none: off).
 *
 * Each entry is one file, named by its kind and a hash of its key:
 *
 *	c-HASH	a calibration (struct tqsim_profile as measured)
 *	p-HASH	a program's binary (clGetProgramInfo(CL_PROGRAM_BINARIES))
 *
 * holding "tq-cache 1 KEYLEN DATALEN DATAHASH\n", the whole key, then the
 * data. The key is everything the data depends on: the device as
 * usched_device_key() names it (its UUID, its driver's version), tq's
 * version, and for a program its build options and whole source. An entry
 * is used only if its key equals the one wanted byte for byte and its data
 * has its hash, so a hash collision, a torn or a hostile file costs a
 * build, never a wrong binary: one user's source cannot be served another's
 * binary. An entry that does not match, or whose binary the driver refuses
 * (clBuildProgram), is removed and built again. Clients' sources are kept
 * as the built-in kernels are: what a client gets from the cache is what
 * its own source and options would build.
 *
 * The calibration is kept because it measures the device's copy engines
 * and links, which stay with the device and its driver (the key); what
 * varies from copy to copy, the overlapped factor, usched learns while it
 * runs anyway. --recalibrate measures again (and keeps that).
 *
 * cache-max bounds the directory's entries in bytes: after each entry
 * written, the least recently used ones (a use touches its file) go until
 * the rest fit. Entries are written to a temporary name and renamed, with
 * the state directory's owner and mode 0600.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "tq/version.h"
#include "sim/tqsim.h"

#define CACHE_MAGIC	"tq-cache 1"

/* FNV-1a: a file's name and its data's check, not its security (the key is compared). */
static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
	const unsigned char *c = p;

	while (len--)
		h = (h ^ *c++) * 0x100000001b3ull;
	return h;
}

#define FNV0	0xcbf29ce484222325ull

/* The cache's counters: the build workers and the loop share them. */
static void count(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static char *entry_path(const struct daemon *d, char kind, const char *key, size_t keylen)
{
	char *path;

	if (asprintf(&path, "%s/%c-%016" PRIx64, d->cache_dir, kind, fnv(FNV0, key, keylen)) < 0)
		return NULL;
	return path;
}

/* An entry that does not hold what its name promises: gone, and counted. */
static void drop(struct daemon *d, const char *path, const char *why)
{
	if (unlink(path) && errno == ENOENT)
		return;		/* another worker dropped it */
	count(&d->st.cache_dropped);
	dbg("%s: %s: dropped", path, why);
}

/*
 * The data of the entry of @key, to free(): 0, or -ENOENT (none, or one
 * that did not match: dropped).
 */
static int entry_read(struct daemon *d, char kind, const char *key, size_t keylen,
		      void **data, size_t *len)
{
	char *path = entry_path(d, kind, key, keylen), *buf = NULL, *nl;
	unsigned long long kl, dl;
	uint64_t h;
	struct stat sb;
	int fd, n, used = 0, ret = -ENOENT;
	const char *why = "truncated or not an entry";

	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	if (fstat(fd, &sb) || sb.st_size < 16 ||
	    (d->conf.cache_max && (uint64_t)sb.st_size > d->conf.cache_max))
		goto out_drop;
	buf = malloc(sb.st_size + 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	if (read(fd, buf, sb.st_size) != sb.st_size)
		goto out_drop;
	buf[sb.st_size] = 0;
	nl = memchr(buf, '\n', sb.st_size);
	if (!nl)
		goto out_drop;
	*nl = 0;
	n = nl + 1 - buf;
	if (sscanf(buf, CACHE_MAGIC " %llu %llu %16" SCNx64 "%n", &kl, &dl, &h, &used) != 3 ||
	    used != n - 1 || kl > (uint64_t)sb.st_size || dl > (uint64_t)sb.st_size ||
	    (uint64_t)n + kl + dl != (uint64_t)sb.st_size)
		goto out_drop;
	why = "another key (another device, driver, tq version or source)";
	if (kl != keylen || memcmp(buf + n, key, keylen))
		goto out_drop;
	why = "its data does not match its hash";
	if (fnv(FNV0, buf + n + kl, dl) != h)
		goto out_drop;
	*data = malloc(dl ? dl : 1);
	if (!*data) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(*data, buf + n + kl, dl);
	*len = dl;
	futimens(fd, NULL);	/* used: the last to go */
	ret = 0;
	goto out;
out_drop:
	drop(d, path, why);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(path);
	return ret;
}

struct entry {
	char name[32];
	off_t size;
	struct timespec used;
};

static int older(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

/* The entries, least recently used first; their bytes in *total. */
static struct entry *entries(struct daemon *d, size_t *n, uint64_t *total)
{
	struct entry *e = NULL, *p;
	size_t cap = 0;
	struct dirent *de;
	struct stat sb;
	DIR *dir;

	*n = 0;
	*total = 0;
	dir = opendir(d->cache_dir);
	if (!dir)
		return NULL;
	while ((de = readdir(dir))) {
		if ((de->d_name[0] != 'c' && de->d_name[0] != 'p') || de->d_name[1] != '-' ||
		    strlen(de->d_name) >= sizeof(e->name) ||
		    fstatat(dirfd(dir), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(sb.st_mode))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			p = realloc(e, cap * sizeof(*e));
			if (!p)
				break;
			e = p;
		}
		snprintf(e[*n].name, sizeof(e->name), "%s", de->d_name);
		e[*n].size = sb.st_size;
		e[*n].used = sb.st_mtim;
		*total += sb.st_size;
		(*n)++;
	}
	closedir(dir);
	if (e)
		qsort(e, *n, sizeof(*e), older);
	return e;
}

/* The least recently used entries go until the rest fit in cache-max. */
static void trim(struct daemon *d)
{
	uint64_t total;
	size_t n;
	struct entry *e;

	if (!d->conf.cache_max)
		return;
	pthread_mutex_lock(&d->cache_lock);
	e = entries(d, &n, &total);
	for (size_t i = 0; i < n && total > d->conf.cache_max; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", d->cache_dir, e[i].name);
		if (!unlink(path)) {
			total -= e[i].size;
			count(&d->st.cache_evicted);
		}
	}
	pthread_mutex_unlock(&d->cache_lock);
	free(e);
}

static int write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		c += n;
		len -= n;
	}
	return 0;
}

/* Keep @data under @key: a temporary file renamed in place, then the bound kept. */
static void entry_write(struct daemon *d, char kind, const char *key, size_t keylen,
			const void *data, size_t len)
{
	static atomic_uint seq;
	char *path = entry_path(d, kind, key, keylen), *tmp = NULL, hdr[96];
	int fd, n;

	if (!path || (d->conf.cache_max && keylen + len + sizeof(hdr) > d->conf.cache_max))
		goto out;
	if (asprintf(&tmp, "%s/.tmp-%d-%u", d->cache_dir, (int)getpid(),
		     atomic_fetch_add(&seq, 1)) < 0) {
		tmp = NULL;
		goto out;
	}
	n = snprintf(hdr, sizeof(hdr), CACHE_MAGIC " %zu %zu %016" PRIx64 "\n", keylen, len,
		     fnv(FNV0, data, len));
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out;
	if (write_all(fd, hdr, n) || write_all(fd, key, keylen) || write_all(fd, data, len) ||
	    close(fd) || rename(tmp, path)) {
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		goto out;
	}
	count(&d->st.cache_stored);
	trim(d);
out:
	free(tmp);
	free(path);
}

/* What a crash in mid-write left: temporary files never renamed. */
static void tmp_clean(struct daemon *d)
{
	struct dirent *de;
	DIR *dir = opendir(d->cache_dir);

	if (!dir)
		return;
	while ((de = readdir(dir)))
		if (!strncmp(de->d_name, ".tmp-", 5))
			unlinkat(dirfd(dir), de->d_name, 0);
	closedir(dir);
}

int cache_open(struct daemon *d)
{
	const char *slash;

	pthread_mutex_init(&d->cache_lock, NULL);
	if (d->conf.cache) {
		if (!strcmp(d->conf.cache, "none"))
			return 0;
		d->cache_dir = strdup(d->conf.cache);
	} else if (d->conf.state && (slash = strrchr(d->conf.state, '/'))) {
		if (asprintf(&d->cache_dir, "%.*s/cache", (int)(slash - d->conf.state),
			     d->conf.state) < 0)
			d->cache_dir = NULL;
	} else if (d->conf.state) {
		d->cache_dir = strdup("cache");
	} else {
		return 0;	/* no state directory: nowhere to keep anything */
	}
	if (!d->cache_dir)
		return -ENOMEM;
	state_make_dirs(d->cache_dir);
	if (mkdir(d->cache_dir, 0700) && errno != EEXIST) {
		warn("%s: %m; the cache is off", d->cache_dir);
		free(d->cache_dir);
		d->cache_dir = NULL;
		return 0;
	}
	tmp_clean(d);
	return 0;
}

void cache_close(struct daemon *d)
{
	free(d->cache_dir);
	free(d->cache_key);
	d->cache_dir = d->cache_key = NULL;
}

int cache_device(struct daemon *d)
{
	char key[1024];
	int ret;

	if (!d->cache_dir)
		return 0;
	ret = usched_device_key(d->u, key, sizeof(key));
	if (ret)
		return ret;
	if (asprintf(&d->cache_key, "%stq %s\n", key, TQ_VERSION) < 0) {
		d->cache_key = NULL;
		return -ENOMEM;
	}
	return 0;
}

unsigned int cache_programs(struct daemon *d)
{
	unsigned int np = 0;
	uint64_t total;
	size_t n;
	struct entry *e;

	if (!d->cache_dir)
		return 0;
	e = entries(d, &n, &total);
	for (size_t i = 0; i < n; i++)
		np += e[i].name[0] == 'p';
	free(e);
	return np;
}

/* A calibration's key: the device's, tq's version, the struct's size. */
static char *calib_key(const char *dev, size_t *len)
{
	char *key;
	int n = asprintf(&key, "calibration\n%stq %s\nsize %zu\n", dev, TQ_VERSION,
			 sizeof(struct tqsim_profile));

	*len = n > 0 ? (size_t)n : 0;
	return n > 0 ? key : NULL;
}

int cache_calib_load(void *arg, const char *dev, struct tqsim_profile *p)
{
	struct daemon *d = arg;
	size_t keylen, len;
	char *key;
	void *data;
	int ret;

	if (!d->cache_dir || d->conf.recalibrate)
		return -ENOENT;
	key = calib_key(dev, &keylen);
	if (!key)
		return -ENOMEM;
	ret = entry_read(d, 'c', key, keylen, &data, &len);
	if (!ret && len != sizeof(*p)) {
		ret = -ENOENT;
		free(data);
	} else if (!ret) {
		memcpy(p, data, sizeof(*p));
		free(data);
	}
	free(key);
	return ret;
}

void cache_calib_save(void *arg, const char *dev, const struct tqsim_profile *p)
{
	struct daemon *d = arg;
	size_t keylen;
	char *key;

	if (!d->cache_dir)
		return;
	key = calib_key(dev, &keylen);
	if (key)
		entry_write(d, 'c', key, keylen, p, sizeof(*p));
	free(key);
}

/* A program's key: the device's, tq's version, the options, the source. */
static char *prog_key(const struct daemon *d, const char *src, const char *opts, size_t *len)
{
	char *key;
	int n = asprintf(&key, "program\n%soptions %s %s\n%s", d->cache_key, USCHED_BUILD_OPTS,
			 opts ? opts : "", src);

	*len = n > 0 ? (size_t)n : 0;
	return n > 0 ? key : NULL;
}

int cache_prog_load(struct daemon *d, uint64_t domain, const char *src, const char *opts,
		    uint32_t *core)
{
	size_t keylen, len;
	char *key, *path;
	void *bin;
	int ret;

	if (!d->cache_key)
		return -ENOENT;
	key = prog_key(d, src, opts, &keylen);
	if (!key)
		return -ENOMEM;
	ret = entry_read(d, 'p', key, keylen, &bin, &len);
	if (!ret) {
		ret = usched_prog_add_binary(d->u, domain, src, strlen(src), opts, bin, len, core);
		free(bin);
		if (ret == -ENOEXEC) {
			path = entry_path(d, 'p', key, keylen);
			if (path)
				drop(d, path, "the driver refuses its binary");
			free(path);
		}
	}
	if (!ret)
		count(&d->st.cache_hits);
	free(key);
	return ret ? -ENOENT : 0;
}

void cache_prog_save(struct daemon *d, const char *src, const char *opts, const void *bin,
		     size_t len)
{
	size_t keylen;
	char *key;

	if (!d->cache_key)
		return;
	key = prog_key(d, src, opts, &keylen);
	if (key)
		entry_write(d, 'p', key, keylen, bin, len);
	free(key);
}
