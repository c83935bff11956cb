"""Maintainers' tools, run from a source checkout: `python -m quizforge.maintainer.measure_ops`
and `python -m quizforge.maintainer.measure_loopholes` (they read solutions/ and each challenge's
meta/variants/, where a variant is a whole .py or a .patch against its solution), and `python -m quizforge.maintainer.readme_challenges` (the README's list of
challenges, from their folders). The speed benches are in bench/."""
