/*
 * tests/core/test-config.c - the configuration: defaults, INI files, --set
 * overrides, checks across keys and the reference. Every error must name
 * FILE:LINE (or --set section.key), the section and the key, and suggest
 * the closest valid name; the messages are matched in full where they
 * carry a suggestion, so a wrong suggestion fails the test.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "tap.h"

/* config.c's single-value check, called here for ENUM keys, which no
 * section declares yet. */
weft_status weft__value_check(weft_context *ctx, const char *where,
			      const char *section, const weft_key_desc *d,
			      const char *text);

static weft_context *ctx;

/* Write text to NAME under the test's temporary directory. */
static const char *tmp_file(const char *name, const char *text)
{
	static char path[1024];

	snprintf(path, sizeof path, "%s/%s", tap_tmpdir(), name);
	if (tap_write_file(path, text) != 0)
		tap_bail("cannot write %s", path);
	return path;
}

/* Load text as NAME; the configuration (NULL on failure) goes to *out. */
static weft_status load_text(const char *name, const char *text,
			     weft_config **out)
{
	*out = (weft_config *)&ctx; /* must be reset to NULL on failure */
	return weft_config_load(ctx, tmp_file(name, text), out);
}

static const char *err(void)
{
	return weft_context_error(ctx);
}

/* ---- defaults ----------------------------------------------------------- */

static void test_defaults(void)
{
	weft_config *cfg = NULL;

	if (!tap_ok(weft_config_new(ctx, &cfg) == WEFT_OK && cfg,
		    "a configuration of defaults is created"))
		tap_bail("weft_config_new: %s", err());
	tap_ok(strcmp(weft_config_get(cfg, "simulation", "model"), "seir") == 0,
	       "default model is seir");
	TAP_EQ_INT(weft__config_int(cfg, "simulation", "steps"), 120,
		   "default steps");
	TAP_EQ_INT(weft__config_int(cfg, "simulation", "seed"), 1,
		   "default seed");
	tap_ok(strcmp(weft__config_str(cfg, "backend", "name"), "auto") == 0,
	       "default backend is auto");
	tap_ok(strcmp(weft__config_str(cfg, "backend", "plugin"), "") == 0,
	       "default plugin is empty");
	tap_ok(strcmp(weft__config_str(cfg, "backend", "device"), "") == 0,
	       "default device is empty (the backend's default)");
	TAP_EQ_INT(weft__config_int(cfg, "backend", "threads"), 0,
		   "default threads");
	tap_ok(strcmp(weft__config_str(cfg, "output", "directory"),
		      "weft-out") == 0,
	       "default output directory");
	TAP_EQ_INT(weft__config_int(cfg, "output", "every"), 1,
		   "default output stride");
	tap_ok(weft__config_bool(cfg, "output", "csv") == 1 &&
		       weft__config_bool(cfg, "output", "summary") == 1,
	       "csv and summary are on by default");
	tap_ok(!weft_config_get(cfg, "seir", "agents"),
	       "a getter does not load the model's plugin: its keys are "
	       "not declared before the model is found");
	tap_ok(strcmp(weft__config_where(cfg, "simulation", "steps"),
		      "default") == 0,
	       "an unset key comes from 'default'");
	tap_ok(!weft_config_get(cfg, "simulation", "stpes") &&
		       !weft_config_get(cfg, "nosuch", "steps") &&
		       !weft__config_where(cfg, "simulation", "stpes"),
	       "undeclared keys and sections give NULL");
	tap_ok(weft_config_validate(ctx, cfg) == WEFT_OK,
	       "the defaults validate");
	TAP_EQ_INT(weft__config_int(cfg, "seir", "agents"), 37518,
		   "a model's default comes from its declaration");
	tap_ok(weft__config_real(cfg, "seir", "beta") == 0.05,
	       "real default reads back as 0.05");
	weft_config_free(cfg);
}

/* ---- a valid file ------------------------------------------------------- */

