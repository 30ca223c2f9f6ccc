"""A PEP 517 build backend in the standard library only, so that ``pip install ./python``
works offline.

Why not setuptools: with build isolation (pip's default) pip must fetch setuptools from an
index, which fails offline; Debian's setuptools without build isolation also needs the
``wheel`` package (python3-wheel) for ``bdist_wheel``, absent from a fresh venv.  A pure
Python package of a few modules needs neither: a wheel is a zip file with three metadata
files (PEP 427, PEP 376 RECORD), an sdist a tar.gz of the source (PEP 517/625).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import zipfile

NAME = "sandcap"
VERSION = "0.1.0"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(HERE, "src", NAME)
TAG = "py3-none-any"
DIST_INFO = f"{NAME}-{VERSION}.dist-info"
# pyproject.toml's [project.scripts], as installers read them (the entry points format).
ENTRY_POINTS = "[console_scripts]\nsandcap-mcp = sandcap.mcp:main\n"


def _metadata() -> str:
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {NAME}\n"
        f"Version: {VERSION}\n"
        "Summary: Run commands under sandcap's enforced limits and get its verdict as a "
        "Python object\n"
        "Requires-Python: >=3.9\n"
        "Classifier: Programming Language :: Python :: 3\n"
        "Classifier: Operating System :: POSIX :: Linux\n"
        "Classifier: Typing :: Typed\n"
        "Provides-Extra: dask\n"
        "Requires-Dist: distributed; extra == \"dask\"\n"
        "Provides-Extra: celery\n"
        "Requires-Dist: celery; extra == \"celery\"\n"
        "Description-Content-Type: text/markdown\n"
        "\n" + readme
    )


def _wheel_file() -> str:
    return f"Wheel-Version: 1.0\nGenerator: sandcap_build\nRoot-Is-Purelib: true\nTag: {TAG}\n"


def _package_files():
    for name in sorted(os.listdir(SRC)):
        if name.endswith(".py") or name == "py.typed":
            yield name


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _write_wheel(wheel_directory: str, files) -> str:
    """files: (arcname, bytes) pairs; adds the dist-info and returns the wheel's name."""
    files = list(files)
    files.append((f"{DIST_INFO}/METADATA", _metadata().encode()))
    files.append((f"{DIST_INFO}/WHEEL", _wheel_file().encode()))
    files.append((f"{DIST_INFO}/entry_points.txt", ENTRY_POINTS.encode()))
    record = [_record_line(a, d) for a, d in files] + [f"{DIST_INFO}/RECORD,,"]
    files.append((f"{DIST_INFO}/RECORD", ("\n".join(record) + "\n").encode()))
    name = f"{NAME}-{VERSION}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data in files:
            info = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    def files():
        for name in _package_files():
            with open(os.path.join(SRC, name), "rb") as f:
                yield f"{NAME}/{name}", f.read()
    return _write_wheel(wheel_directory, files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # PEP 660: a .pth file that puts src/ on sys.path.
    pth = (os.path.join(HERE, "src") + "\n").encode()
    return _write_wheel(wheel_directory, [(f"__editable__.{NAME}.pth", pth)])


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{VERSION}"
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for top in ("pyproject.toml", "README.md", "_build", "src", "tests"):
            path = os.path.join(HERE, top)
            if os.path.exists(path):
                t.add(path, arcname=f"{base}/{top}",
                      filter=lambda ti: None if "__pycache__" in ti.name else ti)
        pkg = f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n".encode()
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size = len(pkg)
        t.addfile(ti, io.BytesIO(pkg))
    return name
