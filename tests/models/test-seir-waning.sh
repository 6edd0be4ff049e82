#!/bin/sh
# tests/models/test-seir-waning.sh - SEIR's waning immunity and
# reinfection ([seir] waning = true, models/seir/seir.md "Waning immunity
# and reinfection"):
#   - with waning and the other paths it works with on (interventions,
#     isolation, vaccination, capacity, age bands, viral load, the
#     infection log), the outputs are byte for byte the same on openmp
#     with 1 and 2 threads, without the frontier, on the template backend,
#     on opencl and on the CUDA plugin with the stand-in runtime (each
#     skipped when it cannot run here);
#   - reinfections happen with waning = true only: a new_reinfections
#     column whose total is above 0, S + E + I + R + D the agents every
#     day; with waning = false no such column and no agent infected
#     twice (cumulative at most the agents);
#   - waning = true with crn = true fails, naming the keys;
#   - examples/covasim-waning.ini at 20,000 agents, 360 days, seeds 1-10
#     on openmp against Covasim 3.1.9's 5-95 % band over its seeds 1-20
#     (use_waning=True; tests/data/covasim-waning-bands.csv; Covasim never
#     runs here): weft's mean inside the band on at least 95 % of the
#     days for new infections, new reinfections, cumulative infections
#     and deaths, and inside the band of the attack rate (infections per
#     agent), peak prevalence, its day, deaths and reinfections. The
#     band is made by
#       bench/covasim_run.py --waning random 20000 360 1-20 cv.csv
#       bench/validate/covasim_waning.py bands cv.csv \
#               tests/data/covasim-waning-bands.csv
#     (bench/validate/covasim-waning.sh makes the same comparison at
#     200,000 agents).
set -u
. "$WEFT_SRCDIR/tests/tap.sh"
. "$WEFT_SRCDIR/tests/models/seir-backends.sh"
seir_setup waning
bands="$WEFT_SRCDIR/tests/data/covasim-waning-bands.csv"

# ---- the same bits on every backend and thread count -----------------------
cat > "$tmp/all.ini" <<'EOI'
[simulation]
model = seir
steps = 200
seed = 3
[output]
plot = none
[seir]
population = random
agents = 4000
contacts = 12
beta = 0.06
initial_infected = 20
death_prob = 0.02
rel_trans_dispersion = 0.45
viral_load = true
interventions = community 30-50 0.5, all 60-70 0.8
isolation_prob = 0.5
isolation_start = 10
vaccine_campaigns = days=20-60 doses=30 coverage=0.5 ages=50+ second=14 symptoms=0.5 severe=0.8
n_beds_hosp = 20
n_beds_icu = 5
age_bands = 0-19, 20-49, 50-64, 65+
infection_log = true
waning = true
nab_decay = 21, 0.05, 40, 0.01, 80
EOI

run() { seir_run "$@"; }
seir_everywhere "waning = true with the paths it works with on"

# ---- reinfections with waning only -----------------------------------------
awk -F, 'NR == 1 { ok = $26 == "new_reinfections"; next }
	{ r += $26; if ($2 + $3 + $4 + $5 + $6 + $7 != 4000) bad = 1 }
	END { exit !(ok && r > 0 && !bad) }' "$tmp/ref/daily.csv"
ok $? "waning = true: new_reinfections counted ($(awk -F, 'NR > 1 { r += $26 } END { print r }' "$tmp/ref/daily.csv") in all), the states add up to the agents every day"
run off openmp 1 --set seir.waning=false &&
	awk -F, 'NR == 1 { ok = NF == 25; next } { if ($10 > 4000) bad = 1 }
		END { exit !(ok && !bad) }' "$tmp/off/daily.csv"
ok $? "waning = false: no new_reinfections column, nobody infected twice"
run crn openmp 1 --set seir.crn=true
[ $? -ne 0 ] && grep -q "waning = true does not work with .*crn = true" "$tmp/crn.log"
ok $? "waning = true with crn = true fails naming both keys"
diag "$tmp/crn.log"

# ---- against Covasim's band ------------------------------------------------
n_agents=20000 seeds=10
: > "$tmp/weft.csv"
for s in $(seq "$seeds"); do
	out="$tmp/cv-$s"
	WEFT_PLUGIN_PATH="$build/plugins/openmp/.libs" "$weft" run --quiet \
		"$WEFT_SRCDIR/examples/covasim-waning.ini" \
		--set "seir.agents=$n_agents" --set simulation.steps=360 \
		--set "simulation.seed=$s" --set backend.name=openmp \
		--set output.plot=none --set "output.directory=$out" \
		> "$tmp/cv.log" 2>&1 || { ok 1 "weft's seed $s runs"; diag "$tmp/cv.log"; break; }
	# seed,day,new,reinfections,cumulative,deaths,infectious
	awk -F, -v s="$s" 'NR > 1 { print s "," $1 "," $8 "," $26 "," $10 "," $7 "," $4 + $5 }' \
		"$out/daily.csv" >> "$tmp/weft.csv"
done
awk -F, -v n="$n_agents" -v seeds="$seeds" \
	-v curves="new_infections new_reinfections cumulative deaths" \
	-v sums="2:reinfections" \
	-f "$WEFT_SRCDIR/tests/models/covasim-band.awk" \
	"$bands" "$tmp/weft.csv" > "$tmp/cmp"
[ -s "$tmp/cmp" ] || echo "none outside no comparison made" > "$tmp/cmp"
while read -r what verdict detail; do
	[ "$verdict" = inside ]
	ok $? "covasim-waning.ini, $n_agents agents, $seeds seeds: $what: $detail (Covasim's 5-95 %)"
done < "$tmp/cmp"
tap_done
