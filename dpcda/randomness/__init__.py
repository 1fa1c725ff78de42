"""Randomness for private draws: the secure source and floating-point-safe Gaussian noise.

* :class:`SecureRandom` (:mod:`dpcda.randomness.secure`): ChaCha20 keyed with 256 bits from the
  operating system per release; exact integers, permutations and uniforms.
* :func:`add_gaussian` (:mod:`dpcda.randomness.noise`): float64 Gaussian noise rounded to a
  public grid, with :func:`float_cost` bounding what floating point adds to the guarantee.

Pure numpy/scipy plus the ``cryptography`` package: no torch. The threat model and the proofs
are in docs/security.md.
"""

from dpcda.randomness.noise import FloatCost, Grid, add_gaussian, float_cost, grid_for
from dpcda.randomness.secure import SecureRandom, as_source

__all__ = ["FloatCost", "Grid", "SecureRandom", "add_gaussian", "as_source", "float_cost",
           "grid_for"]
