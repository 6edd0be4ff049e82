"""weft.calib_components - the likelihood components of weft.calibrate.

    from weft.calib_components import Normal, Binomial, BetaBinomial, \\
        GammaPoisson, DirichletMultinomial
    Normal("cases", "new_infections")                 # data column, model
    Binomial(("pos", "tested"), ("diagnosed", "cum(new_tests)"))

Each component compares columns of the observed data with expressions of
a run's output table, row by row (the data's days), and gives a negative
log-likelihood (NLL). They follow Starsim's ss.Normal, ss.Binomial,
ss.BetaBinomial, ss.GammaPoisson and ss.DirichletMultinomial
(starsim/calibration.py): the same likelihoods, the same Beta(1, 1),
Gamma(1, 1) and Dirichlet(1, ..., 1) priors on the model's counts, and
the same reduction: a component's value is weight x the mean of its NLL
over the data's rows and the replicas. The log-pmfs are written here with
math.lgamma (no scipy). docs/calibration.md has the formulas.

A model expression is a column of the output table, a number, or
cum(EXPR) (running sum over the table's rows from its first), diff(EXPR)
(the row minus the row before; the first row as is), joined by + and -:
"I_asym + I_sym", "cum(new_infections)", "S - 100".
"""
import math
import re

import numpy as np

__all__ = ["Component", "Normal", "Binomial", "BetaBinomial", "GammaPoisson",
           "DirichletMultinomial", "Expression",
           "normal_logpdf", "binom_logpmf", "betabinom_logpmf",
           "nbinom_logpmf", "dirmult_logpmf"]


# ---- log-densities (numpy arrays in, arrays out; NaN where undefined) ----

def _lgamma1(x):
    try:
        return math.lgamma(x) if x > 0 else math.nan
    except (ValueError, OverflowError):
        return math.nan


_lgamma_u = np.frompyfunc(_lgamma1, 1, 1)


def lgamma(x):
    """log Gamma(x) elementwise; NaN for x <= 0 (not needed here)."""
    return np.asarray(_lgamma_u(np.asarray(x, dtype=float)), dtype=float)


def _lbeta(a, b):
    return lgamma(a) + lgamma(b) - lgamma(a + b)


def _lchoose(n, k):
    return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)


def _xlogy(x, y):
    """x log y with 0 log 0 = 0."""
    x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, 0.0, x * np.log(y))


def normal_logpdf(x, mu, sigma2):
    """log N(x; mu, sigma2)."""
    x, mu, sigma2 = (np.asarray(v, float) for v in (x, mu, sigma2))
    with np.errstate(divide="ignore", invalid="ignore"):
        return -0.5 * np.log(2 * math.pi * sigma2) - (x - mu) ** 2 / (
            2 * sigma2)


def binom_logpmf(k, n, p):
    """log C(n, k) p^k (1 - p)^(n - k)."""
    k, n, p = (np.asarray(v, float) for v in (k, n, p))
    with np.errstate(invalid="ignore"):
        out = _lchoose(n, k) + _xlogy(k, p) + _xlogy(n - k, 1 - p)
    bad = (p < 0) | (p > 1) | (k < 0) | (k > n)
    return np.where(bad, -np.inf, out)


def betabinom_logpmf(k, n, a, b):
    """log C(n, k) B(k + a, n - k + b) / B(a, b)."""
    k, n, a, b = (np.asarray(v, float) for v in (k, n, a, b))
    return _lchoose(n, k) + _lbeta(k + a, n - k + b) - _lbeta(a, b)


def nbinom_logpmf(k, r, p):
    """log Gamma(k + r) / (Gamma(r) k!) p^r (1 - p)^k (scipy's nbinom)."""
    k, r, p = (np.asarray(v, float) for v in (k, r, p))
    return (lgamma(k + r) - lgamma(r) - lgamma(k + 1) + _xlogy(r, p)
            + _xlogy(k, 1 - p))


