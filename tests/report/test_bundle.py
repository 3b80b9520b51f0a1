#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`assay-cli export --format bundle`: the reproducible bundle of a real session (recorded
model, bubblewrap), unpacked and checked (entries, modes and dates, the hashes with
sha256sum -c, the package versions against dpkg-query on the sandbox's tree, the cells'
text as Python literals), then analysis.py run in the sandbox image with Docker (or, when
Docker does not answer, under bubblewrap in the image's tree) and with the host's python3,
its printed output compared with what the session recorded. Also: without --with-data no
data; --strict and a changed dataset; a failing cell; an unwritable folder leaves nothing.

    test_bundle.py ASSAY_CLI SOURCE_DIR

Prints TAP."""
import ast
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import zipfile

CLI = sys.argv[1]
SRC = sys.argv[2]
PY = "/usr/bin/python3"   # Debian's, with python3-pandas and python3-matplotlib
QUESTION = "Sales <b>total</b> [x](javascript:alert(1)) — итог?"
FOLDER = "Sales-b-total-b-x-javascript-alert-1-итог"
CELL_HEADER = re.compile(r"^# ---- cell (\S+): (.*)$")

n = 0
failed = 0


def report(ok, name, detail=""):
    global n, failed
    n += 1
    failed += 0 if ok else 1
    print(("ok" if ok else "not ok") + " %d - %s" % (n, name))
    if not ok and detail:
        for line in str(detail).splitlines()[-40:]:
            print("#   " + line)
    sys.stdout.flush()


def skip(name, why):
    global n
    n += 1
    print("ok %d - %s # SKIP %s" % (n, name, why))


def check(name, func):
    try:
        func()
        report(True, name)
    except Exception as exc:  # an assertion or a failed command: the reason goes in the log
        import traceback
        report(False, name, "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))


def run(args, **kwargs):
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    kwargs.setdefault("timeout", 300)
    return subprocess.run(args, **kwargs)


work = tempfile.mkdtemp(prefix="assay-bundle-")
# The export's private files go here, to see that none is left behind.
tmp = os.path.join(work, "tmp")
os.mkdir(tmp)
env = dict(os.environ, TMPDIR=tmp)
data = os.path.join(work, "in")
os.mkdir(data)
with open(os.path.join(data, "sales.csv"), "w") as f:
    f.write("region,amount\nnorth,10\nsouth,20\neast,30\n")
# Shown to the sandbox as regions_q3.csv: the bundle names its file so.
with open(os.path.join(data, "regions:q3.csv"), "w") as f:
    f.write("region,manager\nnorth,Ann\nsouth,Bob\n")
session = os.path.join(work, "session")


def export(out, *extra):
    return run([CLI, "export", session, "-o", out] + list(extra), env=env)


def unpack(path, into):
    with zipfile.ZipFile(path) as archive:
        archive.extractall(into)
    return os.path.join(into, FOLDER)


def leftovers():
    return os.listdir(tmp)


# ---- the session -------------------------------------------------------------------------
made = run([CLI, "ask", "--backend", "bwrap", "--provider", "recorded",
            "--transcript", os.path.join(SRC, "report", "bundle-transcript.json"),
            "--data", os.path.join(data, "sales.csv"), "--data", os.path.join(data, "regions:q3.csv"),
            "--yes", "--no-check-numbers", "--out", session, QUESTION], timeout=600)
report(made.returncode == 0, "the session runs", made.stdout + made.stderr)
if made.returncode != 0:
    print("1..%d" % n)
    sys.exit(1)
record = json.load(open(os.path.join(session, "session.json")))
cells = {c["id"]: c for c in record["cells"]}
good = [c for c in record["cells"] if c.get("status") == "ok"]


def recorded_output(cell):
    """What the script prints for CELL: its stdout, then the text of a last expression."""
    text = ""
    for output in cell["outputs"]:
        if output.get("output_type") == "stream" and output.get("name") == "stdout":
            text += output["text"]
        elif output.get("output_type") == "execute_result":
            text += output["data"]["text/plain"] + "\n"
    return text


def check_session():
    assert [c["id"] for c in good] == ["c1", "c2", "c3"], [(c["id"], c.get("status")) for c in record["cells"]]
    assert cells["c4"]["status"] == "error", cells["c4"]
    assert "total: 60" in recorded_output(cells["c1"]), cells["c1"]["outputs"]
    assert recorded_output(cells["c3"]).endswith("20.0\n"), cells["c3"]["outputs"]


check("the session has three cells that succeeded and one that failed", check_session)

# ---- with the data -------------------------------------------------------------------------
bundle = os.path.join(work, "with.zip")
done = export(bundle, "--format", "bundle", "--with-data")
report(done.returncode == 0 and os.path.isfile(bundle), "export --format bundle --with-data",
       done.stdout + done.stderr)
top = unpack(bundle, os.path.join(work, "with"))
report(leftovers() == [], "no private file is left behind", leftovers())


def check_entries():
    with zipfile.ZipFile(bundle) as archive:
        infos = archive.infolist()
    names = sorted(i.filename for i in infos)
    want = sorted(FOLDER + "/" + name for name in (
        "notebook.ipynb", "report.pdf", "analysis.py", "datasets.sha256", "environment.txt",
        "README.md", "data/sales.csv", "data/regions_q3.csv"))
    assert names == want, names
    created = time.localtime(record["created_at"] / 1e6)
    for info in infos:
        name = info.filename
        assert not name.startswith("/") and "\\" not in name and ".." not in name.split("/"), name
        assert info.flag_bits & 0x800, "not marked UTF-8: " + name
        mode = info.external_attr >> 16
        assert stat.S_ISREG(mode) and stat.S_IMODE(mode) == 0o644, (name, oct(mode))
        # DOS time: local, to two seconds.
        want_time = tuple(created[:5]) + (created[5] // 2 * 2,)
        assert info.date_time == want_time, (name, info.date_time, want_time)


check("the entries: one folder, clean names, 0644, dated as the session", check_entries)


def check_hashes():
    lines = open(os.path.join(top, "datasets.sha256")).read().splitlines()
    assert lines == ["%s  data/%s" % (d["sha256"], n) for d, n in
                     zip(record["datasets"], ["sales.csv", "regions_q3.csv"])], lines
    checked = run(["sha256sum", "-c", "datasets.sha256"], cwd=top)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count(": OK") == 2, checked.stdout


check("datasets.sha256 holds the recorded hashes and sha256sum -c passes", check_hashes)

status = json.loads(run([CLI, "sandbox", "status", "--json"], env=env).stdout)
tree = status["bwrap"]["tree"]


def check_environment():
    text = open(os.path.join(top, "environment.txt")).read()
    versions = dict(line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#"))
    for package in ("python3-pandas", "python3-numpy", "python3-matplotlib", "fonts-dejavu-core"):
        want = run(["dpkg-query", "--admindir=" + os.path.join(tree, "var", "lib", "dpkg"),
                    "-W", "-f=${Version}", package]).stdout
        assert want and versions.get(package) == want, (package, versions.get(package), want)
    # python3 -> python3.11: that package's version, without epoch and Debian revision.
    interpreter = os.readlink(os.path.join(tree, "usr", "bin", "python3"))
    want = run(["dpkg-query", "--admindir=" + os.path.join(tree, "var", "lib", "dpkg"),
                "-W", "-f=${Version}", interpreter]).stdout
    assert want and versions["python"] == want.split(":")[-1].rsplit("-", 1)[0], (versions["python"], want)
    assert re.match(r"^\d+\.\d+\.\d+$", versions["python"]), versions["python"]
    assert os.path.basename(tree)[len("tree-"):] in text, text[:300]


check("environment.txt: the versions dpkg-query reads in the sandbox's tree", check_environment)


def check_other_writers():
    assert open(os.path.join(top, "report.pdf"), "rb").read(5) == b"%PDF-"
    text = run(["pdftotext", os.path.join(top, "report.pdf"), "-"]).stdout
    assert "total: 60" in text, text[:500]
    notebook = json.load(open(os.path.join(top, "notebook.ipynb")))
    sources = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    assert cells["c2"]["code"] in sources, sources


check("report.pdf and notebook.ipynb are the other writers' exports", check_other_writers)


def check_literals():
    script = open(os.path.join(top, "analysis.py"), encoding="utf-8").read()
    tree_ = ast.parse(script)
    values = {}
    for node in tree_.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("CELLS", "DATASETS", "TITLE"):
                values[node.targets[0].id] = ast.literal_eval(node.value)
    # Exactly the session's text, as data: the code and the hostile description round-trip.
    assert values["CELLS"] == [(c["id"], c["description"], c["code"]) for c in good], values["CELLS"]
    assert values["TITLE"] == record["title"], values["TITLE"]
    assert [d[1] for d in values["DATASETS"]] == ["data/sales.csv", "data/regions_q3.csv"], values["DATASETS"]
    # The failing cell is not in it; no invisible character is written as itself.
    assert "no_such_column" not in script
    assert "\u202e" not in script and "\\u202e" in script
    # The description's line break and quotes did not end a literal: nothing at module level
    # but our own statements.
    calls = [node for node in tree_.body if isinstance(node, ast.Expr)]
    assert all(isinstance(c.value, ast.Call) and ast.unparse(c.value) == "sys.exit(main())"
               for c in calls if not isinstance(c.value, ast.Constant)), [ast.unparse(c) for c in calls]


check("analysis.py holds the cells that succeeded as literals, nothing pasted", check_literals)


def check_readme():
    text = open(os.path.join(top, "README.md"), encoding="utf-8").read()
    assert "<b>" not in text and "\\<b\\>" in text, text[:400]
    assert "python3 analysis.py --data-dir data" in text
    assert "sha256sum -c datasets.sha256" in text
    assert re.search(r"docker run --rm --network none -v \"\$PWD\":/bundle -w /bundle "
                     r"assay-sandbox:[0-9a-f]{16} python3 analysis.py --data-dir data", text), text


check("README.md: the question escaped, how to run and check it", check_readme)


def split_output(stdout):
    """{cell id: its printed text} from the script's output."""
    parts, current = {}, None
    for line in stdout.splitlines(True):
        match = CELL_HEADER.match(line.rstrip("\n"))
        if match:
            current = match.group(1)
            parts[current] = ""
        elif current is not None:
            parts[current] += line
    return parts


def compare_run(result, out_dir):
    assert result.returncode == 0, result.stdout + result.stderr
    parts = split_output(result.stdout)
    assert list(parts) == ["c1", "c2", "c3"], result.stdout
    for cell in good:
        assert parts[cell["id"]] == recorded_output(cell), (cell["id"], parts[cell["id"]], recorded_output(cell))
    assert "# ---- cell c2: Chart \"\"\") import os; os.system('echo pwned') # and a CSV\n" in result.stdout
    assert "pwned\n" not in result.stdout.replace("echo pwned", "")
    for name in ("chart.png", "by_region.csv", "figure-c2-1.png"):
        path = os.path.join(out_dir, name)
        assert os.path.isfile(path) and os.path.getsize(path) > 0, (name, os.listdir(out_dir))
    with open(os.path.join(out_dir, "chart.png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert open(os.path.join(out_dir, "by_region.csv")).read() == \
        "region,amount\neast,30\nnorth,10\nsouth,20\n"


# ---- analysis.py in the sandbox image ---------------------------------------------------------
image = re.search(r"assay-sandbox:[0-9a-f]{16}", open(os.path.join(top, "README.md")).read()).group(0)
# ASSAY_TEST_NO_DOCKER=1 tries the fallback.
docker = (not os.environ.get("ASSAY_TEST_NO_DOCKER") and shutil.which("docker") is not None
          and run(["docker", "image", "inspect", image], timeout=30).returncode == 0)
sandboxed = shutil.copytree(top, os.path.join(work, "sandboxed"))
if docker:
    how = "docker " + image
    ran = run(["docker", "run", "--rm", "--network", "none", "-v", sandboxed + ":/bundle", "-w", "/bundle",
               image, "python3", "analysis.py", "--data-dir", "data", "--out", "outputs"])
else:
    # As the project's bubblewrap backend runs the kernel: the image's tree read-only as /, the
    # bundle as /workspace, no network, every namespace unshared.
    how = "bubblewrap " + tree
    ran = run(["bwrap", "--ro-bind", tree, "/", "--bind", sandboxed, "/workspace", "--chdir", "/workspace",
               "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-all", "--die-with-parent",
               "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp",
               "python3", "analysis.py", "--data-dir", "data", "--out", "outputs"])
check("analysis.py in the sandbox image (%s) prints what the session recorded, writes its files" % how,
      lambda: compare_run(ran, os.path.join(sandboxed, "outputs")))

# ---- with the host's python3, from elsewhere, into folders whose names are not plain -----------
odd = os.path.join(work, "odd dir's {x}")
os.mkdir(odd)
shutil.copytree(os.path.join(top, "data"), os.path.join(odd, "data"))
if run([PY, "-c", "import pandas, matplotlib"]).returncode == 0:
    host = run([PY, os.path.join(top, "analysis.py"), "--data-dir", os.path.join(odd, "data"),
                "--out", os.path.join(odd, "out %s")], cwd=work)
    check("analysis.py with the host's python3, folders with spaces, quotes and braces",
          lambda: compare_run(host, os.path.join(odd, "out %s")))
else:
    skip("analysis.py with the host's python3", "no pandas or matplotlib in " + PY)


def check_changed_data():
    copy = shutil.copytree(top, os.path.join(work, "changed"))
    with open(os.path.join(copy, "data", "sales.csv"), "a") as f:
        f.write("west,5\n")
    strict = run([PY, "analysis.py", "--strict", "--out", "o1"], cwd=copy)
    assert strict.returncode == 3, (strict.returncode, strict.stdout, strict.stderr)
    assert "sales.csv" in strict.stderr and "SHA-256" in strict.stderr, strict.stderr
    assert "# ---- cell" not in strict.stdout, strict.stdout
    loose = run([PY, "analysis.py", "--out", "o2"], cwd=copy)
    assert loose.returncode == 0, loose.stdout + loose.stderr
    assert "warning" in loose.stderr and "total: 65" in loose.stdout, (loose.stdout, loose.stderr)
    checked = run(["sha256sum", "-c", "datasets.sha256"], cwd=copy)
    assert checked.returncode != 0 and "data/sales.csv: FAILED" in checked.stdout, checked.stdout


if run([PY, "-c", "import pandas, matplotlib"]).returncode == 0:
    check("a changed dataset: a warning, or exit 3 with --strict; sha256sum -c fails", check_changed_data)
else:
    skip("a changed dataset", "no pandas in " + PY)


def check_failing_cell():
    copy = shutil.copytree(top, os.path.join(work, "failing"))
    with open(os.path.join(copy, "data", "sales.csv"), "w") as f:
        f.write("region,value\nnorth,1\n")
    failing = run([PY, "analysis.py"], cwd=copy)
    assert failing.returncode == 1, (failing.returncode, failing.stdout, failing.stderr)
    assert "cell c1 failed: KeyError: 'amount'" in failing.stderr, failing.stderr
    assert 'File "<cell c1>", line 3' in failing.stderr, failing.stderr
    assert "# ---- cell c2" not in failing.stdout, failing.stdout


if run([PY, "-c", "import pandas, matplotlib"]).returncode == 0:
    check("a cell that fails stops the script with exit 1 and names the cell", check_failing_cell)
else:
    skip("a cell that fails", "no pandas in " + PY)

# ---- only what the analyst approved runs (issue 33) -----------------------------------------
def check_unapproved():
    # A record whose second cell ran in OpenAI's hosted interpreter and whose third was
    # rejected (a record anyone may edit): their code is comments in analysis.py and in the
    # notebook, never code; the script runs without them.
    copy = shutil.copytree(session, os.path.join(work, "unapproved-session"))
    path = os.path.join(copy, "session.json")
    edited = json.load(open(path))
    marker = os.path.join(work, "unapproved-ran")
    for cell in edited["cells"]:
        if cell["id"] == "c2":
            cell["decision"] = "hosted"
        if cell["id"] == "c3":
            cell["decision"] = "rejected"
            cell["code"] = "open(%r, 'w').write('ran')\nprint('\\r# not a comment')" % marker
    json.dump(edited, open(path, "w"))
    out = os.path.join(work, "unapproved.zip")
    done = run([CLI, "export", copy, "--format", "bundle", "--with-data", "-o", out], env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    where = unpack(out, os.path.join(work, "unapproved"))
    script = open(os.path.join(where, "analysis.py"), encoding="utf-8").read()
    tree = ast.parse(script)
    cells_list = [node for node in tree.body if isinstance(node, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "CELLS" for t in node.targets)]
    ids = [element.elts[0].value for element in cells_list[0].value.elts]
    assert ids == ["c1"], ids
    assert "# Cell c2 is not run by this script. It ran in OpenAI's hosted code interpreter" in script, script
    assert "# Cell c3 is not run by this script. The analyst did not approve it" in script, script
    for line in script.splitlines():
        if marker in line or "not a comment" in line:
            assert line.startswith("#     "), line
    notebook = json.load(open(os.path.join(where, "notebook.ipynb"), encoding="utf-8"))
    sources = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    hostile = [src for src in sources if marker in src]
    assert hostile and all(all(l.startswith("# ") for l in src.split("\n")) for src in hostile), hostile
    if run([PY, "-c", "import pandas, matplotlib"]).returncode == 0:
        ran = run([PY, "analysis.py", "--out", "o"], cwd=where)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert "# ---- cell c1" in ran.stdout and "# ---- cell c2" not in ran.stdout, ran.stdout
        assert not os.path.exists(marker), "the rejected cell ran"


check("cells nobody approved (hosted, rejected) are comments in analysis.py and the notebook, never run",
      check_unapproved)

# ---- without the data ----------------------------------------------------------------------
plain = os.path.join(work, "plain.zip")
done = export(plain)   # the extension says which format


def check_without_data():
    assert done.returncode == 0, done.stdout + done.stderr
    with zipfile.ZipFile(plain) as archive:
        names = archive.namelist()
    assert names and all(name.startswith(FOLDER + "/") for name in names), names
    assert not [name for name in names if "/data/" in name], names
    readme = zipfile.ZipFile(plain).read(FOLDER + "/README.md").decode()
    assert "--with-data" in readme, readme
    assert leftovers() == [], leftovers()


check("without --with-data (and .zip for the format): no data in the bundle", check_without_data)

# ---- an unwritable folder --------------------------------------------------------------------
def check_unwritable():
    blocked = os.path.join(work, "blocked")
    os.mkdir(blocked)
    os.chmod(blocked, 0o555)
    not_a_folder = os.path.join(work, "a-file")
    open(not_a_folder, "w").close()
    targets = [os.path.join(not_a_folder, "x.zip")]
    # Root writes into a 0555 folder: /proc refuses everyone.
    targets.append(os.path.join(blocked, "x.zip") if os.geteuid() != 0 else "/proc/x.zip")
    for target in targets:
        failed_export = export(target, "--with-data")
        assert failed_export.returncode == 1, (target, failed_export.returncode, failed_export.stderr)
        assert failed_export.stderr.strip(), target
        assert not os.path.exists(target), target
    assert os.listdir(blocked) == [], os.listdir(blocked)
    assert leftovers() == [], leftovers()


check("an unwritable folder: exit 1, the reason, nothing left anywhere", check_unwritable)

print("1..%d" % n)
shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failed else 0)
