"""Writes ``core/arraygrad/ops/_special/_fits.py``: the Chebyshev series the portable special
functions evaluate (Bessel J/Y/K, Airy Ai), computed with mpmath at 50 digits.

    python tools/special_fits.py > core/arraygrad/ops/_special/_fits.py

Each fit is a function ``f`` on an interval, expanded as ``sum_k c_k T_k(w)`` with ``w`` the
interval mapped onto [-1, 1]; the coefficients are the discrete Chebyshev transform at
``NODES`` Chebyshev nodes, truncated where they fall below 1e-18 of the largest. The script
checks every fit against mpmath at points between the nodes and prints the worst error of each
to stderr, relative where the function exceeds 1 in size and absolute elsewhere (all are below
1e-16: the fitted functions are O(1), so the float64 evaluation's rounding is what remains). Needs mpmath (a test dependency), nothing else.
"""

from __future__ import annotations

import sys

import mpmath as mp

mp.mp.dps = 50
NODES = 80
TINY = mp.mpf("1e-18")


def _j0_entire(s):  # J0(x) as a function of s = x^2
    return mp.besselj(0, mp.sqrt(s)) if s > 0 else mp.mpf(1)


def _j1_entire(s):  # J1(x) / x
    return mp.besselj(1, mp.sqrt(s)) / mp.sqrt(s) if s > 0 else mp.mpf("0.5")


def _y0_entire(s):  # Y0(x) - (2/pi) log(x) J0(x)
    if s == 0:
        return 2 / mp.pi * (mp.euler - mp.log(2))
    x = mp.sqrt(s)
    return mp.bessely(0, x) - 2 / mp.pi * mp.log(x) * mp.besselj(0, x)


def _y1_entire(s):  # (Y1(x) - (2/pi) (J1(x) log(x) - 1/x)) / x
    if s == 0:
        return (2 * mp.euler - 1 - 2 * mp.log(2)) / (2 * mp.pi)
    x = mp.sqrt(s)
    return (mp.bessely(1, x) - 2 / mp.pi * (mp.besselj(1, x) * mp.log(x) - 1 / x)) / x


def _hankel_pq(nu, x):
    """P, Q of J_nu = sqrt(2/(pi x)) (P cos chi - Q sin chi), chi = x - (2 nu + 1) pi / 4."""
    chi = x - (2 * nu + 1) * mp.pi / 4
    scale = mp.sqrt(mp.pi * x / 2)
    j, y = mp.besselj(nu, x), mp.bessely(nu, x)
    return (scale * (j * mp.cos(chi) + y * mp.sin(chi)),
            scale * (-j * mp.sin(chi) + y * mp.cos(chi)))


def _pq_fit(nu, which):
    def f(u):  # u = (8/x)^2
        if u == 0:
            return mp.mpf(1) if which == 0 else mp.mpf(0)
        x = 8 / mp.sqrt(u)
        value = _hankel_pq(nu, x)[which]
        return value if which == 0 else value * x / 8  # Q is odd in 1/x: fit Q / (8/x)
    return f


def _q_limit(nu):  # Q_nu(x) ~ (4 nu^2 - 1) / (8 x): Q / (8/x) -> (4 nu^2 - 1) / 64
    return mp.mpf(4 * nu * nu - 1) / 64


def _k0_small(s):  # K0(x) + log(x/2) I0(x), as a function of s = x^2
    if s == 0:
        return -mp.euler
    x = mp.sqrt(s)
    return mp.besselk(0, x) + mp.log(x / 2) * mp.besseli(0, x)


def _k1_small(s):  # (K1(x) - log(x/2) I1(x) - 1/x) / x
    if s == 0:
        return (2 * mp.euler - 1 - 2 * mp.log(2)) / 4 + mp.log(2) / 2
    x = mp.sqrt(s)
    return (mp.besselk(1, x) - mp.log(x / 2) * mp.besseli(1, x) - 1 / x) / x


def _k_large(nu):
    def f(t):  # t = 2/x: exp(x) sqrt(x) K_nu(x)
        if t == 0:
            return mp.sqrt(mp.pi / 2)
        x = 2 / t
        return mp.exp(x) * mp.sqrt(x) * mp.besselk(nu, x)
    return f


AIRY_POS = 2  # Ai's Maclaurin series on [-AIRY_NEG, AIRY_POS], the fits outside
AIRY_NEG = 3


def _airy_pos(t):  # t = (AIRY_POS/x)^(3/2): 2 sqrt(pi) x^(1/4) exp(zeta) Ai(x)
    if t == 0:
        return mp.mpf(1)
    x = AIRY_POS / t ** (mp.mpf(2) / 3)
    zeta = 2 * x ** mp.mpf(1.5) / 3
    return 2 * mp.sqrt(mp.pi) * x ** mp.mpf(0.25) * mp.exp(zeta) * mp.airyai(x)


def _airy_neg(which):
    def f(t):  # t = (AIRY_NEG/|x|)^(3/2)
        if t == 0:
            return mp.mpf(1) if which == 0 else mp.mpf(0)
        x = AIRY_NEG / t ** (mp.mpf(2) / 3)
        zeta = 2 * x ** mp.mpf(1.5) / 3
        phi = zeta + mp.pi / 4
        scale = mp.sqrt(mp.pi) * x ** mp.mpf(0.25)
        a, b = scale * mp.airyai(-x), scale * mp.airybi(-x)
        if which == 0:
            return a * mp.sin(phi) + b * mp.cos(phi)
        return (-a * mp.cos(phi) + b * mp.sin(phi)) / t  # g ~ 5/(72 zeta): odd in 1/zeta
    return f


