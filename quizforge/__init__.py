"""quizforge: GATE-style exam and interview practice on transformers and attention."""

__version__ = "0.1.0"
