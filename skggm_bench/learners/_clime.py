"""CLIME, constrained l1 minimisation of the precision (Cai, Liu & Luo 2011).

Column ``j`` of the precision matrix solves the linear program

    minimise ||b||_1  subject to  ||S b - e_j||_inf <= alpha,

written with ``b = u - v``, ``u, v >= 0``. ``CLIME`` follows every column's
program along the penalty by a parametric simplex (``_clime_path``); the
programs of a penalty where that path breaks down are solved by HiGHS here.
Their solutions have few non-zeros, so each program is solved on a small working
set of variables (column generation): the restricted program's dual ``w`` (the
multipliers of the constraints, one per row) certifies optimality for the full
program when ``|S w|_k <= 1`` for every variable ``k`` left out; violators join
the working set and the program is solved again. A restricted program may be
infeasible, so every row gets an elastic slack with a large cost; a slack left
positive once no variable prices in means the cost was too small (it is raised)
or the full program is infeasible.

Several columns share one call to HiGHS as a block-diagonal program, because
the fixed cost of a call dominates for programs of this size.
"""

from numbers import Real

import numpy as np
from scipy import sparse
from scipy.optimize import linprog
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils import check_array
from sklearn.utils._param_validation import StrOptions

from ..utils._validation import Interval
from ._clime_path import clime_path
from ._utils import standardize_columns, validate_samples

# Columns per HiGHS call (measured at p = 50-400: 5-10 minimise the time).
_COLUMNS_PER_PROGRAM = 8
# Variables in the first working set of a column (its largest |S_kj|) and most
# variables added per pricing round.
_INITIAL_WORKING_SET = 10
_ADDED_PER_ROUND = 10
# Reduced-cost tolerance of the pricing, near HiGHS's dual feasibility
# tolerance (below): a smaller one would chase rounding noise.
_PRICING_TOL = 1e-9
_HIGHS_OPTIONS = {"presolve": False}  # tiny programs: presolve costs more than it saves
# Tolerances tighter than HiGHS's 1e-7, so that the zero pattern and the
# constraint hold to 1e-10; a program where they cause numerical trouble
# (status 4, with a huge slack cost) is solved again at HiGHS's defaults.
_TIGHT_TOLERANCES = {
    "primal_feasibility_tolerance": 1e-10,
    "dual_feasibility_tolerance": 1e-10,
}
_NUMERICAL_DIFFICULTIES = 4
# Cost of the elastic slacks, raised by _SLACK_COST_GROWTH while a slack stays
# positive, up to _MAX_SLACK_COST (then the program is declared infeasible).
_INITIAL_SLACK_COST = 1e4
_SLACK_COST_GROWTH = 1e2
_MAX_SLACK_COST = 1e8
_SLACK_TOL = 1e-9


def _solve_programs(S, columns, working_sets, alpha, slack_cost):
    """One block-diagonal program for ``columns``; coefficients and duals.

    Returns
    -------
    coefs : list of ndarray
        Coefficients of each column on its working set.
    duals : ndarray of shape (p, len(columns))
        ``w`` of each column (multipliers of ``S b - e_j <= alpha`` minus those
        of ``-(S b - e_j) <= alpha``).
    slack : ndarray of shape (len(columns),)
        Largest elastic slack of each column.
    """
    p = S.shape[0]
    n_programs = len(columns)
    sizes = np.array([working_sets[j].size for j in columns])
    offsets = np.concatenate([[0], np.cumsum(2 * sizes)])
    n_coef = offsets[-1]
    rows, cols, values = [], [], []
    for block, (column, size) in enumerate(zip(columns, sizes, strict=True)):
        entries = S[:, working_sets[column]].ravel()  # row-major: (row, variable)
        row = np.repeat(np.arange(p), size) + 2 * p * block
        col = np.tile(np.arange(size), p) + offsets[block]
        rows += [row, row, row + p, row + p]
        cols += [col, col + size, col, col + size]
        values += [entries, -entries, -entries, entries]
    # Slack t_i of row i of a column relaxes both of its inequalities.
    rows.append(np.arange(2 * p * n_programs))
    cols.append(
        n_coef
        + np.repeat(np.arange(n_programs), 2 * p) * p
        + np.tile(np.concatenate([np.arange(p), np.arange(p)]), n_programs)
    )
    values.append(-np.ones(2 * p * n_programs))
    constraints = sparse.csc_array(
        (np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))),
        shape=(2 * p * n_programs, n_coef + p * n_programs),
    )
    unit = np.zeros((n_programs, p))
    unit[np.arange(n_programs), columns] = 1.0
    bounds = np.concatenate([unit + alpha, alpha - unit], axis=1).ravel()
    cost = np.concatenate([np.ones(n_coef), np.full(p * n_programs, slack_cost)])
    for tolerances in (_TIGHT_TOLERANCES, {}):
        result = linprog(
            cost,
            A_ub=constraints,
            b_ub=bounds,
            bounds=(0, None),
            method="highs-ds",
            options={**_HIGHS_OPTIONS, **tolerances},
        )
        if result.status != _NUMERICAL_DIFFICULTIES:
            break
    if result.status != 0:
        raise RuntimeError(f"HiGHS failed on a CLIME program: {result.message}")
    multipliers = -result.ineqlin.marginals.reshape(n_programs, 2 * p)
    duals = (multipliers[:, :p] - multipliers[:, p:]).T
    coefs = []
    for block, size in enumerate(sizes):
        x = result.x[offsets[block] : offsets[block + 1]]
        coefs.append(x[:size] - x[size:])
    slack = result.x[n_coef:].reshape(n_programs, p).max(axis=1)
    return coefs, duals, slack