def dirmult_logpmf(x, alpha):
    """log of the Dirichlet-multinomial pmf of counts x (last axis: the
    categories; n = their sum) with concentrations alpha:
    log Gamma(A) n! / Gamma(n + A) + sum log Gamma(x + a) / (Gamma(a) x!)."""
    x, alpha = np.broadcast_arrays(np.asarray(x, float),
                                   np.asarray(alpha, float))
    n = x.sum(axis=-1)
    big_a = alpha.sum(axis=-1)
    return (lgamma(big_a) + lgamma(n + 1) - lgamma(n + big_a)
            + (lgamma(x + alpha) - lgamma(alpha) - lgamma(x + 1)).sum(
                axis=-1))


# ---- model expressions ---------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"
                    r"|\.\d+(?:[eE][-+]?\d+)?)|(?P<name>[A-Za-z_][\w]*)"
                    r"|(?P<op>[-+()]))")
_FUNCS = ("cum", "diff")


class Expression:
    """A model expression (see the module's doc): .text, .columns (the
    output columns it reads) and .evaluate(columns) -> numpy array over
    the table's rows."""

    def __init__(self, text):
        if not isinstance(text, str) or not text.strip():
            raise TypeError("a model expression is a non-empty string "
                            "(an output column, cum(...), diff(...), "
                            "a + b, a - b), got %r" % (text,))
        self.text = text
        self._toks = self._tokenize(text)
        self._i = 0
        self.columns = []
        self._tree = self._sum()
        if self._i != len(self._toks):
            self._fail("unexpected %r" % self._toks[self._i][1])
        del self._toks

    def _fail(self, what):
        raise ValueError("model expression %r: %s (expected column names, "
                         "numbers, cum(...), diff(...) joined by + and -)"
                         % (self.text, what))

    def _tokenize(self, text):
        toks, pos = [], 0
        text = text.rstrip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                self._fail("cannot read %r" % text[pos:].strip())
            toks.append((m.lastgroup, m.group(m.lastgroup)))
            pos = m.end()
        return toks

    def _peek(self):
        return self._toks[self._i] if self._i < len(self._toks) else (
            None, None)

    def _take(self):
        t = self._peek()
        if t[0] is None:
            self._fail("it ends too early")
        self._i += 1
        return t

    def _sum(self):
        sign = 1
        if self._peek() == ("op", "-"):
            self._take()
            sign = -1
        terms = [(sign, self._term())]
        while self._peek() in (("op", "+"), ("op", "-")):
            op = self._take()[1]
            terms.append((1 if op == "+" else -1, self._term()))
        return ("sum", terms)

    def _term(self):
        kind, val = self._take()
        if kind == "num":
            return ("num", float(val))
        if kind == "op" and val == "(":
            inner = self._sum()
            if self._take() != ("op", ")"):
                self._fail("missing ')'")
            return inner
        if kind == "name":
            if self._peek() == ("op", "("):
                if val not in _FUNCS:
                    self._fail("unknown function %r (cum and diff are "
                               "known)" % val)
                self._take()
                inner = self._sum()
                if self._take() != ("op", ")"):
                    self._fail("missing ')' after %s(" % val)
                return (val, inner)
            if val not in self.columns:
                self.columns.append(val)
            return ("col", val)
        self._fail("unexpected %r" % val)

    def evaluate(self, columns, rows=None):
        """The expression over a table: columns maps each name in
        .columns to a 1-D array (one value a row); rows: the table's
        length (default: the columns')."""
        n = rows if rows is not None else len(next(iter(columns.values())))
        return np.broadcast_to(self._eval(self._tree, columns, n),
                               (n,)).astype(float)

    def _eval(self, node, cols, n):
        kind = node[0]
        if kind == "num":
            return np.full(n, node[1])
        if kind == "col":
            return np.asarray(cols[node[1]], dtype=float)
        if kind == "sum":
            out = np.zeros(n)
            for sign, t in node[1]:
                out = out + sign * self._eval(t, cols, n)
            return out
        v = self._eval(node[1], cols, n)
        if kind == "cum":
            return np.cumsum(v)
        return np.diff(v, prepend=0.0) if len(v) else v  # diff

    def __repr__(self):
        return "Expression(%r)" % self.text


