# pip-index.py ROOT: a one-wheel "simple" index under ROOT (ROOT/simple/demo/...), for the
# pip-through-the-proxy tests on the host (t-net-proxy.sh) and in the VM (83-net-clients-cgroup).
import hashlib, io, os, sys, zipfile
root = sys.argv[1]
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as z:
    z.writestr("demo/__init__.py", "")
    z.writestr("demo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n")
    z.writestr("demo-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("demo-1.0.dist-info/RECORD", "")
data = buf.getvalue()
open(os.path.join(root, "simple/demo/demo-1.0-py3-none-any.whl"), "wb").write(data)
h = hashlib.sha256(data).hexdigest()
open(os.path.join(root, "simple/demo/index.html"), "w").write(
    '<a href="demo-1.0-py3-none-any.whl#sha256=%s">demo-1.0-py3-none-any.whl</a>\n' % h)
open(os.path.join(root, "simple/index.html"), "w").write('<a href="demo/">demo</a>\n')
