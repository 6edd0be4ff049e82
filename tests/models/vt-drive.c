/*
 * tests/models/vt-drive.c - a backend driven through its vtable for the
 * kit tests (see vt-drive.h).
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt-drive.h"

const weft_backend *vt;
weft_error err;
weft_device *dev;
weft_program *prog;

static const char *test_name = "vt-drive";

_Noreturn void die(const char *what, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", test_name, what, why);
	exit(1);
}

void *xcalloc(size_t n)
{
	void *p = calloc(n ? n : 1, 1);

	if (!p)
		die("out of host memory", "calloc");
	return p;
}

weft_buf *alloc(size_t n)
{
	weft_buf *b = NULL;

	if (vt->alloc(dev, n ? n : 4, &b, &err) != WEFT_OK)
		die("alloc", err.msg);
	return b;
}

void put(weft_buf *b, const void *p, size_t n)
{
	if (n && vt->write(dev, b, 0, p, n, 0, &err) != WEFT_OK)
		die("write", err.msg);
}

void get(void *p, weft_buf *b, size_t n)
{
	if (n && vt->read(dev, p, b, 0, n, 0, &err) != WEFT_OK)
		die("read", err.msg);
}

void vt_open(const char *name, int argc, char **argv, weft_program_desc desc)
{
	weft_device_config cfg = { .struct_size = sizeof cfg, .device = -1 };
	void *dl;

	test_name = name;
	if (argc != 3) {
		fprintf(stderr, "usage: %s PLUGIN.so THREADS\n", name);
		exit(2);
	}
	cfg.threads = atoi(argv[2]);
	dl = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!dl)
		die(argv[1], dlerror());
	vt = dlsym(dl, WEFT_BACKEND_ENTRY_SYMBOL);
	if (!vt || vt->abi_major != WEFT_BACKEND_ABI_MAJOR)
		die(argv[1], "not a weft backend of ABI 1");
	if (vt->open(&cfg, &dev, &err) != WEFT_OK)
		die("open", err.msg);
	desc.source_len = strlen(desc.source);
	if (vt->load_program(dev, &desc, &prog, &err) != WEFT_OK)
		die("load_program", err.msg);
}

void vt_close(void)
{
	vt->unload_program(dev, prog);
	vt->close(dev);
}
