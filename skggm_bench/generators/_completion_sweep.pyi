# The signatures of the compiled module _completion_sweep.pyx, for type checkers.
import numpy as np

def sweep(
    W: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    off_indptr: np.ndarray,
    off_indices: np.ndarray,
) -> None: ...
def gather(W: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray: ...
def scatter(
    W: np.ndarray, first: np.ndarray, second: np.ndarray, values: np.ndarray
) -> None: ...
