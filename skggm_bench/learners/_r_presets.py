"""The field's reference methods in R, each a thin preset over :class:`RLearner`.

Each preset is the R call of its package's documented interface, written out in
:attr:`R_CODE`, with the package's arguments as the preset's parameters (R's dots
become underscores: ``lambda.min.ratio`` -> ``lambda_min_ratio``). What the call
returns is read back by :class:`RLearner`; see ``docs/bring_your_own_learner.md``.
"""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils._param_validation import StrOptions

from ..utils._validation import Interval
from ._r import RLearner

__all__ = ["RJGL", "RBDgraph", "REBICGlasso", "RGGMncv", "RGlasso", "RHuge"]

_COMMON = {
    "blas_threads": [Interval(Integral, 1, None, closed="left"), None],
    "random_state": ["random_state"],
}


class _RPreset(RLearner):
    """An :class:`RLearner` whose R code is fixed and whose arguments are its own.

    A subclass sets ``R_CODE`` (the function), ``PACKAGES`` and ``ARGUMENTS``
    (``{R argument: parameter}``).
    """

    R_CODE = ""
    PACKAGES: tuple[str, ...] = ()
    ARGUMENTS: dict[str, str] = {}

    def _r_program(self) -> tuple[str, dict, tuple[str, ...]]:
        args = {name: getattr(self, param) for name, param in self.ARGUMENTS.items()}
        return self.R_CODE, args, self.PACKAGES


