"""``DeviceMesh`` and ``init_device_mesh``: the ranks laid out as an n-dimensional array,
with a process group along each dimension (PyTorch's ``torch.distributed.device_mesh``).

For each dimension, every 1-D slice of the mesh along it becomes a group
(``new_group``: every process takes part in making each one, in the same order), and
each rank keeps the group of its own slice: ``get_group("tp")`` all-reduces over the
ranks that differ only in their ``tp`` coordinate. A 1-D mesh of the whole world uses
the default group. ``mesh["dp"]`` is the 1-D mesh of this rank's ``dp`` slice, on the
groups already made. DTensor and the meshes' flattening are not provided
(``torch.distributed.tensor`` is outside arraygrad).
"""

from __future__ import annotations

import itertools
from typing import Any

from arraygrad.distributed.groups import (
    ProcessGroup, default_group, get_rank, init_process_group, is_initialized, new_group,
)

__all__ = ["DeviceMesh", "init_device_mesh"]


def _flatten(mesh: Any) -> tuple[list[int], tuple[int, ...]]:
    """A mesh (tensor, NumPy array or nested lists of ranks) as flat ranks and a shape."""
    if hasattr(mesh, "tolist"):
        mesh = mesh.tolist()
    if isinstance(mesh, int):
        raise ValueError("DeviceMesh: mesh must have at least one dimension, got a single rank")

    def walk(node: Any) -> tuple[list[int], tuple[int, ...]]:
        if not isinstance(node, (list, tuple)):
            return [int(node)], ()
        parts = [walk(n) for n in node]
        inner = {p[1] for p in parts}
        if len(inner) > 1:
            raise ValueError(f"DeviceMesh: the mesh is ragged: {mesh}")
        return [r for p in parts for r in p[0]], (len(node),) + (inner.pop() if inner else ())

    return walk(mesh)