static const char good_ini[] =
	"; a comment\n"			   /* 1 */
	"# another comment\n"		   /* 2 */
	"[simulation]\n"		   /* 3 */
	"steps = 200 ; inline comment\n"   /* 4 */
	"seed=9007199254740991\n"	   /* 5 */
	"\n"				   /* 6 */
	"[ backend ]   ; header comment\n" /* 7 */
	"name = openmp\n"		   /* 8 */
	"device = 2\n"			   /* 9 */
	"threads : 4\n"			   /* 10 */
	"[output]\n"			   /* 11 */
	"csv = off\n"			   /* 12 */
	"summary = Yes\n"		   /* 13 */
	"directory = results dir\n"	   /* 14 */
	"[seir]\n"			   /* 15 */
	"beta = 0.125\n"		   /* 16 */
	"[simulation]\n"		   /* 17: merged */
	"model = seir\n"		   /* 18 */
	"[seir]\n"			   /* 19 */
	"  vaccine_start = 4\n"; /* 20: first key, not indented text */

static void test_good_file(void)
{
	weft_config *cfg;
	const char *w;

	if (!tap_ok(load_text("good.ini", good_ini, &cfg) == WEFT_OK,
		    "a valid file loads")) {
		tap_diag("%s", err());
		return;
	}
	TAP_EQ_INT(weft__config_int(cfg, "simulation", "steps"), 200,
		   "steps from the file, inline comment dropped");
	TAP_EQ_INT(weft__config_int(cfg, "simulation", "seed"),
		   9007199254740991LL, "the largest seed is accepted");
	tap_ok(strcmp(weft_config_get(cfg, "backend", "name"), "openmp") == 0,
	       "header with blanks and a comment selects [backend]");
	tap_ok(strcmp(weft__config_str(cfg, "backend", "device"), "2") == 0,
	       "device");
	TAP_EQ_INT(weft__config_int(cfg, "backend", "threads"), 4,
		   "'key : value' is accepted");
	tap_ok(weft__config_bool(cfg, "output", "csv") == 0 &&
		       weft__config_bool(cfg, "output", "summary") == 1,
	       "booleans off and Yes");
	tap_ok(strcmp(weft__config_str(cfg, "output", "directory"),
		      "results dir") == 0,
	       "text keeps inner blanks");
	tap_ok(weft__config_real(cfg, "seir", "beta") == 0.125, "real value");
	TAP_EQ_INT(weft__config_int(cfg, "seir", "vaccine_start"), 4,
		   "repeated section merged; indented first key accepted");
	w = weft__config_where(cfg, "simulation", "steps");
	tap_ok(w && strstr(w, "good.ini:4") && !strstr(w, "good.ini:40"),
	       "origin of steps is good.ini:4 (%s)", w ? w : "NULL");
	w = weft__config_where(cfg, "simulation", "model");
	tap_ok(w && strstr(w, "good.ini:18"),
	       "origin of a key in a repeated section (%s)", w ? w : "NULL");
	tap_ok(strcmp(weft__config_where(cfg, "seir", "agents"), "default") ==
		       0,
	       "keys the file leaves out stay default");
	tap_ok(weft_config_validate(ctx, cfg) == WEFT_OK, "it validates");
	weft_config_free(cfg);
}

static void test_line_endings(void)
{
	weft_config *cfg;

	if (tap_ok(load_text("crlf.ini",
			     "[simulation]\r\nsteps = 33\r\n; c\r\n"
			     "[output]\r\ncsv = no\r\n",
			     &cfg) == WEFT_OK,
		   "CRLF line endings load")) {
		tap_ok(strcmp(weft_config_get(cfg, "simulation", "steps"),
			      "33") == 0 &&
			       weft__config_bool(cfg, "output", "csv") == 0,
		       "CRLF values carry no '\\r'");
		weft_config_free(cfg);
	} else {
		tap_diag("%s", err());
	}
	if (tap_ok(load_text("bom.ini", "\xEF\xBB\xBF[simulation]\nsteps = 7\n",
			     &cfg) == WEFT_OK,
		   "a UTF-8 BOM is accepted")) {
		TAP_EQ_INT(weft__config_int(cfg, "simulation", "steps"), 7,
			   "the first section after a BOM");
		weft_config_free(cfg);
	} else {
		tap_diag("%s", err());
	}
	if (tap_ok(load_text("noeol.ini", "[simulation]\nsteps = 8", &cfg) ==
			   WEFT_OK,
		   "no newline at the end of the file")) {
		TAP_EQ_INT(weft__config_int(cfg, "simulation", "steps"), 8,
			   "the last line still counts");
		weft_config_free(cfg);
	}
}