# ---- components ------------------------------------------------------------

def _names(what, value, count=None):
    """value as a tuple of strings (one string for count == 1)."""
    if isinstance(value, str):
        value = (value,)
    try:
        value = tuple(value)
    except TypeError:
        value = None
    if (value is None or not value
            or not all(isinstance(v, str) and v for v in value)
            or (count is not None and len(value) != count)):
        raise TypeError("%s: %s, got %r" % (
            what, "a column name" if count == 1 else
            "%s column names" % (count if count else "a list of"),
            value))
    return value


class Component:
    """One channel of the data against the model. data: the data's
    column(s); model: one expression per data column (default: the same
    names); weight: multiplies the component's NLL; name: for tables and
    plots (default: the data columns)."""

    kind = "component"
    nvars = 1
    var_names = ("x",)

    def __init__(self, data, model=None, *, weight=1.0, name=None):
        self.data = _names("%s(data=...)" % type(self).__name__, data,
                           self.nvars)
        model = self.data if model is None else model
        texts = _names("%s(model=...)" % type(self).__name__, model,
                       len(self.data))
        self.model = tuple(Expression(t) for t in texts)
        if (isinstance(weight, bool) or not isinstance(weight, (int, float))
                or not math.isfinite(weight) or weight < 0):
            raise ValueError("%s(weight=...): a finite number >= 0, got %r"
                             % (type(self).__name__, weight))
        self.weight = float(weight)
        self.name = name if name is not None else "+".join(self.data)
        if not isinstance(self.name, str):
            raise TypeError("%s(name=...): a string, got %r"
                            % (type(self).__name__, name))

    @property
    def columns(self):
        """The output columns the model expressions read."""
        out = []
        for e in self.model:
            out += [c for c in e.columns if c not in out]
        return out

    def check_data(self, obs):
        """Raise ValueError when the observed values (a tuple of arrays,
        one per data column) cannot be this component's data."""
        for col, v in zip(self.data, obs):
            if not np.all(np.isfinite(v)):
                raise ValueError("data column %r (%s %r): has missing or "
                                 "non-finite values" % (col, self.kind,
                                                        self.name))

    def _check_counts(self, obs):
        for col, v in zip(self.data, obs):
            if np.any(v < 0) or np.any(v != np.round(v)):
                raise ValueError("data column %r (%s %r): expected counts "
                                 "(whole numbers >= 0)" % (col, self.kind,
                                                           self.name))

    def nll(self, obs, sim):
        """The NLL of each data row: obs and sim are tuples of arrays (one
        per data column, one value per row)."""
        raise NotImplementedError

    def score(self, obs, sims, combine="replicas"):
        """weight x mean NLL over the rows and replicas (sims: one tuple
        of arrays per replica); combine="mean" first averages the model's
        values over the replicas (Starsim's combine_reps="mean")."""
        if self.weight == 0:
            return 0.0
        if combine == "mean":
            sims = [tuple(np.mean([s[i] for s in sims], axis=0)
                          for i in range(len(self.data)))]
        nlls = np.concatenate([np.atleast_1d(self.nll(obs, s))
                               for s in sims])
        v = self.weight * float(np.mean(nlls))
        return math.inf if math.isnan(v) else v

    def __repr__(self):
        return "%s(data=%r, model=%r, weight=%g)" % (
            type(self).__name__, self.data if len(self.data) > 1
            else self.data[0], tuple(e.text for e in self.model)
            if len(self.model) > 1 else self.model[0].text, self.weight)


