"""The built-in studies are TOML files (skggm_bench/benchmark/presets/), listed and
printed by ``skggm-bench presets``; a printed preset runs as the same study."""

import re
from pathlib import Path

import pytest

from skggm_bench import cli
from skggm_bench.benchmark.config import (
    PRESETS,
    ConfigError,
    get_preset,
    load_config,
    preset_text,
)

PRESET_FILES = Path(cli.__file__).parent / "benchmark" / "presets"


def test_every_preset_is_a_file_and_every_file_a_preset():
    names = {path.stem for path in PRESET_FILES.glob("*.toml")}
    assert names == set(PRESETS) and "quick" in names
    # quick, the default, is listed first
    assert next(iter(PRESETS)) == "quick"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_printed_preset_runs_as_the_same_study(name, tmp_path, capsys):
    assert cli.main(["presets", "show", name]) == 0
    printed = capsys.readouterr().out
    assert printed == preset_text(name)
    assert printed.startswith("#")  # the comments that explain it come along
    path = tmp_path / f"{name}.toml"
    path.write_text(printed, encoding="utf-8")
    copied, preset = load_config(path), get_preset(name)
    assert copied.name == preset.name == name
    assert copied.grid == preset.grid
    assert copied.n_tasks == preset.n_tasks
    assert repr(copied.make_learners()) == repr(preset.make_learners())
    assert repr(copied.make_generators()) == repr(preset.make_generators())


def test_presets_lists_each_study_with_its_description_and_fits(capsys):
    assert cli.main(["presets"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    for name, data in PRESETS.items():
        default = " (default)" if name == "quick" else ""
        assert f"{name}{default}: {get_preset(name).n_tasks:,} fits" in lines
        assert f"    {data['description']}" in lines
    assert "presets show NAME" in lines[-1]


def test_an_unknown_preset_is_one_line_with_a_suggestion(capsys):
    assert cli.main(["presets", "show", "Methods"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "unknown preset 'Methods' (did you mean 'methods'?)" in err
    with pytest.raises(ConfigError, match="unknown preset 'nope'"):
        preset_text("nope")


def test_the_docs_link_each_preset_file():
    """docs/cli.md's table of presets names each one with a link to its TOML file
    (a download in the built docs, the file itself on a code host), and every
    link it makes to a preset file resolves."""
    docs = PRESET_FILES.parents[2] / "docs"
    text = (docs / "cli.md").read_text(encoding="utf-8")
    links = re.findall(r"\[`([\w-]+)`\]\(([^)]*presets/[^)]*)\)", text)
    assert {name for name, _ in links} == set(PRESETS)
    for name, target in links:
        path = (docs / target).resolve()
        assert path == (PRESET_FILES / f"{name}.toml").resolve(), target
        assert path.read_text(encoding="utf-8") == preset_text(name)
    # the table's rows are the presets, each linked on its own row
    rows = [line for line in text.splitlines() if "presets/" in line and "|" in line]
    assert len(rows) == len(PRESETS)
    assert "`skggm-bench presets show NAME` prints the same text" in text.replace(
        "\n", " "
    )