/* ---- errors in files ---------------------------------------------------- */

struct bad_file {
	const char *name;
	const char *text;
	const char *want[3]; /* substrings of the message */
};

static const struct bad_file bad_files[] = {
	{ "type.ini",
	  "[simulation]\n\nsteps = ten\n",
	  { "type.ini:3: [simulation] steps = ten: expected an integer" } },
	{ "junk.ini",
	  "[simulation]\nsteps = 10x\n",
	  { "junk.ini:2: [simulation] steps = 10x: trailing characters 'x'" } },
	{ "realint.ini",
	  "[simulation]\nsteps = 1.5\n",
	  { "realint.ini:2: [simulation] steps = 1.5: expected an integer, "
	    "not a real number" } },
	{ "hash.ini",
	  "[simulation]\nsteps = 10 # ten\n",
	  { "hash.ini:2: [simulation] steps = 10 # ten: trailing characters",
	    "starts with ' ;', not '#'" } },
	{ "overflow.ini",
	  "[simulation]\nseed = 99999999999999999999\n",
	  { "overflow.ini:2: [simulation] seed = 99999999999999999999: integer "
	    "overflow" } },
	{ "range.ini",
	  "[simulation]\nsteps = 0\n",
	  { "range.ini:2: [simulation] steps = 0: out of range: expected an "
	    "integer from 1 to 1000000000" } },
	{ "seedrange.ini",
	  "[simulation]\nseed = 9007199254740992\n",
	  { "seedrange.ini:2: [simulation] seed = 9007199254740992: out of "
	    "range",
	    "from 0 to 9007199254740991" } },
	{ "empty.ini",
	  "[backend]\nthreads =\n",
	  { "empty.ini:2: [backend] threads has an empty value; expected an "
	    "integer from 0 to 4096" } },
	{ "nan.ini",
	  "[seir]\nbeta = nan\n",
	  { "nan.ini:2: [seir] beta = nan: not a finite number" } },
	{ "inf.ini",
	  "[seir]\nbeta = -inf\n",
	  { "inf.ini:2: [seir] beta = -inf: not a finite number" } },
	{ "realjunk.ini",
	  "[seir]\nbeta = 0.1.2\n",
	  { "realjunk.ini:2: [seir] beta = 0.1.2: trailing characters '.2'" } },
	{ "realword.ini",
	  "[seir]\nbeta = high\n",
	  { "realword.ini:2: [seir] beta = high: expected a finite real number "
	    "from 0 to 1" } },
	{ "beta.ini",
	  "[seir]\nbeta = 1.5\n",
	  { "beta.ini:2: [seir] beta = 1.5: out of range: expected a finite "
	    "real number from 0 to 1" } },
	{ "latent.ini",
	  "[seir]\nagents = 100\nvaccine_start = 0\n",
	  { "latent.ini:3: [seir] vaccine_start = 0: out of range: expected "
	    "an integer from 1 to 1000000000" } },
	{ "infectious.ini",
	  "[seir]\nvaccine_doses = -1\n",
	  { "infectious.ini:2: [seir] vaccine_doses = -1: out of range" } },
	{ "bool.ini",
	  "[output]\ncsv = maybe\n",
	  { "bool.ini:2: [output] csv = maybe: expected a boolean: true/false, "
	    "yes/no, on/off or 1/0" } },
	{ "outside.ini",
	  "; no header yet\nsteps = 5\n[simulation]\n",
	  { "outside.ini:2: key 'steps' is outside any section",
	    "such as [simulation]" } },
	{ "section.ini",
	  "[simulation]\nsteps = 5\n[simulaton]\nseed = 2\n",
	  { "section.ini:3: unknown section [simulaton]; did you mean "
	    "[simulation]?" } },
	{ "section2.ini",
	  "[zzzzzzzzzz]\n",
	  { "section2.ini:1: unknown section [zzzzzzzzzz] (no model plugin "
	    "weft-model-zzzzzzzzzz.so in ",
	    "; sections are [simulation], [backend], [output], [model], "
	    "[checkpoint], [ensemble], [calibration], [seir], [cartpole]" } },
	{ "key.ini",
	  "[simulation]\nstpes = 10\n",
	  { "key.ini:2: unknown key 'stpes' in [simulation]; did you mean "
	    "'steps'?" } },
	{ "key2.ini",
	  "[simulation]\nagents = 10\n",
	  { "key2.ini:2: unknown key 'agents' in [simulation]; 'agents' "
	    "belongs "
	    "in [seir]" } },
	{ "key3.ini",
	  "[output]\nqqqqqqqq = 1\n",
	  { "key3.ini:2: unknown key 'qqqqqqqq' in [output]; keys of [output] "
	    "are 'directory', 'every', 'csv', 'summary'" } },
	{ "nokey.ini",
	  "[output]\n = 1\n",
	  { "nokey.ini:2: missing key name before '='" } },
	{ "dup.ini",
	  "[simulation]\nsteps = 10\n[output]\n[simulation]\n"
	  "steps = 20\n",
	  { "dup.ini:5: [simulation] steps is set twice (first at ",
	    "dup.ini:2)" } },
	{ "syntax.ini",
	  "[simulation]\nsteps 10\n",
	  { "syntax.ini:2: syntax error: 'steps 10' is not 'key = value'" } },
	{ "header.ini",
	  "[simulation\nsteps = 10\n",
	  { "header.ini:1: section header [simulation has no closing ']'" } },
	{ "after.ini",
	  "[simulation] steps = 10\n",
	  { "after.ini:1: unexpected text 'steps = 10' after [simulation]" } },
	{ "indent.ini",
	  "[simulation]\nsteps = 10\n   seed = 3\n",
	  { "indent.ini:3: indented line 'seed = 3' would continue the value "
	    "of [simulation] steps (line 2)" } },
	{ "first.ini",
	  "[simulation]\nsteps = ten\nstpes = 1\nseed = x\n",
	  { "first.ini:2: [simulation] steps = ten" } },
};

