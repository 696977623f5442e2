"""StARS, EBIC and RIC: their criteria against direct computations, their
reproducibility (random_state, n_jobs), and their place in pipelines and in the
learner protocol. (Agreement with R's huge.select: test_huge_agreement.py.)"""

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.base import BaseEstimator, clone
from sklearn.covariance import GraphicalLasso
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skggm_bench.learners import (
    CLIME,
    EBIC,
    RIC,
    TIGER,
    NeighbourhoodSelection,
    StARS,
    ThresholdedCorrelation,
    gaussian_ebic,
    huge_subsample_size,
)
from skggm_bench.metrics import (
    edge_scores_from_estimator,
    edges_from_estimator,
    precision_from_estimator,
)


class NoEdges(BaseEstimator):
    """A learner that exposes no protocol attribute after fit."""

    def __init__(self, alpha=0.1):
        self.alpha = alpha

    def fit(self, X, y=None):
        return self


def chain_data(n=150, p=12, seed=0, rho=0.4):
    precision = np.eye(p) - rho * (np.eye(p, k=1) + np.eye(p, k=-1))
    rng = np.random.default_rng(seed)
    return rng.multivariate_normal(np.zeros(p), np.linalg.inv(precision), size=n)


class RecordingThreshold(BaseEstimator):
    """Correlation thresholding that also records the rows it was fitted on."""

    def __init__(self, alpha=0.1):
        self.alpha = alpha

    def fit(self, X, y=None):
        self.first_rows_ = np.asarray(X)[:2].copy()
        correlation = np.corrcoef(X, rowvar=False)
        self.adjacency_ = (np.abs(correlation) > self.alpha) & ~np.eye(
            X.shape[1], dtype=bool
        )
        return self


# -- StARS ----------------------------------------------------------------------


def test_huge_subsample_size_rule():
    assert [huge_subsample_size(n) for n in (2, 10, 100, 144, 145, 200, 400)] == [
        2,
        8,
        80,
        115,
        120,
        141,
        200,
    ]


def test_stars_instability_and_choice_from_edge_counts():
    """Recompute the criterion from the subsamples StARS drew (same seed, same
    draws) and the paper's rule: monotone instability, largest accepted index."""
    X = chain_data()
    alphas = np.geomspace(0.5, 0.05, 8)
    stars = StARS(
        ThresholdedCorrelation(), alphas=alphas, n_subsamples=12, random_state=3
    )
    stars.fit(X)
    rng = np.random.RandomState(3)
    size = huge_subsample_size(X.shape[0])
    counts = np.zeros((8, 12, 12))
    for _ in range(12):
        rows = rng.choice(X.shape[0], size=size, replace=False)
        for k, a in enumerate(alphas):
            counts[k] += ThresholdedCorrelation(a).fit(X[rows]).adjacency_
    theta = counts / 12
    iu = np.triu_indices(12, 1)
    instability = np.array([np.mean(2 * t[iu] * (1 - t[iu])) for t in theta])
    np.testing.assert_allclose(stars.criterion_, instability)
    np.testing.assert_allclose(stars.edge_frequencies_, theta)
    monotone = np.maximum.accumulate(instability)
    assert stars.best_index_ == np.flatnonzero(monotone <= 0.05).max()
    assert stars.alpha_ == alphas[stars.best_index_]
    np.testing.assert_array_equal(
        stars.adjacency_, ThresholdedCorrelation(stars.alpha_).fit(X).adjacency_
    )


def test_stars_takes_the_densest_graph_when_every_penalty_is_stable():
    """huge would return the sparsest here (its documented difference)."""
    X = chain_data(n=2000, rho=0.45)
    stars = StARS(ThresholdedCorrelation(), alphas=[0.9, 0.5, 0.35], random_state=0)
    stars.fit(X)
    assert np.all(stars.criterion_ <= 0.05)
    assert stars.best_index_ == 2


def test_stars_is_reproducible_and_independent_of_n_jobs():
    """(Threads: worker processes would cost seconds to start here; the
    subsamples are drawn before dispatch whatever the backend.)"""
    X = chain_data(seed=1)
    base = StARS(NeighbourhoodSelection(), n_subsamples=8, random_state=7)
    serial = clone(base).fit(X)
    with parallel_config(backend="threading"):
        parallel = clone(base).set_params(n_jobs=2).fit(X)
    np.testing.assert_array_equal(serial.edge_frequencies_, parallel.edge_frequencies_)
    assert serial.alpha_ == parallel.alpha_
    other = clone(base).set_params(random_state=8).fit(X)
    assert not np.array_equal(serial.edge_frequencies_, other.edge_frequencies_)


def test_stars_subsample_size_options():
    X = chain_data(n=100)
    recorder = RecordingThreshold()
    for size, expected in ((None, 80), (30, 30), (0.5, 50)):
        stars = StARS(recorder, alphas=[0.3], n_subsamples=2, subsample_size=size)
        assert stars.fit(X).subsample_size_ == expected
    with pytest.raises(ValueError, match="exceeds the 100 samples"):
        StARS(recorder, alphas=[0.3], subsample_size=101).fit(X)


