#!/usr/bin/env python3
"""bench/validate/covasim_params.py - check that weft's Covasim presets and
the SEIR defaults documented as Covasim's hold the installed Covasim's
values.

    covasim_params.py [TOP]

TOP is the source tree (default: the tree this script is in). Reads, from the
installed Covasim (3.1.x): make_pars() (durations, beta, asymp_factor,
beta_dist, viral_dist, pop_infected, iso_factor), reset_layer_pars() for
pop_type random and hybrid (contacts, beta_layer, dynam_layer),
get_prognoses() (symptomatic, severe, critical and death probabilities,
susceptibility, transmissibility by age), default_age_data and the ages
of make_hybrid_contacts(), and the waning immunity of make_pars()
(use_waning, nab_init, nab_decay, nab_boost, nab_eff, rel_imm_symp,
trans_redux), and compares them with examples/covasim-random.ini,
examples/covasim-hybrid.ini, examples/covasim-waning.ini (the random
population's values and the waning ones) and the [seir] defaults of
docs/config.md (generated from the model's keys; the waning keys where
it lists them). It also reads the tables the model keeps in C: the
variants' factors and cross immunity (models/seir/variants.c, against
get_variant_pars() and get_cross_immunity()) and the vaccines' doses and
weights against the variants (models/seir/vaccination.c, against
get_vaccine_dose_pars() and get_vaccine_variant_pars()). Prints one
line per value that differs and exits 1 if any does; otherwise prints how
many values agree. Run it after upgrading Covasim or editing a preset.
"""
import configparser
import inspect
import math
import os
import re
import sys

import numpy as np
import covasim as cv
from covasim import defaults as cvd, parameters as cvpar, population as cvpop

REL = 1e-5
drift = []
checked = 0


def close(a, b, rel=REL):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def check(where, got, want, rel=REL):
    """Numbers or lists of numbers; strings compared as written."""
    global checked
    checked += 1
    if isinstance(want, str):
        ok = str(got).strip().lower() == want
    else:
        g, w = np.atleast_1d(np.asarray(got, float)), np.atleast_1d(np.asarray(want, float))
        ok = g.shape == w.shape and all(close(x, y, rel) for x, y in zip(g, w))
    if not ok:
        drift.append(f"{where}: weft has {got}, Covasim {want}")


def nums(text):
    return [float(x) for x in text.split(",")]


def per_age(text):
    v = nums(text)
    return v * 10 if len(v) == 1 else v


def duration(text):
    """'lognormal(1.1, 0.9) + lognormal(8, 2)' -> [(1.1, 0.9), (8.0, 2.0)]"""
    terms = []
    for t in text.split("+"):
        m = re.fullmatch(r"\s*lognormal\(\s*([^,]+),\s*([^)]+)\)\s*", t)
        if not m:
            return None
        terms.append((float(m.group(1)), float(m.group(2))))
    return terms


def covasim_course():
    """What each of weft's duration and probability keys stands for."""
    pars = cv.make_pars()
    d = {k: (v['par1'], v['par2']) for k, v in pars['dur'].items()
         if v['dist'] == 'lognormal_int'}
    assert len(d) == len(pars['dur']), "a duration is no longer lognormal_int"
    prog = cvpar.get_prognoses()  # relative (conditional) probabilities
    sev = prog['severe_probs']
    crit = sev * prog['crit_probs']
    death = crit * prog['death_probs']
    assert list(prog['age_cutoffs']) == list(range(0, 100, 10))
    assert np.all(prog['trans_ORs'] == 1) and np.all(prog['comorbidities'] == 1)
    bd = pars['beta_dist']
    assert bd['dist'] == 'neg_binomial' and bd['par1'] == 1.0 and bd['step'] == 0.01
    vd = pars['viral_dist']
    return {
        'latent_duration': [d['exp2inf']],
        'asym_duration': [d['asym2rec']],
        'sym_duration': [d['inf2sym'], d['mild2rec']],
        'severe_duration': [d['inf2sym'], d['sym2sev'], d['sev2rec']],
        'critical_duration': [d['inf2sym'], d['sym2sev'], d['sev2crit'], d['crit2rec']],
        'death_duration': [d['inf2sym'], d['sym2sev'], d['sev2crit'], d['crit2die']],
        'symp_prob': list(prog['symp_probs']),
        'severe_prob': list(sev),
        'critical_prob': list(crit),
        'death_prob': list(death),
        'susceptibility': list(prog['sus_ORs']),
        'beta': pars['beta'],
        'asym_factor': pars['asymp_factor'],
        'rel_trans_dispersion': bd['par2'],
        'viral_load_frac': vd['frac_time'],
        'viral_load_ratio': vd['load_ratio'],
        'viral_load_cap': vd['high_cap'],
        'initial_infected': pars['pop_infected'],
    }


