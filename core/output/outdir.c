/*
 * core/output/outdir.c - the output directory: one run at a time, a new set
 * written beside it, the commit that puts the new set in its place in one
 * step, and what killed runs left.
 *
 * For an output directory DIR = PARENT/BASE (output.h has the names):
 *
 *   prepare  check DIR (weft__outputs_check); create PARENT; lock
 *            PARENT/.BASE.weft-lock (flock, our pid written in it: a
 *            second run is refused naming it); put back a set that a
 *            killed commit left aside, remove leftovers; create the new
 *            set TMP = PARENT/.BASE.weft-new-XXXXXX.
 *   commit   close (fsync) every file of TMP; write TMP/.weft-outputs,
 *            the manifest; hard-link into TMP the files of DIR that weft
 *            did not write; fsync TMP; then the one step: exchange TMP and
 *            DIR (renameat2 RENAME_EXCHANGE). The old set, now at TMP's
 *            name, is renamed PARENT/.BASE.weft-old-XXXXXX and removed.
 *
 * A crash before the exchange leaves DIR as it was (and TMP, removed by
 * the next run); after it, DIR is the new set (and the old one aside,
 * removed by the next run). Where the filesystem cannot exchange (some
 * network filesystems), DIR is renamed aside and TMP into place; a crash
 * between the two renames leaves no DIR, and the next run into it puts
 * the newer complete set (the one whose manifest is complete) back.
 *
 * The manifest names the set's kind (".kind outputs", "checkpoint",
 * "ensemble"), lists the files weft wrote, then a line ".", and is read
 * only as a regular file of bounded size. A run replaces DIR only when it
 * holds no set or one its key may hold (weft__outputs_check: [output]
 * directory a run's or an ensemble's outputs, either replacing either;
 * [checkpoint] directory a checkpoint), checked again once DIR is locked
 * and a killed commit's set put back; a mount point, a read-only DIR or
 * parent are refused up front, naming DIR and its key. A file of DIR
 * without a manifest is carried over, unless the new set has a file of
 * its name, which replaces it. Removing a set removes
 * only what weft wrote: the files its manifest lists (the manifest last),
 * the hard links of files carried over, and the temporary files an older
 * weft wrote (.NAME.XXXXXX); anything else found in a replaced set (a
 * file created in DIR during the commit) is moved into the new set. A
 * run that ends removes its lock file while it holds the lock.
 */
#include "output/output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_ALNUM \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
#define OUT_MANIFEST_MAX (1u << 20) /* bytes of a manifest read */
#define OUT_KIND_OTHER	 0x100u	    /* a kind line this weft does not know */

/* Test hook COMMIT_KILL=N (util.h: weft__test_hook) kills the process with
 * SIGKILL at the commit's point N (1 to 7, in order), so that tests can
 * check what a crash at each instant leaves. */
static void out_point(int n)
{
	const char *v = weft__test_hook("COMMIT_KILL");

	if (v && atoi(v) == n)
		raise(SIGKILL);
}

/* ---- names ----------------------------------------------------------------
 */

/* PARENT/.BASE followed by suffix, in new memory. */
static char *out_sibling(const weft__outputs *set, const char *suffix)
{
	size_t n = strlen(set->parent) + strlen(set->base) + strlen(suffix) + 3;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/.%s%s", set->parent, set->base, suffix);
	return p;
}

/* name is ".BASE" + kind + six characters of mkdtemp's alphabet. */
static int out_is_leftover(const char *base, const char *kind, const char *name)
{
	size_t nb = strlen(base), nk = strlen(kind);

	if (name[0] != '.' || strncmp(name + 1, base, nb) != 0 ||
	    strncmp(name + 1 + nb, kind, nk) != 0)
		return 0;
	name += 1 + nb + nk;
	return strlen(name) == 6 && strspn(name, OUT_ALNUM) == 6;
}

/* A list of file names (a manifest). */
typedef struct out_names {
	char **v;
	size_t n;
} out_names;

static void out_names_free(out_names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int out_names_has(const out_names *l, const char *name, size_t len)
{
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->v[i]) == len && memcmp(l->v[i], name, len) == 0)
			return 1;
	return 0;
}

static int out_names_add(out_names *l, const char *name, size_t len)
{
	char **grown = realloc(l->v, (l->n + 1) * sizeof *grown);

	if (!grown)
		return -1;
	l->v = grown;
	if (!(l->v[l->n] = strndup(name, len)))
		return -1;
	l->n++;
	return 0;
}

/* The kinds of set by name, as manifests write them, and as messages
 * say what a directory holds. */
static const struct {
	unsigned kind;
	const char *name, *what;
} out_kinds[] = {
	{ WEFT__SET_OUTPUTS, "outputs", "a run's outputs" },
	{ WEFT__SET_CHECKPOINT, "checkpoint", "a checkpoint" },
	{ WEFT__SET_ENSEMBLE, "ensemble", "an ensemble's outputs" },
};

static unsigned out_kind_named(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof out_kinds / sizeof *out_kinds; i++)
		if (strlen(out_kinds[i].name) == len &&
		    memcmp(out_kinds[i].name, name, len) == 0)
			return out_kinds[i].kind;
	return OUT_KIND_OTHER;
}

/* The name or (what) the words of kind, the first of its flags. */
static const char *out_kind_field(unsigned kind, int what)
{
	for (size_t i = 0; i < sizeof out_kinds / sizeof *out_kinds; i++)
		if (out_kinds[i].kind & kind)
			return what ? out_kinds[i].what : out_kinds[i].name;
	return what ? "a set of a kind this weft does not know" : "unknown";
}

