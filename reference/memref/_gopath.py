"""Go's lexical ``path/filepath`` functions, for the POSIX and the Windows flavour.

Python's ``posixpath`` differs from Go in small ways (``normpath("//x")`` keeps
the double slash, ``join`` does not clean), so the Go algorithms are ported here.
Paths are ``str``; a byte that is not valid UTF-8 is a lone surrogate
(``surrogateescape``), so byte positions and character positions agree wherever
the algorithms look at a single ASCII byte.
"""

from __future__ import annotations

__all__ = [
    "abs_path",
    "base",
    "clean",
    "clean_general",
    "is_abs",
    "is_clean_posix",
    "join",
    "rel",
]


def _is_sep(char: str, windows: bool) -> bool:
    return char == "/" or (windows and char == "\\")


def _single_byte(char: str) -> bool:
    """Whether ``char`` is one byte in the underlying Go string."""
    return char < "\x80" or "\udc80" <= char <= "\udcff"


def _has_prefix_fold(path: str, prefix: str) -> bool:
    # Go's pathHasPrefixFold: ASCII case-insensitive, any separator matches a separator,
    # and a longer path must continue with a separator.
    if len(path) < len(prefix):
        return False
    for index, want in enumerate(prefix):
        have = path[index]
        if _is_sep(want, True):
            if not _is_sep(have, True):
                return False
        elif want.upper() != have.upper() or not have.isascii():
            return False
    return not (len(path) > len(prefix) and not _is_sep(path[len(prefix)], True))


def _unc_len(path: str, prefix_len: int) -> int:
    count = 0
    for index in range(prefix_len, len(path)):
        if _is_sep(path[index], True):
            count += 1
            if count == 2:
                return index
    return len(path)


def _volume_name_len(path: str, windows: bool) -> int:
    if not windows:
        return 0
    if len(path) >= 2 and path[1] == ":" and _single_byte(path[0]):
        return 2
    if not path or not _is_sep(path[0], True):
        return 0
    if _has_prefix_fold(path, "\\\\.\\UNC"):
        return _unc_len(path, len("\\\\.\\UNC\\"))
    if (
        _has_prefix_fold(path, "\\\\.")
        or _has_prefix_fold(path, "\\\\?")
        or _has_prefix_fold(path, "\\??")
    ):
        if len(path) == 3:
            return 3
        rest = path[4:]
        for index, char in enumerate(rest):
            if _is_sep(char, True):
                return len(path) - len(rest[index + 1 :]) - 1
        return len(path)
    if len(path) >= 2 and _is_sep(path[1], True):
        return _unc_len(path, 2)
    return 0


class _LazyBuf:
    """Go's lazybuf: tracks whether the output still equals a prefix of the input."""

    def __init__(self, path: str, vol_and_path: str, vol_len: int) -> None:
        self.path = path
        self.buf: list[str] | None = None
        self.w = 0
        self.vol_and_path = vol_and_path
        self.vol_len = vol_len

    def index(self, i: int) -> str:
        return self.buf[i] if self.buf is not None else self.path[i]

    def append(self, char: str) -> None:
        if self.buf is None:
            if self.w < len(self.path) and self.path[self.w] == char:
                self.w += 1
                return
            self.buf = list(self.path[: self.w]) + ["\x00"] * (len(self.path) - self.w)
        if self.w < len(self.buf):
            self.buf[self.w] = char
        else:
            self.buf.append(char)
        self.w += 1

    def prepend(self, prefix: str) -> None:
        assert self.buf is not None
        self.buf[0:0] = list(prefix)
        self.w += len(prefix)

    def string(self) -> str:
        if self.buf is None:
            return self.vol_and_path[: self.vol_len + self.w]
        return self.vol_and_path[: self.vol_len] + "".join(self.buf[: self.w])


def _post_clean(out: _LazyBuf) -> None:
    # Windows only: keep a relative path from turning into a volume or device path.
    if out.vol_len != 0 or out.buf is None:
        return
    # Go scans the whole buffer, past the written length, as here.
    for char in out.buf:
        if _is_sep(char, True):
            break
        if char == ":":
            out.prepend(".\\")
            return
    if len(out.buf) >= 3 and _is_sep(out.buf[0], True) and out.buf[1] == "?" and out.buf[2] == "?":
        out.prepend("\\.")