static void check_bad_file(const struct bad_file *b)
{
	weft_config *cfg;
	weft_status st = load_text(b->name, b->text, &cfg);

	tap_ok(st == WEFT_E_CONFIG && cfg == NULL,
	       "%s fails with a configuration error and no result", b->name);
	tap_diag("%s", err());
	for (size_t i = 0; i < 3 && b->want[i]; i++)
		tap_contains(err(), b->want[i], b->name);
	if (cfg && st == WEFT_OK)
		weft_config_free(cfg);
}

static void test_bad_files(void)
{
	for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++)
		check_bad_file(&bad_files[i]);
	/* The first error wins: nothing about the later lines. */
	tap_ok(!strstr(err(), "stpes") && !strstr(err(), ":4:"),
	       "only the first error is reported");
}

/* A line of n characters: "plugin_path = /aaaa...". */
static char *long_line_file(size_t n)
{
	const char head[] = "[backend]\nplugin_path = /";
	char *text = malloc(sizeof head + n + 16);

	if (!text)
		tap_bail("out of memory");
	strcpy(text, head);
	size_t len = strlen(text);
	size_t fill = n - (sizeof "plugin_path = /" - 1);
	memset(text + len, 'a', fill);
	strcpy(text + len + fill, "\nthreads = 2\n");
	return text;
}