class RHuge(_RPreset):
    """R huge's graph path and its selection: ``huge`` then ``huge.select``.

    ``huge::huge(x, method=...)`` computes the graphs along a path of
    ``n_lambdas`` penalties; ``huge::huge.select`` chooses one by StARS
    (``"stars"``, Liu, Roeder & Wasserman 2010), the rotation information
    criterion (``"ric"``, Lysen 2009) or the extended BIC (``"ebic"``, the
    graphical lasso only).

    Parameters
    ----------
    method : {"mb", "glasso", "ct", "tiger"}, default="mb"
        Neighbourhood selection, graphical lasso, correlation thresholding,
        TIGER.
    criterion : {"stars", "ric", "ebic"}, default="stars"
        How the penalty is chosen.
    n_lambdas : int, default=10
        Penalties on the path (``nlambda``).
    lambda_min_ratio : float or None, default=None
        Smallest penalty over the largest (``lambda.min.ratio``; None: huge's
        default).
    sym : {"or", "and"}, default="or"
        How node-wise neighbourhoods (mb, tiger) become edges.
    stars_thresh : float, default=0.1
        StARS's bound on the instability (huge's scale).
    stars_subsample_ratio : float or None, default=None
        StARS's subsample size over n (None: huge's default).
    rep_num : int, default=20
        Subsamples (StARS) or rotations (RIC).
    ebic_gamma : float, default=0.5
        EBIC's gamma.
    blas_threads : int or None, default=None
        See :class:`RLearner`.
    random_state : int, RandomState instance or None, default=None
        Seeds R (StARS subsamples, RIC rotations).

    Attributes
    ----------
    adjacency_ : ndarray of shape (n_features, n_features), bool
        The selected graph (``refit``).
    precision_ : ndarray of shape (n_features, n_features)
        The selected precision matrix (``opt.icov``, glasso only; on the
        correlation scale, as huge standardises the data).
    path_ : list of ndarray
        The graphs of the path; ``index_`` the selected one.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import RHuge
    >>> X = np.random.default_rng(0).standard_normal((100, 10))
    >>> model = RHuge("mb", "ric", random_state=0).fit(X)  # doctest: +SKIP
    """

    R_CODE = """function(x, method, criterion, nlambda, lambda.min.ratio, sym,
                         stars.thresh, stars.subsample.ratio, rep.num, ebic.gamma) {
      # huge calls gc() several times per path (memory management only, and
      # most of the time of a small fit): copies of its functions that see a
      # gc() doing nothing, and each other, run the same computations.
      ns <- asNamespace("huge")
      quiet <- new.env(parent = ns)
      quiet$gc <- function(...) invisible(NULL)
      for (name in c("huge", "huge.mb", "huge.ct", "huge.glasso", "huge.tiger",
                     "huge.select")) {
        f <- get(name, envir = ns)
        environment(f) <- quiet
        assign(name, f, envir = quiet)
      }
      fit <- quiet$huge(x, method = method, nlambda = nlambda,
                        lambda.min.ratio = lambda.min.ratio, sym = sym,
                        verbose = FALSE)
      sel <- quiet$huge.select(fit, criterion = criterion,
                               stars.thresh = stars.thresh,
                               stars.subsample.ratio = stars.subsample.ratio,
                               rep.num = rep.num, ebic.gamma = ebic.gamma,
                               verbose = FALSE)
      # RIC chooses a penalty off the path; where huge.select returns no refit
      # (tiger), the graph at that penalty is computed here.
      refit <- if (is.null(sel$refit)) quiet$huge(x, lambda = sel$opt.lambda,
        method = method, sym = sym, verbose = FALSE)$path[[1]] else sel$refit
      out <- list(path = fit$path, index = sel$opt.index, adjacency = refit)
      if (!is.null(sel$opt.icov)) out$precision <- (sel$opt.icov + t(sel$opt.icov)) / 2
      out
    }"""
    PACKAGES = ("huge",)
    ARGUMENTS = {
        "method": "method",
        "criterion": "criterion",
        "nlambda": "n_lambdas",
        "lambda.min.ratio": "lambda_min_ratio",
        "sym": "sym",
        "stars.thresh": "stars_thresh",
        "stars.subsample.ratio": "stars_subsample_ratio",
        "rep.num": "rep_num",
        "ebic.gamma": "ebic_gamma",
    }
    _parameter_constraints: dict = {
        "method": [StrOptions({"mb", "glasso", "ct", "tiger"})],
        "criterion": [StrOptions({"stars", "ric", "ebic"})],
        "n_lambdas": [Interval(Integral, 2, None, closed="left")],
        "lambda_min_ratio": [Interval(Real, 0, 1, closed="neither"), None],
        "sym": [StrOptions({"or", "and"})],
        "stars_thresh": [Interval(Real, 0, 1, closed="neither")],
        "stars_subsample_ratio": [Interval(Real, 0, 1, closed="right"), None],
        "rep_num": [Interval(Integral, 1, None, closed="left")],
        "ebic_gamma": [Interval(Real, 0, None, closed="left")],
        **_COMMON,
    }

    def __init__(
        self,
        method="mb",
        criterion="stars",
        n_lambdas=10,
        lambda_min_ratio=None,
        sym="or",
        stars_thresh=0.1,
        stars_subsample_ratio=None,
        rep_num=20,
        ebic_gamma=0.5,
        blas_threads=None,
        random_state=None,
    ):
        self.method = method
        self.criterion = criterion
        self.n_lambdas = n_lambdas
        self.lambda_min_ratio = lambda_min_ratio
        self.sym = sym
        self.stars_thresh = stars_thresh
        self.stars_subsample_ratio = stars_subsample_ratio
        self.rep_num = rep_num
        self.ebic_gamma = ebic_gamma
        self.blas_threads = blas_threads
        self.random_state = random_state

    def fit(self, X, y=None):
        """Compute huge's path on ``X`` and select a graph.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : None
            Ignored.

        Returns
        -------
        self : RHuge
            Fitted estimator.
        """
        if self.criterion == "ebic" and self.method != "glasso":
            raise ValueError(
                f"huge.select's EBIC needs method='glasso', got method={self.method!r}"
            )
        return super().fit(X)


