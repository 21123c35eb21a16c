"""The MIT licence is at the root of the repository and named in pyproject.toml for the wheel.

``.ci/wheel`` builds the wheel and checks that the installed dist-info holds the file; this
test only reads the two files, so it costs nothing.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mit_license_exists_and_is_listed_in_pyproject_license_files():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 pymc-vsk developers" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in text
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["license"] == "MIT"
    assert pyproject["project"]["license-files"] == ["LICENSE"]
    for pattern in pyproject["project"]["license-files"]:
        assert sorted(ROOT.glob(pattern)) == [ROOT / "LICENSE"]
