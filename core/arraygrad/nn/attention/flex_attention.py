"""``nn.attention.flex_attention``: attention whose scores a Python function modifies
(``score_mod``) and whose pattern a Python predicate masks (``mask_mod`` in a ``BlockMask``).

This is PyTorch's eager reference computation, not its compiled block-sparse kernel: the
full ``(B, H, L, S)`` score matrix is formed, ``score_mod(score, b, h, q_idx, kv_idx)`` is
applied to it at once with broadcasting index tensors (``b`` of shape ``(B, 1, 1, 1)``,
``h`` ``(1, H, 1, 1)``, ``q_idx`` ``(1, 1, L, 1)``, ``kv_idx`` ``(1, 1, 1, S)``, where
PyTorch ``vmap``s the function over them; a function of tensor operations gives the same
values either way), masked positions become ``-inf``, and the softmax and product follow.
Gradients come from autograd through the same formula.

A ``BlockMask`` holds PyTorch's block structure (which ``BLOCK_SIZE`` tiles are partly or
fully kept); a kept position is one in a full tile, or in a partial tile where ``mask_mod``
is true, exactly as PyTorch's kernel decides.
"""

from __future__ import annotations

import inspect
import itertools
import math
import warnings
from typing import Any, Callable, NamedTuple, TypedDict

from arraygrad import dtypes as _dt
from arraygrad.creation import arange, zeros
from arraygrad.nn._functional.padding import pad
from arraygrad.ops import elementwise as ew, linalg
from arraygrad.tensor import Tensor

__all__ = ["BlockMask", "flex_attention", "AuxOutput", "AuxRequest", "FlexKernelOptions",
           "create_block_mask", "create_mask", "or_masks", "and_masks", "noop_mask"]

_DEFAULT_SPARSE_BLOCK_SIZE = 128


class FlexKernelOptions(TypedDict, total=False):
    """PyTorch's tuning options of the compiled kernel (block sizes, warps...): accepted
    and unused by the eager computation."""


class AuxRequest(NamedTuple):
    """Which extra outputs ``flex_attention`` returns (``return_aux=``)."""

    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    """The extra outputs: each row's log-sum-exp and maximum of the modified scores."""

    lse: Tensor | None = None
    max_scores: Tensor | None = None


def _isneginf(t: Tensor) -> Tensor:
    return t == float("-inf")


def noop_mask(batch: Tensor, head: Tensor, token_q: Tensor, token_kv: Tensor) -> Tensor:
    """The mask_mod that keeps everything."""
    return batch.new_ones((), dtype=_dt.bool)


def _identity(score: Tensor, batch: Tensor, head: Tensor, token_q: Tensor,
              token_kv: Tensor) -> Tensor:
    return score


