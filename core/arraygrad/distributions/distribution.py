"""``Distribution``: the base class of every distribution (``torch.distributions.Distribution``):
batch and event shapes, argument and sample validation, and the interface (``sample``,
``rsample``, ``log_prob``, ``cdf``, ``icdf``, ``entropy``, moments, ``expand``)."""

from __future__ import annotations

import warnings
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.utils import _size, lazy_property
from arraygrad.tensor import Size, Tensor

__all__ = ["Distribution"]


def _custom_init(kind: type, base: type) -> bool:
    """Whether a class between ``kind`` and ``base`` (inclusive of ``kind``) defines its own
    ``__init__``: such a subclass must define ``expand`` too."""
    for klass in kind.__mro__:
        if klass is base:
            return False
        if "__init__" in vars(klass):
            return True
    return False


class Distribution:
    """The abstract base class of probability distributions.

    ``batch_shape``: the shape of independent, differently parameterised distributions;
    ``event_shape``: the shape of one sample. With ``validate_args`` the parameters are
    checked against ``arg_constraints`` here and every ``log_prob`` value against ``support``
    (ValueError); the default is ``__debug__`` (``set_default_validate_args`` changes it).
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn validation on or off for every distribution built without ``validate_args``."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = Size(), event_shape: Any = Size(),
                 validate_args: bool | None = None) -> None:
        self._batch_shape = _size(batch_shape)
        self._event_shape = _size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                              "`arg_constraints = {}` or initialize the distribution with "
                              "`validate_args=False` to turn off validation.")
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # skip constraints that cannot be checked
                if param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                             lazy_property):
                    continue  # skip checking lazily-constructed args
                value = getattr(self, param)
                with ag.no_grad():  # a yes/no answer: nothing of it needs a graph
                    valid = constraint._all_satisfied(value)
                if not valid:
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Distribution":
        """A new distribution of this kind with its batch expanded to ``batch_shape`` (the
        parameters are expanded views, no copies)."""
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """Each argument's name -> the Constraint it must satisfy."""
        raise NotImplementedError

    @property
    def support(self) -> Any:
        """The Constraint object representing this distribution's support."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        """The mean of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self) -> Tensor:
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self) -> Tensor:
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        """A ``sample_shape`` batch of samples (no graph: ``rsample`` under no_grad)."""
        with ag.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        """A ``sample_shape`` batch of reparameterised samples (gradients reach the
        parameters)."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        """``n`` samples (deprecated: ``sample((n,))``)."""
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the probability density/mass function at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value of a discrete distribution's support, along a new leading dim (expanded
        over the batch when ``expand``)."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy, one value per batch element."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """``exp(entropy)``."""
        return ag.exp(self.entropy())

    def _extended_shape(self, sample_shape: Any = Size()) -> Size:
        """``sample_shape + batch_shape + event_shape``."""
        return Size(tuple(_size(sample_shape)) + tuple(self._batch_shape)
                    + tuple(self._event_shape))

    def _validate_sample(self, value: Tensor) -> None:
        """ValueError unless ``value`` has the event shape, broadcasts with the batch shape
        and lies in the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if tuple(value.size()[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual_shape = value.size()
        expected_shape = tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual_shape} vs {Size(expected_shape)}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.")
            return
        assert support is not None
        with ag.no_grad():  # a yes/no answer: nothing of it needs a graph
            valid = support._all_satisfied(value)
        if not valid:
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def _expanded(self, cls: type, batch_shape: Any, _instance: Any, params: tuple[str, ...],
                  event_shape: Any = None) -> Any:
        """``expand``'s common work: a new instance (``_instance`` when given) whose
        ``params`` (those computed so far) are this one's expanded to ``batch_shape`` plus
        their event dims."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = _size(batch_shape)
        event_shape = self._event_shape if event_shape is None else _size(event_shape)
        for name in params:
            if name in self.__dict__:
                value = getattr(self, name)
                trailing = tuple(value.shape[len(self._batch_shape):])
                setattr(new, name, value.expand(*batch_shape, *trailing))
        Distribution.__init__(new, batch_shape, event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and _custom_init(type(self), cls):
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        param_names = [k for k, _ in self.arg_constraints.items() if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in param_names)
        return self.__class__.__name__ + "(" + args_string + ")"
