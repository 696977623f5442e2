"""Bad inputs get a clear answer: the command line, study files, stores, the API.

Every case is a bad call that once ended in an internal error, a hang, a
traceback, a silently ignored value or a misleading message. The command line
and the study files must answer with one line that names the problem and a
non-zero exit status; the Python API with a ``TypeError``/``ValueError`` naming
the parameter; a refused store must be left byte for byte as it was.
"""

import inspect
import sqlite3
import warnings
from numbers import Integral, Real

import networkx as nx
import numpy as np
import pytest
from sklearn.covariance import LedoitWolf
from sklearn.utils._param_validation import make_constraint

from skggm_bench import cli, datasets, generators, graphs, learners
from skggm_bench.benchmark import Benchmark, StudyError
from skggm_bench.benchmark.results.store import ResultStore, StoreError
from skggm_bench.utils._validation import ConstantColumnWarning, Interval

STUDY = """
n_features = 6
densities = [0.3]
n_samples = [20]
random_state = 0
metrics = ["tpr", "f1"]
generators = ["DiagonalDominance"]
[learners.lw]
class = "sklearn.covariance.LedoitWolf"
"""


def one_line(err: str, command: str) -> str:
    """stderr is one line naming the command, never an internal error."""
    assert "Traceback" not in err and "internal error" not in err, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith(f"skggm-bench {command}: error: "), err
    return err


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A study file and its complete store (one fit)."""
    folder = tmp_path_factory.mktemp("study")
    config = folder / "study.toml"
    config.write_text(STUDY)
    store = folder / "study.sqlite"
    assert cli.main(["run", "--config", str(config), "--store", str(store),
                     "--n-jobs", "1", "--no-progress"]) == 0  # fmt: skip
    return config, store


# --------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------

SAMPLE = ["sample", "--generator", "DiagonalDominance", "--n-features", "5"]


@pytest.mark.parametrize(
    ("arguments", "status", "message"),
    [
        (["run", "--config", "{binary}"], 2, "not a TOML file: byte 0 is not UTF-8"),
        (["run", "--n-jobs", "99999999999"], 2,
         "--n-jobs 99999999999: n_jobs=99999999999 is more workers than any machine"),
        (["run", "--n-jobs", "0"], 2, "--n-jobs 0: n_jobs == 0 has no meaning"),
        (["run", "--scheduler", "not an address"], 2,
         "--scheduler 'not an address': not a dask scheduler address (missing port"),
        (["run", "--scheduler", "tcp://host:99999999"], 2,
         "port 99999999 is not in 1..65535"),
        (["run", "--backend", ""], 2, "--backend '': backend='' is empty"),
        (["run", "--backend", "  "], 2, "backend='  ' is empty"),
        ([*SAMPLE, "--param", "distribution=scipy.stats.norm"], 2,
         "The 'distribution' parameter of DiagonalDominance must be a str among"),
        ([*SAMPLE, "--param", "random_state=5"], 2,
         "--param random_state: the seed of the graph and the matrices is set with "
         "--seed S"),
        ([*SAMPLE, "--param", "perturbation=0"], 2,
         "The 'perturbation' parameter of DiagonalDominance must be a float in the "
         "range (0.0, inf). Got 0 instead."),
        ([*SAMPLE, "--param", "perturbation=True"], 2,
         "The 'perturbation' parameter of DiagonalDominance must be a float in the "
         "range (0.0, inf). Got True instead."),
        (["sample", "--generator", "UniformChordal", "--graph", "chain",
          "--param", "method='bogus'"], 2,
         "The 'method' parameter of UniformChordal must be a str among"),
    ],
)  # fmt: skip
def test_bad_command_lines_are_one_line_errors(
    study, tmp_path, monkeypatch, capsys, arguments, status, message
):
    config, _ = study
    monkeypatch.chdir(tmp_path)
    binary = tmp_path / "binary.toml"
    binary.write_bytes(bytes([0x9B, 0xFF, 0x00, 0x80]) * 50)
    arguments = [a.replace("{binary}", str(binary)) for a in arguments]
    if arguments[0] == "run" and "--config" not in arguments:
        arguments += ["--config", str(config), "--no-progress"]
    if arguments[0] == "sample":
        arguments += ["--out", "x.npy"]
    assert cli.main(arguments) == status
    err = one_line(capsys.readouterr().err.splitlines(keepends=True)[-1], arguments[0])
    assert message in err
    # Refused before anything was created.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["binary.toml"]


def test_sample_writes_the_file_it_names(tmp_path, capsys):
    out = tmp_path / "plain"
    graph = tmp_path / "g"
    assert cli.main([*SAMPLE, "--out", str(out), "--graph-out", str(graph)]) == 0
    assert f"to {out}" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g", "plain"]
    assert np.load(out).shape == (1, 5, 5)
    assert np.load(tmp_path / "g").dtype == bool


# --------------------------------------------------------------------------------------
# Study files
# --------------------------------------------------------------------------------------


def _edit(old: str, new: str):
    return lambda text: text.replace(old, new)


def _add(line: str):
    return lambda text: line + "\n" + text


def _run_table(line: str):
    return lambda text: text + "[run]\n" + line + "\n"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_edit("random_state = 0", "random_state = -1"),
         "random_state: random_state must be >= 0, got -1"),
        (_edit("random_state = 0", "random_state = true"),
         "random_state: random_state must be an int, got True"),
        (_add("timeout = 1e12"),
         "timeout: The 'timeout' parameter of Benchmark must be a float in the "
         "range (0.0, 1000000.0]"),
        (_add("timeout = true"), "timeout: The 'timeout' parameter"),
        (_add("n_repeats = 1000000000000"),
         "n_repeats: The 'n_repeats' parameter of Benchmark must be an int in the "
         "range [1, 1000000]"),
        (_edit('n_samples = [20]', 'n_samples = [20, 30]\nn_repeats = 600000'),
         "n_repeats: the study has 1,200,000 fits, more than the 1,000,000"),
        (_add("n_repeats = true"), "n_repeats: The 'n_repeats' parameter"),
        (_add("memory_limit = 9223372036854775807"),
         "memory_limit: memory_limit=9223372036854775807 bytes is above 2**60"),
        (_add("memory_limit = true"), "memory_limit: memory_limit must be a number"),
        (_run_table("n_jobs = 1000000000000"),
         "run.n_jobs: n_jobs=1000000000000 is more workers than any machine"),
        (_run_table("n_jobs = true"), "run.n_jobs: n_jobs must be an int or None"),
        (_run_table('backend = ""'), "run.backend: backend='' is empty"),
        (_edit('generators = ["DiagonalDominance"]',
               "[generators]\nDiagonalDominance = {random_state = 1}"),
         "generators.DiagonalDominance: generators['DiagonalDominance'] has "
         "random_state=1, which the study would ignore"),
        (_edit('generators = ["DiagonalDominance"]',
               "[generators]\nDiagonalDominance = {perturbation = true}"),
         "The 'perturbation' parameter of DiagonalDominance must be a float"),
        (_edit('generators = ["DiagonalDominance"]',
               'generators = ["DiagonalDominance"]\n'
               '[data_models]\nt = {class = "MultivariateT", random_state = 3}'),
         "data_models.t: data_models['t'] has random_state=3"),
    ],
)  # fmt: skip
def test_bad_study_files_name_the_key(tmp_path, monkeypatch, capsys, edit, message):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "bad.toml"
    config.write_text(edit(STUDY))
    assert cli.main(["run", "--config", str(config), "--no-progress"]) == 2
    err = one_line(capsys.readouterr().err, "run")
    assert f"{config}: " in err and message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]  # nothing ran


def test_a_bad_scheduler_in_a_study_file_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "bad.toml"
    config.write_text(STUDY + '[run]\nscheduler = "abc"\n')
    assert cli.main(["run", "--config", str(config), "--no-progress"]) == 2
    err = one_line(capsys.readouterr().err, "run")
    assert f"{config}: run.scheduler = 'abc': not a dask scheduler address" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


@pytest.mark.parametrize(
    ("edit", "rows"),
    [
        (_edit("n_samples = [20]", "n_samples = 20"), 1),
        (_edit("densities = [0.3]", "densities = 0.3"), 1),
        (_edit("n_features = 6", "n_features = [6, 7]"), 2),
    ],
)
def test_a_bare_value_is_a_one_value_list(tmp_path, capsys, edit, rows):
    config = tmp_path / "bare.toml"
    config.write_text(edit(STUDY))
    store = tmp_path / "bare.sqlite"
    assert cli.main(["run", "--config", str(config), "--store", str(store),
                     "--n-jobs", "1", "--no-progress"]) == 0  # fmt: skip
    assert f"{rows} fits" in capsys.readouterr().err
    with ResultStore(store, read_only=True) as stored:
        assert len(stored) == rows


# --------------------------------------------------------------------------------------
# Stores
# --------------------------------------------------------------------------------------


def _page_offset(data: bytes, store, name: str) -> int:
    """Where the B-tree page of a table or index of ``store`` starts."""
    page_size = int.from_bytes(data[16:18], "big")
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
        (root,) = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)
        ).fetchone()
    conn.close()
    return (root - 1) * page_size


def _damage(kind: str, data: bytes, store) -> bytes:
    data = bytearray(data)
    if kind == "header bytes 28 and 96":
        data[28], data[96] = 0x7F, 0xFF
    elif kind == "meta index page":
        start = _page_offset(data, store, "sqlite_autoindex_meta_1") + 10
        data[start : start + 8] = bytes(b ^ 0xFF for b in data[start : start + 8])
    elif kind == "results page":
        start = _page_offset(data, store, "results") + 8
        data[start : start + 8] = bytes(b ^ 0xFF for b in data[start : start + 8])
    return bytes(data)


@pytest.mark.parametrize(
    "kind", ["header bytes 28 and 96", "meta index page", "results page"]
)
def test_a_refused_store_is_never_written_to(study, tmp_path, capsys, kind):
    config, good = study
    store = tmp_path / "damaged.sqlite"
    store.write_bytes(_damage(kind, good.read_bytes(), good))
    before = store.read_bytes()
    assert cli.main(["run", "--config", str(config), "--store", str(store),
                     "--no-progress"]) == 1  # fmt: skip
    err = one_line(capsys.readouterr().err.splitlines(keepends=True)[-1], "run")
    assert "damaged.sqlite" in err
    assert store.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged.sqlite"]
    with pytest.raises(StoreError):
        ResultStore(store)
    assert store.read_bytes() == before


def test_a_damaged_value_is_named_with_its_column_and_row(study, tmp_path, capsys):
    config, good = study
    store = tmp_path / "edited.sqlite"
    store.write_bytes(good.read_bytes())
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE results SET f1 = 'abc'")
        (rowid,) = conn.execute("SELECT rowid FROM results").fetchone()
    conn.close()
    before = store.read_bytes()
    expected = f"damaged store: column f1 of row {rowid} holds 'abc'"
    for arguments in (
        ["leaderboard", "--store", str(store)],
        ["report", "--store", str(store), "--out", str(tmp_path / "report")],
        ["run", "--config", str(config), "--store", str(store), "--no-progress"],
    ):
        assert cli.main(arguments) == 1
        err = capsys.readouterr().err.splitlines(keepends=True)[-1]
        assert expected in one_line(err, arguments[0])
    assert store.read_bytes() == before
    with pytest.raises(StoreError, match=expected):
        ResultStore(store, read_only=True).frame()


def test_an_empty_file_is_a_new_store(study, tmp_path, capsys):
    config, _ = study
    store = tmp_path / "empty.sqlite"
    store.touch()  # e.g. made by mktemp
    assert cli.main(["run", "--config", str(config), "--store", str(store),
                     "--no-progress", "--n-jobs", "1"]) == 0  # fmt: skip
    with ResultStore(store, read_only=True) as stored:
        assert len(stored) == 1


# --------------------------------------------------------------------------------------
# The Python API: booleans are not numbers
# --------------------------------------------------------------------------------------


def _estimator_classes():
    classes = []
    for module in (generators, learners, datasets):
        for name in module.__all__:
            cls = getattr(module, name)
            if inspect.isclass(cls) and hasattr(cls, "_parameter_constraints"):
                classes.append(cls)
    return classes


def _refuses_booleans(constraints) -> bool:
    """Whether a parameter's constraints mean a number (and never a boolean)."""
    made = [make_constraint(c) for c in constraints]
    numeric = any(
        isinstance(c, Interval)
        or (getattr(c, "type", None) in (Integral, Real, int, float))
        for c in made
    )
    return numeric and not any(c.is_satisfied_by(True) for c in made)


