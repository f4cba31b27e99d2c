"""How a state packs into 64-bit words — shared by every backend, so packed states compare across them.

Dynamic layers become bit planes (one plane per bit of the cell value, each plane word-aligned over
ceil(cells/64) words); dynamic globals and array elements become small unsigned fields packed first-fit
into further words, never straddling a word boundary.
"""
from __future__ import annotations

from dataclasses import dataclass

WORD = 64


def bits_for(count: int) -> int:
    """Bits to store `count` distinct codes (at least 1)."""
    return max(1, (count - 1).bit_length())


@dataclass(frozen=True)
class Plane:
    layer: str
    bit: int  # which bit of the cell's code
    word: int  # first word


@dataclass(frozen=True)
class Slot:
    name: str
    index: int  # element of an array (flat), 0 for scalars
    word: int
    shift: int
    width: int


@dataclass(frozen=True)
class Layout:
    cells: int
    plane_words: int  # words per plane
    planes: tuple[Plane, ...]
    slots: tuple[Slot, ...]
    words: int

    @staticmethod
    def build(cells: int, layers: list[tuple[str, int]], scalars: list[tuple[str, int, int]]) -> "Layout":
        """layers: (name, codes per cell); scalars: (name, element count, codes per element)."""
        per_plane = max(1, -(-cells // WORD))
        planes = []
        word = 0
        for name, codes in layers:
            for b in range(bits_for(codes)):
                planes.append(Plane(name, b, word))
                word += per_plane
        slots = []
        free: list[int] = []  # bits used in each scalar word
        first_scalar_word = word
        for name, count, codes in scalars:
            width = bits_for(codes)
            if width > WORD:
                raise ValueError(f"`{name}` needs {width} bits; a field holds at most {WORD}")
            for i in range(count):
                for k, used in enumerate(free):
                    if used + width <= WORD:
                        slots.append(Slot(name, i, first_scalar_word + k, used, width))
                        free[k] += width
                        break
                else:
                    slots.append(Slot(name, i, first_scalar_word + len(free), 0, width))
                    free.append(width)
        return Layout(cells, per_plane, tuple(planes), tuple(slots), first_scalar_word + len(free))

    def bytes_per_state(self) -> int:
        return 8 * self.words
