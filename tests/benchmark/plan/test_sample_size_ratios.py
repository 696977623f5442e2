"""Sample sizes given relative to the number of variables (``sample_size_ratios``).

A study of several p compares n/p exactly: each p gets its own sample sizes, and no
fit of another n/p. Grids are tiny (p = 6 and 12) so the file runs in seconds.
"""

import json

import pytest
from sklearn.covariance import LedoitWolf

from skggm_bench import cli
from skggm_bench.benchmark import Benchmark, StudyError
from skggm_bench.benchmark.config import ConfigError, get_preset, load_config
from skggm_bench.benchmark.publish._content import study_toml
from skggm_bench.generators import DiagonalDominance
from skggm_bench.learners import ThresholdedCorrelation

# Columns that differ between two runs of one fit: measured, or per process.
VOLATILE = ["fit_time", "versions"]


def bench(**params):
    params = {
        "n_features": (6, 12),
        "densities": 0.3,
        "n_repeats": 2,
        "metrics": ("tpr", "f1"),
        "random_state": 0,
        **params,
    }
    return Benchmark(
        {"dd": DiagonalDominance()},
        {"thr": ThresholdedCorrelation(), "lw": LedoitWolf()},
        **params,
    )


@pytest.fixture(scope="module")
def ratio_result():
    return bench(sample_size_ratios=(0.5, 1, 2)).run()


def test_each_p_gets_its_own_sizes_and_no_other(ratio_result):
    frame = ratio_result.frame
    sizes = frame.groupby("n_features")["n_samples"].unique().map(sorted).to_dict()
    assert sizes == {6: [3, 6, 12], 12: [6, 12, 24]}
    assert (frame["n_samples"] / frame["n_features"]).isin([0.5, 1, 2]).all()
    # 2 p x 3 ratios x 2 repeats x 2 learners, every one a row
    assert len(frame) == bench(sample_size_ratios=(0.5, 1, 2))._validate().n_fits == 24
    assert (frame["status"] == "ok").all()


def test_rows_are_those_of_the_same_sizes_given_as_n_samples(ratio_result):
    """Each row is the row of the study that gives every size to every p: the same
    seed, the same data set (data hash), the same scores."""
    every = bench(n_samples=(3, 6, 12, 24)).run().frame
    keys = ["learner", "n_features", "n_samples", "repeat"]
    ratios = ratio_result.frame.drop(columns=VOLATILE)
    both = ratios.merge(every.drop(columns=VOLATILE), on=keys, suffixes=("", "_all"))
    assert len(both) == len(ratios)
    for column in ratios.columns.drop(keys):
        assert both[column].astype(str).tolist() == (
            both[f"{column}_all"].astype(str).tolist()
        ), column


def test_the_study_records_the_ratios_and_other_studies_are_unchanged(ratio_result):
    study = ratio_result.study
    assert study["sample_size_ratios"] == [0.5, 1.0, 2.0]
    assert "n_samples" not in study
    # integers and floats are one study
    again = bench(sample_size_ratios=[0.5, 1.0, 2.0])
    grid = again._validate()
    assert again._fingerprint(grid, 0) == bench(
        sample_size_ratios=(0.5, 1, 2)
    )._fingerprint(grid, 0)
    plain = bench(n_samples=(3, 6))
    fingerprint = plain._fingerprint(plain._validate(), 0)
    assert fingerprint["n_samples"] == [3, 6]
    assert "sample_size_ratios" not in fingerprint
    # n_samples left out is (100,), as before
    default = bench()
    assert default._fingerprint(default._validate(), 0)["n_samples"] == [100]


