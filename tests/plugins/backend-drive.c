/*
 * tests/plugins/backend-drive.c - driving one backend plugin through its
 * vtable from a C test (backend-drive.h).
 */
#include "backend-drive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tap.h"

const weft_backend *vt;
weft_error err;

/* ---- the plugin ---------------------------------------------------------- */

int find_plugin(const char *name, char *path, size_t size)
{
	const char *list = getenv("WEFT_PLUGIN_PATH");
	const char *build = getenv("WEFT_BUILDDIR");
	struct stat sb;

	while (list && *list) {
		size_t n = strcspn(list, ":");

		snprintf(path, size, "%.*s/weft-backend-%s.so", (int)n, list,
			 name);
		if (stat(path, &sb) == 0)
			return 1;
		list += n + (list[n] == ':');
	}
	snprintf(path, size, "%s/plugins/%s/.libs/weft-backend-%s.so",
		 build ? build : ".", name, name);
	return stat(path, &sb) == 0;
}

weft__plugin *load_backend(weft_context *ctx, const char *path,
			   int skip_unavailable)
{
	weft__plugin *p = NULL;

	if (weft__plugin_load_path(ctx, path, &p) != WEFT_OK) {
		if (skip_unavailable &&
		    strstr(weft_context_error(ctx), ": probe: "))
			tap_skip_all("%s", weft_context_error(ctx));
		tap_bail("%s", weft_context_error(ctx));
	}
	vt = WEFT__BACKEND(p);
	return p;
}

/* ---- calls that must succeed --------------------------------------------- */

weft_device *open_or_bail(const weft_device_config *cfg)
{
	weft_device *dev = NULL;

	if (vt->open(cfg, &dev, &err) != WEFT_OK)
		tap_bail("open(device %d, threads %d): %s", cfg->device,
			 cfg->threads, err.msg);
	return dev;
}

weft_stats stats_of(weft_device *dev)
{
	weft_stats s;

	memset(&s, 0, sizeof s);
	s.struct_size = sizeof s;
	if (vt->stats(dev, &s) != WEFT_OK)
		tap_bail("stats failed");
	return s;
}

weft_buf *alloc_or_bail(weft_device *dev, size_t bytes)
{
	weft_buf *b = NULL;

	if (vt->alloc(dev, bytes, &b, &err) != WEFT_OK)
		tap_bail("alloc(%zu): %s", bytes, err.msg);
	return b;
}

void put(weft_device *dev, weft_buf *b, size_t off, const void *src,
	 size_t bytes)
{
	if (vt->write(dev, b, off, src, bytes, 0, &err) != WEFT_OK)
		tap_bail("write: %s", err.msg);
}

void get(weft_device *dev, void *dst, weft_buf *b, size_t off, size_t bytes)
{
	if (vt->read(dev, dst, b, off, bytes, 0, &err) != WEFT_OK)
		tap_bail("read: %s", err.msg);
}

void zero(weft_device *dev, weft_buf *b, size_t bytes)
{
	void *z = xcalloc(bytes, 1);

	put(dev, b, 0, z, bytes);
	free(z);
}

weft_program *load_or_bail(weft_device *dev, const weft_program_desc *desc)
{
	weft_program *prog = NULL;

	if (vt->load_program(dev, desc, &prog, &err) != WEFT_OK)
		tap_bail("load_program: %s", err.msg);
	return prog;
}

void run(weft_device *dev, weft_program *prog, const weft_launch *l, uint32_t n,
	 uint64_t steps)
{
	if (vt->step(dev, prog, l, n, steps, &err) != WEFT_OK)
		tap_bail("step: %s", err.msg);
}

/* ---- host side ----------------------------------------------------------- */

int is(int64_t got, int64_t want, const char *name)
{
	return TAP_EQ_INT(got, want, name);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		tap_bail("out of memory");
	return p;
}

void fill_pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131u + seed);
}
