# The signatures of the compiled module _completion_sweep.pyx, for type checkers.
import numpy as np

def complete(
    W: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    off_indptr: np.ndarray,
    off_indices: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    threshold: np.ndarray,
    max_iter: int,
    memory: int,
) -> np.ndarray: ...