def clime_columns(S: np.ndarray, alpha: float) -> np.ndarray:
    """Solve the CLIME program of every column of ``S``.

    Parameters
    ----------
    S : ndarray of shape (p, p)
        Symmetric matrix (a correlation matrix, possibly perturbed).
    alpha : float
        Bound on ``||S b - e_j||_inf``.

    Returns
    -------
    B : ndarray of shape (p, p)
        Column ``j``: the solution ``b`` for ``e_j`` (not symmetric).
    """
    p = S.shape[0]
    strongest = np.argsort(-np.abs(S), axis=0, kind="stable")
    working_sets = {j: strongest[:_INITIAL_WORKING_SET, j] for j in range(p)}
    slack_cost = np.full(p, _INITIAL_SLACK_COST)
    B = np.zeros((p, p))
    pending = np.arange(p)
    while pending.size:
        unfinished = []
        for start in range(0, pending.size, _COLUMNS_PER_PROGRAM):
            columns = pending[start : start + _COLUMNS_PER_PROGRAM]
            coefs, duals, slack = _solve_programs(
                S, columns, working_sets, alpha, slack_cost[columns].max()
            )
            prices = np.abs(S @ duals)
            for block, column in enumerate(columns):
                price = prices[:, block]
                price[working_sets[column]] = 0.0
                entering = np.flatnonzero(price > 1.0 + _PRICING_TOL)
                if entering.size:
                    best = entering[np.argsort(-price[entering], kind="stable")]
                    working_sets[column] = np.concatenate(
                        [working_sets[column], best[:_ADDED_PER_ROUND]]
                    )
                    unfinished.append(column)
                elif slack[block] > _SLACK_TOL:
                    slack_cost[column] *= _SLACK_COST_GROWTH
                    if slack_cost[column] > _MAX_SLACK_COST:
                        raise ValueError(
                            f"CLIME's program for column {column} is infeasible at "
                            f"alpha={alpha:.4g}: no b has ||S b - e_j||_inf <= alpha. "
                            "Increase alpha or perturb."
                        )
                    unfinished.append(column)
                else:
                    B[:, column] = 0.0
                    B[working_sets[column], column] = coefs[block]
        pending = np.array(unfinished, dtype=int)
    return B