static void test_long_lines(void)
{
	weft_config *cfg;
	char *text = long_line_file(197);

	if (tap_ok(load_text("long197.ini", text, &cfg) == WEFT_OK,
		   "a line of 197 characters is accepted")) {
		TAP_EQ_INT(
			strlen(weft_config_get(cfg, "backend", "plugin_path")),
			197 - strlen("plugin_path = "), "and kept whole");
		TAP_EQ_INT(weft__config_int(cfg, "backend", "threads"), 2,
			   "the next line is read as its own");
		weft_config_free(cfg);
	} else {
		tap_diag("%s", err());
	}
	free(text);
	text = long_line_file(250);
	tap_ok(load_text("long250.ini", text, &cfg) == WEFT_E_CONFIG && !cfg,
	       "a line of 250 characters is refused");
	tap_contains(err(),
		     "long250.ini:2: line too long (250 characters; "
		     "lines may have at most 197)",
		     "long line message");
	free(text);
}

/* A file of len bytes (NUL bytes included) loaded as NAME. */
static weft_status load_bytes(const char *name, const char *bytes, size_t len,
			      weft_config **out)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", tap_tmpdir(), name);
	f = fopen(path, "wb");
	if (!f || fwrite(bytes, 1, len, f) != len || fclose(f) != 0)
		tap_bail("cannot write %s", path);
	return weft_config_load(ctx, path, out);
}

/* NUL bytes and control characters: errors that show the line escaped
 * (inih would stop at a NUL and silently read a value cut short). */
static void test_control_bytes(void)
{
	static const char nul[] = "[simulation]\nsteps = 1\0002\n";
	static const char esc[] = "[simulation]\nmodel = se\033[31mir\n";
	static const char cr[] = "[simulation]\nsteps = 1\r2\n";
	static const char crlf[] = "[simulation]\r\nsteps = 12\r\n";
	weft_config *cfg = (weft_config *)&ctx;

	tap_ok(load_bytes("nul.ini", nul, sizeof nul - 1, &cfg) ==
			       WEFT_E_CONFIG &&
		       !cfg,
	       "a NUL byte in a value is refused");
	tap_contains(err(),
		     "nul.ini:2: a NUL byte (\\x00) at column 10: 'steps = 1': "
		     "a configuration holds text only",
		     "NUL: its line and column, the line escaped");
	tap_ok(load_bytes("esc.ini", esc, sizeof esc - 1, &cfg) ==
		       WEFT_E_CONFIG,
	       "an escape character in a value is refused");
	tap_contains(err(),
		     "esc.ini:2: a control character (\\x1b) at column 11: "
		     "'model = se'",
		     "control character: line, column, no raw byte");
	tap_ok(load_bytes("cr.ini", cr, sizeof cr - 1, &cfg) == WEFT_E_CONFIG,
	       "a carriage return inside a line is refused");
	tap_contains(err(),
		     "cr.ini:2: a control character (\\x0d) at column 10",
		     "carriage return: its column");
	tap_ok(load_bytes("crlf.ini", crlf, sizeof crlf - 1, &cfg) == WEFT_OK &&
		       weft__config_int(cfg, "simulation", "steps") == 12,
	       "CRLF line ends are read as line ends");
	weft_config_free(cfg);
	cfg = (weft_config *)&ctx;
	tap_ok(weft_config_load(ctx, "/dev/zero", &cfg) == WEFT_E_CONFIG &&
		       !cfg,
	       "/dev/zero as a configuration is refused at once");
	tap_contains(err(),
		     "configuration file /dev/zero is a character device, "
		     "not a regular file",
		     "/dev/zero: a device, not a regular file");
}

static void test_unreadable(void)
{
	weft_config *cfg = (weft_config *)&ctx;
	char path[1024];

	snprintf(path, sizeof path, "%s/missing.ini", tap_tmpdir());
	tap_ok(weft_config_load(ctx, path, &cfg) == WEFT_E_CONFIG && !cfg,
	       "a missing file fails");
	tap_contains(err(), "missing.ini: No such file or directory",
		     "missing file: path and reason");
	cfg = (weft_config *)&ctx;
	tap_ok(weft_config_load(ctx, tap_tmpdir(), &cfg) == WEFT_E_CONFIG &&
		       !cfg,
	       "a directory fails");
	tap_contains(err(), "Is a directory", "directory: the reason");
}

