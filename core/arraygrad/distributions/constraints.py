"""Constraints: the sets a distribution's parameters and samples live in
(``torch.distributions.constraints``). ``c.check(value)`` is a bool tensor, one entry per
batch element (the constraint's ``event_dim`` rightmost dims are reduced)."""

from __future__ import annotations

from typing import Any, Callable

import arraygrad as ag
from arraygrad.ops.rule import fast_paths
from arraygrad.tensor import Tensor

__all__ = [
    "Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
    "greater_than", "greater_than_eq", "independent", "integer_interval", "interval",
    "half_open_interval", "is_dependent", "less_than", "lower_cholesky", "lower_triangular",
    "MixtureSameFamilyConstraint", "multinomial", "nonnegative", "nonnegative_integer", "one_hot",
    "positive", "positive_semidefinite", "positive_definite", "positive_integer", "real",
    "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval",
]


class Constraint:
    """A region where a variable is valid. ``is_discrete``: whether the region is discrete;
    ``event_dim``: how many rightmost dims make one event."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Tensor) -> Tensor:
        """A bool tensor: whether each event of ``value`` satisfies the constraint."""
        raise NotImplementedError

    def _all_satisfied(self, value: Tensor) -> bool:
        """Whether every event of ``value`` satisfies the constraint: ``check(value).all()``
        read once (a distribution's validation). The commonest constraints answer on the
        arrays (the same comparisons, without a Tensor op each: a ``Categorical`` built in a
        sampling loop spent two thirds of its time validating)."""
        return bool(self.check(value).all())

    def __repr__(self) -> str:
        return self.__class__.__name__[1:] + "()"


def _checked_data(value: Any) -> Any:
    """``value``'s native array when ``_all_satisfied`` may read it directly (fast paths on,
    a dense tensor holding data), else None: the Tensor form answers."""
    if not fast_paths.on or not isinstance(value, Tensor) or value.is_sparse \
            or not value._backend.holds_data:
        return None
    return value._data


def _number(bound: Any) -> bool:
    return type(bound) is int or type(bound) is float


class _Dependent(Constraint):
    """Placeholder for a constraint that depends on other variables (the support of a
    distribution whose bounds are parameters); it cannot check anything."""

    def __init__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> None:
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return bool(self._is_discrete)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return int(self._event_dim)

    def __call__(self, *, is_discrete: Any = NotImplemented,
                 event_dim: Any = NotImplemented) -> "_Dependent":
        """A dependent constraint with these statically known attributes."""
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x: Tensor) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """Whether ``constraint`` is a dependent (placeholder) constraint."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A ``property`` whose value is a constraint that depends on the instance (the
    distribution's support); on the class it is a ``dependent`` constraint."""

    def __init__(self, fn: Callable[..., Any] | None = None, *,
                 is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> None:
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn: Callable[..., Any]) -> "_DependentProperty":  # type: ignore[override]
        """Decorate ``fn`` as a dependent property with the same attributes."""
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """``base_constraint`` with ``reinterpreted_batch_ndims`` more dims reduced per event."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        if not isinstance(base_constraint, Constraint):
            raise TypeError("base_constraint must be a Constraint")
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise ValueError("reinterpreted_batch_ndims must be a non-negative int, got "
                             f"{reinterpreted_batch_ndims!r}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Tensor) -> Tensor:
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        result = result.reshape(*result.shape[:result.dim() - self.reinterpreted_batch_ndims],
                                -1)
        return result.all(-1)

    def _all_satisfied(self, value: Tensor) -> bool:
        # every event reduced: the base's answer, once the dims are there (else ``check``
        # raises its ValueError)
        if isinstance(value, Tensor) and value.dim() >= self.event_dim:
            return self.base_constraint._all_satisfied(value)
        return super()._all_satisfied(value)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__[1:]}({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class MixtureSameFamilyConstraint(Constraint):
    """The support of ``MixtureSameFamily``: the components' support, checked on the value
    broadcast against the component dim."""

    def __init__(self, base_constraint: Constraint) -> None:
        if not isinstance(base_constraint, Constraint):
            raise TypeError("base_constraint must be a Constraint")
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: Tensor) -> Tensor:
        unsqueezed = value.unsqueeze(-1 - self.event_dim)
        result = self.base_constraint.check(unsqueezed)
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return result.reshape(*result.shape[:result.dim() - 1], -1).all(-1) if \
            result.dim() else result

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.base_constraint!r})"


class _LowerBound(Constraint):
    """A constraint with a ``lower_bound``."""

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound
        super().__init__()

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound})"


class _UpperBound(Constraint):
    """A constraint with an ``upper_bound``."""

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound
        super().__init__()

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(upper_bound={self.upper_bound})"


class _Bounds(Constraint):
    """A constraint with a ``lower_bound`` and an ``upper_bound``."""

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        is_boolean = (value == 0) | (value == 1)
        is_normalized = value.sum(-1).eq(1)
        return is_boolean.all(-1) & is_normalized


class _IntegerInterval(_Bounds):
    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def _all_satisfied(self, value: Tensor) -> bool:
        data = _checked_data(value)
        if data is None or not (_number(self.lower_bound) and _number(self.upper_bound)):
            return super()._all_satisfied(value)
        xp = value._backend.xp
        inside = (self.lower_bound <= data) & (data <= self.upper_bound)
        if value.dtype.is_floating_point:
            inside = inside & (data % 1 == 0)
        return bool(xp.all(inside))


class _IntegerLessThan(_UpperBound):
    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (value <= self.upper_bound)


class _IntegerGreaterThan(_LowerBound):
    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Real(Constraint):
    def check(self, value: Tensor) -> Tensor:
        return value == value  # False only for NaN

    def _all_satisfied(self, value: Tensor) -> bool:
        data = _checked_data(value)
        if data is None:
            return super()._all_satisfied(value)
        return bool(value._backend.xp.all(data == data))


class _GreaterThan(_LowerBound):
    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound < value

    def _all_satisfied(self, value: Tensor) -> bool:
        data = _checked_data(value)
        if data is None or not _number(self.lower_bound):
            return super()._all_satisfied(value)
        return bool(value._backend.xp.all(self.lower_bound < data))


class _GreaterThanEq(_LowerBound):
    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound <= value


class _LessThan(_UpperBound):
    def check(self, value: Tensor) -> Tensor:
        return value < self.upper_bound


class _Interval(_Bounds):
    def check(self, value: Tensor) -> Tensor:
        return (self.lower_bound <= value) & (value <= self.upper_bound)


class _HalfOpenInterval(_Bounds):
    def check(self, value: Tensor) -> Tensor:
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return ag.all(value >= 0, dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)

    def _all_satisfied(self, value: Tensor) -> bool:
        data = _checked_data(value)
        if data is None or data.ndim == 0:
            return super()._all_satisfied(value)
        xp = value._backend.xp
        return bool(xp.all(data >= 0) & xp.all(xp.abs(xp.sum(data, axis=-1) - 1) < 1e-6))


class _Multinomial(Constraint):
    """Non-negative integer vectors summing to at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, x: Tensor) -> Tensor:
        return (x >= 0).all(dim=-1) & (x.sum(dim=-1) <= self.upper_bound)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        value_tril = value.tril()
        return (value_tril == value).reshape(*value.shape[:-2], -1).min(-1)[0]


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        value_tril = value.tril()
        lower_triangular = (value_tril == value).reshape(*value.shape[:-2], -1).min(-1)[0]
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).min(-1)[0]
        return lower_triangular & positive_diagonal


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices: positive diagonal, unit-norm rows."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        tol = ag.finfo(value.dtype).eps * value.size(-1) * 10
        row_norm = ag.linalg.norm(value.detach(), dim=-1)
        unit_row_norm = (row_norm - 1.0).abs().le(tol).all(dim=-1)
        return _LowerCholesky().check(value) & unit_row_norm


