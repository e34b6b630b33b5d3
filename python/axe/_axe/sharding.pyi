from collections.abc import Iterator, Sequence
from typing import overload

import axe._axe
from axe.sharding import _explanation_str as __str__


class Mesh:
    """JAX's Mesh: named axes over devices (ids)."""

    def __init__(self, devices: object, axis_names: Sequence[str], axis_types: object | None = None) -> None: ...

    @staticmethod
    def parse(text: str) -> Mesh:
        """
        Reads Mesh('x': 2, 'y': 2), {x:2, y:2}, x=2,y=2 or JAX's repr, Mesh(axis_sizes=(2, 2), axis_names=('x', 'y'), axis_types=(Auto, Auto)).
        """

    def __repr__(self) -> str:
        """
        JAX's repr: Mesh(axis_sizes=(2, 2), axis_names=('x', 'y'), axis_types=(Auto, Auto)).
        """

    def __str__(self) -> str:
        """
        JAX's str (as a NamedSharding shows its mesh): Mesh('x': 2, 'y': 2, axis_types=(Auto, Auto)).
        """

    @property
    def text(self) -> str:
        """
        axe's canonical text, with the device ids when they are not 0..N-1 in order (Mesh.parse reads it back).
        """

    @overload
    def __eq__(self, arg: Mesh, /) -> bool: ...

    @overload
    def __eq__(self, arg: object, /) -> bool: ...

    def __hash__(self) -> int: ...

    @property
    def axis_names(self) -> tuple: ...

    @property
    def axis_sizes(self) -> tuple: ...

    @property
    def size(self) -> int: ...

    @property
    def device_ids(self) -> list[int]:
        """The device ids in mesh-position order (flattened devices array)."""

class PartitionSpec:
    """JAX's P(*entries)."""

    def __init__(self, *args) -> None: ...

    @staticmethod
    def parse(text: str) -> PartitionSpec: ...

    def __repr__(self) -> str: ...

    def __len__(self) -> int: ...

    def __getitem__(self, arg: int, /) -> object: ...

    def __iter__(self) -> Iterator: ...

    @overload
    def __eq__(self, arg: PartitionSpec, /) -> bool: ...

    @overload
    def __eq__(self, arg: object, /) -> bool: ...

    def __hash__(self) -> int: ...

class NamedSharding:
    """JAX's NamedSharding(mesh, spec)."""

    def __init__(self, mesh: Mesh, spec: PartitionSpec, memory_kind: str | None = None) -> None: ...

    @staticmethod
    def parse(text: str) -> NamedSharding:
        """Reads JAX's repr, e.g. NamedSharding(mesh=Mesh('x': 2), spec=P('x',))."""

    def __repr__(self) -> str: ...

    @overload
    def __eq__(self, arg: NamedSharding, /) -> bool: ...

    @overload
    def __eq__(self, arg: object, /) -> bool: ...

    def __hash__(self) -> int: ...

    @property
    def mesh(self) -> Mesh: ...

    @property
    def spec(self) -> PartitionSpec: ...

    @property
    def memory_kind(self) -> str | None: ...

    @property
    def num_devices(self) -> int: ...

    @property
    def is_fully_replicated(self) -> bool: ...

    def shard_shape(self, global_shape: Sequence[int]) -> tuple: ...

    def devices_indices_map(self, global_shape: Sequence[int]) -> dict: ...

class SingleDeviceSharding:
    def __init__(self, device: object, memory_kind: str | None = None) -> None: ...

    def __repr__(self) -> str: ...

    @overload
    def __eq__(self, arg: SingleDeviceSharding, /) -> bool: ...

    @overload
    def __eq__(self, arg: object, /) -> bool: ...

    def __hash__(self) -> int: ...

    @property
    def device(self) -> int: ...

    @property
    def memory_kind(self) -> str | None: ...

    def shard_shape(self, arg: Sequence[int], /) -> tuple: ...

    def devices_indices_map(self, global_shape: Sequence[int]) -> dict: ...