/* ---- --set -------------------------------------------------------------- */

struct bad_set {
	const char *assignment;
	const char *want;
	weft_status st;
};

/* Not section.key=value: a bad argument (the command's usage error). */
static const struct bad_set bad_sets[] = {
	{ "simulation.steps",
	  "--set 'simulation.steps': expected "
	  "section.key=value",
	  WEFT_E_INVALID },
	{ "steps=10",
	  "--set 'steps=10': expected section.key=value (for "
	  "example simulation.steps=200); did you mean "
	  "simulation.steps?",
	  WEFT_E_INVALID },
	{ "simulation.model=se\x1b[31mir",
	  "--set simulation.model: a control character (\\x1b) at column "
	  "3: 'se': a configuration holds text only",
	  WEFT_E_CONFIG },
	{ "simulaton.steps=10",
	  "--set simulaton.steps: unknown section "
	  "[simulaton]; did you mean [simulation]?",
	  WEFT_E_CONFIG },
	{ "seir.agnets=10",
	  "--set seir.agnets: unknown key 'agnets' in [seir]; "
	  "did you mean 'agents'?",
	  WEFT_E_CONFIG },
	{ "simulation.steps=ten",
	  "--set simulation.steps: [simulation] steps = "
	  "ten: expected an integer",
	  WEFT_E_CONFIG },
	{ "seir.beta=2", "--set seir.beta: [seir] beta = 2: out of range",
	  WEFT_E_CONFIG },
	{ "output.csv=", "--set output.csv: [output] csv has an empty value",
	  WEFT_E_CONFIG },
};

static void test_set(void)
{
	weft_config *cfg;

	if (load_text("set.ini", "[simulation]\nsteps = 200\n", &cfg)) {
		tap_bail("set.ini: %s", err());
	}
	tap_ok(weft_config_set(ctx, cfg, " simulation . steps = 300 ") ==
		       WEFT_OK,
	       "--set with blanks is accepted");
	TAP_EQ_INT(weft__config_int(cfg, "simulation", "steps"), 300,
		   "--set takes precedence over the file");
	tap_ok(strcmp(weft__config_where(cfg, "simulation", "steps"),
		      "--set simulation.steps") == 0,
	       "origin of an override is --set section.key");
	tap_ok(weft_config_set(ctx, cfg, "seir.beta=0.5") == WEFT_OK &&
		       weft__config_real(cfg, "seir", "beta") == 0.5,
	       "--set a model key");
	tap_ok(weft_config_set(ctx, cfg, "backend.plugin=") == WEFT_OK &&
		       strcmp(weft__config_str(cfg, "backend", "plugin"), "") ==
			       0,
	       "--set an empty text value");
	tap_ok(weft_config_set(ctx, cfg, "output.directory=a=b") == WEFT_OK &&
		       strcmp(weft__config_str(cfg, "output", "directory"),
			      "a=b") == 0,
	       "only the first '=' splits");
	for (size_t i = 0; i < sizeof bad_sets / sizeof bad_sets[0]; i++) {
		weft_status want = bad_sets[i].st;
		tap_ok(weft_config_set(ctx, cfg, bad_sets[i].assignment) ==
			       want,
		       "--set #%zu fails (%s)", i, weft_status_str(want));
		tap_contains(err(), bad_sets[i].want, bad_sets[i].want);
	}
	TAP_EQ_INT(weft__config_int(cfg, "simulation", "steps"), 300,
		   "a failed --set leaves the value alone");
	weft_config_free(cfg);
}

/* ---- validate() --------------------------------------------------------- */