/* The kind of a set whose manifest has no kind line (an older weft's):
 * its names tell a checkpoint (run/checkpoint.h's manifest and state) or
 * an ensemble with its tree of runs; anything else is outputs, a run's or
 * an ensemble's (without its runs, [ensemble] keep_runs = false): either
 * replaces it, as before kinds. */
static unsigned out_kind_guessed(const char *dir, const out_names *l)
{
	char *runs;
	struct stat sb;
	int tree;

	if (out_names_has(l, "checkpoint.txt", 14) &&
	    out_names_has(l, "state.bin", 9))
		return WEFT__SET_CHECKPOINT;
	if (!out_names_has(l, "runs", 4))
		return WEFT__SET_OUTPUTS | WEFT__SET_ENSEMBLE;
	runs = weft__path_join(dir, "runs");
	tree = runs && lstat(runs, &sb) == 0 && S_ISDIR(sb.st_mode);
	free(runs);
	return tree ? WEFT__SET_ENSEMBLE
		    : WEFT__SET_OUTPUTS | WEFT__SET_ENSEMBLE;
}

/* DIR/.weft-outputs opened to read: a regular file of at most
 * OUT_MANIFEST_MAX bytes (weft__open_regular(): a FIFO, a device or a
 * socket put there is refused without being read or waited on). NULL and
 * *absent 1 when there is none; NULL and *absent 0, the reason in ctx
 * (may be NULL), when it cannot be read. */
static FILE *out_manifest_open(weft_context *ctx, const char *dir, int *absent)
{
	char *path = weft__path_join(dir, WEFT__OUT_MANIFEST);
	char shown[400], what[480];
	uint64_t size;
	FILE *f = NULL;
	int fd;

	*absent = 0;
	if (!path) {
		weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
		return NULL;
	}
	weft__path_shown(shown, sizeof shown, path);
	weft__fmt(what, sizeof what, "manifest %s", shown);
	if (weft__open_regular(ctx, AT_FDCWD, path, what, OUT_MANIFEST_MAX, &fd,
			       &size) != WEFT_OK)
		*absent = errno == ENOENT;
	else if (!(f = fdopen(fd, "r"))) {
		weft__fail(ctx, WEFT_E_IO, "cannot read %s: %s", what,
			   strerror(errno));
		close(fd);
	}
	free(path);
	return f;
}

/* DIR/.weft-outputs: its names, whether it ends with "." (the set was
 * complete) and, with kind, the kind of set it lists (0: no manifest). No
 * manifest gives no names and WEFT_OK; one that cannot be read
 * (out_manifest_open) no names and its error, said in ctx (may be
 * NULL). */
static weft_status out_manifest_read_kind(weft_context *ctx, const char *dir,
					  out_names *l, int *complete,
					  unsigned *kind)
{
	size_t total = 0, nk = strlen(WEFT__OUT_KIND);
	unsigned named = 0;
	char line[4096];
	int absent;
	FILE *f = out_manifest_open(ctx, dir, &absent);

	*complete = 0;
	if (kind)
		*kind = 0;
	if (!f)
		return absent ? WEFT_OK : WEFT_E_IO;
	while (total < OUT_MANIFEST_MAX && fgets(line, sizeof line, f)) {
		size_t len = strcspn(line, "\n");
		total += len + 1;
		*complete = len == 1 && line[0] == '.';
		if (total == len + 1 && len > nk &&
		    memcmp(line, WEFT__OUT_KIND, nk) == 0)
			named = out_kind_named(line + nk, len - nk);
		else if (!*complete && len && out_names_add(l, line, len) != 0)
			break;
	}
	if (kind)
		*kind = named ? named : out_kind_guessed(dir, l);
	fclose(f);
	return WEFT_OK;
}

/* The names of DIR's manifest, where it can be read (none otherwise:
 * removals and recovery go on without them). */
static void out_manifest_read(const char *dir, out_names *l, int *complete)
{
	out_manifest_read_kind(NULL, dir, l, complete, NULL);
}

/* The kind of set that set writes. */
static unsigned out_kind(const weft__outputs *set)
{
	if (set->tree)
		return WEFT__SET_ENSEMBLE;
	if (set->section && strcmp(set->section, "checkpoint") == 0)
		return WEFT__SET_CHECKPOINT;
	return WEFT__SET_OUTPUTS;
}

/* A file weft wrote into a set whose manifest is `old` (and, with set,
 * one of the new set's names): the manifest, a listed name, or an older
 * weft's temporary file .NAME.XXXXXX of a listed name. */
static int out_is_weft(const weft__outputs *set, const out_names *old,
		       const char *name)
{
	size_t len = strlen(name);

	if (strcmp(name, WEFT__OUT_MANIFEST) == 0 ||
	    out_names_has(old, name, len) ||
	    (set && set->tree && strcmp(name, set->tree) == 0) ||
	    (set && weft__outputs_find(set, name)))
		return 1;
	if (name[0] != '.' || len < 9 || name[len - 7] != '.' ||
	    strspn(name + len - 6, OUT_ALNUM) != 6)
		return 0;
	if (out_names_has(old, name + 1, len - 8))
		return 1;
	for (const weft_output *o = set ? set->head : NULL; o;
	     o = weft__output_next(o)) {
		const char *n = weft__output_name(o);
		if (strlen(n) == len - 8 && memcmp(n, name + 1, len - 8) == 0)
			return 1;
	}
	return 0;
}

static void out_note(weft__outputs *set, const char *fmt, const char *a,
		     const char *b)
{
	if (!set->note[0])
		weft__fmt(set->note, sizeof set->note, fmt, a, b);
}

