/*
 * tests/plugins/conform-die.c - backends whose child of `weft conform`
 * ends in a way other than a named crash, for
 * tests/plugins/test-conform-repeat.sh: the template backend through
 * tests/plugins/broken.c with free(NULL) replaced by
 *
 *   DIE_EXIT     _exit(3): "alloc: exited with status 3 in ..."
 *   (neither)    raise(SIGRTMIN + 8), a signal without a name:
 *                "alloc: crashed with signal N in ..."
 *
 * tests/plugins/conform.am builds each as weft-backend-BROKEN_NAME.so.
 */
#define _POSIX_C_SOURCE 200809L /* as template.c, included below */

#include <weft/backend.h>

static void die_free(weft_device *dev, weft_buf *buf);

#define BROKEN_WHAT "free(NULL) ends the process"
#define BROKEN_FREE die_free
#include "broken.c"

static void die_free(weft_device *dev, weft_buf *buf)
{
	if (!buf) {
#ifdef DIE_EXIT
		_exit(3);
#else
		raise(SIGRTMIN + 8);
#endif
	}
	tpl_free(dev, buf);
}
