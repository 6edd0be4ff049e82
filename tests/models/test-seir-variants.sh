#!/bin/sh
# tests/models/test-seir-variants.sh - SEIR's variants with waning
# immunity ([seir] variants, variant_immunity) and vaccines with NAbs
# (vaccine_campaigns' vaccine=; models/seir/seir.md "Variants" and
# "Vaccines with NAbs"):
#   - with variants, imports, a vaccine with NAbs next to a campaign of
#     constant efficacies and one by chance (prob=), and the other paths
#     waning works with on, the outputs are byte for byte the same on
#     openmp with 1 and 2 threads,
#     without the frontier, on the template backend, on opencl and on the
#     CUDA plugin with the stand-in runtime (each skipped when it cannot
#     run here);
#   - the columns: one new_infections_LABEL per variant, which add up to
#     new_infections every day; a variant has no infection before its
#     first import, exactly its imports on that day (its imported agents
#     are latent), and infections after it;
#   - its factors and its cross immunity act: a variant with rel_beta 3
#     takes a larger share of the infections than with rel_beta 0.5, and
#     no cross immunity (variant_immunity's 0s) gives more reinfections
#     than full cross immunity (1s);
#   - a vaccine with NAbs protects: Pfizer's campaign leaves fewer
#     infections than none, and protects less against delta (its weight
#     1/2.9) than against a variant alike whose label it does not know
#     (weight 1);
#   - bad entries fail naming file:line, the key and the entry;
#   - examples/covasim-variants.ini (alpha imported on day 30, delta on
#     day 150, 10 agents each) at 20,000 agents, 360 days, seeds 1-10 on
#     openmp against Covasim 3.1.9's 5-95 % band over its seeds 1-20
#     (tests/data/covasim-variants-bands.csv; Covasim never runs here):
#     weft's mean inside the band on at least 95 % of the days for new
#     infections, new reinfections, cumulative infections, deaths and the
#     new infections of each variant, and inside the band of each
#     outcome (attack rate, peak prevalence, its day, deaths,
#     reinfections, each variant's infections). The band is made by
#       bench/covasim_run.py --variants alpha:30:10,delta:150:10 random \
#               20000 360 1-20 cv.csv
#       bench/validate/covasim_variants.py bands cv.csv \
#               tests/data/covasim-variants-bands.csv
#     (bench/validate/covasim-variants.sh makes the same comparison at
#     200,000 agents).
set -u
. "$WEFT_SRCDIR/tests/tap.sh"
. "$WEFT_SRCDIR/tests/models/seir-backends.sh"
seir_setup variants

cat > "$tmp/all.ini" <<'EOI'
[simulation]
model = seir
steps = 200
seed = 5
[output]
plot = none
[seir]
population = random
agents = 4000
contacts = 12
beta = 0.05
initial_infected = 20
death_prob = 0.02
rel_trans_dispersion = 0.45
viral_load = true
interventions = community 30-50 0.5
isolation_prob = 0.5
vaccine_campaigns = days=20-60 doses=30 coverage=0.5 ages=50+ symptoms=0.5 severe=0.8, days=30-80 doses=20 coverage=0.4 ages=20-49 vaccine=pfizer, days=25-45 prob=0.02 ages=0-19 second=7
n_beds_hosp = 20
age_bands = 0-19, 20-64, 65+
infection_log = true
waning = true
nab_decay = 21, 0.05, 40, 0.01, 80
variants = variant=delta day=25 imports=6, variant=omega day=70 imports=4 rel_beta=1.5 rel_severe_prob=2, variant=delta day=90 imports=3
EOI

run() { seir_run "$@"; }

# ---- the same bits on every backend and thread count -----------------------
seir_everywhere "variants with a vaccine with NAbs and the paths waning works with"

# ---- the columns -------------------------------------------------------------
d="$tmp/ref/daily.csv"
head -n 1 "$d" | grep -q ',Rt,new_reinfections,new_infections_wild,new_infections_delta,new_infections_omega$'
ok $? "variants: daily.csv ends with new_reinfections and a column per variant (wild, delta, omega)"
awk -F, 'NR > 1 && $8 != $27 + $28 + $29 { bad = 1 }
	NR > 1 { w += $27; dl += $28; o += $29 }
	END { exit !(!bad && w > 0 && dl > 0 && o > 0) }' "$d"
ok $? "variants: the variants' columns add up to new_infections every day ($(awk -F, 'NR > 1 { w += $27; d += $28; o += $29 } END { print "wild " w ", delta " d ", omega " o }' "$d"))"
awk -F, 'NR > 1 && $1 < 25 && $28 != 0 { bad = 1 }
	NR > 1 && $1 < 70 && $29 != 0 { bad = 1 }
	NR > 1 && $1 == 25 && $28 != 6 { bad = 1 }
	NR > 1 && $1 == 70 && $29 != 4 { bad = 1 }
	NR > 1 && $1 > 70 { after += $29 }
	END { exit !(!bad && after > 0) }' "$d"
