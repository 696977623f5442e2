"""The SHA-256 manifests of a site and of each published version.

A manifest is a JSON object ``{"files": {relative path: sha256}}`` (plus what it
describes); it lists every file of its folder but itself. A site whose files do
not match its manifest was changed by hand or by an interrupted publication: it
is refused, never silently extended.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

#: The manifest's file name, at the site's root and in every version folder.
MANIFEST = "manifest.json"
_CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    """The SHA-256 hex digest of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def files_under(root: Path) -> list[str]:
    """Every file under ``root`` (POSIX relative paths, sorted), manifest excluded."""
    found = []
    for folder, _, names in os.walk(root):
        for name in names:
            relative = (Path(folder) / name).relative_to(root).as_posix()
            if relative != MANIFEST:
                found.append(relative)
    return sorted(found)


def write_manifest(root: Path, **about: Any) -> dict[str, str]:
    """Hash every file under ``root`` into ``root/manifest.json`` (atomically)."""
    files = {name: sha256_file(root / name) for name in files_under(root)}
    write_text_atomic(
        root / MANIFEST,
        json.dumps({**about, "files": files}, indent=1, sort_keys=True) + "\n",
    )
    return files


def manifest_problem(root: Path) -> str | None:
    """What is wrong with ``root``'s files against its manifest, or None."""
    path = root / MANIFEST
    try:
        listed = json.loads(path.read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"{path} is missing or not a manifest"
    if not isinstance(listed, dict):
        return f"{path} is not a manifest"
    present = files_under(root)
    extra = sorted(set(present) - set(listed))
    if extra:
        return f"{root / extra[0]} is not in the manifest"
    for name, digest in sorted(listed.items()):
        file = root / name
        if not file.is_file():
            return f"{file} is listed in the manifest but missing"
        if sha256_file(file) != digest:
            return f"{file} does not match its SHA-256 in the manifest"
    return None


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` under a temporary name beside ``path``, then rename it."""
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
