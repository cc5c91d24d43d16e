"""The package's metadata as today's setuptools reads it: setting up prints no deprecation box (it
printed setuptools' "project.license as a TOML table is deprecated" three times, issue 39)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

from setuptools.config.pyprojecttoml import apply_configuration
from setuptools.dist import Distribution

from tests.conftest import REPO


def setup_warnings(pyproject: Path) -> list[str]:
    """Returns the first line of each warning setuptools gives while applying ``pyproject`` to a
    distribution, as ``pip install`` does (from the file's folder: the readme path is relative)."""
    here = Path.cwd()
    os.chdir(pyproject.parent)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            apply_configuration(Distribution(), pyproject)
    finally:
        os.chdir(here)
    return [str(w.message).splitlines()[0] for w in caught]


def test_setuptools_reads_the_metadata_without_a_deprecation(tmp_path: Path) -> None:
    assert setup_warnings(REPO / "pyproject.toml") == []
    old = (REPO / "pyproject.toml").read_text().replace('license = "MIT"', 'license = { text = "MIT" }')
    (tmp_path / "pyproject.toml").write_text(old)  # the table form it had: the check can fail
    (tmp_path / "README.md").write_text("x\n")
    assert any("license" in w for w in setup_warnings(tmp_path / "pyproject.toml"))
