"""Recovery metrics for Gaussian graphical models, and scorers sklearn understands.

Four families of functions live here:

* **Edge metrics** compare a true and an estimated graph, both given as ``p x p``
  symmetric adjacency matrices (booleans or 0/1), called like sklearn's
  ``metric(y_true, y_pred)``: :func:`edge_confusion`, :func:`true_positive_rate`,
  :func:`positive_predictive_value`, :func:`false_positive_rate`, :func:`f1_score`,
  :func:`matthews_corrcoef`, :func:`structural_hamming_distance`. Graphs are
  undirected: each unordered pair ``{i, j}``, ``i != j``, is counted once (the upper
  triangle) and the diagonal is ignored.
* **Score metrics** rank the ``p(p-1)/2`` pairs by an edge score (higher = more
  likely an edge, e.g. absolute partial correlations): :func:`edge_roc_auc`,
  :func:`edge_average_precision`, :func:`edge_roc_curve`,
  :func:`edge_precision_recall_curve`.
* **Matrix losses** compare a true and an estimated covariance or precision matrix:
  :func:`frobenius_loss`, :func:`spectral_loss`, :func:`kl_divergence`,
  :func:`stein_loss`.
* **Estimator helpers**: :func:`edges_from_estimator`,
  :func:`edge_scores_from_estimator`, :func:`covariance_from_estimator`,
  :func:`precision_from_estimator`, :func:`make_structure_scorer` and
  :func:`score_learner`, which read a fitted estimator following the protocol below.
* **Related models** (K classes, T time points, hidden variables):
  :func:`group_scores` (per-group edge metrics and losses averaged, and the TPR /
  PPV of the edges that change between groups, :func:`change_scores`) for
  learners with ``fit(X, y)`` and ``precision_`` of shape (K, p, p), and
  :func:`latent_scores` (rank recovered, error of the sparse part) for learners
  with ``precision_`` and ``latent_``; their own metric names are in
  :data:`RELATED_METRICS`. :func:`score_group_learner` and
  :func:`score_latent_learner` score such learners on any metrics of the
  registry (per group, averaged), as the benchmark harness does.
* **The metric registry** (:data:`METRICS`, :func:`get_metric`): every metric's
  name, aliases, direction, range, label and what it needs, read by the scorers
  and by the benchmark harness, its leaderboard, plots, report and command line.

Reading a fitted estimator (the estimator protocol)
---------------------------------------------------
This is the single reference for how skggm-bench turns *any* fitted sklearn
estimator into a graph. The helpers and scorers below implement it; other modules
and the documentation should link here rather than restate it. ``model`` says
which graph is being estimated: ``"concentration"`` (zeros of the precision matrix
= conditional independences) or ``"covariance"`` (zeros of the covariance matrix =
marginal independences).

Pipelines and searches are read through: an estimator that exposes none of the
attributes below itself is read through the final step of a
:class:`~sklearn.pipeline.Pipeline` or the ``best_estimator_`` of a fitted search
(:class:`~sklearn.model_selection.GridSearchCV` and the like), nested to any depth
(:func:`fitted_learner`). Error messages name the step that was looked at.

Edges (:func:`edges_from_estimator`) are taken from the first of these attributes
that the estimator exposes (an attribute that is missing or ``None`` is skipped):

1. ``adjacency_`` -- the estimator's own edge decisions, a symmetric boolean / 0-1
   matrix, used as is for either ``model`` (``tol`` is not applied). Any other
   entry off the diagonal (NaN, an R ``NA`` passed on as a number, 2, -1) is an
   error naming the entry, never an edge.
2. ``precision_`` (``model="concentration"`` only) -- pair ``{i, j}`` is an edge when
   the absolute partial correlation
   ``|rho_ij| = |Omega_ij| / sqrt(Omega_ii * Omega_jj)`` exceeds ``tol``.
3. ``partial_correlation_`` (``model="concentration"`` only; node-wise learners,
   ``corpcor::pcor.shrink``) -- pair ``{i, j}`` is an edge when
   ``|partial_correlation_[i, j]|`` exceeds ``tol``.
4. ``covariance_`` (``model="covariance"`` only) -- pair ``{i, j}`` is an edge when
   the absolute correlation ``|Sigma_ij| / sqrt(Sigma_ii * Sigma_jj)`` exceeds
   ``tol``.

Edge scores (:func:`edge_scores_from_estimator`) need a ranking, so the continuous
matrix comes first: the learner's own ranking ``edge_scores_`` (symmetric, in
[0, 1], e.g. BDgraph's posterior edge probabilities, or the ``|r_ij|`` that
:class:`~skggm_bench.learners.ThresholdedCorrelation` thresholds) when it has
one, else absolute partial correlations from ``precision_``
(``model="concentration"``) or absolute correlations from ``covariance_``
(``model="covariance"``). A concentration-graph estimator without ``precision_``
but with ``partial_correlation_`` (the node-wise regressions of
:mod:`skggm_bench.learners`) is scored by ``|partial_correlation_|``. Only if none
of these is present is ``adjacency_`` used, as 0/1 scores (its ROC curve then has a
single operating point).

Matrix losses read ``covariance_`` (:func:`covariance_from_estimator`) or, for
``precision_frobenius_loss``, ``precision_`` (:func:`precision_from_estimator`), on
the scale of the data given to the estimator: when the steps of a pipeline rescaled
the features before its learner (a ``StandardScaler``, ``RobustScaler``, ...), the
learner's matrices are mapped back, ``Sigma_data = D Sigma D`` and ``Theta_data =
D^-1 Theta D^-1`` with ``D`` the scale each feature was divided by
(:func:`feature_scale`, read from the steps' fitted ``transform``). Given the data
the learner was fitted on (``score_learner(..., X=X)``, as the benchmark harness
does), losses are only computed for matrices that estimate the covariance of those
data (:func:`loss_problem`): ``covariance_ @ precision_`` must be the identity
within :data:`DISAGREEMENT_TOL`, and a learner whose implied variances are those
of standardised data (a constant diagonal 1, ``n/(n-1)`` or ``(n-1)/n`` within
:data:`UNIT_DIAGONAL_TOL`, or variances within a factor 1.1 of 1 and more than
1.25 from the data's) for data whose variances are not 1 standardised the data
itself, by a scale the harness cannot know; a pipeline step that is not a
rescaling of each feature leaves no data-scale reading. Then the losses are NaN,
with the reason as their note: a loss is on the data's scale, or withheld, never
silently on another. The edge metrics of such a learner are unaffected.

``tol`` is applied to the *standardised* matrix rather than to raw entries so that
it does not depend on the units of the variables; "non-zero" means "above numerical
round-off", hence the small default (``1e-8``). An estimator exposing none of the
usable attributes (typically: not fitted yet) gets a ``ValueError`` naming what was
looked for. Matrices read from an estimator are validated like any other input
(square, finite, symmetric up to round-off, positive diagonal).

Empty-case conventions
----------------------
Following Krämer, Schäfer & Boulesteix (2009), *Regularized estimation of
large-scale gene association networks using graphical Gaussian models*, BMC
Bioinformatics 10:384, the true positive rate is 1 when the true graph has no edges
(nothing to find, nothing missed) and the positive predictive value is 1 when no
edge is selected (no false selection). Consistently, the false positive rate is 0
when the true graph is complete and F1 is 1 when both graphs are empty (perfect
recovery of the empty graph). The Matthews correlation is 0 whenever it is undefined
(either graph empty or complete), as in :func:`sklearn.metrics.matthews_corrcoef`.
Every such function takes ``zero_division=`` to choose another value (e.g.
``numpy.nan``).
"""

