"""The project key over UTF-16 units, its hash, and the directory-name override."""

from __future__ import annotations

import pytest

from memref.automemory import path_hash, project_dir_name, project_key
from memref.automemory._project_key import to_base36


@pytest.mark.parametrize(
    ("path", "value", "key"),
    [
        ("", 0, ""),
        ("/", 47, "-"),
        ("/home/user/project", -1588831306, "-home-user-project"),
        ("/home/user/my.project", -1711977702, "-home-user-my-project"),
    ],
)
def test_seed_vectors(path: str, value: int, key: str) -> None:
    assert path_hash(path) == value
    assert project_key(path) == key


def test_base36_of_the_seed_vectors() -> None:
    assert to_base36(1588831306) == "q9y62y"
    assert to_base36(1711977702) == "sb9mg6"
    assert to_base36(2**31) == "zik0zk"
    assert to_base36(0) == "0"


@pytest.mark.parametrize(
    ("path", "suffix"),
    [("/" + "y" * 200, "-a066hd"), ("/" + "\u00e9" * 200, "-s4uqmp"), ("/" + "y" * 201, "-q0vcye")],
)
def test_long_keys_end_in_the_hash(path: str, suffix: str) -> None:
    key = project_key(path)
    assert key.endswith(suffix) and len(key) == 200 + len(suffix)


def test_units_not_code_points() -> None:
    assert project_key("/tmp/\U0001f600") == "-tmp---"
    assert project_key("/tmp/e\u0301") == "-tmp-e-"
    assert project_key("/" + "y" * 199) == "-" + "y" * 199


def test_override_conditions() -> None:
    env = {"CLAUDE_CONFIG_DIR": "/c", "CLAUDE_CODE_PROJECT_DIR_NAME": "mine"}
    assert project_dir_name("/p", env) == "mine"
    assert project_dir_name("/p", {**env, "CLAUDE_CONFIG_DIR": ""}) == "-p"
    assert project_dir_name("/p", {"CLAUDE_CODE_PROJECT_DIR_NAME": "mine"}, diskless=True) == "mine"
    for bad in ("CON", "Com1", "lpt9", "a b", "", "x" * 65):
        assert project_dir_name("/p", {**env, "CLAUDE_CODE_PROJECT_DIR_NAME": bad}) == "-p"
    for good in ("com10", "conx", "aux1", "_-_"):
        assert project_dir_name("/p", {**env, "CLAUDE_CODE_PROJECT_DIR_NAME": good}) == good
