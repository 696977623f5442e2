"""make_joint_ggm, make_time_varying_ggm and make_latent_ggm: data, labels, truth."""

import numpy as np
import pytest

from skggm_bench.datasets import make_joint_ggm, make_latent_ggm, make_time_varying_ggm
from skggm_bench.generators import DiagonalDominance, ThresholdedPseudoInverse
from tests.conftest import assert_valid_draws

MAKERS = {
    "joint": lambda **kw: make_joint_ggm(n_classes=3, **kw),
    "time": lambda **kw: make_time_varying_ggm(n_times=3, **kw),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_groups_have_labels_valid_truth_and_their_own_covariance(name):
    """Each group's rows have the group's covariance (20000 rows: the entries of
    the sample covariance are within 0.05 of the truth, over five standard errors;
    another group's covariance is further away)."""
    data = MAKERS[name](n_samples=20000, n_features=6, density=0.4, random_state=0)
    assert data.X.shape == (60000, 6)
    np.testing.assert_array_equal(data.y, np.repeat([0, 1, 2], 20000))
    for k in range(3):
        assert_valid_draws(data.precision[k : k + 1], data.adjacency[k])
        np.testing.assert_allclose(
            data.covariance[k] @ data.precision[k], np.eye(6), atol=1e-12
        )
        sample = np.cov(data.X[data.y == k], rowvar=False)
        assert np.abs(sample - data.covariance[k]).max() < 0.05
    assert not np.allclose(data.precision[0], data.precision[1])


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_seeded_and_paired_across_sample_sizes(name):
    big = MAKERS[name](n_samples=[30, 40, 50], n_features=8, random_state=5)
    small = MAKERS[name](n_samples=10, n_features=8, random_state=5)
    np.testing.assert_array_equal(big.precision, small.precision)
    for k in range(3):
        np.testing.assert_array_equal(small.X[small.y == k], big.X[big.y == k][:10])
    other = MAKERS[name](n_samples=10, n_features=8, random_state=6)
    assert not np.allclose(other.precision, small.precision)


def test_joint_truth_follows_the_generator_parameters():
    data = make_joint_ggm(
        10, 12, n_classes=2, shared_fraction=1.0, similarity=1.0, random_state=1
    )
    np.testing.assert_array_equal(data.precision[0], data.precision[1])
    np.testing.assert_array_equal(data.shared_adjacency, data.adjacency[0])
    data = make_joint_ggm(
        10, 12, n_classes=2, generator=DiagonalDominance(), random_state=1
    )
    assert type(data.generator.generators_[0]).__name__ == "DiagonalDominance"


def test_time_varying_truth_switches_at_the_rate():
    data = make_time_varying_ggm(
        5, 15, n_times=4, density=0.3, change_rate=0.5, random_state=2
    )
    m = np.triu(data.adjacency[0]).sum()
    changed = np.triu(data.adjacency[1] & ~data.adjacency[0]).sum()
    assert changed == round(0.5 * m) == data.generator.n_changes_


def test_latent_data_have_the_marginal_precision():
    data = make_latent_ggm(40000, 6, n_latent=2, n_attached=3, random_state=3)
    assert data.X.shape == (40000, 6)
    np.testing.assert_allclose(
        data.precision, data.sparse - data.low_rank, rtol=0, atol=1e-15
    )
    np.testing.assert_allclose(
        np.linalg.inv(data.covariance), data.precision, rtol=0, atol=1e-10
    )
    assert data.rank == 2 == np.linalg.matrix_rank(data.low_rank)
    assert_valid_draws(data.sparse[None], data.adjacency)
    sample = np.cov(data.X, rowvar=False)
    assert np.abs(sample - data.covariance).max() < 0.05
    # The observed covariance is not that of the sparse part alone.
    assert np.abs(np.linalg.inv(data.sparse) - data.covariance).max() > 0.1


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: make_joint_ggm([10, 10], 5, n_classes=3), "3 classes"),
        (lambda: make_joint_ggm([10, 0, 3], 5), ">= 1"),
        (lambda: make_joint_ggm([1.5], 5), "sequence of ints"),
        (lambda: make_joint_ggm(10, 5, shared_fraction=2.0), "shared_fraction"),
        (lambda: make_time_varying_ggm(10, 5, smoothness=1.0), "smoothness"),
        (lambda: make_time_varying_ggm(10, 5, graph="nope"), "graph"),
        (lambda: make_latent_ggm(10, 5, n_latent=6), "n_latent=6 exceeds"),
        (lambda: make_latent_ggm(0, 5), "n_samples"),
        (lambda: make_latent_ggm(10, 5, generator="uniform"), "generator"),
    ],
)
def test_bad_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_truth_is_the_support_drawn():
    # GGLasso's recipe thresholds small edge values away: the truth is the
    # support of each drawn precision, not the graph the generator was given.
    data = make_joint_ggm(
        10, 100, n_classes=2, graph="complete", generator=ThresholdedPseudoInverse(),
        shared_fraction=1.0, similarity=0.0, random_state=4,
    )  # fmt: skip
    off_diagonal = ~np.eye(100, dtype=bool)
    np.testing.assert_array_equal(data.adjacency, (data.precision != 0) & off_diagonal)
    assert data.adjacency.sum() < data.generator.adjacency_.sum()