class DeviceMesh:
    """Ranks laid out as an n-dimensional array, with a process group along each dimension.

    ``DeviceMesh(device_type, mesh, *, mesh_dim_names=None, backend_override=None)``:
    every process calls it with the same mesh; the default group is created first when
    there is none, as in PyTorch. ``backend_override`` is accepted for PyTorch's
    signature; the groups use the default group's backend.
    """

    def __init__(self, device_type: str, mesh: Any, *, mesh_dim_names: tuple[str, ...] | None = None,
                 backend_override: Any = None, _init_backend: bool = True) -> None:
        ranks, shape = _flatten(mesh)
        if not is_initialized():
            init_process_group()
        world = default_group("DeviceMesh")
        names = tuple(mesh_dim_names) if mesh_dim_names is not None else None
        if names is not None and len(names) != len(shape):
            raise RuntimeError("mesh_shape and mesh_dim_names should have same length! Found "
                               f"len(mesh_dim_names): {len(names)} and len(mesh_shape):"
                               f"{len(shape)}.")
        if len(ranks) > world.size():
            raise RuntimeError(f"Mesh should not be bigger than default world size "
                               f"{world.size()}, but found {len(ranks)} ranks!")
        if len(set(ranks)) != len(ranks) or any(not 0 <= r < world.size() for r in ranks):
            raise ValueError(f"DeviceMesh: the mesh's ranks must be distinct ranks of the world "
                             f"(0..{world.size() - 1}), got {ranks}")
        self._setup(device_type, ranks, shape, names)
        self._groups = [self._make_group(d) for d in range(len(shape))]

    def _setup(self, device_type: str, ranks: list[int], shape: tuple[int, ...],
               names: tuple[str, ...] | None) -> None:
        self._device_type = device_type
        self._ranks, self._shape, self._names = ranks, shape, names
        me = get_rank()
        self._coordinate: tuple[int, ...] | None = None
        if me in ranks:
            index, coordinate = ranks.index(me), []
            for size in reversed(shape):
                coordinate.append(index % size)
                index //= size
            self._coordinate = tuple(reversed(coordinate))

    def _slice(self, dim: int, fixed: tuple[int, ...]) -> list[int]:
        """The ranks along ``dim`` with the other coordinates at ``fixed``."""
        out = []
        for i in range(self._shape[dim]):
            coordinate = list(fixed)
            coordinate[dim] = i
            flat = 0
            for c, size in zip(coordinate, self._shape):
                flat = flat * size + c
            out.append(self._ranks[flat])
        return out

    def _make_group(self, dim: int) -> ProcessGroup:
        world = default_group("DeviceMesh")
        others = [range(s) if d != dim else range(1) for d, s in enumerate(self._shape)]
        mine: ProcessGroup | None = None
        for fixed in itertools.product(*others):
            members = self._slice(dim, tuple(fixed))
            if len(self._shape) == 1 and members == world.ranks:
                group = world
            else:
                group = new_group(members)
            if get_rank() in members:
                mine = group
        return mine if mine is not None else group

    # -- PyTorch's API -----------------------------------------------------------------------
    @property
    def device_type(self) -> str:
        """The device type the mesh is for (``"cpu"``, ``"cuda"``)."""
        return self._device_type

    @property
    def mesh(self) -> Any:
        """The ranks as an int32 tensor of the mesh's shape."""
        import arraygrad

        return arraygrad.tensor(self._ranks, dtype=arraygrad.int32).reshape(self._shape)

    @property
    def mesh_dim_names(self) -> tuple[str, ...] | None:
        """The dimensions' names, if given."""
        return self._names

    @property
    def ndim(self) -> int:
        """How many dimensions the mesh has."""
        return len(self._shape)

    @property
    def shape(self) -> tuple[int, ...]:
        """The mesh's shape."""
        return self._shape

    def size(self, mesh_dim: int | None = None) -> int:
        """How many ranks the mesh has (along ``mesh_dim`` if given)."""
        if mesh_dim is not None:
            return self._shape[mesh_dim]
        return len(self._ranks)

    def _dim(self, mesh_dim: int | str | None, call: str) -> int:
        if mesh_dim is None:
            if self.ndim > 1:
                raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions",
                                   "Optional kwarg `mesh_dim` needs to be specified when "
                                   "device_mesh.ndim > 1.")
            return 0
        if isinstance(mesh_dim, str):
            if self._names is None:
                raise KeyError("No `mesh_dim_names` found.")
            if mesh_dim not in self._names:
                raise KeyError(f"Mesh dimension '{mesh_dim}' does not exist.",
                               f"Available mesh dimensions are: mesh_dim_names={self._names}")
            return self._names.index(mesh_dim)
        if not -self.ndim <= mesh_dim < self.ndim:
            raise IndexError(f"{call}: mesh_dim {mesh_dim} is out of range for a mesh of "
                             f"{self.ndim} dimensions")
        return mesh_dim % self.ndim

    def get_group(self, mesh_dim: int | str | None = None) -> ProcessGroup:
        """The group along ``mesh_dim`` (an index or a name) that this rank belongs to."""
        return self._groups[self._dim(mesh_dim, "get_group")]

    def get_all_groups(self) -> list[ProcessGroup]:
        """This rank's group along each dimension."""
        return list(self._groups)

    def get_rank(self) -> int:
        """This process's global rank."""
        return get_rank()

    def get_local_rank(self, mesh_dim: int | str | None = None) -> int:
        """This rank's coordinate along ``mesh_dim`` (its rank in that dimension's group)."""
        return get_rank(self.get_group(mesh_dim))

    def get_coordinate(self) -> tuple[int, ...] | None:
        """This rank's coordinates in the mesh; None when it is not in the mesh."""
        return self._coordinate

    def __getitem__(self, mesh_dim_names: str | tuple[str, ...]) -> "DeviceMesh":
        """The mesh of the named dimensions through this rank (on the groups made already)."""
        if self._names is None:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names!")
        wanted = (mesh_dim_names,) if isinstance(mesh_dim_names, str) else tuple(mesh_dim_names)
        if not wanted or any(n not in self._names for n in wanted):
            raise KeyError(f"Invalid mesh_dim_names {wanted} specified. Valid mesh_dim_names "
                           f"are {self._names}.")
        if len(set(wanted)) != len(wanted):
            raise RuntimeError(f"Slicing overlapping dim_names {wanted} is not allowed.")
        dims = [self._names.index(n) for n in wanted]
        if dims != sorted(dims):
            raise KeyError(f"Invalid mesh_dim_names {wanted} specified. Mesh dim indices should "
                           "be in ascending order.")
        if wanted == self._names:
            return self
        if self._coordinate is None:
            raise RuntimeError("In order to get the mesh Tensor of a DeviceMesh it needs to "
                               "either have all its original dimensions (e.g., no slicing) or "
                               "it needs to contain the local rank")
        shape = tuple(self._shape[d] for d in dims)
        ranks = []
        for sub in itertools.product(*(range(s) for s in shape)):
            coordinate = list(self._coordinate)
            for d, c in zip(dims, sub):
                coordinate[d] = c
            flat = 0
            for c, size in zip(coordinate, self._shape):
                flat = flat * size + c
            ranks.append(self._ranks[flat])
        sub_mesh = DeviceMesh.__new__(DeviceMesh)
        sub_mesh._setup(self._device_type, ranks, shape, wanted)
        sub_mesh._groups = [self._groups[d] for d in dims]
        return sub_mesh

    @staticmethod
    def from_group(group: ProcessGroup | list[ProcessGroup], device_type: str, mesh: Any = None,
                   *, mesh_dim_names: tuple[str, ...] | None = None) -> "DeviceMesh":
        """A mesh on existing groups: one group (a 1-D mesh of its ranks), or one group per
        dimension of ``mesh``."""
        groups = [group] if isinstance(group, ProcessGroup) else list(group)
        if not groups:
            raise ValueError("Expects at least one ProcessGroup to be passed")
        if mesh is None:
            if len(groups) != 1:
                raise ValueError("Expects mesh to be given with more than one ProcessGroup")
            mesh = list(groups[0].ranks)
        ranks, shape = _flatten(mesh)
        if len(groups) == 1 and len(shape) == 1 and sorted(ranks) != sorted(groups[0].ranks):
            raise ValueError(f"Invalid mesh {mesh} for ProcessGroup with ranks "
                             f"{groups[0].ranks}")
        if len(groups) != len(shape):
            raise ValueError(f"Expects one ProcessGroup per mesh dimension ({len(shape)}), got "
                             f"{len(groups)}")
        out = DeviceMesh.__new__(DeviceMesh)
        out._setup(device_type, ranks, shape,
                   tuple(mesh_dim_names) if mesh_dim_names is not None else None)
        out._groups = groups
        return out

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, DeviceMesh) and other._device_type == self._device_type
                and other._ranks == self._ranks and other._shape == self._shape
                and other._names == self._names)

    def __hash__(self) -> int:
        return hash((self._device_type, tuple(self._ranks), self._shape, self._names))

    def __repr__(self) -> str:
        names = f", mesh_dim_names={self._names}" if self._names else ""
        return f"DeviceMesh('{self._device_type}', {self.mesh.tolist()}{names})"


