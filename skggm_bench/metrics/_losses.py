"""Matrix losses: a true covariance or precision against an estimate."""

from __future__ import annotations

from typing import Literal

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from ..utils._linalg import cholesky_factor
from ._validation import check_same_shape, check_symmetric_real

__all__ = [
    "DISAGREEMENT_TOL",
    "UNIT_DIAGONAL_TOL",
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
#: How close (relative) every diagonal entry of a learner's covariance must be to
#: 1, or to the ``n/(n-1)`` or ``(n-1)/n`` of the other convention of degrees of
#: freedom, for it to count as a correlation matrix (by construction, not by
#: chance: sample variances are never that close to these), and every variance of
#: the data it was given to 1 (or ``(n-1)/n``) for the data to count as
#: standardised.
UNIT_DIAGONAL_TOL = 1e-8
# The variances a learner implies are those of standardised data when, root mean
# square over the features of the log ratios, they are within a factor 1.1 of 1
# and more than a factor 1.25 from the data's. Closer to the data's, the scale
# moves a loss by little. Measured on 48 data sets (docs/bring_your_own_learner.md):
# the graphical lasso's precision of standardised data is within 1.06 of 1; the
# sample covariance, shrinkage (ShrunkCovariance, LedoitWolf, OAS), MinCovDet, the
# graphical lasso, CLIME and TIGER, on the data's scale, were never judged
# standardised (TIGER's implied variances, 0.6 to 2.3 for data of 0.7 to 23, are
# not within 1.1 of 1).
_UNIT_LOG_FACTOR = float(np.log(1.1))
_DATA_LOG_FACTOR = float(np.log(1.25))

Role = Literal["covariance", "precision"]
_ROLES: tuple[Role, ...] = ("covariance", "precision")


def _check_matrix_pair(
    true_matrix: ArrayLike, estimated_matrix: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    truth = check_symmetric_real(true_matrix, "true_matrix")
    estimate = check_symmetric_real(estimated_matrix, "estimated_matrix")
    check_same_shape(truth, estimate, "true_matrix", "estimated_matrix")
    return truth, estimate


def _check_role(role: object) -> Role:
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
    *,
    scale: NDArray[np.float64] | None = None,
) -> str | None:
    """Why a learner's matrices cannot be scored by matrix losses (None if they can).

    A matrix loss compares an estimate with the true matrix of the data, so it
    is only meaningful for an estimate of *that* matrix. The matrices are given
    on the data's scale; ``scale`` says how the learner itself saw the data
    (pipeline steps that rescaled it, :func:`~skggm_bench.metrics.feature_scale`),
    and both checks are made on the learner's own scale:

    1. **Agreement**: with both matrices, ``covariance @ precision`` must be the
       identity up to :data:`DISAGREEMENT_TOL` in max-norm; otherwise the losses
       of one would say nothing about the other (which one is "the" estimate?).
       A singular ``covariance`` (the sample covariance with ``n <= p``) has no
       inverse: then ``precision`` must be a generalised inverse, ``covariance @
       precision @ covariance = covariance`` within the same tolerance (on the
       correlation scale).
    2. **Standardised by the learner**: the variances it implies (the diagonal
       of ``covariance``, or of the inverse of ``precision`` when that is all
       there is) are those of standardised data, while the variances of the data
       the learner was given are not all 1 (with ``ddof`` 0 or 1): a constant
       diagonal 1, ``n/(n-1)`` or ``(n-1)/n`` within :data:`UNIT_DIAGONAL_TOL`
       (relative), or variances within a factor 1.1 of 1 and more than a factor
       1.25 from the data's (root mean square of the log ratios), at a mean
       nearer 1 than the data's mean variance. The learner standardised the
       data itself, and the harness cannot know by how much. (A ``Pipeline``
       whose steps standardise is mapped back exactly instead.)

    So a loss is on the data's scale, or withheld with why, never silently on
    another. Nothing else is judged: a covariance far from the sample variances
    (heavy shrinkage, a solver with its own scaling of the diagonal) is scored,
    and its losses say how far it is.

    Parameters
    ----------
    covariance, precision : ndarray of shape (p, p) or None
        What the learner exposes, on the data's scale (validated symmetric
        matrices), or None.
    X : array-like of shape (n_samples, p)
        The data the learner (or its pipeline) was fitted on.
    scale : ndarray of shape (p,) or None, default=None
        The learner saw ``scale * X + b``; None for the data itself.

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
    no loss: covariance_ has a unit diagonal (a correlation matrix) ...
    """
    if scale is not None:
        # The learner's own scale: Sigma_z = A Sigma A, Theta_z = A^-1 Theta A^-1.
        outer = np.outer(scale, scale)
        covariance = None if covariance is None else covariance * outer
        precision = None if precision is None else precision / outer
    if covariance is not None and precision is not None:
        product = covariance @ precision
        product[np.diag_indices_from(product)] -= 1.0
        disagreement = float(np.abs(product).max(initial=0.0))
        if not disagreement <= DISAGREEMENT_TOL and _singular(covariance):
            # A singular covariance (the sample covariance with n <= p) has no
            # inverse; its pseudo-inverse P still satisfies C P C = C, measured
            # on the correlation scale so that it stays unit-free.
            unit = np.sqrt(np.clip(np.diag(covariance), 1e-300, None))
            generalised = covariance @ precision @ covariance - covariance
            disagreement = float(
                np.abs(generalised / np.outer(unit, unit)).max(initial=0.0)
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
    if data.ndim != 2 or data.shape[1] != diagonal.shape[0] or data.shape[0] < 2:
        return None
    variances = data.var(axis=0) * (1.0 if scale is None else scale**2)
    why = _standardised(diagonal, variances, data.shape[0])
    if why is None:
        return None
    return (
        f"no loss: {name} {why} while the variances of the data the learner was "
        f"given are {variances.min():.3g} to {variances.max():.3g}: it standardised "
        "the data itself, so its losses against the true matrix would measure the "
        "units of the data, not the learner"
    )


def _standardised(
    diagonal: NDArray[np.float64], variances: NDArray[np.float64], n_samples: int
) -> str | None:
    """How the variances a learner implies show it saw standardised data, if so.

    ``diagonal`` are the learner's variances, ``variances`` those (``ddof=0``) of
    the data it was given, both on the learner's scale; see :func:`loss_problem`.
    """
    # Standardised data have unit variances with ddof=0 or with ddof=1; a sample
    # covariance of them has a diagonal of 1, n/(n-1) or (n-1)/n, whichever
    # convention the standardisation and the estimate each use.
    ddof = n_samples / (n_samples - 1.0)
    levels = (1.0, ddof, 1.0 / ddof)

    def all_at(values: NDArray[np.float64], level: float) -> bool:
        return bool(np.abs(values / level - 1.0).max() <= UNIT_DIAGONAL_TOL)

    if any(all_at(variances, level) for level in (1.0, 1.0 / ddof)):
        return None  # the data were standardised: their scale is the learner's
    for level in levels:
        if all_at(diagonal, level):
            return (
                "has a unit diagonal (a correlation matrix)"
                if level == 1.0
                else f"has a constant diagonal {level:.6g} (a correlation matrix "
                "times n/(n-1) or (n-1)/n, the other convention of degrees of "
                "freedom)"
            )
    if np.any(diagonal <= 0.0) or np.any(variances <= 0.0):
        return None  # not a covariance, or a constant column: nothing to judge
    log_diagonal = np.log(diagonal)
    from_data = float(np.sqrt(np.mean((log_diagonal - np.log(variances)) ** 2)))
    from_unit = float(np.sqrt(np.mean(log_diagonal**2)))
    level = float(diagonal.mean())
    # Unit variances, not the data's, feature by feature (root mean square of
    # the log ratios) and in level (the mean variance, which shrinkage towards
    # a common variance keeps).
    level_nearer_unit = abs(np.log(level)) < abs(np.log(level / variances.mean()))
    if (
        from_unit <= _UNIT_LOG_FACTOR
        and from_data > _DATA_LOG_FACTOR
        and level_nearer_unit
    ):
        return (
            f"implies variances {diagonal.min():.4g} to {diagonal.max():.4g}, "
            "those of standardised data (a factor "
            f"{np.exp(from_unit):.4g} from 1 and {np.exp(from_data):.3g} from the "
            "data's, root mean square)"
        )
    return None
