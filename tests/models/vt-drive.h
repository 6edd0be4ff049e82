/*
 * tests/models/vt-drive.h - what the kit tests that drive a backend
 * through its vtable share (tests/models/space-test, test-graph): the
 * plugin dlopen()ed from the command line (PROG PLUGIN.so THREADS), one
 * device and one program, and calls that stop the test with "PROG: WHAT:
 * WHY" and exit status 1 when a step that is not under test fails.
 */
#ifndef WEFT_TEST_VT_DRIVE_H
#define WEFT_TEST_VT_DRIVE_H

#include <stddef.h>

#include <weft/backend.h>

/* The backend under test, its device and the test's program; err holds
 * the backend's last message. Set by vt_open(). */
extern const weft_backend *vt;
extern weft_error err;
extern weft_device *dev;
extern weft_program *prog;

/* Parse "NAME PLUGIN.so THREADS" (usage and exit 2 otherwise), load the
 * plugin, open a device with THREADS threads and load desc on it. */
void vt_open(const char *name, int argc, char **argv, weft_program_desc desc);
/* Unload the program and close the device. */
void vt_close(void);

/* Print "NAME: what: why" and exit 1. */
_Noreturn void die(const char *what, const char *why);
/* calloc() of n bytes (at least one) that dies when out of memory. */
void *xcalloc(size_t n);
/* A device buffer of n bytes (at least 4). */
weft_buf *alloc(size_t n);
/* Blocking write and read of the first n bytes of b. */
void put(weft_buf *b, const void *p, size_t n);
void get(void *p, weft_buf *b, size_t n);

#endif