def init_device_mesh(device_type: str, mesh_shape: tuple[int, ...], *,
                     mesh_dim_names: tuple[str, ...] | None = None,
                     backend_override: Any = None) -> DeviceMesh:
    """A ``DeviceMesh`` of ``mesh_shape`` over ranks 0, 1, ... in row-major order."""
    if mesh_dim_names is not None:
        if len(set(mesh_dim_names)) != len(mesh_dim_names):
            raise RuntimeError("Each mesh_dim_name must be unique. Found repeated mesh_dim_name "
                               f"in mesh_dim_names {mesh_dim_names}")
        if len(mesh_shape) != len(mesh_dim_names):
            raise RuntimeError("mesh_shape and mesh_dim_names should have same length! Found "
                               f"len(mesh_dim_names): {len(mesh_dim_names)} and len(mesh_shape):"
                               f"{len(mesh_shape)}.")
    if device_type and not device_type.isalpha():
        raise RuntimeError(f"Device type with index is not supported but got {device_type}. ",
                           "If you maintained a 'torch.device' object, it's recommended to pass "
                           "in 'device.type'.")
    shape = tuple(int(s) for s in mesh_shape)
    count = 1
    for size in shape:
        count *= size
    return DeviceMesh(device_type, _nest(list(range(count)), shape),
                      mesh_dim_names=mesh_dim_names, backend_override=backend_override)


def _nest(flat: list[int], shape: tuple[int, ...]) -> Any:
    """``flat`` as nested lists of ``shape`` (row-major)."""
    if len(shape) <= 1:
        return flat
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]