class HloSharding:
    """An XLA HLO sharding, e.g. {devices=[2,1]<=[2]}."""

    def __init__(self, text: str) -> None: ...

    @staticmethod
    def parse(text: str) -> HloSharding: ...

    def __str__(self) -> str: ...

    def __repr__(self) -> str: ...

    @overload
    def __eq__(self, arg: HloSharding, /) -> bool: ...

    @overload
    def __eq__(self, arg: object, /) -> bool: ...

    def __hash__(self) -> int: ...

class Layout:
    """JAX's device-local Layout(major_to_minor, tiling)."""

    def __init__(self, major_to_minor: Sequence[int], tiling: Sequence[Sequence[int]] | None = None, sub_byte_element_size_in_bits: int = 0) -> None: ...

    @staticmethod
    def parse(text: str) -> Layout: ...

    def __repr__(self) -> str: ...

    @overload
    def __eq__(self, arg: Layout, /) -> bool: ...

    @overload
    def __eq__(self, arg: object, /) -> bool: ...

    def __hash__(self) -> int: ...

    @property
    def major_to_minor(self) -> tuple: ...

    @property
    def tiling(self) -> object: ...

    @property
    def sub_byte_element_size_in_bits(self) -> int: ...

    AUTO: _AutoLayout = ...

class Format:
    """JAX's Format(layout, sharding)."""

    @overload
    def __init__(self, layout: _AutoLayout | Layout | None = None, sharding: NamedSharding | SingleDeviceSharding | None = None) -> None: ...

    @overload
    def __init__(self, layout: object | None = None, sharding: object | None = None) -> None: ...

    @staticmethod
    def parse(text: str) -> Format: ...

    def __repr__(self) -> str: ...

    @overload
    def __eq__(self, arg: Format, /) -> bool: ...

    @overload
    def __eq__(self, arg: object, /) -> bool: ...

    def __hash__(self) -> int: ...

    @property
    def layout(self) -> object: ...

    @property
    def sharding(self) -> object: ...

class Explanation:
    """What `axe shard explain` shows about a sharded array."""

    @property
    def global_shape(self) -> tuple: ...

    @property
    def dtype(self) -> str: ...

    @property
    def shardy_mesh(self) -> str: ...

    @property
    def device_assignment(self) -> list[int]: ...

    @property
    def notes(self) -> list[str]: ...

    @property
    def shard_shape(self) -> tuple: ...

    @property
    def fully_replicated(self) -> bool: ...

    @property
    def num_devices(self) -> int: ...

    @property
    def local_shape(self) -> str: ...

    @property
    def named_jax(self) -> str: ...

    @property
    def picture(self) -> list[str]: ...

    @property
    def devices(self) -> list: ...

    @property
    def named(self) -> object: ...

    @property
    def named_reason(self) -> str: ...

    @property
    def hlo(self) -> object: ...

    @property
    def hlo_reason(self) -> str: ...

    @property
    def axe(self) -> object: ...

    @property
    def axe_reason(self) -> str: ...

    @property
    def shardy(self) -> object: ...

    @property
    def shardy_reason(self) -> str: ...

    @property
    def format(self) -> object: ...

    @property
    def format_reason(self) -> str: ...

    @property
    def local_axe(self) -> object: ...

    @property
    def local_axe_reason(self) -> str: ...

def explain(shape: Sequence[int], sharding: NamedSharding | SingleDeviceSharding, dtype: str = 'float32', local_layout: Layout | None = None, notes: Sequence[str] = []) -> Explanation:
    """
    The explanation; `notes` are put first among its notes (what the caller assumed).
    """

def to_axe(shape: Sequence[int], sharding: NamedSharding | SingleDeviceSharding, dtype: str = 'float32', local_layout: Layout | None = None) -> axe._axe.Layout:
    """The Axe layout (device iters on gpuid) of a sharded array."""

def from_hlo(hlo: HloSharding, ndim: int, mesh: Mesh | None = None, num_devices: int = 0) -> NamedSharding:
    """The NamedSharding of an HLO sharding (on `mesh` when given)."""
