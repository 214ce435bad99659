"""Compiled primitives shared by the numba search cores (``games/ai/_*_fast.py``).

Importing this module raises ImportError when numba is not installed; each
game's AI module then keeps to its pure-Python search. Setting the environment
variable ``GAMES_AI_PURE_PYTHON=1`` does the same on purpose (for tests of the
fallback and for comparisons).

Everything compiled here and in the cores uses ``cache=True``: the machine
code is written under ``NUMBA_CACHE_DIR`` (by default a directory per version
of the cores' sources, :func:`games.ai.default_numba_cache_dir`) on first use,
so only the very first process on a machine pays the compile time;
:func:`games.ai.warm_up` compiles or loads it up front.
"""

from __future__ import annotations

import os
import threading
import time
from typing import TYPE_CHECKING

if os.environ.get("GAMES_AI_PURE_PYTHON", "") not in ("", "0"):
    raise ImportError("GAMES_AI_PURE_PYTHON is set: the computer players use the pure-Python searches")

import numpy as np
from llvmlite import ir
from numba import njit, objmode, types
from numba.extending import intrinsic

U = np.uint64
# The cores keep their tables and scratch arrays per process; one compiled call at a time uses
# them (the clock check inside a search runs Python code, where another thread could step in).
LOCK = threading.Lock()
ZERO = U(0)
ONE = U(1)


if TYPE_CHECKING:
    # What compiled code sees. numba's stubs type an ``@intrinsic`` as its Python
    # definition, which takes the typing context as well, so every call would be
    # reported as missing an argument.

    def popcount(x: np.uint64) -> int:
        """Number of set bits of a uint64 (one instruction)."""

    def lowest_index(x: np.uint64) -> int:
        """Index of the lowest set bit of a non-zero uint64."""

    def highest_index(x: np.uint64) -> int:
        """Index of the highest set bit of a non-zero uint64."""

else:

    @intrinsic
    def popcount(typingctx, x):  # type: ignore[no-untyped-def]
        """Number of set bits of a uint64 (one instruction)."""
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            return builder.ctpop(args[0])

        return types.int64(types.uint64), codegen

    @intrinsic
    def lowest_index(typingctx, x):  # type: ignore[no-untyped-def]
        """Index of the lowest set bit of a non-zero uint64."""
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

        return types.int64(types.uint64), codegen

    @intrinsic
    def highest_index(typingctx, x):  # type: ignore[no-untyped-def]
        """Index of the highest set bit of a non-zero uint64."""
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            leading = builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1))
            return builder.sub(ir.Constant(ir.IntType(64), 63), leading)

        return types.int64(types.uint64), codegen


@njit(cache=True)
def clock() -> float:
    """``time.perf_counter()`` from compiled code (costs about a microsecond: call it sparingly)."""
    with objmode(now="float64"):
        now = time.perf_counter()
    return now


@njit(cache=True)
def lowest_bit(x: np.uint64) -> np.uint64:
    return x & (~x + ONE)


@njit(cache=True)
def next_random(rng: np.ndarray) -> np.uint64:
    """xorshift64*: the next 64 random bits (state in ``rng[0]``), for the cores' playouts."""
    x: np.uint64 = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True)
def random_below(rng: np.ndarray, n: int) -> int | np.int64:
    """A random integer in ``[0, n)`` from ``next_random``'s high bits."""
    return np.int64((next_random(rng) >> np.uint64(33)) % np.uint64(n))