class RGlasso(_RPreset):
    """The graphical lasso of R's glasso package at one penalty.

    ``glasso::glasso(cov(x), rho)`` on the sample covariance (denominator
    ``n - 1``); the precision is symmetrised (glasso's ``wi`` is symmetric only
    to its tolerance).

    Parameters
    ----------
    rho : float, default=0.1
        The penalty.
    penalize_diagonal : bool, default=True
        Whether the diagonal is penalised (glasso's default).
    thr : float, default=1e-4
        glasso's convergence threshold.
    blas_threads : int or None, default=None
        See :class:`RLearner`.
    random_state : int, RandomState instance or None, default=None
        Seeds R (unused by glasso).

    Attributes
    ----------
    precision_, covariance_ : ndarray of shape (n_features, n_features)
        glasso's ``wi`` and ``w``.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import RGlasso
    >>> X = np.random.default_rng(0).standard_normal((100, 5))
    >>> RGlasso(rho=0.2).fit(X).precision_.shape  # doctest: +SKIP
    (5, 5)
    """

    R_CODE = """function(x, rho, penalize.diagonal, thr) {
      g <- glasso::glasso(cov(x), rho = rho, penalize.diagonal = penalize.diagonal,
                          thr = thr)
      list(precision = (g$wi + t(g$wi)) / 2, covariance = (g$w + t(g$w)) / 2)
    }"""
    PACKAGES = ("glasso",)
    ARGUMENTS = {"rho": "rho", "penalize.diagonal": "penalize_diagonal", "thr": "thr"}
    _parameter_constraints: dict = {
        "rho": [Interval(Real, 0, None, closed="left")],
        "penalize_diagonal": ["boolean"],
        "thr": [Interval(Real, 0, None, closed="neither")],
        **_COMMON,
    }

    def __init__(
        self,
        rho=0.1,
        penalize_diagonal=True,
        thr=1e-4,
        blas_threads=None,
        random_state=None,
    ):
        self.rho = rho
        self.penalize_diagonal = penalize_diagonal
        self.thr = thr
        self.blas_threads = blas_threads
        self.random_state = random_state


class REBICGlasso(_RPreset):
    """qgraph's ``EBICglasso``: the graphical lasso path on the correlations, EBIC.

    ``qgraph::EBICglasso(cor(x), n, gamma, nlambda, lambda.min.ratio)`` (Foygel &
    Drton 2010, as used in psychological networks); its network of partial
    correlations is read back.

    Parameters
    ----------
    gamma : float, default=0.5
        EBIC's gamma.
    n_lambdas : int, default=100
        Penalties on the path.
    lambda_min_ratio : float, default=0.01
        Smallest penalty over the largest.
    blas_threads : int or None, default=None
        See :class:`RLearner`.
    random_state : int, RandomState instance or None, default=None
        Seeds R (unused).

    Attributes
    ----------
    partial_correlation_ : ndarray of shape (n_features, n_features)
        The selected network.
    adjacency_ : ndarray of shape (n_features, n_features), bool
        Its non-zero pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import REBICGlasso
    >>> X = np.random.default_rng(0).standard_normal((100, 5))
    >>> REBICGlasso().fit(X).adjacency_.shape  # doctest: +SKIP
    (5, 5)
    """

    R_CODE = """function(x, gamma, nlambda, lambda.min.ratio) {
      net <- qgraph::EBICglasso(cor(x), n = nrow(x), gamma = gamma,
                                nlambda = nlambda, lambda.min.ratio = lambda.min.ratio,
                                verbose = FALSE)
      net <- (net + t(net)) / 2
      diag(net) <- 0
      list(partial_correlation = net, adjacency = net != 0)
    }"""
    PACKAGES = ("qgraph",)
    ARGUMENTS = {
        "gamma": "gamma",
        "nlambda": "n_lambdas",
        "lambda.min.ratio": "lambda_min_ratio",
    }
    _parameter_constraints: dict = {
        "gamma": [Interval(Real, 0, None, closed="left")],
        "n_lambdas": [Interval(Integral, 2, None, closed="left")],
        "lambda_min_ratio": [Interval(Real, 0, 1, closed="neither")],
        **_COMMON,
    }

    def __init__(
        self,
        gamma=0.5,
        n_lambdas=100,
        lambda_min_ratio=0.01,
        blas_threads=None,
        random_state=None,
    ):
        self.gamma = gamma
        self.n_lambdas = n_lambdas
        self.lambda_min_ratio = lambda_min_ratio
        self.blas_threads = blas_threads
        self.random_state = random_state


