"""The tests run against the installed wheel, not the source tree."""

import pathlib

import linalias
from linalias import _linalias


def test_the_package_is_the_installed_wheel():
    here = pathlib.Path(linalias.__file__).resolve()
    assert "site-packages" in here.parts, here
    assert pathlib.Path(_linalias.__file__).suffix == ".so"
