"""Files of a session's workspace and its ``--rw`` directories for sandcap-mcp's file tools,
confined to them.

A relative path is the workspace's; an absolute one must lie in the workspace or in one of
the session's ``--rw`` directories (the deepest that holds it), each opened once when the
server starts, before any call ran, and walked from that fd.  Every path is resolved one
component at a time, each opened with O_NOFOLLOW (directories with O_DIRECTORY too): a
symbolic link anywhere on the way, ``..``, or a path outside them all is refused, and so is
a file with more than one name (a hard link may be to a file outside), so nothing the
sandboxed commands put there (a link to ``~/.ssh``, a rename race) makes these tools reach
outside.  Standard library only.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

READ_MAX = 1 << 20  # bytes read_file returns at most by default
READ_LIMIT = 16 << 20  # a larger max_bytes is refused: the server would hold it all, twice
DIR_MAX = 1000      # entries list_dir returns at most


class PathRefused(Exception):
    """The path is not inside the workspace, or cannot be used as asked; the message says
    why."""


class Roots:
    """The places the file tools may reach: the workspace (a path, opened at each use: the
    session made it private) and the ``--rw`` directories (opened now, by the operator's
    path; the fds are kept, so that a call renaming a directory on the way later cannot
    move them)."""

    def __init__(self, workspace: str, rw: Sequence[str] = ()) -> None:
        self.workspace = workspace
        self.rw: List[Tuple[str, int]] = []
        try:
            for p in rw:
                if not os.path.isabs(p):
                    raise PathRefused(f"--rw {p}: not an absolute path")
                try:
                    fd = os.open(p, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                except OSError as e:
                    raise PathRefused(f"--rw {p}: {e.strerror} (the file tools reach "
                                      "directories)") from None
                self.rw.append((os.path.normpath(p), fd))
        except PathRefused:
            self.close()
            raise
        # The deepest first: a path in two of them is walked from the nearer.
        self.rw.sort(key=lambda x: -len(x[0]))

    def close(self) -> None:
        for _, fd in self.rw:
            os.close(fd)
        self.rw = []

    def locate(self, path: str) -> Tuple[Union[str, int], str, List[str]]:
        """(the root to walk from: the workspace's path or an rw fd, its name, the
        components below it)."""
        if not isinstance(path, str) or "\0" in path:
            raise PathRefused("path: expected a string without NUL bytes")
        raw = path
        if os.path.isabs(path):
            for name, fd in [(self.workspace.rstrip("/"), None)] + self.rw:
                rest = _below(name, path)
                if rest is not None:
                    return (fd if fd is not None else self.workspace), name, _parts(raw, rest)
            where = "the session's workspace" + (" and its --rw directories"
                                                  if self.rw else "")
            raise PathRefused(f"{path}: outside {where} ({self.workspace}"
                              f"{''.join(', ' + n for n, _ in self.rw)}); give a path "
                              "relative to the workspace or inside one of them")
        return self.workspace, self.workspace, _parts(raw, path)


def _below(root: str, path: str) -> Optional[str]:
    """path relative to root when it is root or below it (by name; '..' is refused
    after), else None."""
    root = root.rstrip("/") or "/"
    if path.rstrip("/") == root:
        return ""
    prefix = root if root.endswith("/") else root + "/"
    return path[len(prefix):] if path.startswith(prefix) else None


def _parts(raw: str, rel: str) -> List[str]:
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise PathRefused(f"{raw}: '..' is not allowed (paths stay inside the workspace "
                          "and the --rw directories)")
    return parts


def _roots(root: Union[str, Roots]) -> Roots:
    return root if isinstance(root, Roots) else Roots(root)


def _open_dir(root: Union[str, int], parts: List[str], create: bool = False) -> int:
    """An fd of the directory parts names under root (a path, or an fd that is kept
    open), no link followed."""
    if isinstance(root, int):
        fd = os.dup(root)
    else:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        for p in parts:
            if create:
                try:
                    os.mkdir(p, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
            nfd = os.open(p, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                          dir_fd=fd)
            os.close(fd)
            fd = nfd
        return fd
    except OSError as e:
        os.close(fd)
        raise _refusal("/".join(parts), e) from None


def _refusal(path: str, e: OSError) -> PathRefused:
    if e.errno in (errno.ELOOP, errno.ENOTDIR):
        return PathRefused(f"{path}: a symbolic link or not a directory on the way "
                           "(links are not followed)")
    return PathRefused(f"{path}: {e.strerror}")


def _check_file(path: str, fd: int) -> os.stat_result:
    """A regular file with no other name: a hard link the sandbox made to a file outside
    the workspace (where Landlock did not stop it) is refused like a symbolic link."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise PathRefused(f"{path}: not a regular file")
    if st.st_nlink > 1:
        raise PathRefused(f"{path}: has {st.st_nlink} hard links, maybe outside the "
                          "workspace; copy it instead")
    return st


def _split(roots: Roots, path: str) -> Tuple[Union[str, int], List[str], str]:
    base, _, parts = roots.locate(path)
    if not parts:
        raise PathRefused(f"{path}: names a directory the tools reach, not a file in it")
    return base, parts[:-1], parts[-1]


def read_file(root: Union[str, Roots], path: str, max_bytes: int = READ_MAX) -> Dict[str, Any]:
    base, dirs, name = _split(_roots(root), path)
    dfd = _open_dir(base, dirs)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK,
                     dir_fd=dfd)
    except OSError as e:
        raise _refusal(path, e) from None
    finally:
        os.close(dfd)
    try:
        st = _check_file(path, fd)
        data = os.read(fd, max_bytes + 1) if max_bytes > 0 else b""
    finally:
        os.close(fd)
    truncated = len(data) > max_bytes
    data = data[:max_bytes]
    return {"path": path, "size": st.st_size, "truncated": truncated,
            "content": data.decode("utf-8", "replace")}


def write_file(root: Union[str, Roots], path: str, content: str,
               append: bool = False) -> Dict[str, Any]:
    if not isinstance(content, str):
        raise PathRefused("content: expected a string")
    base, dirs, name = _split(_roots(root), path)
    dfd = _open_dir(base, dirs, create=True)
    # Truncated only once it is known to be a file of the workspace alone.
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    flags |= os.O_APPEND if append else 0
    try:
        fd = os.open(name, flags, 0o644, dir_fd=dfd)
    except OSError as e:
        raise _refusal(path, e) from None
    finally:
        os.close(dfd)
    try:
        _check_file(path, fd)
        if not append:
            os.ftruncate(fd, 0)
        data = content.encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    return {"path": path, "bytes_written": len(data)}


def list_dir(root: Union[str, Roots], path: str = ".") -> Dict[str, Any]:
    base, _, parts = _roots(root).locate(path)
    fd = _open_dir(base, parts)
    entries: List[Dict[str, Any]] = []
    try:
        with os.scandir(fd) as it:
            for e in it:
                if len(entries) >= DIR_MAX:
                    break
                st = e.stat(follow_symlinks=False)
                kind = ("dir" if stat.S_ISDIR(st.st_mode) else "file" if
                        stat.S_ISREG(st.st_mode) else "symlink" if stat.S_ISLNK(st.st_mode)
                        else "other")
                entries.append({"name": e.name, "type": kind, "size": st.st_size})
    finally:
        os.close(fd)
    entries.sort(key=lambda x: x["name"])
    return {"path": path, "entries": entries, "truncated": len(entries) >= DIR_MAX}
