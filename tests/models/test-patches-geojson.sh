#!/bin/sh
# tests/models/test-patches-geojson.sh - models/patches/patches-geojson.py,
# a patch file from a GeoJSON map (tests/data/patches-map.geojson: a
# square with a hole in its south-west quarter, a point, two squares as
# one MultiPolygon):
# - the centroids are those of the areas on the sphere (Lambert's
#   cylindrical equal-area projection, EPSG:6933's on the sphere), which
#   for regions bounded by meridians and parallels have closed forms,
#   computed here in awk: a rectangle from longitude l1 to l2 and
#   latitude a to b has the area (l2 - l1)(sin b - sin a) and its centre
#   at ((l1 + l2)/2, asin((sin a + sin b)/2)); the holed square is the
#   square less the hole, the MultiPolygon the sum of its squares; the
#   point is itself; populations, ids and names (commas made semicolons)
#   as the map has them;
# - weft runs the file: three patches, each with its population on day 0,
#   and with --initial-infected each patch's own initial infected;
# - a feature without a population, a line, a geometry across the
#   antimeridian and a fractional population are refused naming the
#   feature; an existing output is kept without --force, replaced with it.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
conv="$WEFT_SRCDIR/models/patches/patches-geojson.py"
map="$WEFT_SRCDIR/tests/data/patches-map.geojson"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-patches-geojson-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT
WEFT_MODEL_PATH="$WEFT_BUILDDIR/models/patches/.libs"
WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs"
export WEFT_MODEL_PATH WEFT_PLUGIN_PATH
py=${PYTHON:-python3}
command -v "$py" > /dev/null 2>&1 || skip_all "no $py"

"$py" "$conv" "$map" -o "$tmp/p.csv" 2> "$tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -qxF "patches-geojson.py: 3 patches, 4500 agents in $tmp/p.csv" "$tmp/err"
ok $? "the map converts: 3 patches, 4500 agents (exit $rc)"
[ $rc -eq 0 ] || diag "$tmp/err"

# near ROW LAT LON: row ROW's position within 1e-7 degrees.
near() {
	awk -F, -v r="$1" -v la="$2" -v lo="$3" '
		NR == r + 2 { seen = 1; d1 = $3 - la; d2 = $4 - lo
		              ok = d1 < 1e-7 && d1 > -1e-7 && d2 < 1e-7 && d2 > -1e-7 }
		END { exit !(seen && ok) }' "$tmp/p.csv"
}
# rects L1 L2 A B SIGN ...: the centroid "lat lon" of the rectangles (a
# SIGN of -1 takes one away), from their closed forms.
rects() {
	awk -v args="$*" 'BEGIN {
		n = split(args, v, " "); d = atan2(1, 1) / 45
		for (i = 1; i + 4 <= n; i += 5) {
			l1 = v[i]; l2 = v[i + 1]; sa = sin(v[i + 2] * d); sb = sin(v[i + 3] * d)
			w = v[i + 4] * (l2 - l1) * (sb - sa)
			A += w; X += w * (l1 + l2) / 2; Y += w * (sa + sb) / 2
		}
		y = Y / A
		printf "%.12f %.12f\n", atan2(y, sqrt(1 - y * y)) / d, X / A }'
}
head -1 "$tmp/p.csv" | grep -qx "id,population,latitude,longitude,name" &&
	[ "$(cut -d, -f1,2,5 "$tmp/p.csv" | tail -n +2 | tr '\n' '|')" = "0,1000,square; with a hole|1,500,town|2,3000,islands|" ]
ok $? "ids, populations and names in the map's order (a comma in a name made a semicolon)"
# shellcheck disable=SC2046
near 0 $(rects 10 11 50 51 1 10 10.5 50 50.5 -1)
ok $? "a polygon's centroid takes its hole out: $(rects 10 11 50 51 1 10 10.5 50 50.5 -1)"
near 1 48 12
ok $? "a point is its own centroid"
# shellcheck disable=SC2046
near 2 $(rects 14 15 49 50 1 16 18 49 50 1)
ok $? "a MultiPolygon's centroid weights its parts by area: $(rects 14 15 49 50 1 16 18 49 50 1)"

