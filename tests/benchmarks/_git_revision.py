"""A package module as it was at another commit, for side-by-side timings."""

import importlib.util
import subprocess
import types


def module_at(revision: str, path: str) -> types.ModuleType:
    """The module at ``path`` (from the repository root) as it was at ``revision``.

    Loaded as a sibling of the current module, so that its relative imports
    resolve to the working tree's package.
    """
    source = subprocess.run(
        ["git", "show", f"{revision}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    package = path.removesuffix(".py").replace("/", ".").rsplit(".", 1)[0]
    name = f"{package}._at_{revision.replace('~', '_').replace('^', '_')}"
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, f"{revision}:{path}", "exec"), module.__dict__)
    return module
