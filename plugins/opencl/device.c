/*
 * plugins/opencl/device.c - platforms and devices: what probe() reports,
 * which device open() takes, and what that device computes exactly
 * (caps(), and the build options that follow from it).
 *
 * Devices are numbered across the selected platforms in the ICD loader's
 * enumeration order (platform by platform, each platform's devices in its
 * own order), so `device = 1` means the same device in `weft backends`,
 * in messages and in the configuration.
 *
 * [backend] platform: empty means every platform, digits a platform index,
 * anything else a case-insensitive substring of the platform's name or
 * vendor (every platform that matches is searched). [backend] device: an
 * index (counted over the selected platforms), a case-insensitive
 * substring of the device name (the first match wins), or the default:
 * the first GPU, else the first device.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

#define MAX_PLATFORMS 16
#define MAX_DEVICES   64

struct entry {
	cl_device_id id;
	unsigned platform; /* index into world.platforms */
};

/* What the ICD loader offers: every platform, the devices of the selected
 * ones. */
struct world {
	cl_platform_id platforms[MAX_PLATFORMS];
	unsigned n_platforms;
	int selected[MAX_PLATFORMS];
	unsigned n_selected;
	struct entry devices[MAX_DEVICES];
	unsigned n_devices;
};

static const char no_platform[] =
	"no OpenCL platform (the ICD loader found no driver: install "
	"pocl-opencl-icd or a GPU driver)";

void weft__ocl_device_str(cl_device_id d, cl_device_info what, char *out,
			  size_t size)
{
	out[0] = '\0';
	if (clGetDeviceInfo(d, what, size, out, NULL) != CL_SUCCESS) {
		char big[1024];

		/* Longer than out: read it whole, keep the start. */
		if (clGetDeviceInfo(d, what, sizeof big, big, NULL) ==
		    CL_SUCCESS)
			snprintf(out, size, "%s", big);
		else
			snprintf(out, size, "?");
	}
	out[size - 1] = '\0';
}

void weft__ocl_platform_str(cl_platform_id p, cl_platform_info what, char *out,
			    size_t size)
{
	out[0] = '\0';
	if (clGetPlatformInfo(p, what, size, out, NULL) != CL_SUCCESS) {
		char big[1024];

		if (clGetPlatformInfo(p, what, sizeof big, big, NULL) ==
		    CL_SUCCESS)
			snprintf(out, size, "%s", big);
		else
			snprintf(out, size, "?");
	}
	out[size - 1] = '\0';
}

/* Append to a message, cutting what does not fit (with "..."). */
static void add(char *buf, size_t size, const char *fmt, ...) WEFT_PRINTF(3, 4);
static void add(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;
	int n;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= size - len && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

static int contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++) {
		size_t i = 0;

		while (i < n && tolower((unsigned char)hay[i]) ==
					tolower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return 1;
	}
	return n == 0;
}

static int all_digits(const char *s)
{
	if (!s[0])
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* A platform index as written ("007" is 7); UINT_MAX when too large. */
static unsigned index_of(const char *digits)
{
	unsigned long v = strtoul(digits, NULL, 10);

	return v < MAX_PLATFORMS ? (unsigned)v : (unsigned)-1;
}

static const char *type_name(cl_device_id d)
{
	cl_device_type t = 0;

	clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL);
	if (t & CL_DEVICE_TYPE_GPU)
		return "GPU";
	if (t & CL_DEVICE_TYPE_CPU)
		return "CPU";
	if (t & CL_DEVICE_TYPE_ACCELERATOR)
		return "accelerator";
	return "other";
}

/* Every platform. CL_PLATFORM_NOT_FOUND_KHR (no driver installed) is not
 * an error: there are simply none. */
static cl_int list_platforms(struct world *w)
{
	cl_uint n = 0;
	cl_int rc = clGetPlatformIDs(MAX_PLATFORMS, w->platforms, &n);

	memset(w->selected, 0, sizeof w->selected);
	w->n_platforms = w->n_selected = w->n_devices = 0;
	if (rc == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */)
		return CL_SUCCESS;
	if (rc != CL_SUCCESS)
		return rc;
	w->n_platforms = n < MAX_PLATFORMS ? n : MAX_PLATFORMS;
	return CL_SUCCESS;
}

