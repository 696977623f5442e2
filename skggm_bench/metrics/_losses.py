"""Matrix losses: a true covariance or precision against an estimate."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from ..utils._linalg import cholesky_factor
from ._validation import check_same_shape, check_symmetric_real

__all__ = [
    "DISAGREEMENT_TOL",
    "SCALE_TOL",
    "frobenius_loss",
    "kl_divergence",
    "loss_problem",
    "spectral_loss",
    "stein_loss",
]

#: Largest ``max_ij |(covariance_ @ precision_ - I)_ij|`` for which a learner's two
#: matrices count as one model. The product is unit-free (rescaling the variables
#: rescales the two matrices inversely), so one tolerance fits every data set.
#: Exact inverses give about 1e-14. Measured on 40 data sets (p = 15, densities 0.1
#: and 0.3, n = 50 and 200, two generators): regain's ``GraphicalLasso``, whose
#: ``covariance_`` is the sample covariance while ``precision_`` is the penalised
#: estimate, gives 0.024 to 0.058 (always above); scikit-learn's
#: ``GraphicalLasso`` at most 0.011. Solvers stopped before convergence exceed it
#: too (scikit-learn's ``GraphicalLassoCV`` in 13% of those fits, skglm's
#: ``GraphicalLasso`` in 5%), and then their two matrices do disagree.
DISAGREEMENT_TOL = 0.02
#: Largest root-mean-square factor between the diagonal of ``covariance_`` and the
#: sample variances of the data the learner was given, for a diagonal that is
#: closer to unit variances (standardised data) than to the sample variances. A
#: correlation matrix returned for data whose variances spread over 1 to 15 is off
#: by a factor of about 3; shrinkage towards a common variance (Ledoit-Wolf, OAS,
#: ``ShrunkCovariance``), which can move small variances by more than 2, stays
#: closer to the sample variances and is never flagged.
SCALE_TOL = 2.0

Role = Literal["covariance", "precision"]
_ROLES = ("covariance", "precision")


def _check_matrix_pair(
    true_matrix: ArrayLike, estimated_matrix: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    truth = check_symmetric_real(true_matrix, "true_matrix")
    estimate = check_symmetric_real(estimated_matrix, "estimated_matrix")
    check_same_shape(truth, estimate, "true_matrix", "estimated_matrix")
    return truth, estimate


def _check_role(role: Any) -> str:
    if role not in _ROLES:
        raise ValueError(f"role must be one of {_ROLES}, got {role!r}.")
    return role


def _gaussian_kl_from_covariances(
    cov_p: NDArray[np.float64],
    cov_q: NDArray[np.float64],
    name_p: str,
    name_q: str,
) -> float:
    """KL(N(0, A) || N(0, B)) = (tr(B^-1 A) - p - log det(B^-1 A)) / 2."""
    chol_p = cholesky_factor(cov_p, name_p)
    chol_q = cholesky_factor(cov_q, name_q)
    # With A = L_A L_A^T and B = L_B L_B^T: tr(B^-1 A) = ||L_B^-1 L_A||_F^2, and
    # log det(B^-1 A) = 2 sum log(diag L_A / diag L_B). No explicit inverse.
    whitened = scipy.linalg.solve_triangular(
        chol_q, chol_p, lower=True, check_finite=False
    )
    trace_term = np.sum(whitened**2)
    log_det_ratio = 2.0 * np.sum(np.log(np.diag(chol_p) / np.diag(chol_q)))
    kl = 0.5 * (trace_term - cov_p.shape[0] - log_det_ratio)
    # KL >= 0 exactly; for equal matrices round-off can leave about -1e-16.
    return float(max(kl, 0.0))


def frobenius_loss(true_matrix: ArrayLike, estimated_matrix: ArrayLike) -> float:
    """Frobenius norm of the estimation error, ``||M_est - M_true||_F``.

    ``||E||_F = sqrt(sum_ij E_ij^2)``. The matrices can be covariances or
    precisions (pass both in the same role); the norm is taken of the matrices as
    given.

    Parameters
    ----------
    true_matrix : array-like of shape (p, p)
        True symmetric matrix.
    estimated_matrix : array-like of shape (p, p)
        Estimated symmetric matrix.

    Returns
    -------
    float
        The Frobenius norm of the error, >= 0.

    Examples
    --------
    >>> import numpy as np
    >>> round(frobenius_loss(np.eye(2), [[2.0, 1.0], [1.0, 1.0]]), 6)   # sqrt(3)
    1.732051
    """
    truth, estimate = _check_matrix_pair(true_matrix, estimated_matrix)
    return float(np.linalg.norm(estimate - truth, ord="fro"))


def spectral_loss(true_matrix: ArrayLike, estimated_matrix: ArrayLike) -> float:
    """Spectral (operator 2-) norm of the estimation error, ``||M_est - M_true||_2``.

    For the symmetric error ``E`` this is its largest absolute eigenvalue. The
    matrices can be covariances or precisions (pass both in the same role).

    Parameters
    ----------
    true_matrix : array-like of shape (p, p)
        True symmetric matrix.
    estimated_matrix : array-like of shape (p, p)
        Estimated symmetric matrix.

    Returns
    -------
    float
        The spectral norm of the error, >= 0.

    Examples
    --------
    >>> import numpy as np
    >>> round(spectral_loss(np.eye(2), [[2.0, 1.0], [1.0, 1.0]]), 6)  # (1+sqrt 5)/2
    1.618034
    """
    truth, estimate = _check_matrix_pair(true_matrix, estimated_matrix)
    # Symmetric error: eigenvalues are cheaper than an SVD and give the same norm.
    return float(np.abs(np.linalg.eigvalsh(estimate - truth)).max())


def kl_divergence(
    true_matrix: ArrayLike, estimated_matrix: ArrayLike, *, role: Role
) -> float:
    """Kullback-Leibler divergence ``KL(N(0, Sigma_true) || N(0, Sigma_est))``.

    With ``p`` variables,

    ``KL = (tr(Sigma_est^-1 Sigma_true) - p - log det(Sigma_est^-1 Sigma_true)) / 2``

    which, in terms of precision matrices ``Omega = Sigma^-1``, reads
    ``(tr(Omega_est Omega_true^-1) - p - log det(Omega_est Omega_true^-1)) / 2``.
    Computed from Cholesky factors, without explicit inverses.

    Parameters
    ----------
    true_matrix : array-like of shape (p, p)
        True symmetric positive definite matrix.
    estimated_matrix : array-like of shape (p, p)
        Estimated symmetric positive definite matrix.
    role : {"covariance", "precision"}
        What both matrices are. Required: the two readings give different numbers.

    Returns
    -------
    float
        The divergence, >= 0, and 0 only when the matrices are equal.

    Raises
    ------
    ValueError
        If a matrix is not symmetric positive definite, or ``role`` is unknown.

    See Also
    --------
    stein_loss : twice the divergence in the other direction.

    Examples
    --------
    >>> import numpy as np
    >>> true, est = np.diag([1.0, 2.0]), np.diag([2.0, 2.0])
    >>> round(kl_divergence(true, est, role="covariance"), 6)  # (1/2 - 1 + log 2)/2
    0.096574
    >>> round(kl_divergence(true, est, role="precision"), 6)   # (2 - 1 - log 2)/2
    0.153426
    """
    role = _check_role(role)
    truth, estimate = _check_matrix_pair(true_matrix, estimated_matrix)
    if role == "covariance":
        return _gaussian_kl_from_covariances(
            truth, estimate, "true_matrix", "estimated_matrix"
        )
    # For precisions, tr(Sigma_e^-1 Sigma_t) = tr(Omega_t^-1 Omega_e) and
    # det(Sigma_e^-1 Sigma_t) = det(Omega_t^-1 Omega_e): the covariance formula with
    # the two arguments swapped.
    return _gaussian_kl_from_covariances(
        estimate, truth, "estimated_matrix", "true_matrix"
    )


def stein_loss(
    true_matrix: ArrayLike, estimated_matrix: ArrayLike, *, role: Role
) -> float:
    """Stein's loss, ``2 KL(N(0, Sigma_est) || N(0, Sigma_true))``.

    In covariance terms this is James and Stein's (1961) loss

    ``L = tr(Sigma_est Sigma_true^-1) - log det(Sigma_est Sigma_true^-1) - p``

    and in precision terms ``tr(Omega_est^-1 Omega_true) - log
    det(Omega_est^-1 Omega_true) - p``. Note the direction: it is *twice the KL
    divergence from the estimate to the truth*, the reverse of
    :func:`kl_divergence`. (Some papers on precision estimation call
    ``tr(Omega_est Sigma_true) - log det(Omega_est Sigma_true) - p``, i.e.
    ``2 * kl_divergence(..., role="precision")``, the Stein or entropy loss of the
    precision; compute that one with :func:`kl_divergence`.)

    Parameters
    ----------
    true_matrix : array-like of shape (p, p)
        True symmetric positive definite matrix.
    estimated_matrix : array-like of shape (p, p)
        Estimated symmetric positive definite matrix.
    role : {"covariance", "precision"}
        What both matrices are. Required: the two readings give different numbers.

    Returns
    -------
    float
        The loss, >= 0, and 0 only when the matrices are equal.

    Raises
    ------
    ValueError
        If a matrix is not symmetric positive definite, or ``role`` is unknown.

    Examples
    --------
    >>> import numpy as np
    >>> true, est = np.diag([1.0, 2.0]), np.diag([2.0, 2.0])
    >>> round(stein_loss(true, est, role="covariance"), 6)   # 2 + 1 - log 2 - 2
    0.306853
    """
    role = _check_role(role)
    truth, estimate = _check_matrix_pair(true_matrix, estimated_matrix)
    if role == "covariance":
        return 2.0 * _gaussian_kl_from_covariances(
            estimate, truth, "estimated_matrix", "true_matrix"
        )
    return 2.0 * _gaussian_kl_from_covariances(
        truth, estimate, "true_matrix", "estimated_matrix"
    )


def _singular(matrix: NDArray[np.float64]) -> bool:
    eigenvalues = np.linalg.eigvalsh(matrix)
    return bool(eigenvalues.min() <= 1e-10 * max(abs(eigenvalues.max()), 1e-300))


def loss_problem(
    covariance: NDArray[np.float64] | None,
    precision: NDArray[np.float64] | None,
    X: ArrayLike,
) -> str | None:
    """Why a learner's matrices cannot be scored by matrix losses (None if they can).

    A matrix loss compares an estimate with the true matrix of the data, so it
    is only meaningful for an estimate of *that* matrix. Two checks, in order:

    1. **Agreement**: with both matrices, ``covariance @ precision`` must be the
       identity up to :data:`DISAGREEMENT_TOL` in max-norm; otherwise the losses
       of one would say nothing about the other (which one is "the" estimate?).
       A singular ``covariance`` (the sample covariance with ``n <= p``) has no
       inverse: then ``precision`` must be a generalised inverse, ``covariance @
       precision @ covariance = covariance`` within the same tolerance (on the
       correlation scale).
    2. **Scale**: the diagonal of the covariance (``covariance``, or the inverse
       of ``precision`` when that is all there is) must not be that of
       standardised data: it fails when the diagonal is closer to unit variances
       than to the sample variances of ``X`` (root mean square of the log ratios
       over the variables) *and* differs from the sample variances by more than a
       factor :data:`SCALE_TOL`. A learner that standardises the data itself (or
       a ``Pipeline`` with a ``StandardScaler``) returns a correlation matrix,
       whose loss against the true covariance measures the units of the data,
       not the learner.

    Parameters
    ----------
    covariance, precision : ndarray of shape (p, p) or None
        What the learner exposes (validated symmetric matrices), or None.
    X : array-like of shape (n_samples, p)
        The data the learner was fitted on.

    Returns
    -------
    str or None
        ``"no loss: ..."`` naming the check that failed and by how much.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((500, 3)) * [1.0, 3.0, 9.0]
    >>> S = np.cov(X, rowvar=False)
    >>> loss_problem(S, np.linalg.inv(S), X) is None
    True
    >>> loss_problem(S, np.eye(3), X)[:44]
    'no loss: covariance_ and precision_ disagree'
    >>> d = np.sqrt(np.diag(S))
    >>> print(loss_problem(S / np.outer(d, d), None, X))  # doctest: +ELLIPSIS
    no loss: covariance_ is not on the scale of the data (...)
    """
    if covariance is not None and precision is not None:
        product = covariance @ precision
        product[np.diag_indices_from(product)] -= 1.0
        disagreement = float(np.abs(product).max(initial=0.0))
        if not disagreement <= DISAGREEMENT_TOL and _singular(covariance):
            # A singular covariance (the sample covariance with n <= p) has no
            # inverse; its pseudo-inverse P still satisfies C P C = C, measured
            # on the correlation scale so that it stays unit-free.
            scale = np.sqrt(np.clip(np.diag(covariance), 1e-300, None))
            generalised = covariance @ precision @ covariance - covariance
            disagreement = float(
                np.abs(generalised / np.outer(scale, scale)).max(initial=0.0)
            )
        if not disagreement <= DISAGREEMENT_TOL:
            return (
                "no loss: covariance_ and precision_ disagree (max |covariance_ @ "
                f"precision_ - I| = {disagreement:.3g}, tolerance "
                f"{DISAGREEMENT_TOL:g})"
            )
    if covariance is not None:
        diagonal, name = np.diag(covariance), "covariance_"
    elif precision is not None:
        try:
            diagonal = np.diag(np.linalg.inv(precision))
        except np.linalg.LinAlgError:
            return None  # singular: the losses themselves say so (inf or an error)
        name = "the inverse of precision_"
    else:
        return None
    data = np.asarray(X, dtype=np.float64)
    variances = data.var(axis=0)
    if data.ndim != 2 or data.shape[1] != diagonal.shape[0] or data.shape[0] < 2:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(diagonal / variances)
        unit_logs = np.log(diagonal)
    off_data = float(np.sqrt(np.mean(logs**2)))
    off_unit = float(np.sqrt(np.mean(unit_logs**2)))
    factor = float(np.exp(off_data))
    if not (factor <= SCALE_TOL or off_data <= off_unit):
        return (
            f"no loss: {name} is not on the scale of the data (its diagonal is "
            "closer to unit variances than to the sample variances, and differs "
            f"from these by a factor {factor:.3g} in root mean square, tolerance "
            f"{SCALE_TOL:g}: does the learner standardise the data?)"
        )
    return None
