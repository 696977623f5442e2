import numpy as np
import pytest
from sklearn.model_selection import KFold

from skggm_bench.learners._cross_validation import make_folds, select_penalty


def test_select_penalty_minimum_and_one_standard_error():
    # One node, 4 folds, 5 penalties (strongest first). Fold-mean errors are
    # 2.0, 1.2, 1.1, 1.0, 1.3; the spread at the minimum (index 3) is 0.2 per
    # fold, so its standard error is std([0.8, 1.2, 0.8, 1.2], ddof=1) / 2 =
    # 0.1155 and the 1-SE bound is 1.1155: index 2 (1.1) is the simplest within it.
    errors = np.array(
        [
            [2.0, 1.2, 1.1, 0.8, 1.3],
            [2.0, 1.2, 1.1, 1.2, 1.3],
            [2.0, 1.2, 1.1, 0.8, 1.3],
            [2.0, 1.2, 1.1, 1.2, 1.3],
        ]
    )[None]
    assert select_penalty(errors, "cv_min")[0] == 3
    assert select_penalty(errors, "cv_1se")[0] == 2


def test_make_folds_is_reproducible_and_shuffled():
    a = make_folds(5, 50, random_state=3)
    b = make_folds(5, 50, random_state=3)
    for (_, test_a), (_, test_b) in zip(a, b, strict=True):
        np.testing.assert_array_equal(test_a, test_b)
    # Shuffled: the first test fold is not the first 10 samples.
    assert not np.array_equal(a[0][1], np.arange(10))
    assert sorted(np.concatenate([test for _, test in a])) == list(range(50))


def test_make_folds_accepts_a_splitter_and_rejects_too_many_folds():
    folds = make_folds(KFold(3), 9, random_state=None)
    np.testing.assert_array_equal(folds[0][1], [0, 1, 2])
    with pytest.raises(ValueError, match="cv=5 folds need at least 5 samples"):
        make_folds(5, 4, random_state=0)
