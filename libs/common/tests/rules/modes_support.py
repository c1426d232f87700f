"""A scripted random source for the mode rules' unit tests: every draw answers from a script by label."""

from __future__ import annotations

from collections.abc import Mapping

from turf_common.rules.seeded import SeededSource


class ScriptedSource(SeededSource):
    """``below(label, n)`` answers ``script[label]`` (default 0), so a die is ``script[label] + 1`` and a
    :meth:`chance` of 45 % is won with 0…44 and lost with 45…99. Records every label drawn."""

    def __init__(self, script: Mapping[str, int] | None = None) -> None:
        super().__init__("scripted", "test")
        object.__setattr__(self, "script", dict(script or {}))
        object.__setattr__(self, "drawn", [])

    def below(self, label: str, n: int) -> int:
        self.drawn.append(label)  # type: ignore[attr-defined]
        value = self.script.get(label, 0)  # type: ignore[attr-defined]
        assert 0 <= value < n, f"script {label}={value} outside [0, {n})"
        return int(value)
