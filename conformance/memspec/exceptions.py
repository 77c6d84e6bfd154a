"""What can go wrong, by the step of the protocol where it happens.

- Reading the command line or a file the user named: ``UsageError`` (exit code 2).
- Loading fixtures: ``FixtureError`` (a fixture breaks the case schema or the lint rules).
- Setting up a case (for example its git repositories): ``SetupError``.
- Judging a case: ``CaseFailure`` (a wrong answer) and ``CaseFault`` (no proper answer).
- Starting the adapter (spawn, ``start`` handshake): ``AdapterBroken``.
- One request (send, wait, read, decode, check the reply): ``AdapterFault`` and its
  subclasses ``AdapterTimeout``, ``AdapterCrashed`` and ``ProtocolViolation``. A fault
  fails the case that was running; the harness restarts the adapter for the next one.
"""

from __future__ import annotations

__all__ = [
    "AdapterBroken",
    "AdapterCrashed",
    "AdapterFault",
    "AdapterTimeout",
    "CaseFailure",
    "CaseFault",
    "FixtureError",
    "HostLimitation",
    "MemspecError",
    "ProtocolViolation",
    "SetupError",
    "UsageError",
    "no_answer",
]


class MemspecError(Exception):
    """Base of every error memspec raises on purpose."""


class UsageError(MemspecError):
    """The user asked for something that cannot be done; reported in one line, exit code 2."""


class FixtureError(MemspecError):
    """A fixture file breaks the case schema or a lint rule."""


class CaseFailure(MemspecError):
    """The implementation answered, and the answer is wrong. ``signature`` names the
    checks that failed with what each observed, in a form that is the same on every host
    and every run (``memspec.corpus.observations``); ``values`` holds, in the same order,
    each observed value abridged for a reader."""

    def __init__(
        self, message: str, signature: tuple[str, ...] = (), values: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message)
        # A name that is not UTF-8 holds lone surrogates, which no expectations file (TOML)
        # can carry: each stands as its escape, so a signature reads back as it was written.
        self.signature = tuple(
            token.encode("utf-8", "backslashreplace").decode("utf-8") for token in signature
        )
        self.values = values


class CaseFault(MemspecError):
    """The implementation did not answer properly (crash, hang, garbage), or the case
    could not be set up on this host. When the checks that still ran after it failed too
    (the tree, the folders beside it), ``signature`` and ``values`` name them as a
    CaseFailure does, after the fault itself."""

    def __init__(
        self, message: str, signature: tuple[str, ...] = (), values: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message)
        self.signature = signature
        self.values = values


class HostLimitation(MemspecError):
    """This machine cannot build the case's tree as written (a filesystem that clamps
    mtimes, say): the case is skipped with a ``host:`` reason, never judged."""


class SetupError(MemspecError):
    """A case's set-up action (for example a git command) failed on this host."""


class AdapterBroken(MemspecError):
    """The adapter cannot be started or does not complete the handshake."""


class AdapterFault(MemspecError):
    """One request did not get a well-formed answer."""


class AdapterTimeout(AdapterFault):
    """No answer within the per-call timeout."""


class AdapterCrashed(AdapterFault):
    """The adapter process exited (or closed its output) while a request was pending."""


class ProtocolViolation(AdapterFault):
    """The adapter answered with something that is not a valid protocol message."""


def no_answer(error: BaseException) -> str:
    """What came instead of an answer, in the words a signature uses for it: the first
    fault of the adapter among ``error`` and its causes."""
    pending: list[BaseException] = [error]
    seen: set[int] = set()
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        for kind, words in _NO_ANSWER:
            if isinstance(current, kind):
                return words
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return "no answer"


_NO_ANSWER: tuple[tuple[type[BaseException], str], ...] = (
    (AdapterTimeout, "no answer: timeout"),
    (AdapterCrashed, "no answer: crashed"),
    (ProtocolViolation, "no answer: protocol violation"),
    (AdapterBroken, "no answer: adapter broken"),
)