/* The devices of every selected platform, in order. */
static void list_devices(struct world *w)
{
	for (unsigned p = 0; p < w->n_platforms; p++) {
		cl_device_id ids[MAX_DEVICES];
		cl_uint n = 0;

		if (!w->selected[p] || w->n_devices == MAX_DEVICES)
			continue;
		if (clGetDeviceIDs(w->platforms[p], CL_DEVICE_TYPE_ALL,
				   MAX_DEVICES - w->n_devices, ids,
				   &n) != CL_SUCCESS)
			continue; /* CL_DEVICE_NOT_FOUND: none here */
		if (n > MAX_DEVICES - w->n_devices)
			n = MAX_DEVICES - w->n_devices;
		for (cl_uint i = 0; i < n; i++) {
			w->devices[w->n_devices].id = ids[i];
			w->devices[w->n_devices].platform = p;
			w->n_devices++;
		}
	}
}

static void platform_name(const struct world *w, unsigned p, char *out,
			  size_t size)
{
	weft__ocl_platform_str(w->platforms[p], CL_PLATFORM_NAME, out, size);
}

/* "1 platform: 0: 'NAME' (VENDOR)" */
static void describe_platforms(const struct world *w, char *buf, size_t size)
{
	add(buf, size, "%u platform%s:", w->n_platforms,
	    w->n_platforms == 1 ? "" : "s");
	for (unsigned p = 0; p < w->n_platforms; p++) {
		char name[WEFT__OCL_NAME_MAX], vendor[WEFT__OCL_NAME_MAX];

		platform_name(w, p, name, sizeof name);
		weft__ocl_platform_str(w->platforms[p], CL_PLATFORM_VENDOR,
				       vendor, sizeof vendor);
		add(buf, size, "%s %u: '%s' (%s)", p ? ";" : "", p, name,
		    vendor);
	}
}

/* "0: NAME (PLATFORM, CPU)" */
static void describe_device(const struct world *w, unsigned i, int with_pf,
			    char *buf, size_t size)
{
	char name[WEFT__OCL_NAME_MAX], pf[WEFT__OCL_NAME_MAX];

	weft__ocl_device_str(w->devices[i].id, CL_DEVICE_NAME, name,
			     sizeof name);
	if (with_pf) {
		platform_name(w, w->devices[i].platform, pf, sizeof pf);
		add(buf, size, "%u: %s (%s, %s)", i, name, pf,
		    type_name(w->devices[i].id));
	} else {
		add(buf, size, "%u: %s (%s)", i, name,
		    type_name(w->devices[i].id));
	}
}

/* "1 device on platform 'P': 0: NAME (CPU)" or
 * "3 devices on 2 platforms: 0: NAME (P, GPU); ..." */
static void describe_devices(const struct world *w, char *buf, size_t size)
{
	char pf[WEFT__OCL_NAME_MAX];
	unsigned first = 0;

	while (first < w->n_platforms && !w->selected[first])
		first++;
	add(buf, size, "%u device%s on ", w->n_devices,
	    w->n_devices == 1 ? "" : "s");
	if (w->n_selected == 1) {
		platform_name(w, first, pf, sizeof pf);
		add(buf, size, "platform '%s'", pf);
	} else {
		add(buf, size, "%u platforms", w->n_selected);
	}
	for (unsigned i = 0; i < w->n_devices; i++) {
		add(buf, size, "%s", i ? "; " : ": ");
		describe_device(w, i, w->n_selected > 1, buf, size);
	}
}

/* ---- probe ------------------------------------------------------------- */

static void select_all(struct world *w)
{
	for (unsigned p = 0; p < w->n_platforms; p++)
		w->selected[p] = 1;
	w->n_selected = w->n_platforms;
	list_devices(w);
}

/* The device list for probe(): every device when it fits, else a count by
 * type and as much of the list as fits. */
static void probe_devices(const struct world *w, unsigned gpus, char *out,
			  size_t size)
{
	char full[2048] = "";

	for (unsigned i = 0; i < w->n_devices; i++) {
		if (i)
			add(full, sizeof full, "; ");
		describe_device(w, i, 1, full, sizeof full);
	}
	out[0] = '\0';
	if (strlen(full) < size) {
		snprintf(out, size, "%s", full);
		return;
	}
	add(out, size, "%u devices (%u GPU) on %u platform%s: %s", w->n_devices,
	    gpus, w->n_platforms, w->n_platforms == 1 ? "" : "s", full);
}