/* ---- checking the directory -----------------------------------------------
 */

/* dir without trailing slashes ("/" stays), in new memory. */
static char *out_trim(const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return strndup(dir, n);
}

/* 1 when the current directory is dir or inside it. */
static int out_holds_cwd(const char *dir)
{
	char *real = realpath(dir, NULL), *cwd = getcwd(NULL, 0);
	size_t n = real ? strlen(real) : 0;
	int in = real && cwd && strncmp(cwd, real, n) == 0 &&
		 (cwd[n] == '/' || cwd[n] == '\0' || n == 1);

	free(real);
	free(cwd);
	return in;
}

/* The first subdirectory of dir (which exists) that its manifest does not
 * list (an ensemble's runs), into buf; 0 when none. */
static int out_subdir(const char *dir, char *buf, size_t size)
{
	DIR *d = opendir(dir);
	out_names listed = { 0 };
	struct dirent *e;
	struct stat sb;
	int found = 0, complete;

	out_manifest_read(dir, &listed, &complete);
	while (d && !found && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 ||
		    out_names_has(&listed, e->d_name, strlen(e->d_name)))
			continue;
		found = fstatat(dirfd(d), e->d_name, &sb,
				AT_SYMLINK_NOFOLLOW) == 0 &&
			S_ISDIR(sb.st_mode);
		if (found)
			weft__escape(buf, size, e->d_name, strlen(e->d_name));
	}
	if (d)
		closedir(d);
	out_names_free(&listed);
	return found;
}

/* What a mount point is told: weft cannot replace it. */
#define OUT_MOUNT_POINT                                                        \
	"%s directory %s is a mount point: weft replaces the directory in "    \
	"one rename, which a mount point cannot take; use a directory inside " \
	"it, e.g. %s/run"

/* 1 when dir (which exists) is a mount point: its device is not its
 * parent's. (A bind mount of a directory of the same filesystem is not
 * seen here; the exchange's EBUSY says it.) */
static int out_is_mount(const char *dir, const struct stat *sb)
{
	char *up = weft__path_join(dir, "..");
	struct stat pb;
	int mount = up && stat(up, &pb) == 0 && pb.st_dev != sb->st_dev;

	free(up);
	return mount;
}

/* The set dir holds (its manifest's kind) is one of kinds, or dir holds
 * no set. */
static weft_status out_check_kind(weft_context *ctx, const char *section,
				  const char *key, const char *dir,
				  unsigned kinds)
{
	out_names names = { 0 };
	unsigned held;
	int complete;

	if (out_manifest_read_kind(ctx, dir, &names, &complete, &held)) {
		char why[WEFT__MSG_MAX / 2];
		weft__fmt(why, sizeof why, "%s", weft__context_error(ctx));
		out_names_free(&names);
		return weft__fail(ctx, WEFT_E_IO,
				  "%s: %s directory %s: %s; remove it, or "
				  "choose another [%s] directory",
				  key, section, dir, why, section);
	}
	out_names_free(&names);
	if (!held || (held & kinds))
		return WEFT_OK;
	return weft__fail(ctx, WEFT_E_CONFIG,
			  "%s: %s directory %s holds %s written by weft, not "
			  "%s: weft replaces or deletes only what it wrote, "
			  "and only the same kind; choose another [%s] "
			  "directory",
			  key, section, dir, out_kind_field(held, 1),
			  kinds == (WEFT__SET_OUTPUTS | WEFT__SET_ENSEMBLE)
				  ? "outputs"
				  : out_kind_field(kinds, 1),
			  section);
}

static weft_status out_check_existing(weft_context *ctx, const char *section,
				      const char *key, const char *dir,
				      const struct stat *sb, unsigned kinds)
{
	char sub[256];
	weft_status st;

	if (!S_ISDIR(sb->st_mode))
		return weft__fail(ctx, WEFT_E_IO,
				  "%s: %s directory %s exists and is not a "
				  "directory",
				  key, section, dir);
	if (out_holds_cwd(dir))
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: it is the current directory or holds "
				  "it; a run replaces its %s directory as a "
				  "whole: name a directory of its own, such as "
				  "weft-out",
				  key, section);
	if (out_is_mount(dir, sb))
		return weft__fail(ctx, WEFT_E_CONFIG, "%s: " OUT_MOUNT_POINT,
				  key, section, dir, dir);
	if ((st = out_check_kind(ctx, section, key, dir, kinds)))
		return st;
	if (out_subdir(dir, sub, sizeof sub))
		return weft__fail(ctx, WEFT_E_CONFIG,
				  "%s: %s directory %s holds a directory, "
				  "'%s', that weft did not write; a run "
				  "replaces its %s directory as a whole and "
				  "carries over files only: move it, or choose "
				  "another [%s] directory",
				  key, section, dir, sub, section, section);
	return WEFT_OK;
}

/* The set is written beside dir first, in PARENT/.BASE.weft-new-XXXXXX/
 * with its manifest: a directory too long for those paths is refused
 * before anything is made (key: "FILE:LINE: [output] directory = ..."). */
static weft_status out_check_length(weft_context *ctx, const char *key,
				    const char *d)
{
	char path[PATH_MAX];
	const char *last = strrchr(d, '/');
	int base = (int)(last ? last + 1 - d : 0);

	if (weft__fmt_path(ctx, path, sizeof path,
			   "a run writes its set beside it first, in",
			   "%.*s.%s%sXXXXXX/%s", base, d, d + base,
			   WEFT__OUT_NEW, WEFT__OUT_MANIFEST) == WEFT_OK)
		return WEFT_OK;
	return weft__fail(ctx, WEFT_E_CONFIG, "%s: %s", key,
			  weft__context_error(ctx));
}

