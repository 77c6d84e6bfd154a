"""project_key, and the Go filepath.Clean flavours beneath it."""

from __future__ import annotations

import pytest

from memref import _gopath
from memref.memdir import project_key


@pytest.mark.parametrize(
    ("path", "key"),
    [
        # evva projectkey_test.go
        ("", ""),
        ("/Users/johnny/lab/evva", "-Users-johnny-lab-evva"),
        ("/home/alice/work/api", "-home-alice-work-api"),
        ("/", ""),
        ("/a", "-a"),
        ("/a//b/../c", "-a-c"),
        ("/a/b/", "-a-b"),
        ("C:\\Users\\Alice\\proj", "C-Users-Alice-proj"),
        # verified on a Linux host
        ("//", ""),
        ("/a/", "-a"),
        ("/a-b", "-a-b"),
        ("/a--b", "-a-b"),
        ("/a/-/b", "-a-b"),
        ("a/b", "a-b"),
        (".", "."),
        ("./a", "a"),
        ("C:\\", "C"),
        ("C:", "C"),
        ("c:/x", "c-x"),
        ("C:\\Users\\..\\b", "C-Users-..-b"),
        ("\\\\server\\share", "-server-share"),
        ("/home/a b/c", "-home-a b-c"),
        ("/a/b.c", "-a-b.c"),
        ("1:\\x", "1:-x"),
        ("/x:y", "-x:y"),
        ("//x", "-x"),
    ],
)
def test_posix(path: str, key: str) -> None:
    assert project_key(path) == key
    assert project_key(path, "posix") == key


@pytest.mark.parametrize(
    ("path", "key"),
    [
        ("", ""),
        ("C:\\Users\\Alice\\proj", "C-Users-Alice-proj"),
        ("C:\\Users\\..\\b", "C-b"),
        ("C:/Users/Alice/", "C-Users-Alice"),
        ("c:", "c."),
        ("\\\\server\\share\\x\\..\\y", "-server-share-y"),
        ("/a/../b", "-b"),
        ("a/../c:", ".-c:"),
        ("é:\\x", "é:-x"),
    ],
)
def test_windows(path: str, key: str) -> None:
    assert project_key(path, "windows") == key


@pytest.mark.parametrize(
    ("path", "cleaned"),
    [
        ("", "."),
        ("abc", "abc"),
        ("abc/def/", "abc/def"),
        ("a//c", "a/c"),
        ("abc/./def", "abc/def"),
        ("abc/../../..", "../.."),
        ("/../abc", "/abc"),
        ("abc/def/../../..", ".."),
        ("//abc", "/abc"),
        ("///", "/"),
        ("a\\..\\b", "a\\..\\b"),
    ],
)
def test_posix_clean(path: str, cleaned: str) -> None:
    assert _gopath.clean(path) == cleaned


@pytest.mark.parametrize(
    ("path", "cleaned"),
    [
        ("c:", "c:."),
        ("c:\\", "c:\\"),
        ("c:\\abc", "c:\\abc"),
        ("c:abc\\..\\..\\.\\.\\..\\def", "c:..\\..\\def"),
        ("c:\\abc\\def\\..\\..", "c:\\"),
        ("c:\\..\\abc", "c:\\abc"),
        ("c:..\\abc", "c:..\\abc"),
        ("c:\\b:\\..\\..\\..\\d", "c:\\d"),
        ("\\", "\\"),
        ("/", "\\"),
        ("\\\\i\\..\\c$", "\\\\i\\..\\c$"),
        ("\\\\host\\share\\foo\\..\\bar", "\\\\host\\share\\bar"),
        ("//host/share/foo/../baz", "\\\\host\\share\\baz"),
        ("\\\\host\\share\\foo\\..\\..\\..\\..\\bar", "\\\\host\\share\\bar"),
        ("\\\\.\\C:\\a\\..\\..\\..\\..\\bar", "\\\\.\\C:\\bar"),
        ("\\\\.\\C:\\\\\\\\a", "\\\\.\\C:\\a"),
        ("\\\\a\\b\\..\\c", "\\\\a\\b\\c"),
        ("\\\\a\\b", "\\\\a\\b"),
        (".\\c:", ".\\c:"),
        (".\\c:\\foo", ".\\c:\\foo"),
        (".\\c:foo", ".\\c:foo"),
        ("//abc", "\\\\abc"),
        ("///abc", "\\\\\\abc"),
        ("//abc//", "\\\\abc\\\\"),
        ("\\\\?\\C:\\", "\\\\?\\C:\\"),
        ("\\\\?\\C:\\a", "\\\\?\\C:\\a"),
        ("a/../c:", ".\\c:"),
        ("a\\..\\c:", ".\\c:"),
        ("a/../c:/a", ".\\c:\\a"),
        ("a/../../c:", "..\\c:"),
        ("foo:bar", "foo:bar"),
        ("/a/../??/a", "\\.\\??\\a"),
        ("abc/../../..", "..\\.."),
    ],
)
def test_windows_clean(path: str, cleaned: str) -> None:
    assert _gopath.clean(path, windows=True) == cleaned


@pytest.mark.parametrize(
    ("path", "cleaned", "key"),
    [
        # Go's Windows volume rules: UNC, bare drives, device and long paths.
        ("\\\\server\\share\\dir", "\\\\server\\share\\dir", "-server-share-dir"),
        ("\\\\server\\share", "\\\\server\\share", "-server-share"),
        ("\\\\server\\share\\", "\\\\server\\share\\", "-server-share"),
        ("\\\\server\\share\\..\\x", "\\\\server\\share\\x", "-server-share-x"),
        ("//server/share/a/../dir", "\\\\server\\share\\dir", "-server-share-dir"),
        ("\\\\server", "\\\\server", "-server"),
        ("C:", "C:.", "C."),
        ("C:foo\\bar", "C:foo\\bar", "Cfoo-bar"),
        ("C:..\\x", "C:..\\x", "C..-x"),
        (
            "\\\\?\\C:\\Users\\Alice\\proj",
            "\\\\?\\C:\\Users\\Alice\\proj",
            "-?-C:-Users-Alice-proj",
        ),
        ("\\\\?\\C:\\a\\..\\..\\b", "\\\\?\\C:\\b", "-?-C:-b"),
        ("\\\\?\\UNC\\server\\share\\..\\..\\x", "\\\\?\\UNC\\x", "-?-UNC-x"),
        (
            "\\\\.\\UNC\\server\\share\\..\\x",
            "\\\\.\\UNC\\server\\share\\x",
            "-.-UNC-server-share-x",
        ),
        ("\\??\\C:\\x\\.\\y", "\\??\\C:\\x\\y", "-??-C:-x-y"),
        ("a\\..\\c:", ".\\c:", ".-c:"),
        ("\\a\\..\\??\\c:\\x", "\\.\\??\\c:\\x", "-.-??-c:-x"),
        ("1:\\..\\b", "1:\\b", "1:-b"),
        ("C:/Users\\Alice/proj\\", "C:\\Users\\Alice\\proj", "C-Users-Alice-proj"),
    ],
)
def test_windows_volumes(path: str, cleaned: str, key: str) -> None:
    assert _gopath.clean(path, windows=True) == cleaned
    assert project_key(path, "windows") == key
