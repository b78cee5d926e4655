"""``arraygrad.linalg``: PyTorch's ``torch.linalg`` namespace.

The ops and their gradient rules live in ``arraygrad.ops.families.linalg_*``; this module is
the public namespace (``import arraygrad.linalg`` or ``arraygrad.linalg.inv``). As in PyTorch,
every function takes ``out=``, and the keyword names PyTorch's argument parser accepts
(``input=`` where the documentation writes ``A``, the deprecated ``tol=``/``rcond=``) work too.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.ops.arguments import renamed_keywords
from arraygrad.ops.families import linalg_eig as _eig
from arraygrad.ops.families import linalg_extras as _extras
from arraygrad.ops.families import linalg_householder as _householder
from arraygrad.ops.families import linalg_lu as _lu
from arraygrad.ops.families import linalg_ops as _ops
from arraygrad.ops.families.linalg_ops import LinAlgError
from arraygrad.ops.families.linalg_triangular import solve_triangular as _solve_triangular
from arraygrad.ops.linalg import matmul as _matmul
from arraygrad.ops.out_arg import accepts_out

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig",
           "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex", "lstsq", "lu", "lu_factor",
           "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power",
           "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex",
           "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot",
           "vector_norm"]


def _no_driver(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` taking PyTorch's ``driver=`` (cuSOLVER's choice: only ``None`` off CUDA)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, driver: str | None = None, **kwargs: Any) -> Any:
        if driver is not None:
            raise RuntimeError(f"torch.linalg.{fn.__name__}: keyword argument `driver=` is only "
                               "supported on CUDA inputs with cuSOLVER backend.")
        return fn(*args, **kwargs)

    return wrapper


def _matrix_rank(A: Any, tol: Any = None, hermitian: bool = False, *, atol: Any = None,
                 rtol: Any = None) -> Any:
    """``linalg.matrix_rank``; PyTorch's deprecated ``tol`` is an absolute tolerance."""
    if tol is not None:
        atol, rtol = tol, 0.0
    return _ops.matrix_rank(A, atol=atol, rtol=rtol, hermitian=hermitian)


def _pinv(A: Any, rcond: Any = None, hermitian: bool = False, *, atol: Any = None,
          rtol: Any = None) -> Any:
    """``linalg.pinv``; PyTorch's deprecated ``rcond`` is a relative tolerance."""
    if rcond is not None:
        rtol = rcond
    return _ops.pinv(A, atol=atol, rtol=rtol, hermitian=hermitian)


for _fn in (_matrix_rank, _pinv):
    _fn.__name__ = _fn.__qualname__ = _fn.__name__[1:]

inv = accepts_out(_ops.inv)
det = accepts_out(_ops.det)
slogdet = accepts_out(_ops.slogdet)
solve = accepts_out(_ops.solve)
cholesky = accepts_out(renamed_keywords(_ops.cholesky, input="A"))
qr = accepts_out(_ops.qr)
eigh = accepts_out(renamed_keywords(_ops.eigh, input="A"))
eig = accepts_out(renamed_keywords(_eig.eig, input="A"))
eigvals = accepts_out(renamed_keywords(_eig.eigvals, input="A"))
eigvalsh = accepts_out(renamed_keywords(_ops.eigvalsh, input="A"))
svd = accepts_out(_no_driver(_ops.svd))
svdvals = accepts_out(_no_driver(_ops.svdvals))
pinv = accepts_out(renamed_keywords(_pinv, input="A"))
matrix_rank = accepts_out(renamed_keywords(_matrix_rank, input="A"))
lstsq = renamed_keywords(_ops.lstsq, b="B")
vector_norm = accepts_out(renamed_keywords(_ops.vector_norm, input="x"))
matrix_norm = accepts_out(renamed_keywords(_ops.matrix_norm, input="A"))
norm = accepts_out(renamed_keywords(_ops.norm, input="A"))
cross = accepts_out(_ops.cross)
vecdot = accepts_out(_ops.vecdot)
multi_dot = accepts_out(_ops.multi_dot)
matrix_power = accepts_out(renamed_keywords(_ops.matrix_power, input="A"))
matrix_exp = renamed_keywords(_ops.matrix_exp, input="A")
solve_triangular = accepts_out(renamed_keywords(_solve_triangular, input="A"))
lu = accepts_out(_lu.lu)
lu_factor = accepts_out(_lu.lu_factor)
lu_factor_ex = accepts_out(_lu.lu_factor_ex)
lu_solve = accepts_out(_lu.lu_solve)
householder_product = accepts_out(renamed_keywords(_householder.householder_product, input="A"))
cond = accepts_out(renamed_keywords(_extras.cond, input="A"))
vander = _extras.vander
tensorinv = accepts_out(_extras.tensorinv)
tensorsolve = accepts_out(_extras.tensorsolve)
inv_ex = accepts_out(_extras.inv_ex)
cholesky_ex = accepts_out(renamed_keywords(_extras.cholesky_ex, input="A"))
solve_ex = accepts_out(_extras.solve_ex)
diagonal = _extras.linalg_diagonal
matmul = accepts_out(_matmul)


def __getattr__(name: str) -> Any:
    """An absent ``torch.linalg`` name: AttributeError with the census's reason."""
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.linalg", name, "arraygrad.linalg")
