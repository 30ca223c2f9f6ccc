"""The pure parts: option mapping (sandcap/_options.py) and report parsing (_result.py)."""

from __future__ import annotations

import json
import os
import pickle
import sys

import pytest

import sandcap
from sandcap import _options, _result


def build(**kw):
    return _options.build(["cmd", "arg"], base_env={"PATH": "/bin"}, **kw)


def test_each_option_is_one_word():
    inv = build(memory="64M", cpu=150, pids=32, disk=1 << 20, timeout=1.5, grace=0,
                cpu_time="2s", net="none", allow=["a.example:443", "*.b.example"],
                fs="strict", rw=["/tmp/x"], ro="/etc", env_clear=True,
                env_deny="*TOKEN*", cwd="@workspace", output_limit="1M", profile="p",
                fallback=True, no_cgroup=True)
    assert inv.options == [
        "--profile=p", "--memory=64M", "--cpu=150%", "--pids=32", "--disk=1048576",
        "--timeout=1500ms", "--grace=0ms", "--cpu-time=2s", "--net=none",
        "--allow=a.example:443", "--allow=*.b.example", "--fs=strict", "--rw=/tmp/x",
        "--ro=/etc", "--output-limit=1M", "--chdir=@workspace", "--fallback",
        "--no-cgroup", "--env-clear", "--env-deny=*TOKEN*",
    ]
    assert inv.command == ["cmd", "arg"] and inv.env is None and inv.input is None


def test_values_starting_with_a_dash_stay_values():
    inv = build(rw="-rf", allow="--evil")
    assert inv.options == ["--allow=--evil", "--rw=-rf"]


def test_env_values_travel_in_the_environment():
    inv = build(env={"A": "secret", "B": None, "LD_PRELOAD": "/x.so"})
    assert inv.options == ["--env=A", "--env=B", "--env=LD_PRELOAD=/x.so"]
    assert inv.env == {"PATH": "/bin", "A": "secret"}
    assert all("secret" not in o for o in inv.options)
    inv = build(env=["A", "B"])
    assert inv.options == ["--env=A", "--env=B"]


def test_env_without_cli_support_and_without_clear_only_sets_values():
    inv = _options.build(["c"], env={"A": "1", "B": None}, base_env={}, cli_has_env=False)
    assert inv.options == [] and inv.env == {"A": "1"}
    inv = _options.build(["c"], env={"A": "1"}, env_clear=True, base_env={},
                         cli_has_env=False)
    assert inv.options == ["--env-clear", "--env=A"]  # sandcap refuses what it lacks


@pytest.mark.parametrize("kw", [
    {"memory": 0}, {"memory": -1}, {"pids": 0}, {"timeout": -1}, {"timeout": float("nan")},
    {"cpu": 0}, {"env": {"A=B": "1"}}, {"env": {"": "1"}}, {"rw": [""]},
    {"memory": "64M\0"}, {"env": {"A": "x\0y"}}, {"allow": [""]},
])
def test_bad_values(kw):
    with pytest.raises(ValueError):
        build(**kw)


DAYS_366 = 366 * 24 * 3600


@pytest.mark.parametrize("kw", [
    {"timeout": 0}, {"cpu_time": 0}, {"timeout": 0.0}, {"timeout": DAYS_366 + 0.01},
    {"cpu_time": DAYS_366 + 1}, {"grace": -1}, {"grace": DAYS_366 + 1},
    {"memory": (1 << 60) + 1}, {"disk": 0}, {"disk": (1 << 60) + 1},
    {"output_limit": 0}, {"output_limit": (1 << 60) + 1}, {"cpu": 102401}, {"cpu": -5},
    {"pids": 4194305}, {"pids": -1},
])
def test_out_of_sandcaps_range_names_the_argument(kw):
    # sandcap refuses these too (test_run.py checks the same bounds against it); here the
    # caller learns which Python argument was wrong.
    (name,) = kw
    with pytest.raises(ValueError, match=f"^{name}=: expected"):
        build(**kw)


def test_the_ends_of_sandcaps_ranges_are_accepted():
    inv = build(timeout=DAYS_366, cpu_time=0.001, grace=0, memory=1 << 60, disk=1,
                output_limit=1, cpu=102400, pids=4194304)
    assert inv.options == [
        "--memory=1152921504606846976", "--cpu=102400%", "--pids=4194304", "--disk=1",
        "--timeout=31622400000ms", "--grace=0ms", "--cpu-time=1ms", "--output-limit=1",
    ]


@pytest.mark.parametrize("kw", [
    {"memory": True}, {"memory": 1.5}, {"timeout": [1]}, {"env": "A"}, {"input": 3},
    {"env": {"A": 3}},
])
def test_bad_types(kw):
    with pytest.raises(TypeError):
        build(**kw)


@pytest.mark.parametrize("argv", [[], [""], ["a\0b"]])
def test_bad_argv(argv):
    with pytest.raises(ValueError):
        _options.build(argv)


def test_argv_string_is_refused():
    with pytest.raises(TypeError):
        _options.build("ls -l")