class Normal(Component):
    """Normal(data, model=None, sigma2=None): x_data ~ N(x_model, sigma2);
    sigma2 None: the maximum-likelihood variance of the residuals, their
    mean square over the rows (per replica)."""

    kind = "Normal"

    def __init__(self, data, model=None, *, sigma2=None, weight=1.0,
                 name=None):
        super().__init__(data, model, weight=weight, name=name)
        if sigma2 is not None and (
                isinstance(sigma2, bool)
                or not isinstance(sigma2, (int, float))
                or not math.isfinite(sigma2) or sigma2 <= 0):
            raise ValueError("Normal(sigma2=...): None or a finite number "
                             "> 0, got %r" % (sigma2,))
        self.sigma2 = sigma2

    def nll(self, obs, sim):
        e, a = obs[0], sim[0]
        s2 = self.sigma2
        if s2 is None:
            s2 = max(float(np.mean((e - a) ** 2)), np.finfo(float).tiny)
        return -normal_logpdf(e, a, s2)


class Binomial(Component):
    """Binomial(data=(x, n), model=(x, n)): x_data successes of n_data
    trials ~ Binomial(n_data, p), p = x_model / n_model (the model's
    maximum-likelihood proportion, as Starsim)."""

    kind = "Binomial"
    nvars = 2

    def check_data(self, obs):
        super().check_data(obs)
        self._check_counts(obs)
        if np.any(obs[0] > obs[1]):
            raise ValueError("data columns %r, %r (%s %r): successes above "
                             "trials" % (self.data + (self.kind, self.name)))

    def nll(self, obs, sim):
        with np.errstate(divide="ignore", invalid="ignore"):
            p = sim[0] / sim[1]
        out = -binom_logpmf(obs[0], obs[1], p)
        return np.where(sim[1] == 0, np.inf, out)


class BetaBinomial(Binomial):
    """BetaBinomial(data=(x, n), model=(x, n)): a Beta(1, 1) prior updated
    with the model's x_model of n_model gives Beta(x_model + 1,
    n_model - x_model + 1); x_data of n_data ~ BetaBinomial(n_data,
    x_model + 1, n_model - x_model + 1)."""

    kind = "BetaBinomial"

    def nll(self, obs, sim):
        return -betabinom_logpmf(obs[0], obs[1], sim[0] + 1,
                                 sim[1] - sim[0] + 1)


class GammaPoisson(Component):
    """GammaPoisson(data=(x, n), model=(x, n)): events x in person-time n.
    A Gamma(1, 1) prior on the rate updated with the model's x_model
    events in n_model gives Gamma(1 + x_model, 1 + n_model); the data's
    count in n_data is then negative binomial: x_data ~ NB(r = 1 +
    x_model, p = (1 + n_model) / (1 + n_model + n_data))."""

    kind = "GammaPoisson"
    nvars = 2

    def check_data(self, obs):
        super().check_data(obs)
        self._check_counts(obs)

    def nll(self, obs, sim):
        beta = 1 + sim[1]
        out = -nbinom_logpmf(obs[0], 1 + sim[0], beta / (beta + obs[1]))
        return np.where(np.isnan(out), np.inf, out)


class DirichletMultinomial(Component):
    """DirichletMultinomial(data=[x1, ..., xk], model=[...]): a
    Dirichlet(1, ..., 1) prior updated with the model's counts gives
    Dirichlet(x_model + 1); the data's counts (n their sum) ~
    DirichletMultinomial(n, x_model + 1)."""

    kind = "DirichletMultinomial"
    nvars = None

    def __init__(self, data, model=None, *, weight=1.0, name=None):
        super().__init__(data, model, weight=weight, name=name)
        if len(self.data) < 2:
            raise ValueError("DirichletMultinomial(data=...): two or more "
                             "columns (categories), got %r" % (self.data,))

    def check_data(self, obs):
        super().check_data(obs)
        self._check_counts(obs)

    def nll(self, obs, sim):
        x = np.stack(obs, axis=-1)
        alpha = np.stack(sim, axis=-1) + 1
        return -dirmult_logpmf(x, alpha)