ok $? "variants: none before their first imports, exactly the imports on that day (6 delta on day 25, 4 omega on day 70), spread after"
# infections.csv: an imported infection has no infector (an empty
# field); the others name an agent. Each agent's last infection is kept,
# so at most the 13 imports show.
awk -F, 'NR > 1 { if ($2 == "") e++; else if ($2 !~ /^[0-9]+$/ || $2 >= 4000) bad = 1 }
	END { exit !(!bad && e >= 1 && e <= 13) }' "$tmp/ref/infections.csv"
ok $? "variants: infections.csv leaves an imported agent's infector empty ($(grep -c '^[0-9]*,,' "$tmp/ref/infections.csv") lines)"
grep -q '^  variants  *infections by variant: wild [0-9]*, delta [0-9]*, omega [0-9]*$' "$tmp/ref/summary.txt" 2>/dev/null ||
	grep -q '^variants: infections by variant: wild [0-9]*, delta [0-9]*, omega [0-9]*$' "$tmp/ref/summary.txt"
ok $? "variants: the summary counts the infections by variant"

# ---- the factors and the cross immunity act ----------------------------------
# share DIR: the share of omega (the only import) among the infections after day 70, x1000.
share() {
	awk -F, 'NR > 1 && $1 > 70 { a += $8; o += $28 }
		END { printf "%d\n", a ? 1000 * o / a : 0 }' "$tmp/$1/daily.csv"
}
run hi openmp 2 --set 'seir.variants=variant=omega day=70 imports=10 rel_beta=3' &&
	run lo openmp 2 --set 'seir.variants=variant=omega day=70 imports=10 rel_beta=0.5'
h=$(share hi) l=$(share lo)
[ "$h" -gt "$l" ]
ok $? "variants: rel_beta 3 takes a larger share than 0.5 (${h} against ${l} per 1000 infections after day 70)"
reinf() {
	awk -F, 'NR > 1 { r += $26 } END { print r + 0 }' "$tmp/$1/daily.csv"
}
run x0 openmp 2 --set 'seir.variants=variant=omega day=30 imports=10' \
	--set 'seir.variant_immunity=1, 0; 0, 1' --set seir.vaccine_campaigns= &&
	run x1 openmp 2 --set 'seir.variants=variant=omega day=30 imports=10' \
		--set 'seir.variant_immunity=1, 1; 1, 1' --set seir.vaccine_campaigns=
r0=$(reinf x0) r1=$(reinf x1)
[ "$r0" -gt "$r1" ]
ok $? "variants: no cross immunity gives more reinfections than full ($r0 against $r1)"

# ---- vaccines with NAbs ------------------------------------------------------
# cum DIR: the infections in all.
cum() {
	awk -F, 'NR > 1 { c += $8 } END { print c + 0 }' "$tmp/$1/daily.csv"
}
vx='seir.vaccine_campaigns=days=1-40 doses=60 coverage=0.8 vaccine=pfizer'
run vnone openmp 2 --set seir.variants= --set seir.vaccine_campaigns= &&
	run vpf openmp 2 --set seir.variants= --set "$vx"
c0=$(cum vnone) c1=$(cum vpf)
[ "$c1" -lt "$c0" ]
ok $? "vaccine=pfizer: fewer infections than without vaccination ($c1 against $c0)"
# delta with its factors and cross immunity set to 1 against a variant
# of its own with the same: only the vaccine's weight differs (Pfizer's
# 1/2.9 against delta, 1 against a label it does not know).
for v in delta omega; do
	run "v$v" openmp 2 --set "$vx" --set seir.variant_immunity='1, 1; 1, 1' \
		--set "seir.variants=variant=$v day=5 imports=20 rel_beta=1.5 rel_severe_prob=1"
done
cd_=$(cum vdelta) co=$(cum vomega)
[ "$cd_" -gt "$co" ]
ok $? "vaccine=pfizer protects less against delta than against a variant alike but its weight ($cd_ infections against $co)"

# ---- bad entries -------------------------------------------------------------
# bad NAME WHAT ERROR-PATTERN --set ...: the run fails with the pattern.
bad() {
	bn=$1 bw=$2 bp=$3
	shift 3
	run "bad-$bn" openmp 1 "$@"
	[ $? -ne 0 ] && grep -q -- "$bp" "$tmp/bad-$bn.log"
	ok $? "variants: $bw fails naming it"
	diag "$tmp/bad-$bn.log"
}
bad nowan "variants without waning" \
	"\[seir\] variants needs waning immunity (.*\[seir\] waning = true)" \
	--set seir.waning=false
bad wild "an import of wild" "wild is the seeds' variant" \
	--set 'seir.variants=variant=wild day=3'