def test_stars_grid_is_huge_default_path():
    X = chain_data(seed=2)
    stars = StARS(ThresholdedCorrelation(), n_subsamples=2, random_state=0).fit(X)
    correlation = np.abs(np.corrcoef(X, rowvar=False) - np.eye(12))
    largest = correlation.max()
    np.testing.assert_allclose(
        stars.alphas_, np.exp(np.linspace(np.log(largest), np.log(0.1 * largest), 10))
    )


def test_penalty_search_errors_are_clear():
    X = chain_data()
    with pytest.raises(ValueError, match="has no parameter 'lam' to tune"):
        StARS(NeighbourhoodSelection(), param="lam").fit(X)
    with pytest.raises(ValueError, match="positive, finite"):
        StARS(NeighbourhoodSelection(), alphas=[0.2, -1.0]).fit(X)
    with pytest.raises(TypeError, match="EBIC needs a likelihood"):
        EBIC(NeighbourhoodSelection(), alphas=[0.3]).fit(X)


# -- the classic pipelines and the learner protocol -------------------------------


def test_the_two_classic_pipelines_are_one_line_each():
    """(With fewer variables, e.g. p = 10, the subsample graphs at the sparse end
    of the path hold a few random edges among few pairs, the instability there
    exceeds beta, and StARS, like huge, returns the emptiest graph.)"""
    X = chain_data(n=200, p=20, seed=4)
    truth = np.abs(np.eye(20, k=1) + np.eye(20, k=-1)) > 0
    glasso = make_pipeline(
        StandardScaler(), StARS(GraphicalLasso(enet_tol=1e-6), random_state=0)
    ).fit(X)
    mb = StARS(NeighbourhoodSelection(), random_state=0).fit(X)
    for fitted in (glasso[-1], mb):
        edges = edges_from_estimator(fitted)
        assert np.all(edges[truth])  # every chain edge found
        assert edges.sum() // 2 <= 25  # 19 true edges
        assert fitted.best_estimator_.get_params()["alpha"] == fitted.alpha_


@pytest.mark.parametrize(
    ("search", "attributes"),
    [
        (StARS(TIGER(), n_subsamples=3, random_state=0), ("adjacency_", "precision_")),
        (EBIC(CLIME(), alphas=[0.5, 0.3]), ("adjacency_", "precision_")),
        (RIC(NeighbourhoodSelection()), ("adjacency_", "partial_correlation_")),
        (
            StARS(ThresholdedCorrelation(), n_subsamples=3, random_state=0),
            ("adjacency_", "edge_scores_"),
        ),
    ],
    ids=["stars-tiger", "ebic-clime", "ric-mb", "stars-ct"],
)
def test_searches_expose_the_chosen_fit_protocol_attributes(search, attributes):
    X = chain_data(seed=5)
    search.fit(X)
    for name in attributes:
        assert getattr(search, name) is getattr(search.best_estimator_, name)
    np.testing.assert_array_equal(
        edges_from_estimator(search), edges_from_estimator(search.best_estimator_)
    )
    np.testing.assert_array_equal(
        edge_scores_from_estimator(search),
        edge_scores_from_estimator(search.best_estimator_),
    )


def test_searches_read_a_pipeline_or_a_search_as_the_metrics_do():
    """StARS, RIC and EBIC tune a Pipeline (its final step read as the metrics
    read it, a rescaling step changing no zero) the same as the learner alone,
    and a fitted search; EBIC's likelihood is that of the data, the precision
    mapped back through the pipeline's rescaling; a final step with no
    protocol attribute is named in the error."""
    X = chain_data(n=120, p=10, seed=7)
    alphas = [0.5, 0.3, 0.2, 0.1]
    alone = StARS(
        ThresholdedCorrelation(), alphas=alphas, n_subsamples=4, random_state=0
    )
    piped = StARS(
        make_pipeline(StandardScaler(), ThresholdedCorrelation()),
        param="thresholdedcorrelation__alpha",
        alphas=alphas,
        n_subsamples=4,
        random_state=0,
    )
    alone.fit(X)
    piped.fit(X)
    assert piped.alpha_ == alone.alpha_
    np.testing.assert_array_equal(piped.edge_frequencies_, alone.edge_frequencies_)
    np.testing.assert_allclose(
        edge_scores_from_estimator(piped), edge_scores_from_estimator(alone)
    )
    np.testing.assert_array_equal(
        edges_from_estimator(piped), edges_from_estimator(alone)
    )
    ric = RIC(
        make_pipeline(NeighbourhoodSelection()),
        param="neighbourhoodselection__alpha",
        random_state=0,
    ).fit(X)
    assert ric.alpha_ == RIC(NeighbourhoodSelection(), random_state=0).fit(X).alpha_
    scaled = 3.0 * X
    ebic = EBIC(
        make_pipeline(StandardScaler(), CLIME()), param="clime__alpha", alphas=alphas
    ).fit(scaled)
    covariance = np.cov(scaled, rowvar=False, bias=True)
    for alpha, criterion in zip(ebic.alphas_, ebic.criterion_, strict=True):
        fit = make_pipeline(StandardScaler(), CLIME(alpha=alpha)).fit(scaled)
        precision = precision_from_estimator(fit, X=scaled)
        expected = gaussian_ebic(precision, covariance, scaled.shape[0], ebic.gamma)
        np.testing.assert_allclose(criterion, expected, rtol=1e-12)
    with pytest.raises(
        TypeError, match=r"NoEdges \(final step 'noedges' of a Pipeline\)"
    ):
        StARS(
            make_pipeline(StandardScaler(), NoEdges()),
            param="noedges__alpha",
            alphas=[0.5],
        ).fit(X)