class RBDgraph(_RPreset):
    """BDgraph's Bayesian structure learning: posterior edge probabilities.

    ``BDgraph::bdgraph(x, method, algorithm, iter, burnin, g.prior)`` runs the
    birth-death (or reversible-jump) MCMC over graphs (Mohammadi & Wit 2015,
    2019). The posterior probability of each edge is read back as its score
    (for ROC and PR curves), the graph is the edges with probability above
    0.5 (the median probability graph) and the precision is the posterior mean
    ``K_hat``. R's generator is seeded, so a fit is reproducible.

    Parameters
    ----------
    method : {"ggm", "gcgm"}, default="ggm"
        Gaussian, or Gaussian copula (non-Gaussian data).
    algorithm : {"bdmcmc", "rjmcmc"}, default="bdmcmc"
        The sampler.
    iter : int, default=5000
        MCMC iterations.
    burnin : int or None, default=None
        Burn-in iterations (None: half of ``iter``, BDgraph's default).
    g_prior : float, default=0.2
        Prior probability of each edge.
    blas_threads : int or None, default=None
        See :class:`RLearner`.
    random_state : int, RandomState instance or None, default=None
        Seeds R's generator (the MCMC).

    Attributes
    ----------
    edge_scores_ : ndarray of shape (n_features, n_features)
        Posterior edge probabilities (symmetric, zero diagonal).
    adjacency_ : ndarray of shape (n_features, n_features), bool
        Edges with posterior probability above 0.5.
    precision_ : ndarray of shape (n_features, n_features)
        Posterior mean of the precision matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from skggm_bench.learners import RBDgraph
    >>> X = np.random.default_rng(0).standard_normal((100, 5))
    >>> model = RBDgraph(iter=500, random_state=0).fit(X)  # doctest: +SKIP
    >>> bool(model.edge_scores_.max() <= 1)  # doctest: +SKIP
    True
    """

    R_CODE = """function(x, method, algorithm, iter, burnin, g.prior) {
      if (is.null(burnin)) burnin <- iter %/% 2
      fit <- BDgraph::bdgraph(x, method = method, algorithm = algorithm,
                              iter = iter, burnin = burnin, g.prior = g.prior,
                              save = FALSE, cores = 1, verbose = FALSE)
      p <- pmax(fit$p_links, t(fit$p_links))
      diag(p) <- 0
      list(edge_scores = p, adjacency = p > 0.5,
           precision = (fit$K_hat + t(fit$K_hat)) / 2)
    }"""
    PACKAGES = ("BDgraph",)
    ARGUMENTS = {
        "method": "method",
        "algorithm": "algorithm",
        "iter": "iter",
        "burnin": "burnin",
        "g.prior": "g_prior",
    }
    _parameter_constraints: dict = {
        "method": [StrOptions({"ggm", "gcgm"})],
        "algorithm": [StrOptions({"bdmcmc", "rjmcmc"})],
        "iter": [Interval(Integral, 1, None, closed="left")],
        "burnin": [Interval(Integral, 0, None, closed="left"), None],
        "g_prior": [Interval(Real, 0, 1, closed="neither")],
        **_COMMON,
    }

    def __init__(
        self,
        method="ggm",
        algorithm="bdmcmc",
        iter=5000,
        burnin=None,
        g_prior=0.2,
        blas_threads=None,
        random_state=None,
    ):
        self.method = method
        self.algorithm = algorithm
        self.iter = iter
        self.burnin = burnin
        self.g_prior = g_prior
        self.blas_threads = blas_threads
        self.random_state = random_state


