/*
 * tests/models/boids-bruteforce.c - the boids model's neighbour counts
 * against an O(N^2) reference, exactly.
 *
 *   boids-bruteforce boids-agents.csv
 *
 * Reads the file `[boids] dump = true` writes (a `# dims= wrap= lo= hi=
 * radius=` line, ending in ` rules=agentsjl` under those rules, a header,
 * then id,x,y,z,neighbours per agent: positions as the last step read
 * them, each printed with 9 significant digits, which read back as the
 * same f32) and counts, for every agent, the others closer than the
 * radius (at most the radius away under rules = agentsjl: Agents.jl's
 * nearby_agents) with the model's f32 operations in its order
 * (models/boids/boids.wk, boids_visit and boids_ajl_visit): dx = a - m, m
 * being the neighbour's coordinate or on a torus its nearest periodic
 * image m +/- width (the square is that of m - a too); s = sqrt(dx*dx +
 * dy*dy (+ dz*dz)); s < radius (s <= radius). Build with
 * -ffp-contract=off (weft's AM_CFLAGS). Prints one line per agent whose
 * count differs (the first 20), then a summary; exits 0 when every count
 * is equal, 1 when one differs, 2 on a bad file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct agent {
	unsigned id, nb;
	float x[3];
} agent;

static float image(int wrap, float half, float width, float a, float m)
{
	float d = a - m;

	if (!wrap)
		return m;
	if (d > half)
		return m + width;
	if (d < -half)
		return m - width;
	return m;
}

static unsigned count(const agent *v, size_t n, size_t i, unsigned dims,
		      int wrap, float half, float width, float r, int le)
{
	const float *a = v[i].x;
	unsigned c = 0;

	for (size_t j = 0; j < n; j++) {
		float dx, dy, dz, s;

		if (j == i)
			continue;
		dx = a[0] - image(wrap, half, width, a[0], v[j].x[0]);
		dy = a[1] - image(wrap, half, width, a[1], v[j].x[1]);
		if (dims == 3) {
			dz = a[2] - image(wrap, half, width, a[2], v[j].x[2]);
			s = sqrtf(dx * dx + dy * dy + dz * dz);
		} else {
			s = sqrtf(dx * dx + dy * dy);
		}
		c += le ? s <= r : s < r;
	}
	return c;
}

int main(int argc, char **argv)
{
	FILE *f;
	char line[512];
	unsigned dims, wrap;
	int le;
	float lo, hi, r, width, half;
	agent *v = NULL;
	size_t n = 0, cap = 0, bad = 0;
	unsigned long long total = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: boids-bruteforce boids-agents.csv\n");
		return 2;
	}
	if (!(f = fopen(argv[1], "r"))) {
		perror(argv[1]);
		return 2;
	}
	if (!fgets(line, sizeof line, f) ||
	    sscanf(line, "# dims=%u wrap=%u lo=%g hi=%g radius=%g", &dims,
		   &wrap, &lo, &hi, &r) != 5) {
		fprintf(stderr, "%s: not a boids-agents.csv (line 1)\n",
			argv[1]);
		return 2;
	}
	le = strstr(line, " rules=agentsjl") != NULL;
	if (!fgets(line, sizeof line, f)) {
		fprintf(stderr, "%s: not a boids-agents.csv (line 2)\n",
			argv[1]);
		return 2;
	}
	while (fgets(line, sizeof line, f)) {
		agent a;

		if (sscanf(line, "%u,%g,%g,%g,%u", &a.id, &a.x[0], &a.x[1],
			   &a.x[2], &a.nb) != 5) {
			fprintf(stderr, "%s:%zu: not id,x,y,z,neighbours\n",
				argv[1], n + 3);
			return 2;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			if (!(v = realloc(v, cap * sizeof *v))) {
				fprintf(stderr, "out of memory\n");
				return 2;
			}
		}
		v[n++] = a;
	}
	fclose(f);
	width = hi - lo;
	half = width * 0.5f;
	for (size_t i = 0; i < n; i++) {
		unsigned c =
			count(v, n, i, dims, (int)wrap, half, width, r, le);

		total += c;
		if (c != v[i].nb && bad++ < 20)
			printf("agent %u at (%.9g, %.9g, %.9g): weft %u, "
			       "brute force %u\n",
			       v[i].id, (double)v[i].x[0], (double)v[i].x[1],
			       (double)v[i].x[2], v[i].nb, c);
	}
	printf("%zu agents (%u-D, %s%s), %llu neighbours within %.9g: %zu "
	       "counts differ\n",
	       n, dims, wrap ? "wrap" : "walls", le ? ", agentsjl: <=" : "",
	       total, (double)r, bad);
	free(v);
	return bad ? 1 : 0;
}