def _required_arguments(cls):
    """Arguments without a default, so that the class can be built."""
    if "generator" in inspect.signature(cls).parameters:
        return {"generator": generators.DiagonalDominance()}
    if "estimator" in inspect.signature(cls).parameters:
        parameter = inspect.signature(cls).parameters["estimator"]
        if parameter.default is inspect.Parameter.empty:
            return {"estimator": learners.NeighbourhoodSelection()}
    return {}


NUMERIC_PARAMETERS = [
    (cls, name)
    for cls in _estimator_classes()
    for name, constraints in cls._parameter_constraints.items()
    if any(isinstance(c, Interval) or c in (Integral, Real) for c in constraints)
]


def test_every_numeric_constraint_is_this_package_s_interval():
    """sklearn's own Interval takes True for 1: none of it may be declared."""
    from sklearn.utils._param_validation import Interval as SklearnInterval

    assert len(NUMERIC_PARAMETERS) > 40
    for cls in _estimator_classes():
        for name, constraints in cls._parameter_constraints.items():
            for constraint in constraints:
                if isinstance(constraint, SklearnInterval):
                    assert isinstance(constraint, Interval), (cls.__name__, name)
                assert constraint not in (Integral, Real, int, float), (
                    cls.__name__,
                    name,
                )


@pytest.mark.parametrize(
    ("cls", "name"),
    NUMERIC_PARAMETERS,
    ids=[f"{cls.__name__}.{name}" for cls, name in NUMERIC_PARAMETERS],
)
def test_booleans_are_refused_where_numbers_are_meant(cls, name):
    constraints = cls._parameter_constraints[name]
    if not _refuses_booleans(constraints):
        pytest.skip(f"{name} takes a boolean as well as a number")
    estimator = cls(**_required_arguments(cls), **{name: True})
    with pytest.raises((TypeError, ValueError), match=f"'{name}' parameter"):
        estimator._validate_params()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: datasets.make_ggm(True, 5), "'n_samples' parameter of make_ggm"),
        (lambda: datasets.make_ggm(10, True), "'n_features' parameter of make_ggm"),
        (lambda: datasets.make_ggm(10, 5, density=True), "'density' parameter"),
        (lambda: datasets.make_ggm(10, 5, random_state=True), "'random_state'"),
        (lambda: datasets.make_ggm(10, 5, generator=generators.GWishart(df=True)),
         "generator=GWishart(...): The 'df' parameter of GWishart"),
        (lambda: datasets.make_ggm(
            10, 5, generator=generators.DiagonalDominance(perturbation=0)),
         "generator=DiagonalDominance(...): The 'perturbation' parameter"),
        (lambda: datasets.make_ggm(10, 5, data_model=datasets.MultivariateT(df=True)),
         "data_model=MultivariateT(...): The 'df' parameter"),
        (lambda: generators.GWishart(df=True).fit(nx.path_graph(3)),
         "'df' parameter of GWishart"),
        (lambda: learners.NeighbourhoodSelection(alpha=True).fit(np.eye(3)),
         "'alpha' parameter of NeighbourhoodSelection"),
        (lambda: datasets.sample_gaussian(np.eye(3), True),
         "'n_samples' parameter of sample_gaussian"),
        (lambda: Benchmark({"dd": generators.DiagonalDominance()},
                           {"lw": LedoitWolf()}, n_jobs=True).validate(),
         "n_jobs must be an int or None, got True"),
        (lambda: Benchmark({"dd": generators.DiagonalDominance()},
                           {"lw": LedoitWolf()}, random_state=True).validate(),
         "random_state must be an int, got True"),
        (lambda: Benchmark({"dd": generators.DiagonalDominance()},
                           {"lw": LedoitWolf()}, n_samples=True).validate(),
         "n_samples[0] must be an integer, got True"),
    ],
)  # fmt: skip
def test_booleans_are_refused_by_the_api(call, message):
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    assert message in str(info.value)