/* A run writes into dir (when it exists: its new set takes its mode) and
 * beside it, in its parent (the lock, the new set): both writable, or
 * the first of dir's ancestors that exists, which the run creates the
 * missing ones in. Said with the directory the user named, not a hidden
 * one a run would have failed to make. */
static weft_status out_check_writable(weft_context *ctx, const char *section,
				      const char *key, const char *d,
				      int exists)
{
	char *up = exists ? realpath(d, NULL) : NULL, *slash;
	weft_status st = WEFT_OK;

	if (!up)
		up = weft__strdup(d);
	if (!up)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	if (exists && access(d, W_OK | X_OK) != 0) {
		st = weft__fail(ctx, WEFT_E_IO,
				"%s: %s directory %s is not writable (%s): a "
				"run writes its new set with the directory's "
				"mode and then replaces the directory; make it "
				"writable (chmod u+w %s), or choose another "
				"[%s] directory",
				key, section, d, strerror(errno), d, section);
		free(up);
		return st;
	}
	do { /* the nearest ancestor that exists */
		slash = strrchr(up, '/');
		if (slash == up)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
		else
			strcpy(up, ".");
	} while (access(up, F_OK) != 0 && strcmp(up, ".") != 0 &&
		 strcmp(up, "/") != 0);
	if (access(up, W_OK | X_OK) != 0)
		st = weft__fail(
			ctx, WEFT_E_IO,
			"%s: cannot write in %s (%s), where a run writes "
			"the lock and the new set of %s directory %s, "
			"beside it: make %s writable, or choose another "
			"[%s] directory",
			key, up, strerror(errno), section, d, up, section);
	free(up);
	return st;
}

/* The kinds of set a [section] directory may replace: a checkpoint a
 * checkpoint; the output directory (section NULL or "output") what weft
 * writes there, a run's or an ensemble's outputs, either for either. */
static unsigned out_accepts(const char *section)
{
	return section && strcmp(section, "checkpoint") == 0
		       ? WEFT__SET_CHECKPOINT
		       : WEFT__SET_OUTPUTS | WEFT__SET_ENSEMBLE;
}

/* "WHERE: [section] directory = DIR", the key of messages, into key. */
static void out_key(char *key, size_t size, const char *section,
		    const char *dir, const char *where)
{
	char shown[400];

	weft__path_shown(shown, sizeof shown, dir);
	weft__where_key(key, size, where, section, "directory", shown);
}

weft_status weft__outputs_check(weft_context *ctx, const char *section,
				const char *dir, const char *where)
{
	char key[WEFT__MSG_MAX / 2];
	unsigned kinds = out_accepts(section);
	char *d = out_trim(dir);
	const char *last;
	struct stat sb;
	weft_status st = WEFT_OK;
	int exists = 0;

	if (!d)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	section = section ? section : "output";
	out_key(key, sizeof key, section, dir, where);
	last = strrchr(d, '/');
	last = last ? last + 1 : d;
	if (stat(d, &sb) == 0 && (exists = 1))
		st = out_check_existing(ctx, section, key, d, &sb, kinds);
	else if (errno != ENOENT && errno != ENOTDIR)
		st = weft__fail(ctx, WEFT_E_IO, "%s: %s", key, strerror(errno));
	if (st == WEFT_OK &&
	    (!last[0] || strcmp(last, ".") == 0 || strcmp(last, "..") == 0))
		st = weft__fail(ctx, WEFT_E_CONFIG,
				"%s: name the directory itself (the root "
				"directory, '.' and '..' cannot be replaced by "
				"a run's set)",
				key);
	if (st == WEFT_OK)
		st = out_check_length(ctx, key, d);
	if (st == WEFT_OK)
		st = out_check_writable(ctx, section, key, d, exists);
	free(d);
	return st;
}

/* ---- preparing ------------------------------------------------------------
 */

/* "output" or "checkpoint", for messages. */
static const char *out_section(const weft__outputs *set)
{
	return set->section ? set->section : "output";
}