void weft__ocl_survey(int *available, int *score, char *reason,
		      size_t reason_size, char *devices, size_t devices_size)
{
	struct world w;
	unsigned gpus = 0;
	cl_int rc = list_platforms(&w);

	*available = 0;
	*score = 0;
	reason[0] = devices[0] = '\0';
	if (rc != CL_SUCCESS) {
		snprintf(reason, reason_size,
			 "the ICD loader failed to list platforms: "
			 "clGetPlatformIDs: %s (%d)",
			 weft__ocl_err_name(rc), (int)rc);
		return;
	}
	if (w.n_platforms == 0) {
		snprintf(reason, reason_size, "%s", no_platform);
		return;
	}
	select_all(&w);
	if (w.n_devices == 0) {
		add(reason, reason_size, "no OpenCL device on ");
		describe_platforms(&w, reason, reason_size);
		return;
	}
	for (unsigned i = 0; i < w.n_devices; i++)
		gpus += strcmp(type_name(w.devices[i].id), "GPU") == 0;
	*available = 1;
	/* A GPU beats the host backends; a CPU device alone does not. */
	*score = gpus ? 600 : 50;
	probe_devices(&w, gpus, devices, devices_size);
}

/* ---- open: choosing the device ----------------------------------------- */

static weft_status select_platforms(struct world *w, const char *want,
				    weft_error *err)
{
	char list[WEFT_ERROR_MAX] = "";

	if (!want || !want[0]) {
		select_all(w);
		return WEFT_OK;
	}
	for (unsigned p = 0; p < w->n_platforms; p++) {
		char name[WEFT__OCL_NAME_MAX], vendor[WEFT__OCL_NAME_MAX];

		platform_name(w, p, name, sizeof name);
		weft__ocl_platform_str(w->platforms[p], CL_PLATFORM_VENDOR,
				       vendor, sizeof vendor);
		if (all_digits(want) ? index_of(want) == p
				     : (contains_nocase(name, want) ||
					contains_nocase(vendor, want)))
			w->selected[p] = 1, w->n_selected++;
	}
	if (w->n_selected) {
		list_devices(w);
		return WEFT_OK;
	}
	describe_platforms(w, list, sizeof list);
	if (all_digits(want))
		return weft__ocl_fail(err, WEFT_E_INVALID,
				      "platform %s does not exist: %s", want,
				      list);
	return weft__ocl_fail(err, WEFT_E_INVALID,
			      "no platform named like '%s': %s", want, list);
}

/* The first GPU, else the first device. */
static unsigned default_device(const struct world *w)
{
	for (unsigned i = 0; i < w->n_devices; i++)
		if (strcmp(type_name(w->devices[i].id), "GPU") == 0)
			return i;
	return 0;
}

static weft_status find_by_name(const struct world *w, const char *want,
				unsigned *out, weft_error *err)
{
	char list[WEFT_ERROR_MAX] = "";

	for (unsigned i = 0; i < w->n_devices; i++) {
		char name[WEFT__OCL_NAME_MAX];

		weft__ocl_device_str(w->devices[i].id, CL_DEVICE_NAME, name,
				     sizeof name);
		if (contains_nocase(name, want)) {
			*out = i;
			return WEFT_OK;
		}
	}
	describe_devices(w, list, sizeof list);
	return weft__ocl_fail(err, WEFT_E_INVALID,
			      "no device named like '%s': %s", want, list);
}

static weft_status pick_device(const struct world *w,
			       const weft_device_config *cfg, const char *match,
			       unsigned *out, weft_error *err)
{
	char list[WEFT_ERROR_MAX] = "";

	if (cfg->device < -1) {
		describe_devices(w, list, sizeof list);
		return weft__ocl_fail(err, WEFT_E_INVALID,
				      "device %d does not exist (an index is "
				      "0 or more): %s",
				      cfg->device, list);
	}
	if (cfg->device >= 0 && (unsigned)cfg->device >= w->n_devices) {
		describe_devices(w, list, sizeof list);
		return weft__ocl_fail(err, WEFT_E_INVALID,
				      "device %d does not exist: %s",
				      cfg->device, list);
	}
	if (match && match[0]) {
		if (cfg->device >= 0)
			return weft__ocl_fail(err, WEFT_E_INVALID,
					      "device %d and device name '%s' "
					      "both given: give one",
					      cfg->device, match);
		return find_by_name(w, match, out, err);
	}
	*out = cfg->device >= 0 ? (unsigned)cfg->device : default_device(w);
	return WEFT_OK;
}