FAMILIES = {
    "erdos_renyi_graph": (10, 0.3),
    "hub_graph": (10,),
    "cluster_graph": (10,),
    "scale_free_graph": (10,),
    "small_world_graph": (10,),
    "random_tree_graph": (10,),
    "random_chordal_graph": (10, 0.3),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_graph_families_refuse_a_boolean_seed(family):
    function = getattr(graphs, family)
    function(*FAMILIES[family], random_state=np.int64(3))  # an int is fine
    with pytest.raises(TypeError, match="random_state must be None, an int seed"):
        function(*FAMILIES[family], random_state=True)


def test_benchmark_refuses_its_bounds():
    base = ({"dd": generators.DiagonalDominance()}, {"lw": LedoitWolf()})
    cases = {
        "timeout": dict(timeout=1e12),
        "n_jobs": dict(n_jobs=-5000),
        "memory_limit": dict(memory_limit=2**61),
        "backend": dict(backend=""),
        "random_state": dict(random_state=-1),
    }
    for parameter, arguments in cases.items():
        with pytest.raises(StudyError) as info:
            Benchmark(*base, **arguments).validate()
        assert info.value.parameter == parameter
    # A random state that is a generator is not drawn from by validate().
    rng = np.random.RandomState(0)
    Benchmark(*base, n_features=5, random_state=rng).validate()
    assert rng.randint(1000) == np.random.RandomState(0).randint(1000)


# --------------------------------------------------------------------------------------
# Masked arrays and constant columns
# --------------------------------------------------------------------------------------

MASKED = np.ma.masked_array(np.eye(4), mask=np.eye(4, dtype=bool))


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: graphs.check_adjacency(np.ma.masked_array(
            np.zeros((3, 3)), mask=np.eye(3, dtype=bool))), "adjacency matrix"),
        (lambda: generators.DiagonalDominance().fit(np.ma.masked_array(
            np.zeros((3, 3)), mask=False)), "adjacency matrix"),
        (lambda: datasets.make_ggm(10, 3, graph=np.ma.masked_array(
            np.zeros((3, 3)), mask=False)), "graph"),
        (lambda: datasets.sample_gaussian(MASKED, 5), "matrix"),
        (lambda: learners.ShrinkagePartialCorrelation().fit(
            np.ma.masked_array(np.random.RandomState(0).randn(20, 3), mask=False)),
         "X"),
        (lambda: learners.NeighbourhoodSelection().fit(
            np.ma.masked_array(np.random.RandomState(0).randn(20, 3), mask=False)),
         "X"),
        (lambda: datasets.Gaussian().observe(
            np.ma.masked_array(np.zeros((5, 4)), mask=False), np.eye(4)), "latent"),
    ],
)  # fmt: skip
def test_masked_arrays_are_refused(call, name):
    with pytest.raises(TypeError, match=f"^{name} is a numpy masked array"):
        call()