/* mkdir -p: create dir and its missing parents. */
static weft_status out_mkdirs(weft_context *ctx, const weft__outputs *set,
			      const char *dir)
{
	char *p = weft__strdup(dir);
	weft_status st = WEFT_OK;

	if (!p)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	for (char *s = p + 1;; s++) {
		char c = *s;
		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			st = weft__fail(ctx, WEFT_E_IO,
					"cannot create %s directory %s: %s",
					out_section(set), p, strerror(errno));
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return st;
}

/* set->dir, and the directory replaced (a symlink's target), split into
 * parent and base. */
static weft_status out_split(weft_context *ctx, weft__outputs *set,
			     const char *dir)
{
	struct stat sb;
	char *slash;

	set->dir = out_trim(dir);
	if (set->dir && lstat(set->dir, &sb) == 0 && S_ISLNK(sb.st_mode))
		set->real = realpath(set->dir, NULL);
	else if (set->dir)
		set->real = weft__strdup(set->dir);
	if (!set->real)
		return weft__fail(ctx, WEFT_E_IO,
				  "cannot resolve %s directory %s: %s",
				  out_section(set), dir, strerror(errno));
	slash = strrchr(set->real, '/');
	set->parent = !slash ? weft__strdup(".")
		      : slash == set->real
			      ? weft__strdup("/")
			      : strndup(set->real, (size_t)(slash - set->real));
	set->base = weft__strdup(slash ? slash + 1 : set->real);
	if (!set->parent || !set->base)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	return WEFT_OK;
}

/* The other run's pid, from its lock file, into buf. */
static void out_lock_owner(int fd, char *buf, size_t size)
{
	char text[32];
	ssize_t n = pread(fd, text, sizeof text - 1, 0);

	text[n > 0 ? n : 0] = '\0';
	text[strspn(text, "0123456789")] = '\0';
	weft__fmt(buf, size, "%s", text[0] ? text : "unknown");
}

/* 1 when fd, locked, is still the file at path: a run that ends removes
 * its lock file while it holds the lock, so a lock taken on a file that
 * was removed meanwhile locks nothing (take it again). */
static int out_lock_current(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
	       a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/* PARENT/.BASE.weft-lock opened and locked (flock, without waiting): the
 * descriptor, or -1 with errno (EWOULDBLOCK: another run holds it, *fd
 * then open on it to read its pid). */
static int out_lock_take(const char *path, int *fd)
{
	for (int tries = 0; tries < 100; tries++) {
		*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
		if (*fd < 0 || flock(*fd, LOCK_EX | LOCK_NB) != 0)
			return -1;
		if (out_lock_current(*fd, path))
			return *fd;
		close(*fd);
	}
	*fd = -1;
	errno = EAGAIN;
	return -1;
}

static weft_status out_lock(weft_context *ctx, weft__outputs *set)
{
	char *path = out_sibling(set, WEFT__OUT_LOCK);
	char pid[32];
	int fd, n;

	if (!path)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	if (out_lock_take(path, &fd) < 0) {
		int busy = fd >= 0 && errno == EWOULDBLOCK;
		weft_status st;
		if (busy)
			out_lock_owner(fd, pid, sizeof pid);
		st = busy ? weft__fail(ctx, WEFT_E_IO,
				       "%s directory %s is in use by another "
				       "run (pid %s, which holds %s): wait for "
				       "it to end, or choose another [%s] "
				       "directory",
				       out_section(set), set->dir, pid, path,
				       out_section(set))
			  : weft__fail(ctx, WEFT_E_IO,
				       "cannot lock %s directory %s (%s): %s",
				       out_section(set), set->dir, path,
				       strerror(errno));
		if (fd >= 0)
			close(fd);
		free(path);
		return st;
	}
	free(path);
	n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		/* The lock holds without the pid; messages say "unknown". */
	}
	set->lock_fd = fd;
	return WEFT_OK;
}

/* The leftovers of BASE of one kind in PARENT, as names. */
static void out_leftovers(const weft__outputs *set, const char *kind,
			  out_names *l)
{
	DIR *d = opendir(set->parent);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (out_is_leftover(set->base, kind, e->d_name))
			out_names_add(l, e->d_name, strlen(e->d_name));
	if (d)
		closedir(d);
}

/* The output directory is missing and a commit was cut between its two
 * renames: put back the new set when it is complete, else the old one. */
static void out_recover(weft__outputs *set)
{
	out_names news = { 0 }, olds = { 0 }, names = { 0 };
	char *found = NULL, *path;
	struct stat sb;
	int complete;

	if (lstat(set->real, &sb) == 0 || errno != ENOENT)
		return;
	out_leftovers(set, WEFT__OUT_NEW, &news);
	out_leftovers(set, WEFT__OUT_OLD, &olds);
	for (size_t i = 0; !found && i < news.n; i++) {
		path = weft__path_join(set->parent, news.v[i]);
		out_manifest_read(path ? path : "", &names, &complete);
		out_names_free(&names);
		if (complete)
			found = path;
		else
			free(path);
	}
	if (!found && olds.n)
		found = weft__path_join(set->parent, olds.v[0]);
	if (found && rename(found, set->real) != 0)
		out_note(set, "could not put %s back in place: %s", found,
			 strerror(errno));
	free(found);
	out_names_free(&news);
	out_names_free(&olds);
}

/* Remove an entry of d: a file, or a set's tree (an ensemble's runs). */
static int out_unlink(DIR *d, const char *dir, const char *name)
{
	char *path;

	if (unlinkat(dirfd(d), name, 0) == 0)
		return 1;
	if (errno != EISDIR && errno != EPERM)
		return 0;
	if ((path = weft__path_join(dir, name)))
		weft__rm_tree(path);
	free(path);
	return 1;
}

/* Remove an unfinished new set: everything in it is weft's outputs or
 * hard links to files of the output directory. */
static void out_remove_new(weft__outputs *set, const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			out_unlink(d, path, e->d_name);
	if (d)
		closedir(d);
	if (rmdir(path) != 0)
		out_note(set, "kept %s: cannot remove it: %s", path,
			 strerror(errno));
}

/* 1 when the entry of d named name is the file of the same name in the
 * output directory (a hard link carried over into the set). */
static int out_is_carried(const weft__outputs *set, DIR *d, const char *name)
{
	char *path = weft__path_join(set->real, name);
	struct stat a, b;
	int same = path && lstat(path, &b) == 0 &&
		   fstatat(dirfd(d), name, &a, AT_SYMLINK_NOFOLLOW) == 0 &&
		   a.st_ino == b.st_ino && a.st_dev == b.st_dev;

	free(path);
	return same;
}

/* Move a file that weft did not write from a replaced set into the
 * output directory, unless a file of that name is there. */
static int out_move_in(const weft__outputs *set, DIR *d, const char *name)
{
	char *path = weft__path_join(set->real, name);
	int moved = path &&
		    faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) != 0 &&
		    renameat(dirfd(d), name, AT_FDCWD, path) == 0;

	free(path);
	return moved;
}

