"""The demo behind ``make demo`` runs and prints one line per generator."""

from skggm_bench.demo import main


def test_demo_prints_every_generator(capsys):
    main(["--n-nodes", "12", "--n-samples", "5"])
    out = capsys.readouterr().out
    for name in (
        "DiagonalDominance",
        "PartialOrthogonalization",
        "TriangulatedOrthogonalization",
        "UniformChordal",
    ):
        assert name in out