static void expect_invalid(const char *name, const char *text, const char *want,
			   const char *want2)
{
	weft_config *cfg;

	if (!tap_ok(load_text(name, text, &cfg) == WEFT_OK,
		    "%s loads: each key is valid alone", name)) {
		tap_diag("%s", err());
		return;
	}
	tap_ok(weft_config_validate(ctx, cfg) == WEFT_E_CONFIG,
	       "%s does not validate", name);
	tap_contains(err(), want, name);
	if (want2)
		tap_contains(err(), want2, name);
	weft_config_free(cfg);
}

static void test_validate(void)
{
	weft_config *cfg;

	expect_invalid(
		"model.ini", "[simulation]\nsteps = 5\nmodel = seirr\n",
		"model.ini:3: [simulation] model = seirr: no model plugin "
		"weft-model-seirr.so in ",
		"; did you mean 'seir'?");
	expect_invalid("model2.ini", "[simulation]\nmodel = qqqqqqqq\n",
		       "model2.ini:2: [simulation] model = qqqqqqqq: no model "
		       "plugin weft-model-qqqqqqqq.so in ",
		       "; models there: seir, cartpole");
	expect_invalid("path.ini", "[backend]\nname = ./weft-backend-foo.so\n",
		       "path.ini:2: [backend] name = ./weft-backend-foo.so is "
		       "not a backend name",
		       "give a plugin file with [backend] plugin = PATH");
	expect_invalid("upper.ini", "[backend]\nname = CUDA\n",
		       "upper.ini:2: [backend] name = CUDA is not a backend "
		       "name",
		       NULL);
	expect_invalid(
		"both.ini", "[backend]\nname = cuda\n\nplugin = ./x.so\n",
		"/x.so conflicts with [backend] name = cuda (", "both.ini:2)");
	expect_invalid("outdir.ini", "[output]\ndirectory =\n",
		       "outdir.ini:2: [output] directory is empty", NULL);

	/* A plugin with name = auto is fine; --set can repair a file. */
	if (load_text("plugin.ini",
		      "[backend]\nplugin = ./x.so\n"
		      "[simulation]\nmodel = sier\n",
		      &cfg))
		tap_bail("plugin.ini: %s", err());
	tap_ok(weft_config_set(ctx, cfg, "simulation.model=seir") == WEFT_OK &&
		       weft_config_validate(ctx, cfg) == WEFT_OK,
	       "plugin with name = auto validates; --set repaired the model");
	tap_ok(weft_config_set(ctx, cfg, "backend.name=openmp") == WEFT_OK &&
		       weft_config_validate(ctx, cfg) == WEFT_E_CONFIG,
	       "--set backend.name next to a plugin does not validate");
	tap_contains(err(),
		     "/x.so conflicts with [backend] name = openmp (--set "
		     "backend.name)",
		     "the conflict names both origins");
	weft_config_free(cfg);
}

/* Relative plugin paths in a file are taken from its directory; those of
 * --set, and every other key's, are left as they are (the current
 * directory). */
static void test_relative_paths(void)
{
	weft_config *cfg;
	char want[2048];
	const char *t = tap_tmpdir();

	if (load_text("rel.ini",
		      "[backend]\nplugin = ./x.so\nplugin_path = "
		      "a:/abs::.\ncache_dir = c\n[model]\nplugin_path = .\n"
		      "[output]\ndirectory = out\n",
		      &cfg))
		tap_bail("rel.ini: %s", err());
	snprintf(want, sizeof want, "%s/x.so", t);
	tap_ok(strcmp(weft_config_get(cfg, "backend", "plugin"), want) == 0,
	       "[backend] plugin = ./x.so is the file beside the INI file "
	       "(%s)",
	       weft_config_get(cfg, "backend", "plugin"));
	snprintf(want, sizeof want, "%s/a:/abs::%s", t, t);
	tap_ok(strcmp(weft_config_get(cfg, "backend", "plugin_path"), want) ==
		       0,
	       "plugin_path: each relative directory from the INI file's, "
	       "'.' its own, absolute ones kept (%s)",
	       weft_config_get(cfg, "backend", "plugin_path"));
	tap_ok(strcmp(weft_config_get(cfg, "model", "plugin_path"), t) == 0,
	       "[model] plugin_path = . is the INI file's directory");
	tap_ok(strcmp(weft_config_get(cfg, "output", "directory"), "out") ==
			       0 &&
		       strcmp(weft_config_get(cfg, "backend", "cache_dir"),
			      "c") == 0,
	       "outputs ([output] directory, cache_dir) stay relative to the "
	       "current directory");
	tap_ok(weft_config_set(ctx, cfg, "backend.plugin=./y.so") == WEFT_OK &&
		       strcmp(weft_config_get(cfg, "backend", "plugin"),
			      "./y.so") == 0,
	       "--set backend.plugin stays relative to the current directory");
	weft_config_free(cfg);
}