/* Test hook REMOVE_KILL=N (util.h: weft__test_hook) kills the process
 * with SIGKILL once a commit has removed N entries of the set it replaced
 * (a run's outputs or a checkpoint), so that tests can check that the
 * next run removes the rest. */
static void out_removed(int removed)
{
	const char *v = weft__test_hook("REMOVE_KILL");

	if (removed == 1)
		out_point(6);
	if (v && removed > 0 && atoi(v) == removed)
		raise(SIGKILL);
}

/* Remove a replaced set: what weft wrote goes, anything else moves into
 * the output directory; the manifest last, so that a removal cut short
 * leaves what is left listed. with_new: the names of set's new outputs
 * count as weft's too (the set they replace may predate manifests). A set
 * left without its manifest (by an older weft, which removed it in any
 * order) is read with the output directory's manifest: the names weft
 * writes there. */
static void out_remove_old(weft__outputs *set, const char *path, int with_new)
{
	out_names old = { 0 };
	DIR *d = opendir(path);
	struct dirent *e;
	int complete, removed = 0, listed;

	out_manifest_read(path, &old, &complete);
	listed = old.n > 0;
	if (!listed && !with_new)
		out_manifest_read(set->real, &old, &complete);
	while (d && (e = readdir(d))) {
		const char *name = e->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
		    strcmp(name, WEFT__OUT_MANIFEST) == 0)
			continue;
		if (out_is_weft(with_new ? set : NULL, &old, name) ||
		    out_is_carried(set, d, name))
			removed += out_unlink(d, path, name);
		else
			out_move_in(set, d, name);
		if (with_new) /* in a commit's removal only */
			out_removed(removed);
	}
	if (d) {
		removed += unlinkat(dirfd(d), WEFT__OUT_MANIFEST, 0) == 0;
		closedir(d);
	}
	out_names_free(&old);
	if (rmdir(path) != 0)
		out_note(set, "kept %s: it holds files weft did not write (%s)",
			 path, strerror(errno));
}

/* What killed runs left beside the output directory. */
static void out_clean(weft__outputs *set)
{
	out_names news = { 0 }, olds = { 0 };

	out_leftovers(set, WEFT__OUT_NEW, &news);
	out_leftovers(set, WEFT__OUT_OLD, &olds);
	for (size_t i = 0; i < news.n + olds.n; i++) {
		int is_new = i < news.n;
		char *path = weft__path_join(
			set->parent, is_new ? news.v[i] : olds.v[i - news.n]);
		if (path && is_new)
			out_remove_new(set, path);
		else if (path)
			out_remove_old(set, path, 0);
		free(path);
	}
	out_names_free(&news);
	out_names_free(&olds);
}

static mode_t out_umask(void)
{
	mode_t m = umask(022);
	umask(m);
	return m;
}

/* TMP, with the output directory's mode (or a new directory's). */
static weft_status out_mktmp(weft_context *ctx, weft__outputs *set)
{
	struct stat sb;
	mode_t mode = stat(set->real, &sb) == 0 ? sb.st_mode & 07777
						: 0777 & ~out_umask();

	set->tmp = out_sibling(set, WEFT__OUT_NEW "XXXXXX");
	if (!set->tmp)
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	if (!mkdtemp(set->tmp)) {
		weft__fail(ctx, WEFT_E_IO,
			   "cannot create %s beside %s directory %s: %s",
			   set->tmp, out_section(set), set->dir,
			   strerror(errno));
		free(set->tmp);
		set->tmp = NULL;
		return WEFT_E_IO;
	}
	chmod(set->tmp, mode);
	return WEFT_OK;
}

/* DIR checked again once locked and recovered: out_recover() may have
 * put back a set that the check before the lock did not see (a killed
 * commit of another kind left DIR missing between its two renames), and
 * the run would replace it. Refused as weft__outputs_check() refuses it,
 * before leftovers are removed; DIR stays as recovered. */
