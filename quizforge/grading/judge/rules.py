"""`GuardRules`: what the worker's guards refuse for one challenge, as the judge passes it on.

The sandbox carries it to the worker as plain data (`as_config()`), through the
launcher's config or the zygote's spawn request, to `worker.serve` and the guards in
quizforge/grading/sandbox_inside/guards.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class GuardRules:
    challenge: str = ""
    forbidden: tuple[str, ...] = ()            # dotted APIs, e.g. "torch.nn.functional.softmax"
    imports: tuple[str, ...] = ()              # modules it opts into besides every challenge's, e.g. "re"
    capability: bool = True   # False only in tests of the second layer (the worker's guards) on its own

    @classmethod
    def of(cls, rules: "GuardRules | Iterable[str]") -> "GuardRules":
        """Rules as given, or a bare forbidden list: the sandbox's own tests, which run hostile
        code as plain Python (grade() always passes GuardRules, with the capability compile)."""
        return rules if isinstance(rules, GuardRules) else cls(forbidden=tuple(rules), capability=False)

    @classmethod
    def for_challenge(cls, challenge) -> "GuardRules":
        """The rules of a quizforge.challenges.Challenge."""
        return cls(challenge.id, tuple(challenge.forbidden), tuple(challenge.imports))

    def as_config(self) -> dict:
        return {"challenge": self.challenge, "forbidden": list(self.forbidden), "imports": list(self.imports),
                "capability": self.capability}