/* ---- ENUM keys ---------------------------------------------------------- */

static void test_enum(void)
{
	static const weft_key_desc mode = { "mode",	 WEFT_KEY_ENUM,
					    "fast",	 0,
					    0,		 "fast|slow|exact",
					    "how to run" };

	tap_ok(weft__value_check(ctx, "x.ini:1", "demo", &mode, "slow") ==
		       WEFT_OK,
	       "an enum choice is accepted");
	tap_ok(weft__value_check(ctx, "x.ini:2", "demo", &mode, "fsat") ==
		       WEFT_E_CONFIG,
	       "a wrong enum choice is refused");
	tap_contains(err(),
		     "x.ini:2: [demo] mode = fsat: expected one of: "
		     "fast, slow, exact; did you mean 'fast'?",
		     "the message lists the choices and suggests one");
	tap_ok(weft__value_check(ctx, "x.ini:3", "demo", &mode, "Slow") ==
		       WEFT_E_CONFIG,
	       "enum choices are case-sensitive");
}

/* ---- the reference ------------------------------------------------------ */

static void test_reference(void)
{
	char *md = NULL, *start, *end;
	weft_config *cfg;

	if (!tap_ok(weft_config_reference(ctx, &md) == WEFT_OK && md,
		    "the reference is written"))
		return;
	tap_ok(strncmp(md, "# Configuration reference\n\n", 27) == 0,
	       "it starts with its title and an introduction");
	tap_contains(md, "## [simulation]", "a section for [simulation]");
	tap_contains(md,
		     "| `steps` | integer | `120` | 1 to 1000000000 | "
		     "steps to run",
		     "the row of steps");
	tap_contains(md, "| `plugin` | text | (empty) |", "an empty default");
	tap_contains(md, "| `csv` | boolean | `true` | true or false |",
		     "a boolean row");
	tap_contains(md, "### [seir]", "the model's section");
	tap_contains(md, "| `beta` | real | `0.05` | 0 to 1 |",
		     "a real row from the model's declaration");
	/* The example in the reference must itself be a valid file. */
	start = strstr(md, "```ini\n");
	end = start ? strstr(start + 7, "```") : NULL;
	if (tap_ok(start && end, "the reference has an INI example")) {
		*end = '\0';
		if (!tap_ok(load_text("example.ini", start + 7, &cfg) ==
					    WEFT_OK &&
				    weft_config_validate(ctx, cfg) == WEFT_OK,
			    "the example loads and validates"))
			tap_diag("%s", err());
		else
			TAP_EQ_INT(weft__config_int(cfg, "simulation", "steps"),
				   180, "the example's steps");
		if (cfg)
			weft_config_free(cfg);
	}
	weft_free(md);
}

int main(void)
{
	if (weft_context_new(&ctx) != WEFT_OK)
		tap_bail("cannot create a context");
	test_defaults();
	test_good_file();
	test_line_endings();
	test_bad_files();
	test_long_lines();
	test_control_bytes();
	test_relative_paths();
	test_unreadable();
	test_set();
	test_validate();
	test_enum();
	test_reference();
	weft_context_free(ctx);
	return tap_done();
}
