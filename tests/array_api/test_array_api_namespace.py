"""``Tensor.__array_namespace__`` and the namespace it returns: every name of the Array API
standard (2024.12), the inspection object, ``api_version`` checking, the array members the
standard names (``.mT``, ``.device``, ``to_device``, DLPack), and array-api-compat finding the
namespace. Tensors had no ``__array_namespace__`` before (array-api-compat refused them)."""

from __future__ import annotations

import inspect

import pytest

import arraygrad as ag
from arraygrad import array_api as xp

# the names of the standard's 2024.12 namespace, from its specification
STANDARD = """e inf nan newaxis pi bool int8 int16 int32 int64 uint8 uint16 uint32 uint64
float32 float64 complex64 complex128 arange asarray empty empty_like eye from_dlpack full
full_like linspace meshgrid ones ones_like tril triu zeros zeros_like astype can_cast finfo
iinfo isdtype result_type abs acos acosh add asin asinh atan atan2 atanh bitwise_and
bitwise_left_shift bitwise_invert bitwise_or bitwise_right_shift bitwise_xor ceil clip conj
copysign cos cosh divide equal exp expm1 floor floor_divide greater greater_equal hypot imag
isfinite isinf isnan less less_equal log log1p log2 log10 logaddexp logical_and logical_not
logical_or logical_xor maximum minimum multiply negative nextafter not_equal positive pow real
reciprocal remainder round sign signbit sin sinh square sqrt subtract tan tanh trunc take
take_along_axis __array_namespace_info__ matmul matrix_transpose tensordot vecdot
broadcast_arrays broadcast_to concat expand_dims flip moveaxis permute_dims repeat reshape roll
squeeze stack tile unstack argmax argmin count_nonzero nonzero searchsorted where unique_all
unique_counts unique_inverse unique_values argsort sort cumulative_sum cumulative_prod max mean
min prod std sum var all any diff""".split()
LINALG = """cholesky cross det diagonal eigh eigvalsh inv matmul matrix_norm matrix_power
matrix_rank matrix_transpose outer pinv qr slogdet solve svd svdvals tensordot trace vecdot
vector_norm""".split()
FFT = """fft ifft fftn ifftn rfft irfft rfftn irfftn hfft ihfft fftfreq rfftfreq fftshift
ifftshift""".split()


def test_every_standard_name_is_in_the_namespace() -> None:
    assert [n for n in STANDARD if not hasattr(xp, n)] == []
    assert [n for n in LINALG if not hasattr(xp.linalg, n)] == []
    assert [n for n in FFT if not hasattr(xp.fft, n)] == []
    assert xp.__array_api_version__ == "2024.12"
    assert set(xp.__all__) >= set(STANDARD) - {"__array_namespace_info__"}


def test_tensor_returns_the_namespace_and_checks_the_version() -> None:
    x = ag.ones(3)
    assert x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version="2023.12") is xp
    with pytest.raises(ValueError, match="2099.12"):
        x.__array_namespace__(api_version="2099.12")


def test_array_api_compat_finds_the_namespace() -> None:
    compat = pytest.importorskip("array_api_compat")
    x = ag.ones(3)
    assert compat.array_namespace(x) is xp
    assert compat.array_namespace(x, ag.zeros(2)) is xp


def test_inspection_object() -> None:
    info = xp.__array_namespace_info__()
    assert info.capabilities()["boolean indexing"] is True
    assert info.default_device() == ag.ones(1).device
    assert info.default_device() in info.devices()
    defaults = info.default_dtypes()
    assert defaults == {"real floating": ag.float32, "complex floating": ag.complex64,
                        "integral": ag.int64, "indexing": ag.int64}
    assert set(info.dtypes()) == {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                  "uint32", "uint64", "float32", "float64", "complex64",
                                  "complex128"}
    assert info.dtypes(kind="real floating") == {"float32": ag.float32, "float64": ag.float64}
    assert set(info.dtypes(kind=("bool", "unsigned integer"))) == {
        "bool", "uint8", "uint16", "uint32", "uint64"}


def test_array_members_of_the_standard() -> None:
    x = ag.arange(6.).reshape(2, 3)
    assert x.mT.shape == (3, 2)
    assert x.to_device(x.device) is x
    assert x.__dlpack_device__()[0] == 1  # kDLCPU
    y = xp.from_dlpack(x)
    assert y.tolist() == x.tolist()
    with pytest.raises(ValueError):
        x.to_device(x.device, stream=1)


def test_dlpack_takes_the_standards_keywords() -> None:
    # the signature is the standard's and PyTorch's (it was ``*args, **kwargs`` before)
    params = inspect.signature(ag.Tensor.__dlpack__).parameters
    assert [p for p in params if p != "self"] == ["stream", "max_version", "dl_device", "copy"]
    x = ag.arange(4.)
    np = pytest.importorskip("numpy")
    assert np.from_dlpack(x, copy=True).tolist() == [0., 1., 2., 3.]