def or_masks(*mask_mods: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """A mask_mod keeping what any of ``mask_mods`` keeps."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        result = b.new_zeros((), dtype=_dt.bool)
        for mask in mask_mods:
            result = result | mask(b, h, q_idx, kv_idx)
        return result

    return or_mask


def and_masks(*mask_mods: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """A mask_mod keeping what all of ``mask_mods`` keep."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        result = b.new_ones((), dtype=_dt.bool)
        for mask in mask_mods:
            result = result & mask(b, h, q_idx, kv_idx)
        return result

    return and_mask


def _indices(B: int, H: int, L: int, S: int, device: Any) -> tuple[Tensor, ...]:
    """The broadcasting ``b, h, q_idx, kv_idx`` index tensors (int64)."""
    return (arange(B, device=device).reshape(B, 1, 1, 1),
            arange(H, device=device).reshape(1, H, 1, 1),
            arange(L, device=device).reshape(1, 1, L, 1),
            arange(S, device=device).reshape(1, 1, 1, S))


def _is_score_mod(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` takes a score first (five positional parameters) or is a mask_mod."""
    params = [p for p in inspect.signature(fn).parameters.values() if p.default is p.empty
              and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(params) == 5


def _mask_of(mask_mod: Callable[..., Any], B: int, H: int, L: int, S: int,
             device: Any) -> Tensor:
    b, h, q, kv = _indices(B, H, L, S, device)
    return mask_mod(b, h, q, kv).to(_dt.bool).expand(B, H, L, S)


def create_mask(mod_fn: Callable[..., Tensor], B: int | None, H: int | None, Q_LEN: int,
                KV_LEN: int, device: Any = None) -> Tensor:
    """The dense ``(B, H, Q_LEN, KV_LEN)`` bool mask of a mask_mod, or of a score_mod (true
    where it leaves the score finite); ``B``/``H`` None are 1."""
    B, H = B or 1, H or 1
    if _is_score_mod(mod_fn):
        b, h, q, kv = _indices(B, H, Q_LEN, KV_LEN, device)
        out = mod_fn(zeros(B, H, Q_LEN, KV_LEN, device=device), b, h, q, kv)
        return ~_isneginf(out.expand(B, H, Q_LEN, KV_LEN))
    return _mask_of(mod_fn, B, H, Q_LEN, KV_LEN, device)


def _dense_to_ordered(dense_mask: Tensor) -> tuple[Tensor, Tensor]:
    """PyTorch's ``(num_blocks_in_row, col_indices)`` of a dense block mask: each row's kept
    columns first, in order, then the others."""
    dense = dense_mask.to(_dt.int32)
    num = dense.sum(-1).to(_dt.int32)
    from arraygrad import argsort

    return num, argsort(dense, dim=-1, descending=True, stable=True).to(_dt.int32)


def _ordered_to_dense(num_blocks: Tensor, indices: Tensor, num_cols: int) -> Tensor:
    """The dense int32 block mask of ``(num_blocks_in_row, col_indices)``."""
    entries = arange(indices.shape[-1], device=indices.device)
    valid = entries < num_blocks.unsqueeze(-1)  # the first num entries of each row
    cols = arange(num_cols, device=indices.device)
    hit = (indices.unsqueeze(-1).to(_dt.int64) == cols) & valid.unsqueeze(-1)
    return hit.any(-2).to(_dt.int32)


class BlockMask:
    """Which ``BLOCK_SIZE`` tiles of the ``(Q_LEN, KV_LEN)`` score matrix attention visits:
    ``kv_num_blocks``/``kv_indices`` list the partial tiles (``mask_mod`` decides inside),
    ``full_kv_num_blocks``/``full_kv_indices`` the full ones, per batch, head and row of
    tiles (PyTorch's layout; the ``q_*`` fields are the transposed lists). Build one with
    ``create_block_mask``."""

    def __init__(self, seq_lengths: tuple[int, ...], kv_num_blocks: Tensor, kv_indices: Tensor,
                 full_kv_num_blocks: Tensor | None, full_kv_indices: Tensor | None,
                 q_num_blocks: Tensor | None, q_indices: Tensor | None,
                 full_q_num_blocks: Tensor | None, full_q_indices: Tensor | None,
                 BLOCK_SIZE: tuple[int, ...] = (128, 128),
                 mask_mod: Callable[..., Tensor] = noop_mask) -> None:
        if kv_indices.ndim < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError("full_kv_num_blocks and full_kv_indices must be both provided "
                                 "or omitted")
        self.seq_lengths = tuple(seq_lengths)
        self.kv_num_blocks, self.kv_indices = kv_num_blocks, kv_indices
        self.full_kv_num_blocks, self.full_kv_indices = full_kv_num_blocks, full_kv_indices
        self.q_num_blocks, self.q_indices = q_num_blocks, q_indices
        self.full_q_num_blocks, self.full_q_indices = full_q_num_blocks, full_q_indices
        self.BLOCK_SIZE = tuple(BLOCK_SIZE)
        self.mask_mod = mask_mod

    @classmethod
    def from_kv_blocks(cls, kv_num_blocks: Tensor, kv_indices: Tensor,
                       full_kv_num_blocks: Tensor | None = None,
                       full_kv_indices: Tensor | None = None,
                       BLOCK_SIZE: int | tuple[int, int] = _DEFAULT_SPARSE_BLOCK_SIZE,
                       mask_mod: Callable[..., Tensor] | None = None,
                       seq_lengths: tuple[int, int] | None = None,
                       compute_q_blocks: bool = True) -> BlockMask:
        """A BlockMask from its kv-side lists (the q-side ones derived by transposing)."""
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if kv_num_blocks.dim() != kv_indices.dim() - 1:
            raise RuntimeError("BlockMask dimension mismatch")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise RuntimeError("full_kv_num_blocks and full_kv_indices must be both provided "
                               "or omitted")
        q_num = q_idx = full_q_num = full_q_idx = None
        if compute_q_blocks:
            cols = kv_indices.shape[-1]
            q_num, q_idx = _dense_to_ordered(
                _ordered_to_dense(kv_num_blocks, kv_indices, cols).transpose(-2, -1))
            if full_kv_num_blocks is not None and full_kv_indices is not None:
                full_q_num, full_q_idx = _dense_to_ordered(
                    _ordered_to_dense(full_kv_num_blocks, full_kv_indices,
                                      full_kv_indices.shape[-1]).transpose(-2, -1))
        block = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else tuple(BLOCK_SIZE)
        if seq_lengths is None:
            seq_lengths = (kv_indices.shape[-2] * block[0], q_idx.shape[-2] * block[1]
                           if q_idx is not None else kv_indices.shape[-1] * block[1])
        return cls(seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks,
                   full_kv_indices, q_num, q_idx, full_q_num, full_q_idx, block,
                   mask_mod if mask_mod is not None else noop_mask)

    def as_tuple(self, flatten: bool = True) -> tuple[Any, ...]:
        """The fields in PyTorch's order (``BLOCK_SIZE`` split in two when ``flatten``)."""
        block = self.BLOCK_SIZE if not flatten else tuple(self.BLOCK_SIZE)
        head = (self.seq_lengths[0], self.seq_lengths[1], self.kv_num_blocks, self.kv_indices,
                self.full_kv_num_blocks, self.full_kv_indices, self.q_num_blocks,
                self.q_indices, self.full_q_num_blocks, self.full_q_indices)
        return (*head, *block, self.mask_mod) if flatten else (*head, block, self.mask_mod)

    @property
    def shape(self) -> tuple[int, ...]:
        """``(B, H, Q_LEN, KV_LEN)``."""
        return (*tuple(self.kv_indices.shape[:-2]), *self.seq_lengths)

    def numel(self) -> int:
        """The number of positions (sparsity not counted)."""
        return math.prod(self.shape)

    def sparsity(self) -> float:
        """The percentage of the tiles attention skips."""
        blocks = int(self.kv_num_blocks.sum())
        if self.full_kv_num_blocks is not None:
            blocks += int(self.full_kv_num_blocks.sum())
        computed = blocks * self.BLOCK_SIZE[0] * self.BLOCK_SIZE[1]
        return 100 * (1 - computed / self.numel())

    def to_dense(self) -> Tensor:
        """The int32 ``(B, H, Q tiles, KV tiles)`` mask of visited tiles."""
        dense = _ordered_to_dense(self.kv_num_blocks, self.kv_indices,
                                  self.kv_indices.shape[-1])
        if self.full_kv_num_blocks is not None and self.full_kv_indices is not None:
            dense = dense | _ordered_to_dense(self.full_kv_num_blocks, self.full_kv_indices,
                                              self.full_kv_indices.shape[-1])
        return dense

    def _positions(self, L: int, S: int, B: int, H: int, device: Any) -> Tensor:
        """The ``(B, H, L, S)`` bool mask of kept positions (PyTorch's kernel's rule)."""
        q_block, kv_block = self.BLOCK_SIZE

        def expand(dense: Tensor) -> Tensor:
            rows = dense.repeat_interleave(q_block, -2).repeat_interleave(kv_block, -1)
            return rows[..., :L, :S].to(_dt.bool)

        partial = expand(_ordered_to_dense(self.kv_num_blocks, self.kv_indices,
                                           self.kv_indices.shape[-1]))
        keep = partial & _mask_of(self.mask_mod, B, H, L, S, device)
        if self.full_kv_num_blocks is not None and self.full_kv_indices is not None:
            keep = keep | expand(_ordered_to_dense(self.full_kv_num_blocks,
                                                   self.full_kv_indices,
                                                   self.full_kv_indices.shape[-1]))
        return keep

    def to(self, device: Any) -> BlockMask:
        """A BlockMask with its tensors on ``device``."""
        def move(t: Tensor | None) -> Tensor | None:
            return None if t is None else t.to(device)

        return BlockMask(self.seq_lengths, self.kv_num_blocks.to(device),
                         self.kv_indices.to(device), move(self.full_kv_num_blocks),
                         move(self.full_kv_indices), move(self.q_num_blocks),
                         move(self.q_indices), move(self.full_q_num_blocks),
                         move(self.full_q_indices), self.BLOCK_SIZE, self.mask_mod)

    def to_string(self, grid_size: int | tuple[int, int] = (20, 20), limit: int = 4) -> str:
        """A picture of the visited tiles (``█`` all kept, ``░`` partly, blank skipped)."""
        dense = self.to_dense()
        *batch_dims, num_rows, num_cols = dense.shape
        if grid_size == -1:
            max_rows, max_cols = num_rows, num_cols
        elif isinstance(grid_size, int):
            max_rows = max_cols = grid_size
        else:
            max_rows, max_cols = grid_size
        row_step = max(1, -(-num_rows // max_rows))
        col_step = max(1, -(-num_cols // max_cols))
        pictures = []
        for n, batch_idx in enumerate(itertools.product(*[range(i) for i in batch_dims])):
            if n == limit:
                pictures += ["...", "To print out more, set BlockMask.to_string(limit=N)",
                             "You can also index (BlockMask[batch, head]) to choose a specific "
                             "batch or head"]
                break
            plane = dense
            for i in batch_idx:
                plane = plane[i]
            vis = f"{batch_idx}\n"
            for r in range(0, num_rows, row_step):
                for c in range(0, num_cols, col_step):
                    share = float(plane[r:r + row_step, c:c + col_step].float().mean())
                    vis += ("█" if share == 1 else " " if share == 0 else "░") * 2
                vis += "\n"
            pictures.append(vis)
        return "\n".join(pictures)

    def __str__(self) -> str:
        return (f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, \n"
                f"{self.to_string().strip()}\n)")

    def __repr__(self) -> str:
        def shape_or_none(t: Tensor | None) -> Any:
            return None if t is None else t.shape

        return (f"BlockMask(\n    kv_num_blocks={shape_or_none(self.kv_num_blocks)},\n"
                f"    kv_indices={shape_or_none(self.kv_indices)},\n"
                f"    full_kv_num_blocks={shape_or_none(self.full_kv_num_blocks)},\n"
                f"    full_kv_indices={shape_or_none(self.full_kv_indices)},\n"
                f"    q_num_blocks={shape_or_none(self.q_num_blocks)},\n"
                f"    q_indices={shape_or_none(self.q_indices)},\n"
                f"    full_q_num_blocks={shape_or_none(self.full_q_num_blocks)},\n"
                f"    full_q_indices={shape_or_none(self.full_q_indices)},\n"
                f"    BLOCK_SIZE={self.BLOCK_SIZE},\n"
                f"    shape={self.shape},\n"
                f"    sparsity={self.sparsity():.2f}%,\n"
                f"    mask_mod={getattr(self.mask_mod, '__name__', self.mask_mod)}\n)")


def create_block_mask(mask_mod: Callable[..., Tensor], B: int | None, H: int | None,
                      Q_LEN: int, KV_LEN: int, device: Any = None,
                      BLOCK_SIZE: int | tuple[int, int] = _DEFAULT_SPARSE_BLOCK_SIZE,
                      _compile: bool = False, separate_full_blocks: bool = True,
                      compute_dq_write_order: bool = False,
                      dq_kv_order: bool = True) -> BlockMask:
    """The BlockMask of ``mask_mod(b, h, q_idx, kv_idx)`` over ``(B, H, Q_LEN, KV_LEN)``
    (``B``/``H`` None: the same for every batch/head), in tiles of ``BLOCK_SIZE``."""
    if _is_score_mod(mask_mod):
        raise RuntimeError("create_block_mask requires a mask_mod function! Got a score_mod "
                           "(5 arguments)")
    B, H = B or 1, H or 1
    q_block, kv_block = ((BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int)
                         else tuple(BLOCK_SIZE))
    mask = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device)
    padded = pad(mask.to(_dt.int32), (0, -KV_LEN % kv_block, 0, -Q_LEN % q_block))
    _, _, Q, KV = padded.shape
    tiles = padded.reshape(B, H, Q // q_block, q_block, KV // kv_block, kv_block)
    kept = tiles.permute(0, 1, 2, 4, 3, 5).sum((-2, -1))
    full_num: Tensor | None
    full_idx: Tensor | None
    if separate_full_blocks:
        full = kept == q_block * kv_block
        partial = (kept > 0) & ~full
        full_num, full_idx = _dense_to_ordered(full)
    else:
        partial = kept > 0
        full_num, full_idx = None, None
    num, idx = _dense_to_ordered(partial)
    return BlockMask.from_kv_blocks(num, idx, full_num, full_idx, BLOCK_SIZE=(q_block, kv_block),
                                    mask_mod=mask_mod, seq_lengths=(Q_LEN, KV_LEN))


def flex_attention(query: Tensor, key: Tensor, value: Tensor,
                   score_mod: Callable[..., Tensor] | None = None,
                   block_mask: BlockMask | None = None, scale: float | None = None,
                   enable_gqa: bool = False, return_lse: bool = False,
                   kernel_options: FlexKernelOptions | None = None, *,
                   return_aux: AuxRequest | None = None) -> Any:
    """``softmax(score_mod(query @ key^T * scale) masked by block_mask) @ value`` for
    ``query`` ``(B, Hq, L, E)``, ``key`` ``(B, Hkv, S, E)``, ``value`` ``(B, Hkv, S, Ev)``.

    ``scale`` defaults to ``1/sqrt(E)``; ``enable_gqa`` lets ``Hq`` be a multiple of ``Hkv``
    (``score_mod``'s ``h`` is the query head). A row with every position masked gives zeros
    (its log-sum-exp ``-inf``). ``return_aux=AuxRequest(lse=True, max_scores=True)`` also
    returns the rows' log-sum-exp and maximum (``return_lse=True``: the log-sum-exp,
    deprecated). ``kernel_options`` tune PyTorch's compiled kernel and are unused here.
    """
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        raise NotImplementedError("NYI: query, key, and value must be 4D tensors")
    if query.shape[-1] != key.shape[-1]:
        raise ValueError(f"Expect query and key/value to have the same embedding dimension "
                         f"but got E={query.shape[-1]} and E={key.shape[-1]}.")
    if key.shape[-2] != value.shape[-2] or key.shape[-3] != value.shape[-3]:
        raise ValueError("Expect key and value to have the same sequence length and number "
                         f"of heads but got {tuple(key.shape)} and {tuple(value.shape)}.")
    B, Hq, L, _ = query.shape
    Hkv, S = key.shape[1], key.shape[2]
    if Hq != Hkv:
        if not enable_gqa:
            raise ValueError(f"Expect query and key/value to have the same number of heads "
                             f"but got Hq={Hq} and Hkv={Hkv}. Try setting enable_gqa=True "
                             "for GQA.")
        if Hq % Hkv:
            raise ValueError(f"Expect number of query heads to be a multiple of kv heads for "
                             f"GQA but got Hq={Hq} and Hkv={Hkv}.")
        key = key.repeat_interleave(Hq // Hkv, 1)
        value = value.repeat_interleave(Hq // Hkv, 1)
    if return_lse and return_aux is not None:
        raise ValueError("Cannot specify both return_lse and return_aux. return_lse is "
                         "deprecated, please use return_aux=AuxRequest(lse=True) instead.")
    if return_lse:
        warnings.warn("return_lse is deprecated and will be removed in v2.10. Please use "
                      "return_aux=AuxRequest(lse=True) instead.", FutureWarning, stacklevel=2)
    if block_mask is not None and tuple(block_mask.seq_lengths) != (L, S):
        raise ValueError(
            f"block_mask was created for block_mask.shape={block_mask.shape} but got "
            f"q_len={L} and kv_len={S}.")
    factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    scores = linalg.matmul(query, key.transpose(-2, -1)) * factor
    b, h, q, kv = _indices(B, Hq, L, S, query.device)
    scores = (score_mod or _identity)(scores, b, h, q, kv)
    if block_mask is not None:
        keep = block_mask._positions(L, S, B, Hq, query.device)
        scores = ew.where(keep, scores, float("-inf"))
    row_max = scores.amax(-1)
    alive = ~_isneginf(row_max)  # a row with something kept
    lse = ew.where(alive, ew.where(alive.unsqueeze(-1), scores, 0.0).logsumexp(-1),
                   float("-inf"))
    # a row with nothing kept: no NaN from exp(-inf - -inf), zero output and gradient
    shift = ew.where(alive, lse, 0.0).unsqueeze(-1)
    weights = ew.where(alive.unsqueeze(-1), (scores - shift).exp(), 0.0)
    out = linalg.matmul(weights.to(value.dtype), value)
    want_lse = return_lse or (return_aux is not None and return_aux.lse)
    if return_aux is not None:
        return out, AuxOutput(lse=lse if want_lse else None,
                              max_scores=row_max if return_aux.max_scores else None)
    if return_lse:
        return out, lse
    return out
