"""The GitHub Actions workflow in README.md works on a fresh machine, as written.

Its steps are read from the README (the text users copy), and its install, smoke and run
steps run, in order, under bash as GitHub runs them, in a scratch repository laid out as
the workflow expects: memspec checked out as the submodule ``memspec/`` (a copy of this
source tree), the port's adapter at the path ``ADAPTER`` names (here the fake adapter,
wrong on two cases), and its ``memspec-expected.toml`` listing those two. pip installs
memspec into a fresh virtual environment, from the package registries this machine
reaches, as the job's runner would. The fake speaks the toy ``demo`` profile, so the
environment points the installed suite at it (``MEMSPEC_FIXTURES``, ``MEMSPEC_SPEC``).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

from conftest import DATA, FAKE, expected_failure

from memspec.reports.merge import load_run
from memspec.reports.report import read_report

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
RUN = ("Install memspec", "Does the adapter speak the protocol?", "Run the suite")


def _scalar(text: str) -> str:
    text = text.strip()
    if text[:1] in "\"'":
        return text[1 : text.index(text[0], 1)]
    return re.sub(r"\s+#.*$", "", text)


def _parse(lines: list[tuple[int, str]]) -> Any:
    """The block-style YAML the README's workflow uses: mappings, lists of mappings,
    ``|`` blocks and scalars (flow collections stay strings)."""
    if lines and lines[0][1].startswith("- "):
        items: list[Any] = []
        indent = lines[0][0]
        current: list[tuple[int, str]] = []
        for depth, text in lines:
            if depth == indent and text.startswith("- "):
                if current:
                    items.append(_parse(current))
                current = [(depth + 2, text[2:])]
            else:
                current.append((depth, text))
        items.append(_parse(current))
        return items
    mapping: dict[str, Any] = {}
    index = 0
    while index < len(lines):
        depth, text = lines[index]
        key, _, rest = text.partition(":")
        nested = []
        index += 1
        while index < len(lines) and lines[index][0] > depth:
            nested.append(lines[index])
            index += 1
        rest = rest.strip()
        if rest == "|":
            margin = min(d for d, _ in nested)
            mapping[key] = "".join(" " * (d - margin) + t + "\n" for d, t in nested)
        elif rest and not rest.startswith("#"):
            mapping[key] = _scalar(rest)
        else:
            mapping[key] = _parse(nested)
    return mapping


def workflow() -> dict[str, Any]:
    """The README's workflow, parsed."""
    section = README.read_text(encoding="utf-8").split("### GitHub Actions", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("\n```", 1)[0]
    lines = [
        (len(line) - len(line.lstrip(" ")), line.strip())
        for line in block.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    parsed = _parse(lines)
    assert isinstance(parsed, dict)
    return parsed


def _source_tree(target: Path) -> None:
    """This repository's files, as a checkout of it holds them."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "surrogateescape")
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def _port(where: Path, adapter: str) -> None:
    """The port's repository: its adapter where ``ADAPTER`` says, and its expectations."""
    assert adapter.startswith("cmd:")
    program = where / shlex.split(adapter[4:])[0]
    program.parent.mkdir(parents=True)
    program.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" wrong "$@"\n')
    program.chmod(0o755)
    (where / "memspec-expected.toml").write_text(
        "".join(
            expected_failure(
                f"demo/echo/{name}", "answers wrong", ("step 1: result", {"result": "wrong"})
            )
            for name in ("bang-one", "bang-two")
        ),
        encoding="utf-8",
    )


def test_the_readme_workflow_installs_memspec_from_its_repository_and_runs() -> None:
    flow = workflow()
    steps = flow["jobs"]["conformance"]["steps"]
    named = {step.get("name"): step for step in steps}
    assert set(RUN) <= set(named), sorted(filter(None, named))
    checkout = next(
        step for step in steps if str(step.get("uses", "")).startswith("actions/checkout")
    )
    # The install step installs what the checkout brings: memspec as a submodule.
    assert flow["env"]["MEMSPEC"] == "./memspec"
    assert checkout["with"]["submodules"] == "true"
    assert "$MEMSPEC" in named["Install memspec"]["run"]


def test_the_readme_workflow_runs_in_a_scratch_repository(tmp_path: Path) -> None:
    flow = workflow()
    steps = {step.get("name"): step for step in flow["jobs"]["conformance"]["steps"]}
    port = tmp_path / "port"
    port.mkdir()
    _source_tree(port / "memspec")
    _port(port, flow["env"]["ADAPTER"])
    runner = tmp_path / "runner"
    venv.create(runner, with_pip=True)
    summary = tmp_path / "step-summary.md"
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTEST_ADDOPTS", "PYTHONHOME")
    }
    env.update(
        PATH=f"{runner / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        GITHUB_STEP_SUMMARY=str(summary),
        MEMSPEC_FIXTURES=str(DATA / "fixtures"),
        MEMSPEC_SPEC=str(DATA / "spec"),
        HOME=str(tmp_path / "home"),
        **flow["env"],
    )
    for name in RUN:
        step = steps[name]
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=port,
            env={**env, **step.get("env", {})},
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert result.returncode == 0, (name, result.stdout[-3000:], result.stderr[-3000:])
    installed = list((runner / "lib").glob("python3*/site-packages/memspec/__init__.py"))
    assert installed, "memspec was not installed into the runner's environment"
    run = load_run(port / "memspec.jsonl")
    assert run.implementation["name"] == "fake-wrong" and run.partial == []
    outcomes = run.outcomes()
    assert outcomes["demo/echo/bang-one"] == "xfailed" and outcomes["demo/echo/plain"] == "passed"
    assert read_report(port / "memspec.jsonl")[0]["run_info"]["adapter"] == flow["env"]["ADAPTER"]
    assert (port / "memspec.xml").is_file()
    assert "demo/echo/bang-one" in (port / "memspec-expected.next.toml").read_text(encoding="utf-8")
    assert "# memspec " in summary.read_text(encoding="utf-8")
