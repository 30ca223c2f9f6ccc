"""Files of a session's workspace for sandcap-mcp's file tools, confined to it.

Every path is resolved one component at a time from an fd of the workspace, each opened with
O_NOFOLLOW (directories with O_DIRECTORY too): a symbolic link anywhere on the way, ``..``,
or an absolute path outside the workspace is refused, so nothing the sandboxed commands put
in the workspace (a link to ``~/.ssh``, a rename race) makes these tools reach outside it.
Standard library only.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Any, Dict, List, Tuple

READ_MAX = 1 << 20  # bytes read_file returns at most by default
READ_LIMIT = 16 << 20  # a larger max_bytes is refused: the server would hold it all, twice
DIR_MAX = 1000      # entries list_dir returns at most


class PathRefused(Exception):
    """The path is not inside the workspace, or cannot be used as asked; the message says
    why."""


def _components(root: str, path: str) -> List[str]:
    if not isinstance(path, str) or "\0" in path:
        raise PathRefused("path: expected a string without NUL bytes")
    if os.path.isabs(path):
        prefix = root.rstrip("/") + "/"
        if path.rstrip("/") == root.rstrip("/"):
            return []
        if not path.startswith(prefix):
            raise PathRefused(f"{path}: outside the session's workspace ({root}); give a "
                              "path relative to it")
        path = path[len(prefix):]
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise PathRefused(f"{path}: '..' is not allowed (paths stay inside the workspace)")
    return parts


def _open_dir(root: str, parts: List[str], create: bool = False) -> int:
    """An fd of the directory parts names under root, no link followed."""
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


def _split(root: str, path: str) -> Tuple[List[str], str]:
    parts = _components(root, path)
    if not parts:
        raise PathRefused(f"{path}: names the workspace itself, not a file in it")
    return parts[:-1], parts[-1]


def read_file(root: str, path: str, max_bytes: int = READ_MAX) -> Dict[str, Any]:
    dirs, name = _split(root, path)
    dfd = _open_dir(root, dirs)
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


def write_file(root: str, path: str, content: str, append: bool = False) -> Dict[str, Any]:
    if not isinstance(content, str):
        raise PathRefused("content: expected a string")
    dirs, name = _split(root, path)
    dfd = _open_dir(root, dirs, create=True)
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


def list_dir(root: str, path: str = ".") -> Dict[str, Any]:
    fd = _open_dir(root, _components(root, path))
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
