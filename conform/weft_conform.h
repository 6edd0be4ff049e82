/*
 * conform/weft_conform.h - the conformance suite's entry, for the weft
 * command (`weft conform`): every promise of the backend ABI tested
 * through a plugin's table, and every model run on it and compared with a
 * reference backend by state digest; or one model plugin run on every
 * backend available.
 */
#ifndef WEFT_CONFORM_API_H
#define WEFT_CONFORM_API_H

#include <stdio.h>
#include <weft/weft.h>

/* What `weft conform` runs: every promise of the backend ABI, tested
 * through a plugin's vtable, and every model run on it and compared with
 * a reference backend by state digest. */
typedef struct weft_conform_options {
	uint32_t struct_size;	 /* sizeof(weft_conform_options) */
	const char *plugin;	 /* a path (contains '/') or a backend name */
	const char *plugin_path; /* more directories to search, or NULL */
	const char *reference;	 /* backend (name or path) that models are
				  * compared with; NULL: "openmp" */
	const char *device;	 /* as [backend] device: index or name; NULL */
	const char *platform;	 /* as [backend] platform; NULL */
	const char *only;	 /* comma-separated group names; NULL: all */
	unsigned timeout_s;	 /* per group; 0: 120 */
	int isolate;		 /* 1: run each group in a fork()ed child, which
				  * alone loads the plugin (a crash or a hang
				  * becomes a failed test); 0: in this process */
	const char *model;	 /* a model plugin (path, or name) to check on
				  * every available backend instead: plugin
				  * is then the reference, and only the group
				  * models runs; NULL: a backend's check */
	const char *model_path;	 /* more directories to search for models */
	unsigned repeat;	 /* how many times the groups whose outcome can
				  * depend on timing (lifetime, ordering) run,
				  * each run in a child of its own, its lines
				  * "GROUP (run r of K): ..."; 0 and 1: once;
				  * at most 1000 */
} weft_conform_options;

/* Run the suite and print its results to tap as TAP (the plan last);
 * *n_failed counts the failed tests. A plugin that cannot be loaded is one
 * failed test ("load: ..."); one whose probe says it cannot run here is
 * skipped ("1..0 # SKIP ..."). A group's child that dies or hangs is one
 * failed test, `GROUP: crashed with SIGSEGV in "TEST"` (or "crashed with
 * signal N", "exited with status S", "did not finish in S s"), TEST being
 * the test or phase under way, and a diagnostic saying what runs next:
 * the other groups still run. Returns WEFT_OK whenever the suite ran,
 * WEFT_E_INVALID for bad options (an unknown group, repeat over 1000),
 * another error when the suite itself could not run (no temporary
 * directory, no fork). */
weft_status weft_conform_run(weft_context *ctx, const weft_conform_options *opt,
			     FILE *tap, int *n_failed);
/* The groups, in the order they run. */
size_t weft_conform_group_count(void);
weft_status weft_conform_group_info(size_t i, const char **name,
				    const char **summary);

#endif
