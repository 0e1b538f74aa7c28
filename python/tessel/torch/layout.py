"""Layouts: which rank runs each pipeline stage, and how the user's stage modules are grouped into
the pipeline's stages.

A layout is 'linear' (one stage per rank), 'interleaved' (v chunks per rank, stage s on rank
s mod ranks), 'v' (two stages per rank, stage s and 2*ranks-1-s on one rank) or an explicit
list: stage s on rank layout[s]."""

from typing import List, Sequence, Union

Layout = Union[str, Sequence[int]]
NAMED = ("linear", "interleaved", "v")


def pipeline_ranks(layout: Layout, ranks: int, chunks: int = 2) -> List[int]:
    """The rank of each pipeline stage for layout on ranks ranks (chunks: stages per rank of
    'interleaved'). Raises ValueError naming `layout` when it is unknown, names a rank out of
    range or leaves a rank without a stage."""
    if ranks < 1:
        raise ValueError("ranks must be at least 1, got %d" % ranks)
    if isinstance(layout, str):
        if layout == "linear":
            return list(range(ranks))
        if layout == "interleaved":
            if chunks < 1:
                raise ValueError("chunks must be at least 1, got %d" % chunks)
            return [s % ranks for s in range(chunks * ranks)]
        if layout == "v":
            return [s if s < ranks else 2 * ranks - 1 - s for s in range(2 * ranks)]
        raise ValueError("layout must be one of %s or a list of ranks, got %r"
                         % (", ".join(NAMED), layout))
    out = [int(r) for r in layout]
    if not out:
        raise ValueError("layout: the stage -> rank map is empty")
    bad = [r for r in out if not 0 <= r < ranks]
    if bad:
        raise ValueError("layout: rank %d is out of range for %d ranks (map %r)"
                         % (bad[0], ranks, out))
    idle = sorted(set(range(ranks)) - set(out))
    if idle:
        raise ValueError("layout: rank %d runs no stage (map %r on %d ranks)"
                         % (idle[0], out, ranks))
    return out


def layout_name(layout: Layout) -> str:
    """A short name of the layout: its name, or the map written as digits."""
    return layout if isinstance(layout, str) else "map " + "".join(str(r) for r in layout)


def group_stages(n_modules: int, n_stages: int) -> List[List[int]]:
    """The user's modules 0..n_modules-1 cut into n_stages contiguous groups of equal size.
    Raises ValueError naming `stages` when they do not divide."""
    if n_stages < 1 or n_modules < n_stages or n_modules % n_stages:
        raise ValueError("stages: %d stage modules cannot be cut into %d pipeline stages of "
                         "equal size (give a multiple of %d modules)"
                         % (n_modules, n_stages, n_stages))
    k = n_modules // n_stages
    return [list(range(s * k, (s + 1) * k)) for s in range(n_stages)]