cat > "$tmp/run.ini" <<INI
[simulation]
model = patches
steps = 5
seed = 3
[backend]
name = openmp
threads = 1
[output]
directory = $tmp/out
plot = none
[patches]
patch_file = $tmp/p.csv
initial_infected = 0
INI
"$weft" run --quiet "$tmp/run.ini" > "$tmp/run.out" 2>&1
rc=$?
[ $rc -eq 0 ] &&
	[ "$(awk -F, '$1 == 0 { printf "%s:%d|", $2, $3 + $4 + $5 + $6 }' "$tmp/out/patches.csv")" = "0:1000|1:500|2:3000|" ]
ok $? "weft runs it: three patches with their populations on day 0 (exit $rc)"
[ $rc -eq 0 ] || diag "$tmp/run.out"

"$py" "$conv" "$map" --initial-infected inf > "$tmp/pi.csv" 2> "$tmp/err" &&
	sed -i "s|^patch_file = .*|patch_file = $tmp/pi.csv|; s|^directory = .*|directory = $tmp/outi|" "$tmp/run.ini" &&
	"$weft" run --quiet "$tmp/run.ini" > "$tmp/run.out" 2>&1 &&
	[ "$(awk -F, '$1 == 0 { printf "%s:%d|", $2, $4 + $5 }' "$tmp/outi/patches.csv")" = "0:10|1:0|2:5|" ]
ok $? "--initial-infected: each patch's own initial infected on day 0"

# refused MAPJSON TEXT NAME: the converter refuses the map, naming TEXT.
refused() {
	printf '%s\n' "$1" > "$tmp/bad.geojson"
	"$py" "$conv" "$tmp/bad.geojson" -o "$tmp/bad.csv" > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc -ne 0 ] && [ ! -e "$tmp/bad.csv" ] && grep -qF -- "$2" "$tmp/err"
	ok $? "$3 (exit $rc)"
	[ $rc -ne 0 ] || diag "$tmp/err"
}
feat='{"type": "Feature", "properties": {"name": "x"%s}, "geometry": %s}'
point='{"type": "Point", "coordinates": [1, 2]}'
refused "$(printf "$feat" '' "$point")" \
	"feature 0 (x): no population property (population, pop, POP, Population); name it with --population" \
	"a feature without a population is refused, named"
refused "$(printf "$feat" ', "population": 10' '{"type": "LineString", "coordinates": [[1, 2], [3, 4]]}')" \
	"feature 0 (x): geometry type LineString: a patch is a Point, MultiPoint, Polygon or MultiPolygon" \
	"a line is refused"
refused "$(printf "$feat" ', "population": 10' '{"type": "MultiPoint", "coordinates": [[179, 2], [-179, 2]]}')" \
	"feature 0 (x): it spans 358.0 degrees of longitude: it crosses the antimeridian" \
	"a geometry across the antimeridian is refused"
refused "$(printf "$feat" ', "population": 10.5' "$point")" \
	"feature 0 (x): population = 10.5 is not a whole number" \
	"a fractional population is refused"
refused '{"type": "FeatureCollection", "features": [1]}' \
	"feature 0 is not a GeoJSON Feature" "a feature that is not an object is refused"

cp "$tmp/p.csv" "$tmp/keep.csv"
echo mine > "$tmp/p.csv"
"$py" "$conv" "$map" -o "$tmp/p.csv" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -ne 0 ] && [ "$(cat "$tmp/p.csv")" = mine ] &&
	grep -qxF "patches-geojson.py: $tmp/p.csv exists; give --force to replace it" "$tmp/err"
ok $? "an existing file is kept without --force (exit $rc)"
"$py" "$conv" "$map" -o "$tmp/p.csv" --force 2> /dev/null && cmp -s "$tmp/p.csv" "$tmp/keep.csv"
ok $? "... and replaced with it"

tap_done
