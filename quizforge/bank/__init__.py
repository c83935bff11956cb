"""The question bank: templates that turn a seed into a question with a computed answer.

A question is a pure function of (template, seed); its ID, e.g. `params.mha-7f3a`,
is enough to regenerate it anywhere. See `registry` for lookup, `template` for
how a template becomes a question; answers are checked by `quizforge.answers.check`.
"""
