"""The compiled part of skggm-bench: the graphical lasso's and the lasso's descent
kernels, the active-set lasso's iteration, the lasso homotopy's loop, CLIME's
parametric simplex and the covariance completion's iteration.

Everything else is declared in pyproject.toml; setuptools needs this file only
for the Cython extensions (see docs/architecture.md for why setuptools and not
meson-python).
"""

from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        "skggm_bench.learners._glasso_descent",
        ["skggm_bench/learners/_glasso_descent.pyx"],
        extra_compile_args=["-O3"],
    ),
    Extension(
        "skggm_bench.generators._completion_sweep",
        ["skggm_bench/generators/_completion_sweep.pyx"],
        extra_compile_args=["-O3"],
    ),
    Extension(
        "skggm_bench.learners._lasso_descent",
        ["skggm_bench/learners/_lasso_descent.pyx"],
        extra_compile_args=["-O3"],
    ),
    Extension(
        "skggm_bench.learners._active_set_kernel",
        ["skggm_bench/learners/_active_set_kernel.pyx"],
        extra_compile_args=["-O3"],
    ),
    Extension(
        "skggm_bench.learners._clime_simplex",
        ["skggm_bench/learners/_clime_simplex.pyx"],
        # No fused multiply-adds (where CFLAGS allow them): the roundings of
        # the numpy version it replaced, so the same pivots.
        extra_compile_args=["-O3", "-ffp-contract=off"],
    ),
    Extension(
        "skggm_bench.learners._lasso_paths",
        ["skggm_bench/learners/_lasso_paths.pyx"],
        # Its arithmetic repeats numpy's operation for operation: no a * b + c
        # fused into one rounding where the target has FMA instructions.
        extra_compile_args=["-O3", "-ffp-contract=off"],
    ),
]

setup(ext_modules=cythonize(extensions, language_level=3))
