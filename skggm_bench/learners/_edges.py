"""Edge decisions from partial correlations by local false discovery rate."""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..utils._validation import Interval
from ._local_fdr import CUTOFF_METHODS, local_fdr
from ._partial_correlation import symmetric_from_upper, upper_triangle

# Constraints of the two edge-rule parameters every local-fdr learner shares.
LFDR_PARAMETER_CONSTRAINTS = {
    "lfdr_threshold": [Interval(Real, 0.0, 1.0, closed="right")],
    "lfdr_cutoff_method": [StrOptions(set(CUTOFF_METHODS))],
}


def local_fdr_edges(
    partial_correlation: np.ndarray,
    threshold: float = 0.2,
    cutoff_method: str = "locfdr",
):
    """Edges whose partial correlation has local fdr below ``threshold``.

    Parameters
    ----------
    partial_correlation : ndarray of shape (n_features, n_features)
        Symmetric matrix; only the upper triangle is used.
    threshold : float, default=0.2
        Edges are the pairs with ``lfdr < threshold`` (GeneNet: prob > 0.8).
    cutoff_method : {"locfdr", "fndr", "pct0"}, default="locfdr"
        How :func:`local_fdr` chooses the central part that fits the null.

    Returns
    -------
    adjacency : ndarray of shape (n_features, n_features), bool
        Symmetric, False on the diagonal.
    lfdr : ndarray of shape (n_features, n_features)
        Local fdr of every pair, 1 on the diagonal.
    result : LocalFDRResult
        The fitted mixture (``eta0``, ``kappa``, ``cutoff``, per-pair values).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> t = rng.standard_t(df=199, size=(40, 40))
    >>> pcor = np.triu(t / np.sqrt(t**2 + 199), 1)
    >>> pcor[0, 1] = 0.5
    >>> adjacency, lfdr, result = local_fdr_edges(pcor + pcor.T)
    >>> bool(adjacency[0, 1]), int(adjacency.sum()) // 2
    (True, 1)
    """
    n_features = partial_correlation.shape[0]
    result = local_fdr(upper_triangle(partial_correlation), cutoff_method=cutoff_method)
    lfdr = symmetric_from_upper(result.lfdr, n_features, diagonal=1.0)
    return lfdr < threshold, lfdr, result


class LocalFDREdgesMixin:
    """Sets ``adjacency_``, ``lfdr_``, ``null_proportion_`` and ``null_kappa_``.

    For estimators with ``partial_correlation_`` and the parameters
    ``lfdr_threshold`` and ``lfdr_cutoff_method``; call
    :meth:`_select_edges_by_local_fdr` at the end of ``fit``.
    """

    def _select_edges_by_local_fdr(self) -> None:
        adjacency, lfdr, result = local_fdr_edges(
            self.partial_correlation_, self.lfdr_threshold, self.lfdr_cutoff_method
        )
        self.adjacency_ = adjacency
        self.lfdr_ = lfdr
        self.null_proportion_ = result.eta0
        self.null_kappa_ = result.kappa