weft_status weft__ocl_select(const weft_device_config *cfg,
			     cl_platform_id *platform, cl_device_id *device,
			     unsigned *index, weft_error *err)
{
	int v11 = cfg->struct_size >= WEFT_DEVICE_CONFIG_V1_1_SIZE;
	const char *want_pf = v11 ? cfg->platform : NULL;
	const char *match = v11 ? cfg->device_match : NULL;
	char list[WEFT_ERROR_MAX] = "";
	struct world w;
	weft_status st;
	unsigned i = 0;
	cl_int rc = list_platforms(&w);

	if (rc != CL_SUCCESS)
		return weft__ocl_fail(err, WEFT_E_UNAVAILABLE,
				      "clGetPlatformIDs failed: %s (%d)",
				      weft__ocl_err_name(rc), (int)rc);
	if (w.n_platforms == 0)
		return weft__ocl_fail(err, WEFT_E_UNAVAILABLE, "%s",
				      no_platform);
	st = select_platforms(&w, want_pf, err);
	if (st != WEFT_OK)
		return st;
	if (w.n_devices == 0) {
		describe_platforms(&w, list, sizeof list);
		return weft__ocl_fail(err, WEFT_E_UNAVAILABLE,
				      "no OpenCL device on the platform%s "
				      "asked for ('%s'); %s",
				      w.n_selected == 1 ? "" : "s",
				      want_pf ? want_pf : "", list);
	}
	st = pick_device(&w, cfg, match, &i, err);
	if (st != WEFT_OK)
		return st;
	*platform = w.platforms[w.devices[i].platform];
	*device = w.devices[i].id;
	*index = i;
	return WEFT_OK;
}

/* ---- capabilities ------------------------------------------------------ */