def is_clean_posix(path: str) -> bool:
    """Whether ``path`` is certainly its own POSIX ``Clean``: a sufficient test, not a full one.

    It holds for a non-empty path with no empty, ``.`` or ``..`` element other than a
    whole ``.`` or ``..``, and no trailing separator. Some clean paths (``/``, ``../a``)
    fail it and take the general algorithm.
    """
    return (
        path != ""
        and "//" not in path
        and "/./" not in path
        and "/../" not in path
        and not path.endswith(("/", "/.", "/.."))
        and not path.startswith(("./", "../"))
    )


def clean(path: str, *, windows: bool = False) -> str:
    """Go's ``filepath.Clean`` (POSIX, or Windows with ``windows=True``)."""
    if not windows and is_clean_posix(path):
        return path
    return clean_general(path, windows=windows)


def clean_general(path: str, *, windows: bool = False) -> str:
    """Go's ``filepath.Clean``, always by the full lexical algorithm."""
    sep = "\\" if windows else "/"
    original = path
    vol_len = _volume_name_len(path, windows)
    path = path[vol_len:]
    if path == "":
        if vol_len > 1 and _is_sep(original[0], windows) and _is_sep(original[1], windows):
            return _from_slash(original, windows)
        return original + "."
    rooted = _is_sep(path[0], windows)
    n = len(path)
    out = _LazyBuf(path, original, vol_len)
    r, dotdot = 0, 0
    if rooted:
        out.append(sep)
        r, dotdot = 1, 1
    while r < n:
        if _is_sep(path[r], windows) or (
            path[r] == "." and (r + 1 == n or _is_sep(path[r + 1], windows))
        ):
            r += 1
        elif (
            path[r] == "." and path[r + 1] == "." and (r + 2 == n or _is_sep(path[r + 2], windows))
        ):
            r += 2
            if out.w > dotdot:
                out.w -= 1
                while out.w > dotdot and not _is_sep(out.index(out.w), windows):
                    out.w -= 1
            elif not rooted:
                if out.w > 0:
                    out.append(sep)
                out.append(".")
                out.append(".")
                dotdot = out.w
        else:
            if (rooted and out.w != 1) or (not rooted and out.w != 0):
                out.append(sep)
            while r < n and not _is_sep(path[r], windows):
                out.append(path[r])
                r += 1
    if out.w == 0:
        out.append(".")
    if windows:
        _post_clean(out)
    return _from_slash(out.string(), windows)


def _from_slash(path: str, windows: bool) -> str:
    return path.replace("/", "\\") if windows else path


def join(*elements: str) -> str:
    """Go's ``filepath.Join`` on POSIX: join the non-empty elements, then clean."""
    if len(elements) == 2:
        parent, name = elements
        # A clean parent and a plain name (no separator, not "." or ".."): nothing to clean.
        if (
            name
            and "/" not in name
            and name != "."
            and name != ".."
            and parent
            and parent != "."
            and is_clean_posix(parent)
        ):
            return parent + "/" + name
    kept = [element for element in elements if element]
    return clean("/".join(kept)) if kept else ""


def is_abs(path: str) -> bool:
    return path.startswith("/")


def abs_path(path: str, cwd: str) -> str:
    """Go's ``filepath.Abs`` with ``cwd`` standing in for the process working directory."""
    if is_abs(path):
        return clean(path)
    return join(cwd, path)


def base(path: str) -> str:
    """The final element, as Go's ``os`` package names a file (trailing slashes dropped)."""
    path = path.rstrip("/")
    return path[path.rfind("/") + 1 :]


def rel(basepath: str, targpath: str) -> str | None:
    """Go's ``filepath.Rel`` on POSIX; ``None`` where Go returns an error."""
    base_clean = clean(basepath)
    targ = clean(targpath)
    if targ == base_clean:
        return "."
    bpath = "" if base_clean == "." else base_clean
    if bpath.startswith("/") != targ.startswith("/"):
        return None
    bl, tl = len(bpath), len(targ)
    b0 = bi = t0 = ti = 0
    while True:
        while bi < bl and bpath[bi] != "/":
            bi += 1
        while ti < tl and targ[ti] != "/":
            ti += 1
        if targ[t0:ti] != bpath[b0:bi]:
            break
        if bi < bl:
            bi += 1
        if ti < tl:
            ti += 1
        b0, t0 = bi, ti
    if bpath[b0:bi] == "..":
        return None
    if b0 != bl:
        seps = bpath[b0:bl].count("/")
        result = ".." + "/.." * seps
        if t0 != tl:
            result += "/" + targ[t0:]
        return result
    return targ[t0:]