class _Square(Constraint):
    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        return ag.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1],
                       dtype=ag.bool, device=value.device)


class _Symmetric(_Square):
    def check(self, value: Tensor) -> Tensor:
        square_check = super().check(value)
        if not bool(square_check.all()):
            return square_check
        close = (value - value.mT).abs() <= 1e-6 + 1e-6 * value.mT.abs()
        return close.all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value: Tensor) -> Tensor:
        sym_check = super().check(value)
        if not bool(sym_check.all()):
            return sym_check
        return ag.linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value: Tensor) -> Tensor:
        sym_check = super().check(value)
        if not bool(sym_check.all()):
            return sym_check
        return ag.linalg.eigvalsh(value).gt(0).all(-1)


class _Cat(Constraint):
    """``cseq[i]`` applied to the ``lengths[i]`` slices of dim ``dim``, concatenated."""

    def __init__(self, cseq: Any, dim: int = 0, lengths: Any = None) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise TypeError("cseq must hold Constraints")
        self.cseq = list(cseq)
        if lengths is None:
            lengths = [1] * len(self.cseq)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise ValueError("cseq and lengths must have the same length")
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(c.event_dim for c in self.cseq)

    def check(self, value: Tensor) -> Tensor:
        if not -value.dim() <= self.dim < value.dim():
            raise IndexError(f"dim {self.dim} is out of range for a {value.dim()}-d value")
        checks, start = [], 0
        for constr, length in zip(self.cseq, self.lengths):
            v = value.narrow(self.dim, start, length)
            checks.append(constr.check(v))
            start += length
        return ag.cat(checks, self.dim)


class _Stack(Constraint):
    """``cseq[i]`` applied to the i-th slice along dim ``dim``, stacked."""

    def __init__(self, cseq: Any, dim: int = 0) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise TypeError("cseq must hold Constraints")
        self.cseq = list(cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        dim = max(c.event_dim for c in self.cseq)
        if self.dim + dim < 0:
            dim += 1
        return dim

    def check(self, value: Tensor) -> Tensor:
        if not -value.dim() <= self.dim < value.dim():
            raise IndexError(f"dim {self.dim} is out of range for a {value.dim()}-d value")
        vs = [value.narrow(self.dim, i, 1).squeeze(self.dim) for i in range(value.size(self.dim))]
        return ag.stack([constr.check(v) for v, constr in zip(vs, self.cseq)], self.dim)


# Public interface.
dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
