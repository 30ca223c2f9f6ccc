"""Turn the keyword arguments of :func:`sandcap.run` into a ``sandcap run`` command line.

Pure functions, no I/O: everything here can be tested (and fuzzed) without running
anything.  Every option is written as ``--name=VALUE`` (one word), so a value can never be
taken for another option, whatever it starts with.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

Size = Union[int, str]
"""Bytes as an int, or a size string sandcap understands (``"64M"``, ``"1.5G"``)."""
Duration = Union[int, float, str]
"""Seconds as a number, or a duration string sandcap understands (``"250ms"``, ``"5m"``)."""
Percent = Union[int, str]
"""Percent of one CPU core as an int (100 = one core), or a string such as ``"50%"``."""
PathArg = Union[str, "os.PathLike[str]"]
EnvArg = Union[Mapping[str, Optional[str]], Iterable[str]]

# Names the dynamic loader or sandcap itself act on: a value for one of these is given on
# sandcap's command line (--env=NAME=VALUE), not through sandcap's own environment, where
# it would change how sandcap runs.  Everything else travels in the environment, because a
# command line is readable by every local user (/proc/PID/cmdline) and values may be secrets.
_SELF_AFFECTING = re.compile(r"^(LD_|SANDCAP_|GCONV_PATH$|MALLOC_|GLIBC_TUNABLES$)")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class Invocation:
    """What to execute: sandcap's argv (the report option is added later), the
    environment sandcap starts with (``None``: inherit ours) and stdin."""

    options: List[str]
    command: List[str]
    env: Optional[Dict[str, str]]
    input: Optional[bytes]
    used: Tuple[str, ...] = field(default=())  # long options used, for error messages


def _no_nul(what: str, s: str) -> str:
    if "\0" in s:
        raise ValueError(f"{what}: contains a NUL byte")
    return s


# sandcap run's ranges for numbers (sandcap run --help, frontend/run/args.c): given as ints or
# floats, values outside them are refused here, naming the parameter; strings are passed on
# as written and checked by sandcap.
SIZE_MAX = 1 << 60                            # 1 EiB
DURATION_MAX_MS = 366 * 24 * 3600 * 1000      # 366 days
CPU_MAX = 102400                              # percent of one core: 1024 cores
PIDS_MAX = 4194304                            # the kernel's PID_MAX_LIMIT


def _size(name: str, v: Size) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise TypeError(f"{name}=: expected bytes as int or a size string, got {v!r}")
    if isinstance(v, int):
        if not 1 <= v <= SIZE_MAX:
            raise ValueError(f"{name}=: expected from 1 byte to 1 EiB (2**60 bytes), "
                             f"got {v}")
        return str(v)
    return _no_nul(name, v)


def _count(name: str, v: Union[int, str], hi: int) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise TypeError(f"{name}=: expected an int, got {v!r}")
    if isinstance(v, int) and not 1 <= v <= hi:
        raise ValueError(f"{name}=: expected from 1 to {hi}, got {v}")
    return _no_nul(name, str(v))


def _duration(name: str, v: Duration, zero_ok: bool = False) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise TypeError(f"{name}=: expected seconds as a number or a duration string, got {v!r}")
    if isinstance(v, str):
        return _no_nul(name, v)
    if v != v or v < 0 or (v == 0 and not zero_ok) or v > DURATION_MAX_MS / 1000:
        lo = "from 0 to" if zero_ok else "more than 0 and at most"
        raise ValueError(f"{name}=: expected seconds {lo} 366 days "
                         f"({DURATION_MAX_MS // 1000}), got {v}")
    ms = int(round(v * 1000))
    if v > 0 and ms == 0:
        ms = 1  # never turn a tiny positive duration into 0 (which may mean "at once")
    return f"{ms}ms"


def _percent(name: str, v: Percent) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise TypeError(f"{name}=: expected a percentage of one core as int, got {v!r}")
    if isinstance(v, int):
        if not 1 <= v <= CPU_MAX:
            raise ValueError(f"{name}=: expected a percentage of one core from 1 to "
                             f"{CPU_MAX}, got {v}")
        return f"{v}%"
    return _no_nul(name, v)


def _paths(name: str, v: Union[PathArg, Sequence[PathArg], None]) -> List[str]:
    if v is None:
        return []
    if isinstance(v, (str, os.PathLike)):
        v = [v]
    out = []
    for p in v:
        s = os.fspath(p)
        if not isinstance(s, str) or s == "":
            raise ValueError(f"{name}=: expected non-empty paths, got {p!r}")
        out.append(_no_nul(name, s))
    return out


def _words(name: str, v: Union[str, Sequence[str], None]) -> List[str]:
    if v is None:
        return []
    if isinstance(v, str):
        v = [v]
    out = []
    for w in v:
        if not isinstance(w, str) or w == "":
            raise ValueError(f"{name}=: expected non-empty strings, got {w!r}")
        out.append(_no_nul(name, w))
    return out


def build(
    argv: Sequence[Union[str, "os.PathLike[str]"]],
    *,
    memory: Optional[Size] = None,
    cpu: Optional[Percent] = None,
    pids: Optional[Union[int, str]] = None,
    disk: Optional[Size] = None,
    timeout: Optional[Duration] = None,
    grace: Optional[Duration] = None,
    cpu_time: Optional[Duration] = None,
    net: Optional[str] = None,
    allow: Union[str, Sequence[str], None] = None,
    fs: Optional[str] = None,
    rw: Union[PathArg, Sequence[PathArg], None] = None,
    ro: Union[PathArg, Sequence[PathArg], None] = None,
    env: Optional[EnvArg] = None,
    env_clear: bool = False,
    env_deny: Union[str, Sequence[str], None] = None,
    cwd: Optional[PathArg] = None,
    input: Union[bytes, str, None] = None,
    output_limit: Optional[Size] = None,
    profile: Optional[str] = None,
    fallback: bool = False,
    no_cgroup: bool = False,
    extra_args: Sequence[str] = (),
    base_env: Optional[Mapping[str, str]] = None,
    cli_has_env: bool = True,
) -> Invocation:
    """Map keyword arguments to ``sandcap run`` options (see :func:`sandcap.run`).

    ``base_env`` is the environment sandcap would otherwise inherit (default
    ``os.environ``); ``cli_has_env`` says whether this sandcap knows ``--env``.
    """
    if isinstance(argv, (str, bytes)):
        raise TypeError("argv: expected a sequence of arguments, not a single string")
    command = [os.fspath(a) for a in argv]
    if not command or any(not isinstance(a, str) for a in command):
        raise ValueError("argv: expected a non-empty sequence of str (or path) arguments")
    if command[0] == "":
        raise ValueError("argv: the command name is empty")
    for a in command:
        _no_nul("argv", a)

    o: List[str] = []

    def opt(name: str, value: Optional[str] = None) -> None:
        o.append(f"--{name}" if value is None else f"--{name}={value}")

    if profile is not None:
        opt("profile", _words("profile", profile)[0])
    if memory is not None:
        opt("memory", _size("memory", memory))
    if cpu is not None:
        opt("cpu", _percent("cpu", cpu))
    if pids is not None:
        opt("pids", _count("pids", pids, PIDS_MAX))
    if disk is not None:
        opt("disk", _size("disk", disk))
    if timeout is not None:
        opt("timeout", _duration("timeout", timeout))
    if grace is not None:
        opt("grace", _duration("grace", grace, zero_ok=True))
    if cpu_time is not None:
        opt("cpu-time", _duration("cpu_time", cpu_time))
    if net is not None:
        opt("net", _words("net", net)[0])
    for a in _words("allow", allow):
        opt("allow", a)
    if fs is not None:
        opt("fs", _words("fs", fs)[0])
    for p in _paths("rw", rw):
        opt("rw", p)
    for p in _paths("ro", ro):
        opt("ro", p)
    if output_limit is not None:
        opt("output-limit", _size("output_limit", output_limit))
    if cwd is not None:
        opt("chdir", _paths("cwd", cwd)[0])
    if fallback:
        opt("fallback")
    if no_cgroup:
        opt("no-cgroup")

    # Environment: names on the command line, values (which may be secrets) in sandcap's
    # environment, which it passes on to the command.
    child_env: Optional[Dict[str, str]] = None
    if env_clear:
        opt("env-clear")
    for g in _words("env_deny", env_deny):
        opt("env-deny", g)
    if env is not None:
        base = dict(os.environ if base_env is None else base_env)
        items: List[Tuple[str, Optional[str]]]
        if isinstance(env, Mapping):
            items = list(env.items())
        elif isinstance(env, str):
            raise TypeError("env: expected a mapping or a sequence of names, not a string")
        else:
            items = [(n, None) for n in env]
        for name, value in items:
            if not isinstance(name, str) or not _ENV_NAME.match(name):
                raise ValueError(f"env: {name!r} is not a valid variable name")
            if value is not None and not isinstance(value, str):
                raise TypeError(f"env: value of {name} must be str or None, got {value!r}")
            if value is not None:
                _no_nul(f"env {name}", value)
            if value is not None and _SELF_AFFECTING.match(name):
                opt("env", f"{name}={value}")
                continue
            if value is not None:
                base[name] = value
            # Without --env (an older sandcap) and without env_clear, the whole environment
            # reaches the command anyway: setting the value is all there is to do.
            if cli_has_env or env_clear:
                opt("env", name)
        child_env = base

    for a in extra_args:
        if not isinstance(a, str):
            raise TypeError(f"extra_args: expected str, got {a!r}")
        o.append(_no_nul("extra_args", a))

    data: Optional[bytes]
    if input is None:
        data = None
    elif isinstance(input, str):
        data = input.encode()
    elif isinstance(input, (bytes, bytearray, memoryview)):
        data = bytes(input)
    else:
        raise TypeError(f"input: expected bytes or str, got {type(input).__name__}")

    used = tuple(w.split("=", 1)[0] for w in o if w.startswith("--"))
    return Invocation(options=o, command=command, env=child_env, input=data, used=used)
