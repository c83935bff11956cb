"""Packaging needs one thing pyproject.toml cannot say: a package whose folder is not under
quizforge/. The challenges live at the top of the checkout (exercises/<id>/), and the wheel
carries them as quizforge/exercises/ (mapped in pyproject.toml's package-dir), so that a plain
`pip install .` has what `quiz challenges start` copies and what `quiz grade` runs."""

from setuptools import find_namespace_packages, setup

setup(packages=[*find_namespace_packages(include=["quizforge*"]), "quizforge.exercises"])
