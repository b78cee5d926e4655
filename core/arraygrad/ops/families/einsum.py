"""``einsum``, reduced to differentiable core ops: ``diagonal``, ``sum``, ``permute``,
``reshape`` and ``matmul``.

Plan, for an equation such as ``"bij,bjk->bik"``:

1. each operand's subscripts are parsed (``...`` becoming one label per broadcast dim,
   aligned from the right as broadcasting does);
2. a label repeated within one operand takes that operand's diagonal;
3. a label found in no other operand nor the output is summed out at once;
4. operands are combined left to right, two at a time: labels both share and still need are
   batch dims, labels both share and nobody needs later are contracted, the rest are free;
   one ``matmul`` of (batch, free_a, contracted) by (batch, contracted, free_b) does it;
5. what remains is summed over labels not in the output and permuted to the output's order.

Since every step is a differentiable op, gradients and double backward come from them.
"""

from __future__ import annotations

from typing import Any, Hashable

from arraygrad.amp import state as _amp
import arraygrad as ag
from arraygrad.ops.families.products import diagonal
from arraygrad.tensor import Tensor

__all__ = ["einsum"]

Label = Hashable  # a letter, or ("...", k) for the k-th broadcast dim


def _parse_term(term: str, ndim: int, n_ell: int, index: int) -> list[Label]:
    """One operand's labels; its ``...`` stands for its dims not named by letters."""
    if term.count("...") > 1 or term.replace("...", "").count(".") > 0:
        raise RuntimeError(f"einsum(): found an invalid '.' in the subscripts for operand {index}")
    letters = term.replace("...", "")
    for c in letters:
        if not c.isalpha() or not c.isascii():
            raise RuntimeError(f"einsum(): invalid subscript given at index {term.index(c)} in the "
                               f"equation string, subscripts must be in [a-zA-Z]")
    if "..." in term:
        if len(letters) > ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(letters)}) is more "
                               f"than the number of dimensions ({ndim}) for operand {index}")
        k = ndim - len(letters)
        head, tail = term.split("...")
        return [*head, *[("...", n_ell - k + j) for j in range(k)], *tail]
    if len(letters) != ndim:
        raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(letters)}) does not "
                           f"match the number of dimensions ({ndim}) for operand {index}"
                           f"{' and no ellipsis was given' if len(letters) < ndim else ''}")
    return list(letters)


def _take_diagonals(x: Tensor, labels: list[Label], index: int) -> tuple[Tensor, list[Label]]:
    """``x`` with each label repeated in ``labels`` reduced to its diagonal (one dim per label)."""
    while len(set(labels)) < len(labels):
        first = next(i for i, lab in enumerate(labels) if labels.index(lab) < i)
        prior = labels.index(labels[first])
        if x.shape[prior] != x.shape[first]:
            raise RuntimeError(f"einsum(): subscript {labels[first]} is repeated for operand {index} but the "
                               f"sizes don't match, {x.shape[prior]} != {x.shape[first]}")
        x = diagonal(x, 0, prior, first)  # the diagonal becomes the last dim
        labels = [lab for i, lab in enumerate(labels) if i not in (prior, first)] + [labels[first]]
    return x, labels


def _sum_out(x: Tensor, labels: list[Label], keep: set[Label]) -> tuple[Tensor, list[Label]]:
    """``x`` summed over its labels not in ``keep``."""
    drop = [i for i, lab in enumerate(labels) if lab not in keep]
    if not drop:
        return x, labels
    return x.sum(drop), [lab for i, lab in enumerate(labels) if i not in drop]