# -- EBIC -----------------------------------------------------------------------


def test_gaussian_ebic_is_minus_twice_the_log_likelihood_plus_edge_penalty():
    rng = np.random.default_rng(6)
    p, n, gamma = 5, 40, 0.5
    X = rng.standard_normal((n, p))
    precision = np.eye(p)
    precision[0, 1] = precision[1, 0] = 0.3
    precision[2, 4] = precision[4, 2] = -0.2
    covariance = np.cov(X, rowvar=False, bias=True)
    centred = X - X.mean(axis=0)
    # The Gaussian log-likelihood summed over samples, without constants.
    log_likelihood = n / 2 * np.log(np.linalg.det(precision)) - 0.5 * np.sum(
        (centred @ precision) * centred
    )
    expected = -2 * log_likelihood + 2 * (np.log(n) + 4 * gamma * np.log(p))
    assert gaussian_ebic(precision, covariance, n, gamma) == pytest.approx(expected)
    not_definite = precision.copy()
    not_definite[0, 1] = not_definite[1, 0] = 2.0
    assert gaussian_ebic(not_definite, covariance, n, gamma) == np.inf


def test_ebic_picks_the_smallest_criterion_and_ignores_n_jobs():
    X = StandardScaler().fit_transform(chain_data(seed=7))
    alphas = np.geomspace(0.6, 0.05, 6)
    ebic = EBIC(GraphicalLasso(enet_tol=1e-6), alphas=alphas).fit(X)
    covariance = np.cov(X, rowvar=False, bias=True)
    # Its fast path solves the graphical lasso exactly; scikit-learn's own solver,
    # run to a tight tolerance, gives the same criterion.
    tight = GraphicalLasso(tol=1e-12, enet_tol=1e-14, max_iter=1000)
    direct = [
        gaussian_ebic(tight.set_params(alpha=a).fit(X).precision_, covariance, 150, 0.5)
        for a in alphas
    ]
    np.testing.assert_allclose(ebic.criterion_, direct, rtol=1e-7)
    assert ebic.best_index_ == int(np.argmin(direct))
    assert ebic.best_estimator_.alpha == ebic.alpha_  # the learner's own fit there
    with parallel_config(backend="threading"):
        parallel = clone(ebic).set_params(n_jobs=2).fit(X)
    np.testing.assert_array_equal(parallel.criterion_, ebic.criterion_)


# -- RIC ------------------------------------------------------------------------


def test_ric_is_the_smallest_rotated_maximum():
    X = chain_data(n=60, p=6, seed=8)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    maxima = []
    for shift in range(1, 60):
        cross = np.array(
            [
                [
                    abs(np.sum(Z[(np.arange(60) + shift) % 60, j] * Z[:, k])) / 60
                    for k in range(6)
                ]
                for j in range(6)
            ]
        )
        np.fill_diagonal(cross, 0)
        maxima.append(cross.max())
    ric = RIC(NeighbourhoodSelection(), n_rotations=100).fit(X)
    np.testing.assert_array_equal(ric.rotations_, np.arange(1, 60))
    np.testing.assert_allclose(ric.criterion_, maxima)
    assert ric.alpha_ == pytest.approx(min(maxima))


def test_ric_random_rotations_are_reproducible():
    X = chain_data(seed=9)
    first = RIC(NeighbourhoodSelection(), n_rotations=10, random_state=4).fit(X)
    again = RIC(NeighbourhoodSelection(), n_rotations=10, random_state=4).fit(X)
    assert len(set(first.rotations_)) == 10
    np.testing.assert_array_equal(first.rotations_, again.rotations_)
    assert first.alpha_ == again.alpha_


@pytest.mark.parametrize("shape", [(120, 15), (30, 40)])
@pytest.mark.parametrize(
    "learner",
    [
        NeighbourhoodSelection(),
        NeighbourhoodSelection(rule="and"),
        TIGER(),
        ThresholdedCorrelation(),
        CLIME(),
    ],
    ids=repr,
)
def test_adjacency_path_equals_one_fit_per_penalty(learner, shape):
    """The warm-started path StARS uses gives the edges of separate fits."""
    n, p = shape
    X = chain_data(n=n, p=p, seed=10)
    alphas = np.geomspace(0.6, 0.15, 6)
    path = learner.adjacency_path(X, alphas)
    for k, a in enumerate(alphas):
        np.testing.assert_array_equal(
            path[k], clone(learner).set_params(alpha=a).fit(X).adjacency_
        )
    assert not hasattr(learner, "n_features_in_")  # nothing stored