class RGGMncv(_RPreset):
    """GGMncv's nonconvex penalties for the precision matrix (Williams 2020).

    ``GGMncv::ggmncv(cor(x), n, penalty)``: SCAD, MCP, atan and the other
    penalties of the package, with its default selection of the penalty
    (BIC). GGMncv is on CRAN, not in Debian: ``install.packages("GGMncv")``.

    Parameters
    ----------
    penalty : str, default="atan"
        A penalty of ``ggmncv`` (``"atan"``, ``"scad"``, ``"mcp"``, ``"selo"``,
        ``"exp"``, ``"log"``, ``"sica"``, ``"lq"``, ``"lasso"``, ...).
    blas_threads : int or None, default=None
        See :class:`RLearner`.
    random_state : int, RandomState instance or None, default=None
        Seeds R.

    Attributes
    ----------
    precision_, partial_correlation_ : ndarray of shape (n_features, n_features)
        ``Theta`` and ``P`` of the fit.
    adjacency_ : ndarray of shape (n_features, n_features), bool
        Its ``adj``.
    """

    R_CODE = """function(x, penalty) {
      fit <- GGMncv::ggmncv(cor(x), n = nrow(x), penalty = penalty,
                            progress = FALSE)
      list(precision = (fit$Theta + t(fit$Theta)) / 2,
           partial_correlation = (fit$P + t(fit$P)) / 2, adjacency = fit$adj)
    }"""
    PACKAGES = ("GGMncv",)
    ARGUMENTS = {"penalty": "penalty"}
    _parameter_constraints: dict = {"penalty": [str], **_COMMON}

    def __init__(self, penalty="atan", blas_threads=None, random_state=None):
        self.penalty = penalty
        self.blas_threads = blas_threads
        self.random_state = random_state


class RJGL(_RPreset):
    """The joint graphical lasso of R's JGL package (Danaher et al. 2014).

    ``fit(X, y)``: ``y`` is the class of each sample; ``JGL::JGL`` estimates one
    precision matrix per class (sorted as ``np.unique(y)``), with the fused or
    group penalty tying them together. JGL is on CRAN, not in Debian:
    ``install.packages("JGL")``.

    Parameters
    ----------
    penalty : {"fused", "group"}, default="fused"
        How the classes' matrices are tied.
    lambda1 : float, default=0.1
        The lasso penalty.
    lambda2 : float, default=0.1
        The fused or group penalty.
    blas_threads : int or None, default=None
        See :class:`RLearner`.
    random_state : int, RandomState instance or None, default=None
        Seeds R.

    Attributes
    ----------
    precision_ : ndarray of shape (n_classes, n_features, n_features)
        One precision matrix per class.
    """

    R_CODE = """function(x, y, penalty, lambda1, lambda2) {
      groups <- split(seq_len(nrow(x)), factor(y, levels = sort(unique(y))))
      fit <- JGL::JGL(lapply(groups, function(i) x[i, , drop = FALSE]),
                      penalty = penalty, lambda1 = lambda1, lambda2 = lambda2,
                      return.whole.theta = TRUE)
      list(precision = lapply(fit$theta, function(k) (k + t(k)) / 2))
    }"""
    PACKAGES = ("JGL",)
    ARGUMENTS = {"penalty": "penalty", "lambda1": "lambda1", "lambda2": "lambda2"}
    _parameter_constraints: dict = {
        "penalty": [StrOptions({"fused", "group"})],
        "lambda1": [Interval(Real, 0, None, closed="left")],
        "lambda2": [Interval(Real, 0, None, closed="left")],
        **_COMMON,
    }

    def __init__(
        self,
        penalty="fused",
        lambda1=0.1,
        lambda2=0.1,
        blas_threads=None,
        random_state=None,
    ):
        self.penalty = penalty
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.blas_threads = blas_threads
        self.random_state = random_state

    def fit(self, X, y=None):
        """Estimate one precision matrix per class of ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            The class of each sample (at least two classes).

        Returns
        -------
        self : RJGL
            Fitted estimator.
        """
        if y is None:
            raise ValueError("RJGL needs y, the class of each sample: fit(X, y)")
        return super().fit(X, y)