from ._edges import (
    EdgeConfusion,
    edge_confusion,
    f1_score,
    false_positive_rate,
    matthews_corrcoef,
    positive_predictive_value,
    structural_hamming_distance,
    true_positive_rate,
)
from ._losses import (
    DISAGREEMENT_TOL,
    UNIT_DIAGONAL_TOL,
    frobenius_loss,
    kl_divergence,
    loss_problem,
    spectral_loss,
    stein_loss,
)
from ._protocol import (
    covariance_from_estimator,
    edge_scores_from_estimator,
    edges_from_estimator,
    feature_scale,
    fitted_learner,
    precision_from_estimator,
)
from ._registry import (
    METRICS,
    RELATED_METRICS,
    GroundTruth,
    LearnerScores,
    Metric,
    get_metric,
    score_learner,
    selection_remark,
)
from ._related import (
    change_scores,
    group_edges_from_estimator,
    group_precision_from_estimator,
    group_scores,
    latent_scores,
    score_group_learner,
    score_latent_learner,
)
from ._scorers import StructureScorer, make_structure_scorer
from ._scores import (
    edge_average_precision,
    edge_precision_recall_curve,
    edge_roc_auc,
    edge_roc_curve,
)

__all__ = [
    "DISAGREEMENT_TOL",
    "METRICS",
    "RELATED_METRICS",
    "UNIT_DIAGONAL_TOL",
    "EdgeConfusion",
    "GroundTruth",
    "LearnerScores",
    "Metric",
    "StructureScorer",
    "change_scores",
    "covariance_from_estimator",
    "edge_average_precision",
    "edge_confusion",
    "edge_precision_recall_curve",
    "edge_roc_auc",
    "edge_roc_curve",
    "edge_scores_from_estimator",
    "edges_from_estimator",
    "f1_score",
    "false_positive_rate",
    "feature_scale",
    "fitted_learner",
    "frobenius_loss",
    "get_metric",
    "group_edges_from_estimator",
    "group_precision_from_estimator",
    "group_scores",
    "kl_divergence",
    "latent_scores",
    "loss_problem",
    "make_structure_scorer",
    "matthews_corrcoef",
    "positive_predictive_value",
    "precision_from_estimator",
    "score_group_learner",
    "score_latent_learner",
    "score_learner",
    "selection_remark",
    "spectral_loss",
    "stein_loss",
    "structural_hamming_distance",
    "true_positive_rate",
]
