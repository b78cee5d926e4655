"""``arraygrad.distributions``: probability distributions with PyTorch's API
(``torch.distributions``): ``Distribution`` and ``ExponentialFamily``, the distributions,
``constraints``, ``transforms`` with ``biject_to``/``transform_to``, and ``kl_divergence``
with ``register_kl``.

Samples come from the device's default generator (``manual_seed``); ``rsample`` is
reparameterised wherever PyTorch's is (``has_rsample``), so gradients reach the parameters:
Normal-like families by ``loc + scale * eps``, Gamma, Beta and Dirichlet by implicit
reparameterisation (``_standard_gamma``, ``_dirichlet_grad``). ``validate_args`` checks
parameters and ``log_prob`` values (ValueError), by default under ``__debug__`` as PyTorch.
"""

from arraygrad.distributions import constraints, transforms
from arraygrad.distributions.bernoulli import Bernoulli
from arraygrad.distributions.beta import Beta
from arraygrad.distributions.binomial import Binomial
from arraygrad.distributions.categorical import Categorical
from arraygrad.distributions.cauchy import Cauchy
from arraygrad.distributions.chi2 import Chi2
from arraygrad.distributions.constraint_registry import biject_to, transform_to
from arraygrad.distributions.continuous_bernoulli import ContinuousBernoulli
from arraygrad.distributions.dirichlet import Dirichlet
from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.exp_family import ExponentialFamily
from arraygrad.distributions.exponential import Exponential
from arraygrad.distributions.fishersnedecor import FisherSnedecor
from arraygrad.distributions.gamma import Gamma
from arraygrad.distributions.generalized_pareto import GeneralizedPareto
from arraygrad.distributions.geometric import Geometric
from arraygrad.distributions.gumbel import Gumbel
from arraygrad.distributions.half_cauchy import HalfCauchy
from arraygrad.distributions.half_normal import HalfNormal
from arraygrad.distributions.independent import Independent
from arraygrad.distributions.inverse_gamma import InverseGamma
from arraygrad.distributions.kl import kl_divergence, register_kl
from arraygrad.distributions.kumaraswamy import Kumaraswamy
from arraygrad.distributions.laplace import Laplace
from arraygrad.distributions.lkj_cholesky import LKJCholesky
from arraygrad.distributions.log_normal import LogNormal
from arraygrad.distributions.logistic_normal import LogisticNormal
from arraygrad.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from arraygrad.distributions.mixture_same_family import MixtureSameFamily
from arraygrad.distributions.multinomial import Multinomial
from arraygrad.distributions.multivariate_normal import MultivariateNormal
from arraygrad.distributions.negative_binomial import NegativeBinomial
from arraygrad.distributions.normal import Normal
from arraygrad.distributions.one_hot_categorical import (
    OneHotCategorical, OneHotCategoricalStraightThrough,
)
from arraygrad.distributions.pareto import Pareto
from arraygrad.distributions.poisson import Poisson
from arraygrad.distributions.relaxed_bernoulli import RelaxedBernoulli
from arraygrad.distributions.relaxed_categorical import RelaxedOneHotCategorical
from arraygrad.distributions.studentT import StudentT
from arraygrad.distributions.transformed_distribution import TransformedDistribution
from arraygrad.distributions.transforms import *  # noqa: F403
from arraygrad.distributions.transforms import __all__ as _transforms_all
from arraygrad.distributions.uniform import Uniform
from arraygrad.distributions.von_mises import VonMises
from arraygrad.distributions.weibull import Weibull
from arraygrad.distributions.wishart import Wishart
from arraygrad.distributions import (  # noqa: E402  the submodules, as in PyTorch
    bernoulli, beta, binomial, categorical, cauchy, chi2, constraint_registry,
    continuous_bernoulli, dirichlet, distribution, exp_family, exponential, fishersnedecor,
    gamma, generalized_pareto, geometric, gumbel, half_cauchy, half_normal, independent,
    inverse_gamma, kl, kumaraswamy, laplace, lkj_cholesky, log_normal, logistic_normal,
    lowrank_multivariate_normal, mixture_same_family, multinomial, multivariate_normal,
    negative_binomial, normal, one_hot_categorical, pareto, poisson, relaxed_bernoulli,
    relaxed_categorical, studentT, transformed_distribution, uniform, utils, von_mises,
    weibull, wishart,
)

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli",
    "Dirichlet", "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma",
    "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent",
    "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal",
    "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial", "MultivariateNormal",
    "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough",
    "Pareto", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT", "Poisson", "Uniform",
    "VonMises", "Weibull", "Wishart", "TransformedDistribution", "biject_to", "kl_divergence",
    "register_kl", "transform_to",
]
__all__.extend(_transforms_all)