def test_sizes_are_rounded_to_the_nearest_halves_up():
    grid = bench(n_features=5, sample_size_ratios=(0.5, 1.1))._validate()
    assert grid.n_samples == {5: (3, 6)}  # 2.5 -> 3, 5.5 -> 6


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"n_samples": 50, "sample_size_ratios": (1, 2)},
            "n_samples and sample_size_ratios are both given",
        ),
        ({"sample_size_ratios": (1, 0)}, r"sample_size_ratios\[1\]=0.0 is not a pos"),
        ({"sample_size_ratios": -1}, r"sample_size_ratios\[0\]=-1.0 is not a posi"),
        ({"sample_size_ratios": (float("nan"),)}, r"\[0\]=nan is not a positive"),
        ({"sample_size_ratios": (1, True)}, r"\[1\] must be a number .*got True"),
        ({"sample_size_ratios": "1"}, "'sample_size_ratios' parameter of Benchmark"),
        ({"sample_size_ratios": ()}, "sample_size_ratios is empty"),
        ({"sample_size_ratios": (1, 1.0)}, "lists 1.0 twice"),
        (
            {"sample_size_ratios": (1, 1.05)},
            "sample_size_ratios 1.0 and 1.05 both give n_samples=6 at n_features=6",
        ),
        (
            {"sample_size_ratios": (0.05, 1)},
            "sample_size_ratios 0.05 gives n_samples=0 at n_features=6",
        ),
        ({"sample_size_ratios": 1e7}, "gives n_samples=60,000,000 at n_features=6"),
    ],
)
def test_bad_ratios_are_refused_naming_the_parameter(params, message):
    with pytest.raises(StudyError, match=message) as error:
        bench(**params).validate()
    assert error.value.parameter == "sample_size_ratios"


def toml_study(tmp_path, grid):
    path = tmp_path / "ratios.toml"
    path.write_text(
        'generators = ["DiagonalDominance"]\n'
        "n_features = [6, 12]\ndensities = [0.3]\nn_repeats = 2\n"
        'metrics = ["tpr", "f1"]\nrandom_state = 0\n'
        f"{grid}\n"
        '[learners.thr]\nclass = "ThresholdedCorrelation"\n'
        '[run]\nstore = "ratios.sqlite"\n',
        encoding="utf-8",
    )
    return path


def test_a_toml_study_gives_its_sizes_as_ratios(tmp_path, monkeypatch, capsys):
    config = load_config(toml_study(tmp_path, "sample_size_ratios = [0.5, 1, 2]"))
    assert config.grid["sample_size_ratios"] == (0.5, 1, 2)
    fits = config.make_benchmark()._validate().fits()
    assert config.n_tasks == 2 * 3 * 2 == len(fits)
    assert load_config(toml_study(tmp_path, "sample_size_ratios = 2")).n_tasks == 4
    # the stored rows read as any others: leaderboard and report
    monkeypatch.chdir(tmp_path)
    config_path = str(tmp_path / "ratios.toml")
    assert cli.main(["run", "--config", config_path, "--no-progress"]) == 0
    by = ["--by", "n_features", "n_samples"]
    assert cli.main(["leaderboard", "--config", config_path, *by]) == 0
    assert cli.main(["report", "--config", config_path, "--out", "r.html"]) == 0
    assert (tmp_path / "r.html").stat().st_size > 0
    capsys.readouterr()


def test_a_toml_study_with_both_is_one_line(tmp_path, capsys):
    path = toml_study(tmp_path, "n_samples = [10]\nsample_size_ratios = [1]")
    with pytest.raises(
        ConfigError, match=r"ratios\.toml: sample_size_ratios: n_samples and"
    ):
        load_config(path)
    assert cli.main(["run", "--config", str(path), "--no-progress"]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "both given" in err


def test_a_published_study_file_keeps_its_ratios(ratio_result):
    text = study_toml(json.loads(json.dumps(ratio_result.study)), "ratios")
    assert "sample_size_ratios = [0.5, 1.0, 2.0]" in text
    assert "n_samples" not in text


@pytest.mark.parametrize(
    ("name", "sizes"),
    [
        ("reference", {50: [25, 50, 100], 200: [100, 200, 400]}),
        ("reference-small", {20: [10, 20, 40]}),
    ],
)
def test_the_reference_presets_compare_n_over_p_of_a_half_one_and_two(name, sizes):
    config = get_preset(name)
    fits = config.make_benchmark()._validate().fits()
    found = {}
    for fit in fits:
        found.setdefault(fit.cell.n_features, set()).add(fit.n_samples)
    assert {p: sorted(n) for p, n in found.items()} == sizes
    assert len(fits) == config.n_tasks