/* 1 when the space-separated list holds the extension ext. */
static int has_extension(const char *list, const char *ext)
{
	size_t n = strlen(ext);

	for (const char *p = list; (p = strstr(p, ext)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/* CL_DEVICE_EXTENSIONS, malloc'ed ("" when it cannot be read). */
static char *device_extensions(cl_device_id id)
{
	size_t len = 0;
	char *ext = NULL;

	if (clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, NULL, &len) ==
		    CL_SUCCESS &&
	    (ext = malloc(len + 1)) &&
	    clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, len, ext, NULL) ==
		    CL_SUCCESS)
		ext[len] = '\0';
	else if (ext)
		ext[0] = '\0';
	return ext;
}

/* A floating-point configuration, 0 when the device does not say (a
 * device without doubles may refuse CL_DEVICE_DOUBLE_FP_CONFIG). */
static cl_device_fp_config fp_config(cl_device_id id, cl_device_info what)
{
	cl_device_fp_config c = 0;

	if (clGetDeviceInfo(id, what, sizeof c, &c, NULL) != CL_SUCCESS)
		return 0;
	return c;
}

/* WEFT_OPENCL_NO_FP64 set to anything but "" or "0". */
static int fp64_disabled(void)
{
	const char *v = getenv("WEFT_OPENCL_NO_FP64");

	return v && v[0] && strcmp(v, "0") != 0;
}

/* Hardware double: cl_khr_fp64 with round-to-nearest (OpenCL requires
 * its + - * / and sqrt correctly rounded then). */
static uint32_t cap_f64(const char *ext, cl_device_fp_config dbl, char *why,
			size_t size)
{
	if (fp64_disabled())
		add(why, size, "; no cl_khr_fp64 (WEFT_OPENCL_NO_FP64 is set)");
	else if (!has_extension(ext, "cl_khr_fp64"))
		add(why, size,
		    "; no cl_khr_fp64 (CL_DEVICE_DOUBLE_FP_CONFIG "
		    "is %#llx)",
		    (unsigned long long)dbl);
	else if (!(dbl & CL_FP_ROUND_TO_NEAREST))
		add(why, size,
		    "; no f64 round-to-nearest in "
		    "CL_DEVICE_DOUBLE_FP_CONFIG");
	else
		return WEFT_CAP_F64;
	return 0;
}

static uint32_t cap_f32(cl_device_fp_config sgl, char *why, size_t size)
{
	if (!(sgl & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT))
		add(why, size,
		    "; no correctly rounded f32 divide and sqrt "
		    "(CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT not in "
		    "CL_DEVICE_SINGLE_FP_CONFIG)");
	else if (!(sgl & CL_FP_ROUND_TO_NEAREST))
		add(why, size,
		    "; no f32 round-to-nearest in "
		    "CL_DEVICE_SINGLE_FP_CONFIG");
	else
		return WEFT_CAP_F32_EXACT;
	return 0;
}

/* Subnormals in f32 and, when the device has doubles, in f64. */
static uint32_t cap_subnormal(uint32_t caps, cl_device_fp_config sgl,
			      cl_device_fp_config dbl, char *why, size_t size)
{
	if (!(sgl & CL_FP_DENORM))
		add(why, size,
		    "; f32 subnormals flushed (no CL_FP_DENORM in "
		    "CL_DEVICE_SINGLE_FP_CONFIG)");
	else if ((caps & WEFT_CAP_F64) && !(dbl & CL_FP_DENORM))
		add(why, size,
		    "; f64 subnormals flushed (no CL_FP_DENORM in "
		    "CL_DEVICE_DOUBLE_FP_CONFIG)");
	else
		return WEFT_CAP_SUBNORMAL;
	return 0;
}

weft_status weft__ocl_read_caps(weft_device *dev, weft_error *err)
{
	cl_device_fp_config sgl =
		fp_config(dev->id, CL_DEVICE_SINGLE_FP_CONFIG);
	cl_device_fp_config dbl =
		fp_config(dev->id, CL_DEVICE_DOUBLE_FP_CONFIG);
	char *ext = device_extensions(dev->id);
	char why[sizeof dev->caps_detail] = "";
	uint32_t caps = 0;

	if (!ext)
		return weft__ocl_fail(err, WEFT_E_NOMEM,
				      "device '%s': no host memory for its "
				      "extension list",
				      dev->names.device);
	caps |= cap_f64(ext, dbl, why, sizeof why);
	caps |= cap_f32(sgl, why, sizeof why);
	caps |= cap_subnormal(caps, sgl, dbl, why, sizeof why);
	if (has_extension(ext, "cl_khr_int64_base_atomics"))
		caps |= WEFT_CAP_ATOMIC64;
	else
		add(why, sizeof why, "; no cl_khr_int64_base_atomics");
	free(ext);
	dev->caps = caps;
	dev->caps_detail[0] = '\0';
	if (why[0])
		snprintf(dev->caps_detail, sizeof dev->caps_detail,
			 "device '%s': %s", dev->names.device, why + 2);
	/* No -cl-denorms-are-zero, no fast-math option: the defaults keep
	 * IEEE semantics; the prelude turns contraction off. */
	snprintf(dev->build_options, sizeof dev->build_options,
		 "%s%s -DWEFT_HAS_F64=%d -DWEFT_HAS_ATOMIC64=%d",
		 weft__ocl_build_options,
		 (caps & WEFT_CAP_F32_EXACT)
			 ? " -cl-fp32-correctly-rounded-divide-sqrt"
			 : "",
		 (caps & WEFT_CAP_F64) ? 1 : 0,
		 (caps & WEFT_CAP_ATOMIC64) ? 1 : 0);
	return WEFT_OK;
}

weft_status weft__ocl_caps(weft_device *dev, weft_device_caps *out,
			   weft_error *err)
{
	weft_device_caps c = { .struct_size = sizeof c };
	size_t hdr = sizeof out->struct_size;

	if (!dev)
		return weft__ocl_fail(err, WEFT_E_INVALID, "caps: no device");
	if (!out || out->struct_size < hdr)
		return weft__ocl_fail(err, WEFT_E_INVALID,
				      "caps: weft_device_caps %s",
				      out ? "too short" : "is NULL");
	c.caps = dev->caps;
	snprintf(c.detail, sizeof c.detail, "%s", dev->caps_detail);
	memcpy((char *)out + hdr, (const char *)&c + hdr,
	       (out->struct_size < sizeof c ? out->struct_size : sizeof c) -
		       hdr);
	return WEFT_OK;
}
