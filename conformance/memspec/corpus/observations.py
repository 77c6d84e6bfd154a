"""What a failed check observed, in the form a signature and an expectations file hold.

A failed check is named (``step 1: result``, ``step 2: tree ${ROOT}/a.txt mode``) and
carries what it observed there, normalised alike on every host and in every run: the
reply, the tree entry, the error kind. The observation is kept as

- a ``digest``, the first 12 hex digits of the SHA-256 of the observed value's canonical
  JSON, which is what two runs compare;
- a ``value``, the observed value abridged for a reviewer (never compared when a digest
  is given);
- or, where the observation is not deterministic (which send of a race caught an op,
  which reader saw a torn file), no digest and a ``value`` naming only the kind of
  failure (``escaped``, ``reply not allowed``, ``torn file``): then the kind is compared.

The token of an observation is what a report's ``signature`` lists:
``check @digest``, ``check (kind)``, or ``check`` alone for a failure that observed
nothing more (``no answer: timeout``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["DIGEST", "Observation", "from_token"]

DIGEST = re.compile(r"[0-9a-f]{12}")
_TOKEN = re.compile(r"(?P<check>.*?)(?: @(?P<digest>[0-9a-f]{12})| \((?P<kind>[^()]*)\))?")


@dataclass(frozen=True)
class Observation:
    check: str
    digest: str = ""
    value: str = ""

    @property
    def token(self) -> str:
        if self.digest:
            return f"{self.check} @{self.digest}"
        if self.value:
            return f"{self.check} ({self.value})"
        return self.check


def from_token(token: str, value: str = "") -> Observation:
    """The observation a signature token names; ``value`` is the abridged value shown
    beside a digest."""
    match = _TOKEN.fullmatch(token)
    assert match is not None  # the pattern matches every text
    if match["digest"]:
        return Observation(match["check"], match["digest"], value)
    if match["kind"] is not None:
        return Observation(match["check"], "", match["kind"])
    return Observation(token)
