"""memref behind the protocol: what ``start`` claims, and profiles loaded on demand."""

from __future__ import annotations

import importlib
import subprocess
import sys

from memref import serve


def test_start_claims_every_capability_a_profile_needs() -> None:
    for profile in serve.PROFILES:
        needs = getattr(importlib.import_module(f"memref.{profile}._ops"), "CAPABILITIES", ())
        assert set(needs) <= set(serve.CAPABILITIES), profile


def test_the_profiles_are_the_packages_with_an_ops_table() -> None:
    assert sorted({op.split(".", 1)[0] for op in serve.OPS}) == serve.PROFILES


def test_start_loads_no_profile() -> None:
    probe = (
        "import sys, memref.serve as s;"
        "s.Implementation().handle({'id': 1, 'op': 'start', 'args': {}});"
        "print(sorted(m for m in sys.modules if m.count('.') and m.startswith('memref.')"
        " and m.split('.')[1] in s.PROFILES))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"


def test_an_op_loads_its_own_profile_only() -> None:
    probe = (
        "import sys, memref.serve as s;"
        "s.Implementation().handle({'id': 1, 'op': 'turnlog.constants', 'args': {}});"
        "print(sorted({m.split('.')[1] for m in sys.modules if m.count('.')"
        " and m.startswith('memref.') and m.split('.')[1] in s.PROFILES}))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "['turnlog']"


def test_an_op_of_no_profile_is_unknown() -> None:
    reply = serve.Implementation().handle({"id": 1, "op": "nothing.here", "args": {}})
    assert reply["error"]["kind"] == "unknown-op"
    reply = serve.Implementation().handle({"id": 2, "op": "memdir", "args": {}})
    assert reply["error"]["kind"] == "unknown-op"
