"""Names are data: shown as they are in figures, without control characters on a
terminal, whatever they hold."""

import pytest
from sklearn.covariance import LedoitWolf

from skggm_bench import cli
from skggm_bench.benchmark import Benchmark
from skggm_bench.generators import DiagonalDominance
from skggm_bench.utils._printable import printable

MATH = r"$\foo$"
ANSI = "lw\x1b[2J\x1b]0;pwned\x07\u202e"  # clear screen, window title, reversal


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("names") / "names.sqlite"
    Benchmark(
        {r"$\bar$ gen": DiagonalDominance()},
        {
            MATH: LedoitWolf(),
            ANSI: LedoitWolf(store_precision=True),
            "plain": LedoitWolf(assume_centered=True),
        },
        n_features=5,
        n_samples=(20, 40),
        n_repeats=2,
        metrics=("f1", "frobenius_loss"),
        random_state=0,
        n_jobs=1,
        store=path,
    ).run()
    return path


@pytest.mark.filterwarnings("ignore")
def test_the_report_draws_names_with_dollars_as_they_are(store, tmp_path, capsys):
    out = tmp_path / "report"
    assert cli.main(["report", "--store", str(store), "--out", str(out)]) == 0, (
        capsys.readouterr().err
    )
    html = (out / "report.html").read_text()
    assert MATH in html
    figures = list(out.rglob("*.png")) + list(out.rglob("*.svg"))
    assert figures


def test_figures_show_names_literally():
    import io

    import pandas as pd

    from skggm_bench.benchmark.present.plotting import plot_curves

    frame = pd.DataFrame({
        "generator": r"$\bar$", "learner": [MATH, ANSI] * 2, "density": 0.1,
        "n_features": 10, "n_samples": [50, 50, 100, 100], "repeat": 0,
        "tpr": [0.2, 0.4, 0.1, 0.2], "status": "ok"})  # fmt: skip
    fig = plot_curves(frame, 0.1, metrics="tpr")
    fig.savefig(io.BytesIO(), format="png")  # mathtext would fail on \foo
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert MATH in texts


@pytest.mark.parametrize("format", ["text", "markdown", "csv", "latex"])
def test_the_terminal_gets_no_control_character(store, capsys, format):
    assert cli.main(["leaderboard", "--store", str(store), "--format", format]) == 0
    out, err = capsys.readouterr()
    for stream in (out, err):
        assert "\x1b" not in stream and "\x07" not in stream
        assert "\u202e" not in stream
    # Shown escaped: lw\x1b[2J... (LaTeX escapes the backslashes in turn).
    assert printable(ANSI) in out or (format == "latex" and "pwned" in out)


def test_errors_naming_a_name_are_escaped(tmp_path, capsys):
    missing = tmp_path / "no\x1b[2Jstore.sqlite"
    assert cli.main(["leaderboard", "--store", str(missing)]) != 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b[2J" in err


def test_printable_escapes_controls_and_keeps_text():
    assert printable("a\tb\nc é ü 漢") == "a\tb\nc é ü 漢"
    assert printable("\x1b[31mred\x9b") == "\\x1b[31mred\\x9b"
    assert printable("\r", keep="\r") == "\r"
    assert printable("\r") == "\\x0d"


def test_a_name_is_at_most_1000_characters():
    from skggm_bench.benchmark import StudyError

    long = "x" * 1001
    study = Benchmark({"dd": DiagonalDominance()}, {long: LedoitWolf()},
                      n_features=5, n_samples=(20,), metrics=("f1",))  # fmt: skip
    with pytest.raises(StudyError, match="at most 1000 characters; got one of 1001"):
        study.run()
