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
]


class MemspecError(Exception):
    """Base of every error memspec raises on purpose."""


class UsageError(MemspecError):
    """The user asked for something that cannot be done; reported in one line, exit code 2."""


class FixtureError(MemspecError):
    """A fixture file breaks the case schema or a lint rule."""


class CaseFailure(MemspecError):
    """The implementation answered, and the answer is wrong. ``signature`` names the
    checks that failed, in a form that is the same on every host and every run."""

    def __init__(self, message: str, signature: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        # A name that is not UTF-8 holds lone surrogates, which no expectations file (TOML)
        # can carry: each stands as its escape, so a signature reads back as it was written.
        self.signature = tuple(
            token.encode("utf-8", "backslashreplace").decode("utf-8") for token in signature
        )


class CaseFault(MemspecError):
    """The implementation did not answer properly (crash, hang, garbage), or the case
    could not be set up on this host."""


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