def _with_constant_column():
    X = np.random.RandomState(0).standard_normal((30, 4))
    X[:, 2] = 1.5
    return X


@pytest.mark.parametrize(
    "learner",
    [
        learners.ShrinkagePartialCorrelation(),
        learners.NeighbourhoodSelection(),
        learners.LassoNetwork(),
        learners.ThresholdedCorrelation(),
        learners.NonparanormalTransformer(),
    ],
    ids=lambda learner: type(learner).__name__,
)
def test_learners_warn_about_a_constant_column(learner):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            learner.fit(_with_constant_column())
        except ValueError:  # a learner may refuse it too; the warning came first
            pass
    messages = [
        str(w.message) for w in caught if issubclass(w.category, ConstantColumnWarning)
    ]
    assert messages and messages[0].startswith("column 2 of X is constant")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConstantColumnWarning)
        type(learner)().fit(np.random.RandomState(1).standard_normal((30, 4)))


def test_the_harness_names_a_constant_column_in_the_row():
    frame = (
        Benchmark(
            {"dd": generators.DiagonalDominance()},
            {"lw": LedoitWolf()},
            data_models={"binary": datasets.Ordinal(n_levels=2)},
            n_features=6,
            n_samples=3,
            densities=0.3,
            n_repeats=2,
            random_state=0,
            metrics=("tpr",),
        )
        .run()
        .frame
    )
    assert (frame["status"] == "ok").all()
    named = frame["message"].str.contains(r"^columns? [\d, ]+ of X (?:is|are) constant")
    assert named.all()