def test_tiny_durations_do_not_become_zero():
    assert build(timeout=0.0001).options == ["--timeout=1ms"]
    assert build(grace=0).options == ["--grace=0ms"]


def test_input():
    assert build(input="é").input == "é".encode()
    assert build(input=b"\0").input == b"\0"


REPORT = {"sandcap_report": 1, "version": "0.1.0", "mode": "rlimit", "id": "1-a",
          "command": ["x"], "verdict": "memory", "limits_hit": ["memory"], "exit_code": None,
          "signal": 9, "sandcap_exit": 137, "message": "m", "limits": {},
          "enforcement": {"memory": "cgroup"}, "usage": {"wall_ms": 1}}


def test_result_from_report():
    r = _result.from_report(_result.parse_report(json.dumps(REPORT).encode()), b"o", b"e")
    assert (r.verdict, r.exit_code, r.signal, r.limits_hit, r.returncode) == \
        ("memory", None, 9, ("memory",), 137)
    assert (r.mode, r.message, r.enforcement, r.ok) == ("rlimit", "m", {"memory": "cgroup"},
                                                         False)
    assert _result.Result.from_dict(json.loads(json.dumps(r.to_dict()))) == r
    assert pickle.loads(pickle.dumps(r)) == r


@pytest.mark.parametrize("out", [b"\xff\x00", bytes(range(256)), "h\u00e9llo\n".encode(),
                                 b"", b"\xed\xa0\x80"],
                         ids=["ff00", "all-bytes", "utf8", "empty", "surrogate"])
def test_to_dict_round_trip_is_lossless(out):
    # The Celery task's result is to_dict(): it must bring back the command's exact bytes.
    r = _result.from_report(REPORT, out, b"err \xc3")
    d = json.loads(json.dumps(r.to_dict()))
    back = _result.Result.from_dict(d)
    assert (back.stdout, back.stderr) == (out, b"err \xc3") and back == r
    assert d["stdout"] == out.decode("utf-8", "replace")
    assert d["stderr"] == "err \ufffd" and d["stderr_base64"] == "ZXJyIMM="
    try:
        out.decode("utf-8")
    except UnicodeDecodeError:
        assert "stdout_base64" in d
    else:
        assert "stdout_base64" not in d


def test_from_dict_reads_dicts_without_base64():
    r = _result.Result.from_dict({"report": REPORT, "stdout": "h\u00e9", "stderr": ""})
    assert (r.stdout, r.stderr) == ("h\u00e9".encode(), b"")
    with pytest.raises(ValueError, match="stdout_base64"):
        _result.Result.from_dict({"report": REPORT, "stdout": "", "stdout_base64": "*"})


def test_repr_abbreviates_output():
    r = _result.from_report(REPORT, b"x" * (1 << 20), b"short")
    s = repr(r)
    assert len(s) < 400
    assert "stdout=<1048576 bytes: b'xxxx" in s and "stderr=b'short'" in s
    assert "verdict='memory'" in s and "limits_hit=('memory',)" in s


def test_result_is_explicitly_unhashable():
    r = _result.from_report(REPORT, b"", b"")
    with pytest.raises(TypeError, match="unhashable type: 'Result'"):
        hash(r)


def test_setup_error_raises_with_report():
    rep = dict(REPORT, verdict="setup-error", sandcap_exit=125, message="refused")
    with pytest.raises(sandcap.SandcapError) as ei:
        _result.from_report(rep, b"", b"x")
    e = pickle.loads(pickle.dumps(ei.value))
    assert (e.returncode, e.report["message"], e.stderr, str(e)) == \
        (125, "refused", b"x", "sandcap: refused")


@pytest.mark.parametrize("data", [
    b"", b"[]", b"{}", b"not json", json.dumps(dict(REPORT, sandcap_report=2)).encode(),
    b"\xff", json.dumps({k: v for k, v in REPORT.items() if k != "verdict"}).encode(),
])
def test_bad_reports(data):
    with pytest.raises(ValueError):
        _result.parse_report(data)


def test_bad_field_types():
    with pytest.raises(ValueError):
        _result.from_report(dict(REPORT, exit_code="1"), b"", b"")
    with pytest.raises(ValueError):
        _result.from_report(dict(REPORT, limits_hit="memory"), b"", b"")


def test_versions_agree():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(here, "_build"))
    try:
        import sandcap_build
    finally:
        sys.path.pop(0)
    with open(os.path.join(here, "pyproject.toml")) as f:
        assert f'version = "{sandcap.__version__}"' in f.read()
    assert sandcap_build.VERSION == sandcap.__version__


def test_run_run_async_and_build_take_the_same_options():
    # Three typed declarations of one option set (Python 3.9 has no ParamSpec to share
    # them): an option added to one and not the others fails here, not in a user's call.
    import inspect

    def params(f, drop=()):
        return [(p.name, p.kind, p.default, p.annotation)
                for p in inspect.signature(f).parameters.values() if p.name not in drop]

    run = params(sandcap.run)
    assert params(sandcap.run_async) == run
    assert params(_options.build, drop=("base_env", "cli_has_env")) == \
        [p for p in run if p[0] not in ("sandcap", "kill_grace")]