static weft_status out_recheck(weft_context *ctx, const weft__outputs *set,
			       const char *dir, const char *where)
{
	char key[WEFT__MSG_MAX / 2];
	struct stat sb;

	if (stat(set->dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return WEFT_OK;
	out_key(key, sizeof key, out_section(set), dir, where);
	return out_check_kind(ctx, out_section(set), key, set->dir,
			      out_accepts(set->section));
}

weft_status weft__outputs_prepare(weft_context *ctx, weft__outputs *set,
				  const char *dir, const char *where)
{
	weft_status st;

	set->lock_fd = -1;
	set->tail = &set->head;
	if ((st = weft__outputs_check(ctx, set->section, dir, where)) ||
	    (st = out_split(ctx, set, dir)) ||
	    (st = out_mkdirs(ctx, set, set->parent)) ||
	    (st = out_lock(ctx, set)))
		return st;
	out_recover(set);
	if ((st = out_recheck(ctx, set, dir, where)))
		return st;
	out_clean(set);
	return out_mktmp(ctx, set);
}

/* ---- committing -----------------------------------------------------------
 */

static int out_fsync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = fd >= 0 ? fsync(fd) : -1;

	if (fd >= 0)
		close(fd);
	return rc;
}

/* TMP/.weft-outputs: the new set's names, then ".". */
static weft_status out_manifest_write(weft_context *ctx, weft__outputs *set)
{
	char *path = weft__path_join(set->tmp, WEFT__OUT_MANIFEST);
	FILE *f = path ? fopen(path, "wxe") : NULL;
	int bad;

	if (f)
		fprintf(f, "%s%s\n", WEFT__OUT_KIND,
			out_kind_field(out_kind(set), 0));
	for (const weft_output *o = set->head; f && o; o = weft__output_next(o))
		fprintf(f, "%s\n", weft__output_name(o));
	if (f && set->tree)
		fprintf(f, "%s\n", set->tree);
	bad = !f || fputs(".\n", f) < 0 || fflush(f) != 0 ||
	      fsync(fileno(f)) != 0;
	if ((f && fclose(f) != 0) || bad) {
		weft__fail(ctx, WEFT_E_IO, "cannot write %s: %s",
			   path ? path : WEFT__OUT_MANIFEST, strerror(errno));
		free(path);
		return WEFT_E_IO;
	}
	free(path);
	return WEFT_OK;
}

/* Hard-link into TMP one file of the output directory that weft did not
 * write; a directory there (made during the run) fails the commit. */
static weft_status out_carry_one(weft_context *ctx, weft__outputs *set, DIR *d,
				 int tfd, const char *name)
{
	char shown[256];
	struct stat sb;

	weft__escape(shown, sizeof shown, name, strlen(name));
	if (fstatat(dirfd(d), name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(sb.st_mode))
		return weft__fail(ctx, WEFT_E_IO,
				  "%s directory %s holds a directory, '%s', "
				  "that weft did not write; nothing was "
				  "replaced: move it, and run again",
				  out_section(set), set->dir, shown);
	if (linkat(dirfd(d), name, tfd, name, 0) != 0)
		return weft__fail(ctx, WEFT_E_IO,
				  "cannot carry %s/%s, which weft did not "
				  "write, over into the new set: %s; nothing "
				  "was replaced",
				  set->dir, shown, strerror(errno));
	return WEFT_OK;
}

static weft_status out_carry(weft_context *ctx, weft__outputs *set)
{
	out_names old = { 0 };
	DIR *d = opendir(set->real);
	int tfd, complete;
	struct dirent *e;
	weft_status st = WEFT_OK;

	if (!d)
		return errno == ENOENT ? WEFT_OK
				       : weft__fail(ctx, WEFT_E_IO,
						    "cannot read %s: %s",
						    set->dir, strerror(errno));
	tfd = open(set->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	out_manifest_read(set->real, &old, &complete);
	while (st == WEFT_OK && (e = readdir(d))) {
		const char *name = e->d_name;
		if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
		    !out_is_weft(set, &old, name))
			st = out_carry_one(ctx, set, d, tfd, name);
	}
	out_names_free(&old);
	if (tfd >= 0)
		close(tfd);
	closedir(d);
	return st;
}

/* The old set, now at TMP's name, renamed PARENT/.BASE.weft-old-XXXXXX
 * (XXXXXX: TMP's) and removed. */
static void out_retire(weft__outputs *set, const char *at)
{
	char suffix[32];
	char *old;

	weft__fmt(suffix, sizeof suffix, "%s%s", WEFT__OUT_OLD,
		  set->tmp + strlen(set->tmp) - 6);
	old = out_sibling(set, suffix);
	if (old && strcmp(at, old) != 0 && rename(at, old) != 0) {
		free(old);
		old = weft__strdup(at);
	}
	out_point(5);
	out_fsync_dir(set->parent);
	if (old)
		out_remove_old(set, old, 1);
	free(old);
}

/* What a directory that may be a mount point is told (EBUSY or EXDEV from
 * the exchange, and DIR's device is its parent's: a bind mount of the
 * same filesystem, or a directory some process holds busy). */
#define OUT_BUSY                                                               \
	"%s directory %s is busy or a mount point (cannot %s: %s): weft "      \
	"replaces the directory in one rename, which a mount point cannot "    \
	"take; if it is one, use a directory inside it, e.g. %s/run; nothing " \
	"was replaced"

/* The exchange or a rename of DIR failed with err: EBUSY or EXDEV is said
 * to be a mount point where DIR's device is not its parent's
 * (out_is_mount), busy or a mount point otherwise, with what to do;
 * anything else as it is. */
static weft_status out_swap_fail(weft_context *ctx, const weft__outputs *set,
				 const char *what, int err)
{
	char mount[WEFT__MSG_MAX / 2];
	struct stat sb;

	if (err != EBUSY && err != EXDEV)
		return weft__fail(ctx, WEFT_E_IO,
				  "cannot %s: %s; nothing was replaced", what,
				  strerror(err));
	if (stat(set->real, &sb) != 0 || !out_is_mount(set->real, &sb))
		return weft__fail(ctx, WEFT_E_IO, OUT_BUSY, out_section(set),
				  set->dir, what, strerror(err), set->dir);
	weft__fmt(mount, sizeof mount, OUT_MOUNT_POINT, out_section(set),
		  set->dir, set->dir);
	return weft__fail(ctx, WEFT_E_IO,
			  "%s (cannot %s: %s); nothing was "
			  "replaced",
			  mount, what, strerror(err));
}

/* Where the filesystem cannot exchange: the old set aside, then the new
 * one into place (DIR is missing in between: out_recover()). */
static weft_status out_swap_renames(weft_context *ctx, weft__outputs *set)
{
	char suffix[32];
	char *old;

	weft__fmt(suffix, sizeof suffix, "%s%s", WEFT__OUT_OLD,
		  set->tmp + strlen(set->tmp) - 6);
	if (!(old = out_sibling(set, suffix)))
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	if (rename(set->real, old) != 0) {
		char what[WEFT__MSG_MAX / 2];
		int err = errno;
		weft__fmt(what, sizeof what, "rename %s to %s", set->dir, old);
		free(old);
		return out_swap_fail(ctx, set, what, err);
	}
	out_point(4);
	if (rename(set->tmp, set->real) != 0) {
		int e = errno;
		rename(old, set->real);
		free(old);
		return weft__fail(ctx, WEFT_E_IO,
				  "cannot rename %s to %s: %s; nothing was "
				  "replaced",
				  set->tmp, set->dir, strerror(e));
	}
	set->committed = 1;
	out_retire(set, old);
	free(old);
	return WEFT_OK;
}

/* The one step: the new set in place of the old (or of nothing). */
static weft_status out_swap(weft_context *ctx, weft__outputs *set)
{
	/* Test hook COMMIT_RENAME: the two renames of filesystems that
	 * cannot exchange, on any. */
	int renames = weft__test_hook("COMMIT_RENAME") != NULL;
	struct stat sb;

	if (lstat(set->real, &sb) != 0) {
		if (rename(set->tmp, set->real) != 0)
			return weft__fail(ctx, WEFT_E_IO,
					  "cannot rename %s to %s: %s",
					  set->tmp, set->dir, strerror(errno));
		set->committed = 1;
		out_point(4);
		out_fsync_dir(set->parent);
		return WEFT_OK;
	}
	if (renames || renameat2(AT_FDCWD, set->tmp, AT_FDCWD, set->real,
				 RENAME_EXCHANGE) != 0) {
		char what[WEFT__MSG_MAX / 2];
		int err = errno;
		if (renames || err == EINVAL || err == ENOSYS ||
		    err == EOPNOTSUPP)
			return out_swap_renames(ctx, set);
		weft__fmt(what, sizeof what, "exchange %s and %s", set->tmp,
			  set->dir);
		return out_swap_fail(ctx, set, what, err);
	}
	set->committed = 1;
	out_point(4);
	out_retire(set, set->tmp);
	return WEFT_OK;
}

weft_status weft__outputs_commit(weft_context *ctx, weft__outputs *set)
{
	weft_status st;

	for (weft_output *o = set->head; o; o = weft__output_next(o))
		if ((st = weft__output_close(o)))
			return st;
	out_point(1);
	if ((st = out_manifest_write(ctx, set)))
		return st;
	out_point(2);
	if ((st = out_carry(ctx, set)))
		return st;
	if (out_fsync_dir(set->tmp) != 0)
		return weft__fail(ctx, WEFT_E_IO, "cannot write %s: %s",
				  set->tmp, strerror(errno));
	out_point(3);
	if (weft__cancelled(ctx))
		return weft__cancel_fail(ctx,
					 "committing the outputs into %s "
					 "(nothing was replaced)",
					 set->dir);
	if ((st = out_swap(ctx, set)))
		return st;
	out_point(7);
	return WEFT_OK;
}

weft_status weft__outputs_renew(weft_context *ctx, weft__outputs *set)
{
	weft__outputs_free_files(set);
	if (set->tmp && !set->committed)
		out_remove_new(set, set->tmp);
	free(set->tmp);
	set->tmp = NULL;
	set->committed = 0;
	return out_mktmp(ctx, set);
}

/* The lock file removed while the lock is held (a run that opened it
 * meanwhile sees, once it has the lock, that it is gone: out_lock_take),
 * then the lock released. */
static void out_unlock(weft__outputs *set)
{
	char *path = out_sibling(set, WEFT__OUT_LOCK);

	if (path && out_lock_current(set->lock_fd, path))
		unlink(path);
	free(path);
	close(set->lock_fd);
	set->lock_fd = -1;
}

/* ---- an output directory held (weft.h) ------------------------------------
 */

struct weft_dir_lock {
	weft__outputs set; /* its paths and lock; never a new set */
};

weft_status weft_dir_lock_take(weft_context *ctx, const char *dir,
			       weft_dir_lock **out)
{
	weft_dir_lock *l;
	weft_status st;

	if (out)
		*out = NULL;
	if (!ctx)
		return WEFT_E_INVALID;
	if (!dir || !out)
		return weft__fail(ctx, WEFT_E_INVALID,
				  "weft_dir_lock_take: %s is NULL",
				  dir ? "out" : "dir");
	if (!(l = calloc(1, sizeof *l)))
		return weft__fail(ctx, WEFT_E_NOMEM, "out of memory");
	l->set.tail = &l->set.head;
	l->set.lock_fd = -1;
	st = out_split(ctx, &l->set, dir);
	if (st == WEFT_OK && (!l->set.base[0] || !strcmp(l->set.base, ".") ||
			      !strcmp(l->set.base, "..")))
		st = weft__fail(ctx, WEFT_E_INVALID,
				"weft_dir_lock_take: '%s' names no directory "
				"that a run could replace (not /, '.', '..' "
				"or empty)",
				dir);
	if (st == WEFT_OK)
		st = out_lock(ctx, &l->set);
	if (st != WEFT_OK) {
		weft_dir_lock_release(l);
		return st;
	}
	*out = l;
	return WEFT_OK;
}

void weft_dir_lock_release(weft_dir_lock *l)
{
	if (!l)
		return;
	weft__outputs_discard(&l->set);
	free(l);
}

void weft__outputs_discard(weft__outputs *set)
{
	weft__outputs_free_files(set);
	if (!set->dir)
		return;
	if (set->tmp && !set->committed)
		out_remove_new(set, set->tmp);
	if (set->lock_fd >= 0)
		out_unlock(set);
	free(set->tmp);
	free(set->dir);
	free(set->real);
	free(set->parent);
	free(set->base);
	memset(set, 0, sizeof *set);
	set->tail = &set->head;
	set->lock_fd = -1;
}
