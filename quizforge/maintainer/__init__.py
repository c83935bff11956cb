"""Maintainers' measurements, run from a source checkout (they read solutions/ and each
challenge's meta/variants/): `python -m quizforge.maintainer.measure_ops` and
`python -m quizforge.maintainer.measure_loopholes`. The speed benches are in bench/."""
