"""Array API consumers compute on tensors: array-api-extra's functions (with a gradient
through ``cov``) and a scikit-learn estimator under ``array_api_dispatch`` (in a subprocess:
scikit-learn needs ``SCIPY_ARRAY_API=1`` before SciPy is imported). Both refused tensors
before (no ``__array_namespace__``)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck


def test_array_api_extra_on_tensors() -> None:
    xpx = pytest.importorskip("array_api_extra")
    a = np.random.default_rng(0).standard_normal((3, 6))
    out = xpx.cov(ag.tensor(a))
    assert isinstance(out, ag.Tensor)
    np.testing.assert_allclose(out.numpy(), np.cov(a), rtol=1e-12)
    assert gradcheck(lambda t: xpx.cov(t), (ag.tensor(a, requires_grad=True),))
    np.testing.assert_allclose(xpx.sinc(ag.tensor([0., 0.25, 1.5], dtype=ag.float64)).numpy(),
                               np.sinc([0., 0.25, 1.5]), atol=1e-15)
    np.testing.assert_array_equal(xpx.pad(ag.ones((2, 2)), 1).numpy(),
                                  np.pad(np.ones((2, 2), np.float32), 1))


_SKLEARN = """
import numpy as np, sklearn, arraygrad as ag
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
rng = np.random.default_rng(0)
X = rng.standard_normal((40, 3))
y = (X[:, 0] + 0.3 * rng.standard_normal(40) > 0).astype(np.int64)
with sklearn.config_context(array_api_dispatch=True):
    lda = LinearDiscriminantAnalysis().fit(ag.tensor(X), ag.tensor(y))
    predicted = lda.predict(ag.tensor(X))
assert isinstance(predicted, ag.Tensor) and isinstance(lda.coef_, ag.Tensor)
reference = LinearDiscriminantAnalysis().fit(X, y)
np.testing.assert_allclose(lda.coef_.numpy(), reference.coef_, rtol=1e-8)
assert (predicted.numpy() == reference.predict(X)).all()
print("ok")
"""


def test_scikit_learn_estimator_with_array_api_dispatch() -> None:
    if importlib.util.find_spec("sklearn") is None or \
            importlib.util.find_spec("array_api_compat") is None:
        pytest.skip("scikit-learn (and array-api-compat) are not installed")
    env = {**os.environ, "SCIPY_ARRAY_API": "1"}
    done = subprocess.run([sys.executable, "-c", _SKLEARN], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"