class CLIME(BaseEstimator):
    """CLIME (Cai, Liu & Luo 2011): column-wise l1 minimisation of the precision.

    On the correlation matrix ``R`` of ``X``, perturbed to ``S = R + perturb I``
    so that it is invertible, column ``j`` of the standardised precision matrix
    is the solution of the linear program

        minimise ||b||_1  subject to  ||S b - e_j||_inf <= alpha,

    solved exactly by a parametric simplex that follows the program from
    ``alpha = 1`` (where ``b = 0``) down to ``alpha``, every solution certified
    optimal; a program where that path breaks down is solved by HiGHS
    (:func:`scipy.optimize.linprog`) on a working set of variables grown by the
    program's own optimality conditions (the two agree to 1e-9, with the same
    zeros). The matrix of solutions is symmetrised by keeping, of each pair of
    entries, the one of smaller magnitude (the paper's rule), then scaled back to
    the units of ``X``. Edges are its non-zero entries. This is flare's
    ``sugm(X, lambda = alpha, method = "clime", standardize = TRUE)``.

    :meth:`adjacency_path` gives the edges at many penalties at once, along the
    same path (what :class:`StARS` uses).

    Parameters
    ----------
    alpha : float in (0, 1) or "auto", default="auto"
        Bound on the constraint; the program gives the zero column at
        ``alpha >= 1``. ``"auto"`` is ``sqrt(log p / n)``, the rate of the
        paper's theory (its constant left at 1); choose it from the data with
        :class:`StARS`.
    perturb : float >= 0 or "auto", default="auto"
        Added to the diagonal of ``R``; ``"auto"`` is ``1 / sqrt(n)``, flare's
        default. Without it (``0``) the program is infeasible for small
        ``alpha`` when ``n <= p`` (``R`` is then singular).

    Attributes
    ----------
    alpha_ : float
        The bound used (the value of ``"auto"``).
    perturb_ : float
        The perturbation used.
    precision_ : ndarray of shape (n_features, n_features)
        Symmetric precision matrix in the units of ``X`` (not necessarily
        positive definite).
    adjacency_ : ndarray of shape (n_features, n_features), bool
        Non-zero off-diagonal entries of ``precision_``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    References
    ----------
    Cai, T., Liu, W. and Luo, X. (2011). A constrained l1 minimization approach
    to sparse precision matrix estimation. Journal of the American Statistical
    Association 106(494), 594-607.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import CLIME
    >>> rng = np.random.default_rng(0)
    >>> precision = np.eye(10) - 0.4 * (np.eye(10, k=1) + np.eye(10, k=-1))
    >>> X = rng.multivariate_normal(np.zeros(10), np.linalg.inv(precision), size=300)
    >>> est = CLIME().fit(X)
    >>> found = np.diag(est.adjacency_, k=1)  # the 9 true edges
    >>> int(found.sum()), int(est.adjacency_.sum()) // 2 - int(found.sum())
    (9, 4)
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0.0, 1.0, closed="neither"), StrOptions({"auto"})],
        "perturb": [Interval(Real, 0.0, None, closed="left"), StrOptions({"auto"})],
    }

    def __init__(self, alpha="auto", perturb="auto"):
        self.alpha = alpha
        self.perturb = perturb

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Solve the column programs and symmetrise.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, no constant column (its precision would be infinite).
        y : None
            Ignored.

        Returns
        -------
        self : CLIME
            Fitted estimator.
        """
        X = validate_samples(self, X)
        n_samples, n_features = X.shape
        self.alpha_ = (
            float(np.sqrt(np.log(n_features) / n_samples))
            if self.alpha == "auto"
            else float(self.alpha)
        )
        self.perturb_ = self._perturbation(n_samples)
        S = self._perturbed_correlation(X)
        symmetric = _symmetrised(_column_solutions(S, [self.alpha_])[0])
        scale = X.std(axis=0)
        self.precision_ = symmetric / np.outer(scale, scale)
        self.adjacency_ = _edges(symmetric)
        return self

    def adjacency_path(self, X, alphas) -> np.ndarray:
        """Edges at every penalty of ``alphas``, along one parametric simplex path.

        The same solutions as fitting a clone with each ``alpha`` in turn (both
        are exact vertices of the same programs), found by following every
        column's program from ``alpha = 1`` down (see ``_clime_path``); a
        column whose path breaks down is solved by HiGHS as in :meth:`fit`.
        :class:`StARS` uses it. Nothing is stored on the estimator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data without constant columns.
        alphas : array-like of shape (n_alphas,)
            Positive penalties, in any order.

        Returns
        -------
        adjacency : ndarray of shape (n_alphas, n_features, n_features), bool
        """
        self._validate_params()
        X = check_array(X, dtype=np.float64, ensure_min_samples=2)
        alphas = np.asarray(alphas, dtype=float).ravel()
        S = self._perturbed_correlation(X)
        solutions = _column_solutions(S, alphas)
        return np.stack([_edges(_symmetrised(B)) for B in solutions])

    def _perturbation(self, n_samples: int) -> float:
        if self.perturb == "auto":
            return 1.0 / np.sqrt(n_samples)
        return float(self.perturb)

    def _perturbed_correlation(self, X: np.ndarray) -> np.ndarray:
        """``R + perturb I`` of ``X``, every column varying."""
        n_samples, n_features = X.shape
        Z, constant = standardize_columns(X)
        if np.any(constant):
            raise ValueError(
                "CLIME needs every column to vary; constant columns: "
                f"{np.flatnonzero(constant).tolist()}."
            )
        perturb = self._perturbation(n_samples)
        return Z.T @ Z / n_samples + perturb * np.eye(n_features)


def _column_solutions(S: np.ndarray, alphas) -> np.ndarray:
    """The column solutions of ``S`` at each of ``alphas``, shape (n_alphas, p, p).

    Followed along the parametric simplex path (at p = 50 one path down to the
    penalty costs a tenth of the HiGHS programs at it); at a penalty where a
    column's path breaks down, every column is solved by HiGHS (which also
    reports an infeasible program).
    """
    alphas = np.asarray(alphas, dtype=float)
    solutions, solved = clime_path(S, alphas)
    for k in np.flatnonzero(~solved.all(axis=1)):
        solutions[k] = clime_columns(S, alphas[k])
    return solutions


def _symmetrised(B: np.ndarray) -> np.ndarray:
    """Of each pair of entries, the one of smaller magnitude (the paper's rule)."""
    return np.where(np.abs(B) <= np.abs(B.T), B, B.T)


def _edges(symmetric: np.ndarray) -> np.ndarray:
    edges = symmetric != 0
    np.fill_diagonal(edges, False)
    return edges