def _combine(a: Tensor, la: list[Label], b: Tensor, lb: list[Label],
             keep: set[Label]) -> tuple[Tensor, list[Label]]:
    """The product of two labelled operands, summed over shared labels not in ``keep``."""
    shared = [lab for lab in la if lab in lb]
    batch = [lab for lab in shared if lab in keep]
    contract = [lab for lab in shared if lab not in keep]
    # a contracted label of size 1 on one side only broadcasts: sum the other side over it first
    for lab in contract:
        sa, sb = a.shape[la.index(lab)], b.shape[lb.index(lab)]
        if sa != sb and sa == 1:
            b = b.sum(lb.index(lab), keepdim=True)
        elif sa != sb and sb == 1:
            a = a.sum(la.index(lab), keepdim=True)
    free_a = [lab for lab in la if lab not in shared]
    free_b = [lab for lab in lb if lab not in shared]
    pa = a.permute(*[la.index(lab) for lab in batch + free_a + contract])
    pb = b.permute(*[lb.index(lab) for lab in batch + contract + free_b])
    nb = len(batch)
    bsh_a, bsh_b = list(pa.shape[:nb]), list(pb.shape[:nb])
    fa = list(pa.shape[nb:nb + len(free_a)])
    fb = list(pb.shape[nb + len(contract):])
    k = 1
    for s in pa.shape[nb + len(free_a):]:
        k *= s
    for lab in contract:
        if a.shape[la.index(lab)] != b.shape[lb.index(lab)]:
            raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes (original->remapped): "
                               f"{list(a.shape)}->{list(pa.shape)} {list(b.shape)}->{list(pb.shape)}")
    left = pa.reshape(*bsh_a, _prod(fa), k)
    right = pb.reshape(*bsh_b, k, _prod(fb))
    out = ag.matmul(left, right)
    return out.reshape(*out.shape[:nb], *fa, *fb), batch + free_a + free_b


def _prod(sizes: list[int]) -> int:
    out = 1
    for s in sizes:
        out *= s
    return out


def einsum(equation: str, *operands: Any) -> Tensor:
    """Sum over products of the operands' elements as the Einstein ``equation`` says,
    e.g. ``einsum("ij,jk->ik", a, b)`` is ``a @ b``; ``...`` broadcasts; without ``->`` the
    output is the broadcast dims then the labels used once, in alphabetical order."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        operands = _amp.cast("einsum", *operands)
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError(f"einsum(): {'more' if len(operands) > len(terms) else 'fewer'} operands were provided "
                           f"than specified in the equation")
    n_ell = max((t.dim() - len(term.replace("...", "")) for t, term in zip(operands, terms) if "..." in term),
                default=0)
    xs: list[Tensor] = []
    labels: list[list[Label]] = []
    used: list[Label] = []  # every subscript as written (a repeated one counts each time)
    for i, (t, term) in enumerate(zip(operands, terms)):
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): expected Tensor operands, but operand {i} is {type(t).__name__}")
        written = _parse_term(term, t.dim(), n_ell, i)
        used += written
        x, unique = _take_diagonals(t, written, i)
        xs.append(x)
        labels.append(unique)
    ell = [("...", j) for j in range(n_ell)]
    if arrow:
        if "..." in rhs and not any("..." in term for term in terms):
            raise RuntimeError("einsum(): ellipsis in the output without one in any input operand")
        out_labels: list[Label] = []
        for lab in _parse_term(rhs, len(rhs.replace("...", "")) + n_ell if "..." in rhs else len(rhs), n_ell, -1):
            if lab in out_labels:
                raise RuntimeError(f"einsum(): output subscript {lab} appears more than once in the output")
            if lab not in used and not isinstance(lab, tuple):
                raise RuntimeError(f"einsum(): output subscript {lab} does not appear in the equation for any "
                                   f"input operand")
            out_labels.append(lab)
    else:
        once = sorted({lab for lab in used if isinstance(lab, str) and used.count(lab) == 1})
        out_labels = [lab for lab in ell if lab in used] + list(once)
    # sizes must agree (or be 1, which broadcasts) across operands
    sizes: dict[Label, int] = {}
    for i, (x, ls) in enumerate(zip(xs, labels)):
        for lab, s in zip(ls, x.shape):
            if sizes.get(lab, 1) != 1 and s != 1 and s != sizes[lab]:
                name = lab if isinstance(lab, str) else "..."
                raise RuntimeError(f"einsum(): operands do not broadcast: subscript {name} "
                                   f"has size {s} for operand {i} which does not broadcast with previously seen "
                                   f"size {sizes[lab]}")
            if sizes.get(lab, 1) == 1:
                sizes[lab] = s
    out_set = set(out_labels)

    def needed_after(k: int) -> set[Label]:
        return out_set | {lab for ls in labels[k:] for lab in ls}

    x, ls = _sum_out(xs[0], labels[0], needed_after(1))
    for k in range(1, len(xs)):
        keep = needed_after(k + 1)
        y, ly = _sum_out(xs[k], labels[k], keep | set(ls))
        x, ls = _combine(x, ls, y, ly, keep)
        x, ls = _sum_out(x, ls, keep)
    x, ls = _sum_out(x, ls, out_set)
    # every output label is in ``ls`` now: each one is some operand's, and was kept throughout
    return x.permute(*[ls.index(lab) for lab in out_labels]) if ls != out_labels else x


FUNCTIONS = {"einsum": einsum}