# name: (function, lo, hi, doc)
FITS = {
    "J0_SMALL": (_j0_entire, 0, 64, "J0(x) for x^2 in [0, 64]"),
    "J1_SMALL": (_j1_entire, 0, 64, "J1(x) / x for x^2 in [0, 64]"),
    "Y0_SMALL": (_y0_entire, 0, 64, "Y0(x) - (2/pi) log(x) J0(x) for x^2 in [0, 64]"),
    "Y1_SMALL": (_y1_entire, 0, 64, "(Y1(x) - (2/pi) (J1(x) log(x) - 1/x)) / x, x^2 in [0, 64]"),
    "P0_LARGE": (_pq_fit(0, 0), 0, 1, "Hankel's P0(x) for u = (8/x)^2 in [0, 1]"),
    "Q0_LARGE": (_pq_fit(0, 1), 0, 1, "Hankel's Q0(x) / (8/x) for u = (8/x)^2 in [0, 1]"),
    "P1_LARGE": (_pq_fit(1, 0), 0, 1, "Hankel's P1(x) for u = (8/x)^2 in [0, 1]"),
    "Q1_LARGE": (_pq_fit(1, 1), 0, 1, "Hankel's Q1(x) / (8/x) for u = (8/x)^2 in [0, 1]"),
    "K0_SMALL": (_k0_small, 0, 4, "K0(x) + log(x/2) I0(x) for x^2 in [0, 4]"),
    "K1_SMALL": (_k1_small, 0, 4, "(K1(x) - log(x/2) I1(x) - 1/x) / x for x^2 in [0, 4]"),
    "K0_LARGE": (_k_large(0), 0, 1, "exp(x) sqrt(x) K0(x) for t = 2/x in [0, 1]"),
    "K1_LARGE": (_k_large(1), 0, 1, "exp(x) sqrt(x) K1(x) for t = 2/x in [0, 1]"),
    "AI_POS": (_airy_pos, 0, 1, f"2 sqrt(pi) x^(1/4) exp(zeta) Ai(x), t = ({AIRY_POS}/x)^(3/2)"),
    "AI_NEG_F": (_airy_neg(0), 0, 1, f"Ai/Bi(-x) modulus part f, t = ({AIRY_NEG}/x)^(3/2)"),
    "AI_NEG_G": (_airy_neg(1), 0, 1, f"Ai/Bi(-x) part g / t, t = ({AIRY_NEG}/x)^(3/2)"),
}


def chebyshev(f, lo, hi):
    """Chebyshev coefficients of ``f`` on [lo, hi], truncated."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    theta = [mp.pi * (j + mp.mpf(0.5)) / NODES for j in range(NODES)]
    values = [f((hi + lo) / 2 + (hi - lo) / 2 * mp.cos(t)) for t in theta]
    coefs = [2 * mp.fsum(v * mp.cos(k * t) for v, t in zip(values, theta)) / NODES
             for k in range(NODES)]
    coefs[0] /= 2
    top = max(abs(c) for c in coefs)
    last = max(k for k, c in enumerate(coefs) if abs(c) > TINY * top)
    return coefs[:last + 1]


def clenshaw(coefs, w):
    b1 = b2 = mp.mpf(0)
    for c in reversed(coefs[1:]):
        b1, b2 = 2 * w * b1 - b2 + c, b1
    return w * b1 - b2 + coefs[0]


def worst_error(f, lo, hi, coefs):
    worst = mp.mpf(0)
    for i in range(1, 200):
        x = mp.mpf(lo) + (mp.mpf(hi) - lo) * (i + mp.mpf(0.37)) / 201
        w = (2 * x - lo - hi) / (hi - lo)
        exact = f(x)
        worst = max(worst, abs(clenshaw([mp.mpf(float(c)) for c in coefs], w) - exact)
                    / max(abs(exact), mp.mpf(1)))
    return worst


def main() -> None:
    print('"""Chebyshev series of the portable special functions (Bessel J/Y/K, Airy Ai).')
    print()
    print("Generated by tools/special_fits.py (mpmath, 50 digits): do not edit by hand. Each")
    print("tuple holds c_0..c_n of sum_k c_k T_k(w), w the interval of its comment mapped onto")
    print('[-1, 1]; ``_common.chebyshev`` evaluates them (Clenshaw)."""')
    print()
    print(f"AIRY_POS = {AIRY_POS}.0")
    print(f"AIRY_NEG = {AIRY_NEG}.0")
    for name, (f, lo, hi, doc) in FITS.items():
        coefs = chebyshev(f, lo, hi)
        err = worst_error(f, lo, hi, coefs)
        print(f"{name}: {len(coefs)} terms, worst error {mp.nstr(err, 3)}",
              file=sys.stderr)
        print()
        print(f"# {doc}")
        print(f"{name} = (")
        line = "   "
        for c in coefs:
            item = f" {float(c)!r},"
            if len(line) + len(item) > 96:
                print(line)
                line = "   "
            line += item
        print(line)
        print(")")


if __name__ == "__main__":
    main()