def layers(pop_type):
    pars = {'pop_type': pop_type}
    cvpar.reset_layer_pars(pars)
    return pars


def hybrid_ages():
    src = inspect.getsource(cvpop.make_hybrid_contacts)
    s = re.search(r"school_ages = \[(\d+), (\d+)\]", src)
    w = re.search(r"work_ages\s*= \[(\d+), (\d+)\]", src)
    return (int(s.group(1)), int(s.group(2)) - 1), (int(w.group(1)), int(w.group(2)) - 1)


def age_cells(bins, integer):
    """Mass of each (decade of prognoses, school age, work age) cell; bins
    (lo, hi, weight), ages uniform in lo..hi (integer years) or in
    [lo, hi + 1) (Covasim's floats): the same cells either way when the
    bins' edges are whole years."""
    (s0, s1), (w0, w1) = hybrid_ages()
    cells = {}
    total = sum(b[2] for b in bins)
    for lo, hi, w in bins:
        for age in range(int(lo), int(hi) + 1):
            key = (min(age // 10, 9), s0 <= age <= s1, w0 <= age <= w1)
            cells[key] = cells.get(key, 0.0) + w / total / (hi - lo + 1)
    return cells


def check_ages(where, text):
    ours = [(int(a), int(b), float(w)) for a, b, w in
            re.findall(r"(\d+)-(\d+):([0-9.]+)", text)]
    theirs = [(lo, hi, w) for lo, hi, w in cvd.default_age_data]
    a, b = age_cells(ours, True), age_cells(theirs, False)
    for key in sorted(set(a) | set(b)):
        check(f"{where} ages, decade {key[0]}, school {key[1]}, work {key[2]}",
              a.get(key, 0.0), b.get(key, 0.0), 1e-4)


def check_course(where, keys, want, skip=()):
    for key, w in want.items():
        if key in skip:
            continue
        if key not in keys:
            drift.append(f"{where}: {key} is not set")
            continue
        text = keys[key]
        if key.endswith('_duration'):
            got = duration(text)
            check(f"{where} {key}", np.ravel(got) if got else text,
                  np.ravel(w))
        elif isinstance(w, list):
            check(f"{where} {key}", per_age(text), w)
        else:
            check(f"{where} {key}", float(text), w)


def read_ini(path):
    cp = configparser.ConfigParser(inline_comment_prefixes=(" ;",))
    cp.read(path, encoding="utf-8")
    return dict(cp["seir"])


def check_preset(top, pop_type, course):
    where = f"examples/covasim-{pop_type}.ini"
    keys = read_ini(os.path.join(top, where))
    lp = layers(pop_type)
    check_course(where, keys, course)
    check(f"{where} viral_load", keys.get('viral_load'), 'true')
    check(f"{where} community_daily (dynam_layer 0: static layers)",
          keys.get('community_daily', 'false'), 'false')
    assert not any(lp['dynam_layer'].values())
    check_ages(where, keys['ages'])
    if pop_type == 'random':
        check(f"{where} population", keys['population'], 'random')
        check(f"{where} contacts", float(keys['contacts']), lp['contacts']['a'])
        check(f"{where} beta_community", float(keys['beta_community']),
              lp['beta_layer']['a'])
        return
    (s0, s1), (w0, w1) = hybrid_ages()
    h = lp['contacts']['h']  # Poisson cluster size
    sizes = dict((int(k), float(v)) for k, v in
                 re.findall(r"(\d+):([0-9.e-]+)", keys['household_sizes']))
    want = {k: math.exp(-h) * h ** k / math.factorial(k) for k in sizes}
    check(f"{where} household_sizes (Poisson({h}) from 1)",
          [sizes[k] / sum(sizes.values()) for k in sorted(sizes)],
          [want[k] / sum(want.values()) for k in sorted(want)], 1e-6)
    tail = 1 - sum(math.exp(-h) * h ** k / math.factorial(k)
                   for k in range(0, max(sizes) + 1))
    check(f"{where} household_sizes: Poisson's tail beyond {max(sizes)} "
          "below 1e-6", float(tail < 1e-6), 1.0)
    check(f"{where} population", keys['population'], 'synthetic')
    check(f"{where} school ages", [int(keys['school_age_min']), int(keys['school_age_max'])], [s0, s1])
    check(f"{where} work ages", [int(keys['work_age_min']), int(keys['work_age_max'])], [w0, w1])
    check(f"{where} school_size (one school)", keys['school_size'], '0')
    check(f"{where} workplace_sizes (one workplace)", keys['workplace_sizes'], 'all')
    for key, layer in (('school_contacts', 's'), ('work_contacts', 'w'),
                       ('community_contacts', 'c')):
        check(f"{where} {key}", float(keys[key]), lp['contacts'][layer])
    for key, layer in (('beta_home', 'h'), ('beta_school', 's'),
                       ('beta_work', 'w'), ('beta_community', 'c')):
        check(f"{where} {key}", float(keys[key]), lp['beta_layer'][layer])


def covasim_waning():
    """weft's waning keys as Covasim's make_pars() has them."""
    pars = cv.make_pars()
    ni, nd, ne, rs = (pars['nab_init'], pars['nab_decay'], pars['nab_eff'],
                      pars['rel_imm_symp'])
    assert ni['dist'] == 'normal', "nab_init is no longer normal"
    assert nd['form'] == 'nab_growth_decay', "nab_decay's form changed"
    return {
        'waning': 'true' if pars['use_waning'] else 'false',
        'nab_init': [ni['par1'], ni['par2']],
        'nab_decay': [nd['growth_time'], nd['decay_rate1'], nd['decay_time1'],
                      nd['decay_rate2'], nd['decay_time2']],
        'nab_boost': pars['nab_boost'],
        'nab_eff': [ne[k] for k in ('alpha_inf', 'alpha_inf_diff', 'beta_inf',
                                    'alpha_symp_inf', 'beta_symp_inf',
                                    'alpha_sev_symp', 'beta_sev_symp')],
        'rel_imm_symp': [rs['asymp'], rs['mild'], rs['severe']],
        'trans_redux': pars['trans_redux'],
    }


def check_waning(where, keys, want, default=False):
    """The waning keys (with default, every key but waning itself: off by
    default, Covasim's use_waning=False of the other presets; a key that
    docs/config.md lacks is drift too)."""
    for key, w in want.items():
        if default and key == 'waning':
            continue
        if key not in keys:
            drift.append(f"{where}: {key} is not "
                         f"{'documented' if default else 'set'}")
            continue
        if isinstance(w, str):
            check(f"{where} {key}", keys[key], w)
        elif isinstance(w, list):
            check(f"{where} {key}", nums(keys[key]), w)
        else:
            check(f"{where} {key}", float(keys[key]), w)


def check_waning_preset(top, course):
    """examples/covasim-waning.ini: the random population's preset with
    Covasim's waning immunity."""
    where = "examples/covasim-waning.ini"
    keys = read_ini(os.path.join(top, where))
    lp = layers('random')
    check_course(where, keys, course)
    check(f"{where} viral_load", keys.get('viral_load'), 'true')
    check_ages(where, keys['ages'])
    check(f"{where} population", keys['population'], 'random')
    check(f"{where} contacts", float(keys['contacts']), lp['contacts']['a'])
    check(f"{where} beta_community", float(keys['beta_community']),
          lp['beta_layer']['a'])
    check_waning(where, keys, covasim_waning())


def config_defaults(top):
    """The [seir] defaults of docs/config.md: `key` | type | `default`."""
    text = open(os.path.join(top, "docs/config.md"), encoding="utf-8").read()
    section = text.split("### [seir]", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `([a-z_0-9]+)` \| [^|]+ \| `([^`]*)`", section, re.M))


def check_defaults(top, course):
    where = "docs/config.md [seir] default"
    keys = config_defaults(top)
    # Documented as Covasim's: the course (but initial_infected, beta,
    # rel_trans_dispersion, whose defaults are weft's own), the hybrid
    # layers and iso_factor of the random population.
    check_course(where, keys, course,
                 skip=('initial_infected', 'beta', 'rel_trans_dispersion'))
    lp = layers('hybrid')
    (s0, s1), (w0, w1) = hybrid_ages()
    for key, want in (('school_contacts', lp['contacts']['s']),
                      ('work_contacts', lp['contacts']['w']),
                      ('community_contacts', lp['contacts']['c']),
                      ('beta_home', lp['beta_layer']['h']),
                      ('beta_school', lp['beta_layer']['s']),
                      ('beta_work', lp['beta_layer']['w']),
                      ('beta_community', lp['beta_layer']['c']),
                      ('school_age_min', s0), ('school_age_max', s1),
                      ('work_age_min', w0), ('work_age_max', w1),
                      ('isolation_factor', layers('random')['iso_factor']['a'])):
        check(f"{where} {key}", float(keys[key]), want)


def c_table(top, path, name):
    """The initializer of the C array `name` in path: its text between
    the braces, comments and blanks removed."""
    text = open(os.path.join(top, path), encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    body = text.split(name, 1)[1].split("= {", 1)[1].split("};", 1)[0]
    return re.sub(r"\s+", "", body)


def c_number(text):
    """A C constant expression of numbers and '/' (1/2.9)."""
    assert re.fullmatch(r"[-0-9./]+", text), text
    parts = [float(x) for x in text.split("/")]
    return parts[0] / parts[1] if len(parts) == 2 else parts[0]


def c_rows(body):
    return [[c_number(x) for x in row.split(",")]
            for row in re.findall(r"\{([^{}]*)\}", body)]


def check_variant_tables(top):
    where = "models/seir/variants.c"
    labels = re.findall(r'"(\w+)"', c_table(top, where, "variant_labels["))
    rel = c_rows(c_table(top, where, "variant_rel["))
    cross = c_rows(c_table(top, where, "variant_cross["))
    keys = ("rel_beta", "rel_symp_prob", "rel_severe_prob", "rel_crit_prob",
            "rel_death_prob")
    vp, ci = cvpar.get_variant_pars(), cvpar.get_cross_immunity()
    check(f"{where} labels", ",".join(labels), ",".join(vp))
    for i, a in enumerate(labels):
        check(f"{where} {a}", rel[i], [vp[a][k] for k in keys])
        check(f"{where} cross immunity against {a}", cross[i],
              [ci[a][b] for b in labels])


def check_vaccine_tables(top):
    where = "models/seir/vaccination.c"
    body = c_table(top, where, "vac_known[")
    rows = re.findall(r'\{"(\w+)",([^,]+),([^,]+),([^,]+),(\d+),(\d+),'
                      r'\{([^}]*)\}\}', body)
    labels = re.findall(r'"(\w+)"', c_table(top, where, "vac_variants["))
    dp, vv = cvpar.get_vaccine_dose_pars(), cvpar.get_vaccine_variant_pars()
    check(f"{where} vaccines", ",".join(r[0] for r in rows), ",".join(dp))
    for name, mean, sd, boost, doses, interval, weights in rows:
        d = dp[name]
        check(f"{where} {name} nab_init, nab_boost, doses",
              [c_number(mean), c_number(sd), c_number(boost), float(doses)],
              [d['nab_init']['par1'], d['nab_init']['par2'], d['nab_boost'],
               d['doses']])
        check(f"{where} {name} interval", float(interval),
              float(d['interval'] or 0))
        check(f"{where} {name} against the variants",
              [c_number(x) for x in weights.split(",")],
              [vv[name][v] for v in labels])


def main():
    here = os.path.dirname(os.path.abspath(__file__))  # bench/validate
    top = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(here))
    course = covasim_course()
    check_preset(top, 'random', course)
    check_preset(top, 'hybrid', course)
    check_defaults(top, course)
    check_waning_preset(top, course)
    check_waning("docs/config.md [seir] default", config_defaults(top),
                 covasim_waning(), default=True)
    check_variant_tables(top)
    check_vaccine_tables(top)
    for line in drift:
        print("drift:", line)
    print(f"Covasim {cv.__version__}: {checked - len(drift)} of {checked} "
          f"values agree with weft's presets and defaults")
    return 1 if drift else 0


if __name__ == "__main__":
    sys.exit(main())