bad noday "an entry without a day" "needs variant=LABEL and day=D" \
	--set 'seir.variants=variant=alpha imports=3'
bad unknown "an unknown setting" "unknown setting 'speed'" \
	--set 'seir.variants=variant=alpha day=3 speed=2'
bad day0 "an import on day 0" \
	"bad value of day: expected a whole day from 1 (the first step)" \
	--set 'seir.variants=variant=alpha day=0'
bad twice "two labels in one entry" "bad value of variant" \
	--set 'seir.variants=variant=alpha variant=beta day=3'
bad vx2 "a second, unknown vaccine in one campaign" "bad value of vaccine" \
	--set 'seir.vaccine_campaigns=days=1-9 doses=5 vaccine=pfizer vaccine=bogus'
bad value "a bad factor" "bad value of rel_beta: expected a number from 0 to 100" \
	--set 'seir.variants=variant=alpha day=3 rel_beta=-1'
bad again "factors on a second entry" "its factors go on its first entry" \
	--set 'seir.variants=variant=alpha day=3, variant=alpha day=9 rel_beta=2'
bad many "eight variants besides wild" "at most 7 variants besides wild" \
	--set 'seir.variants=variant=a day=1, variant=b day=1, variant=c day=1, variant=d day=1, variant=e day=1, variant=f day=1, variant=g day=1, variant=h day=1'
bad shape "an immunity matrix of the wrong shape" \
	"variant_immunity = 1, 0.5: expected 2 rows of 2 numbers" \
	--set 'seir.variants=variant=alpha day=3' --set 'seir.variant_immunity=1, 0.5'
bad vxwan "a vaccine with NAbs without waning" \
	"vaccine with NAbs (vaccine=) needs waning immunity" \
	--set seir.waning=false --set seir.variants= \
	--set 'seir.vaccine_campaigns=days=1-9 doses=5 vaccine=moderna'
bad vxeff "a vaccine with NAbs and an efficacy" \
	"a vaccine with NAbs (vaccine=) takes no efficacy" \
	--set 'seir.vaccine_campaigns=days=1-9 doses=5 vaccine=az efficacy=0.5'
bad vxname "an unknown vaccine" \
	"bad value of vaccine: expected one of Covasim's: default, pfizer" \
	--set 'seir.vaccine_campaigns=days=1-9 doses=5 vaccine=sputnik'
bad alone "variant_immunity without variants" \
	"variant_immunity = 1: needs \[seir\] variants" \
	--set seir.variants= --set seir.variant_immunity=1
grep -q "all.ini:24: \[seir\] variants needs" "$tmp/bad-nowan.log" &&
	grep -q -- "--set seir.variants: \[seir\] variants = variant=alpha day=3 speed=2" "$tmp/bad-unknown.log"
ok $? "variants: the errors name where the key was set (the file's line, or --set)"

# ---- against Covasim's band ------------------------------------------------
bands="$WEFT_SRCDIR/tests/data/covasim-variants-bands.csv"
n_agents=20000 seeds=10
: > "$tmp/weft.csv"
for s in $(seq "$seeds"); do
	out="$tmp/cv-$s"
	WEFT_PLUGIN_PATH="$build/plugins/openmp/.libs" "$weft" run --quiet \
		"$WEFT_SRCDIR/examples/covasim-variants.ini" \
		--set "seir.agents=$n_agents" --set simulation.steps=360 \
		--set "simulation.seed=$s" --set backend.name=openmp \
		--set output.plot=none --set "output.directory=$out" \
		> "$tmp/cv.log" 2>&1 || { ok 1 "weft's seed $s runs"; diag "$tmp/cv.log"; break; }
	# seed,day,new,reinf,cum,deaths,wild,alpha,delta,infectious
	awk -F, -v s="$s" 'NR > 1 { print s "," $1 "," $8 "," $26 "," $10 "," $7 "," $27 "," $28 "," $29 "," $4 + $5 }' \
		"$out/daily.csv" >> "$tmp/weft.csv"
	rm -rf "$out"
done
awk -F, -v n="$n_agents" -v seeds="$seeds" \
	-v curves="new_infections new_reinfections cumulative deaths new_infections_wild new_infections_alpha new_infections_delta" \
	-v sums="2:reinfections 5:infections_wild 6:infections_alpha 7:infections_delta" \
	-f "$WEFT_SRCDIR/tests/models/covasim-band.awk" \
	"$bands" "$tmp/weft.csv" > "$tmp/cmp"
[ -s "$tmp/cmp" ] || echo "none outside no comparison made" > "$tmp/cmp"
while read -r what verdict detail; do
	[ "$verdict" = inside ]
	ok $? "covasim-variants.ini, $n_agents agents, $seeds seeds: $what: $detail (Covasim's 5-95 %)"
done < "$tmp/cmp"
tap_done
