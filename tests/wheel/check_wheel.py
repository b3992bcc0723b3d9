"""The wheel as pip users get it: packaging/build-wheel.sh builds it, then it is installed into fresh
virtual environments of the system's Python, and there, from an empty folder with no build tree on
any path, a user's commands run:

- torch pinned + the wheel: `torchir --version`; every ELF file of the installed package resolves,
  under ldd, inside the environment or to a library the wheel's manylinux policy lets the base
  system provide (C/C++ runtime, X11, GL); `torchir_studio.run(ep, inputs)` equals
  `ep.module()(*inputs)` bit for bit; `torchir_studio.compare` against float64 names the
  cancellation fixture's known divergence (`sub`); a bad path raises TorchirError with the command's
  one-line error; `torchir_studio.open(ep)` shows the studio's window under Xvfb (OUT/studio.png);
- torch of another version (an older torch's environment on the path) + the wheel: `torchir` and
  `import torchir_studio` say in one line which torch is there and which is needed;
- no torch + the wheel: the same, saying there is none;
- a Debian 12 root with no Qt and no Graphviz, only Python and the base system's X11 and GL
  (bare_system.sh; where root and the root's tarball are there): the commands and the studio.

Usage: check_wheel.py --root REPO --fixtures DIR --out DIR [--other-torch VENV]
Exit 77 (skipped) only where the wheel's build tools cannot be installed.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

SYSTEM_PYTHON = "/usr/bin/python3"


def fail(message):
    print(f"check_wheel: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def clean_env(venv, **extra):
    """What a shell in the activated environment has: its bin first, nothing of ours."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TORCHIR_", "PYTHON", "LD_", "VIRTUAL_ENV", "QT_"))}
    env["PATH"] = f"{venv}/bin:/usr/local/bin:/usr/bin:/bin"
    env["VIRTUAL_ENV"] = venv
    env.update(extra)
    return env


def run(cmd, cwd, env, expect=0, timeout=900):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if expect is not None and p.returncode != expect:
        fail(f"{' '.join(cmd)} exited {p.returncode} (expected {expect}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p


def build_wheel(root, out):
    p = subprocess.run([f"{root}/packaging/build-wheel.sh", f"{out}/dist"], capture_output=True, text=True)
    if p.returncode != 0:
        if "Could not find a version" in p.stderr or "No matching distribution" in p.stderr:
            print(f"check_wheel: skipped: the wheel's build tools cannot be installed:\n{p.stderr[-2000:]}")
            sys.exit(77)
        fail(f"build-wheel.sh failed:\n{p.stderr[-6000:]}")
    return p.stdout.strip().splitlines()[-1]


def fill_wheelhouse(venv, torch_pin, cwd):
    """The wheels of the pinned torch and of what the wheel needs besides, downloaded once into the
    cache (a few GB: torch's CUDA libraries come as wheels of their own); installs then need no index."""
    cache = os.path.expanduser(os.environ.get("TORCHIR_CACHE", "~/.cache/torchir"))
    wheelhouse = f"{cache}/wheelhouse/torch-{torch_pin}"
    stamp = f"{wheelhouse}/.complete"
    if not os.path.exists(stamp):
        os.makedirs(wheelhouse, exist_ok=True)
        t0 = time.perf_counter()
        run([f"{venv}/bin/pip", "download", "-q", "-d", wheelhouse, f"torch=={torch_pin}", "safetensors", "numpy"],
            cwd, clean_env(venv), timeout=3600)
        open(stamp, "w").close()
        print(f"wheelhouse: torch=={torch_pin} and its dependencies downloaded once into {wheelhouse} "
              f"in {time.perf_counter() - t0:.0f} s")
    return wheelhouse


def make_venv(path, cwd):
    shutil.rmtree(path, ignore_errors=True)
    run([SYSTEM_PYTHON, "-m", "venv", path], cwd, None)
    return path


def site_packages(venv):
    return glob.glob(f"{venv}/lib/python3*/site-packages")[0]


def elf_files(folder):
    for dirpath, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    yield path


def system_libraries(root, wheel):
    """What the base system may provide: the wheel's manylinux policy's list (auditwheel's) and the
    X11 and GL libraries the wheel leaves to the system on purpose (packaging/wheel/system-libraries.txt)."""
    tag, whitelist = policy_whitelist(wheel)
    with open(f"{root}/packaging/wheel/system-libraries.txt") as f:
        ours = {line.strip() for line in f if line.strip() and not line.startswith("#")}
    return tag, whitelist | ours


def policy_whitelist(wheel):
    """The libraries the wheel's manylinux policy lets the base system provide (auditwheel's list)."""
    tag = re.search(r"(manylinux_\d+_\d+)_x86_64", os.path.basename(wheel))
    if not tag:
        fail(f"{os.path.basename(wheel)} has no manylinux platform tag")
    tools = os.path.expanduser(os.environ.get("TORCHIR_CACHE", "~/.cache/torchir")) + "/venv-wheelbuild"
    policy_file = glob.glob(f"{tools}/lib/python3*/site-packages/auditwheel/policy/manylinux-policy.json")[0]
    for policy in json.load(open(policy_file)):
        if policy["name"] == tag.group(1) or tag.group(1) in policy.get("aliases", []):
            return tag.group(1), set(policy["lib_whitelist"])
    fail(f"auditwheel knows no policy {tag.group(1)}")


def check_ldd(root, venv, wheel, cwd):
    """Every ELF file of the installed package: ldd finds all it needs, each direct dependency is in
    the environment or on the policy's list of base-system libraries."""
    tag, whitelist = system_libraries(root, wheel)
    sp = site_packages(venv)
    files = [f for d in ("torchir_studio", "torchir_studio.libs") for f in elf_files(os.path.join(sp, d))]
    if len(files) < 5:
        fail(f"only {len(files)} ELF files installed: {files}")
    for path in files:
        ldd = run(["ldd", path], cwd, clean_env(venv)).stdout
        if "not found" in ldd:
            fail(f"ldd {path}: {[line for line in ldd.splitlines() if 'not found' in line]}")
        resolved = dict(re.findall(r"^\s*(\S+) => (\S+)", ldd, re.M))
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]",
                            run(["readelf", "-d", path], cwd, None).stdout)
        for soname in needed:
            where = resolved.get(soname, "")
            runtime = soname.startswith("ld-linux")  # the dynamic loader itself
            if not (where.startswith(venv + "/") or soname in whitelist or runtime):
                fail(f"{os.path.relpath(path, sp)} needs {soname} from {where or '?'}: neither in the "
                     f"environment nor a base-system library ({tag}'s, X11's or GL's)")
    print(f"ldd: {len(files)} ELF files resolve inside the environment or to {tag}'s base-system libraries")


USER_SCRIPT = r"""
import os, sys, torch, torchir_studio
from torchir_studio import TorchirError

fixtures, screenshot = sys.argv[1], sys.argv[2]
assert torchir_studio.__file__.startswith(sys.prefix), torchir_studio.__file__

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.fc = torch.nn.Linear(8 * 8 * 8, 10)
    def forward(self, x):
        y = torch.nn.functional.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
        return torch.softmax(self.fc(y.flatten(1)), -1), y.mean()

torch.manual_seed(0)
net = Net().eval()
x = torch.randn(4, 3, 16, 16)
ep = torch.export.export(net, (x,))
expected = ep.module()(x)
result = torchir_studio.run(ep, (x,))
assert result["status"] == "finished", result
for i, (got, want) in enumerate(zip(result["outputs"], expected)):
    assert got.dtype == want.dtype and torch.equal(got, want), f"output {i} differs from eager"
print(f"run: {len(expected)} outputs equal to ep.module()(x) bit for bit at {result['threads']} threads")

class Sliced(torch.nn.Module):  # an int taken at run time, a float specialised on
    def forward(self, x, n: int, scale: float):
        return (x[:n] * scale).relu() + n

sliced = torch.export.export(Sliced(), (torch.randn(6, 3), 4, 0.5),
                             dynamic_shapes={"x": None, "n": torch.export.Dim.DYNAMIC, "scale": None})
args = (torch.randn(6, 3), 5, 0.5)
result = torchir_studio.run(sliced, args)
assert result["status"] == "finished", result
assert torch.equal(result["outputs"][0], sliced.module()(*args)), "the run with an int input differs from eager"
print("run: an int input given as the program takes it, equal to ep.module() bit for bit")
try:
    torchir_studio.run(sliced, (torch.randn(6, 3), 5, 0.7))
    raise AssertionError("a run took another value of a constant the program was specialised on")
except TorchirError as e:
    assert "scale" in str(e) and "0.5" in str(e) and "\n" not in str(e), str(e)
    print(f"run: another constant refused: {e}")

cancellation = torch.export.load(os.path.join(fixtures, "cancellation", "cancellation.pt2"))
compared = torchir_studio.compare(cancellation, against="float64")
first = compared["first_divergence"]
assert first is not None and first["name"] == "sub", first
print(f"compare: first divergence against {compared['reference']} at {first['name']} ({first['op']})")

try:
    torchir_studio.run(os.path.join(os.getcwd(), "no-such-program.pt2"))
    raise AssertionError("a missing program ran")
except TorchirError as e:
    assert "\n" not in str(e) and "no-such-program.pt2" in str(e), str(e)
    print(f"errors: TorchirError: {e}")

studio = torchir_studio.open(ep, screenshot=screenshot, block=True)
assert os.path.getsize(screenshot) > 0
print(f"open: the studio showed the program ({screenshot})")
"""


def start_xvfb():
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as f:
        display = f.readline().strip()
    if not display:
        fail("Xvfb did not start")
    return xvfb, f":{display}"


def check_other_torch(wheel, work, other, label, need):
    """An environment whose torch is `other` (a venv's site-packages on the path, or None for no
    torch) with the wheel installed without its dependencies."""
    venv = make_venv(f"{work}/env-{label}", work)
    if other:
        with open(f"{site_packages(venv)}/other-torch.pth", "w") as f:
            f.write(site_packages(other) + "\n")
    run([f"{venv}/bin/pip", "install", "-q", "--no-deps", wheel], work, clean_env(venv))
    env = clean_env(venv)
    for cmd in (["torchir", "--version"], ["torchir-studio", "--version"],
                [f"{venv}/bin/python", "-c", "import torchir_studio"]):
        p = run(cmd, work, env, expect=None)
        last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
        if p.returncode == 0 or f"torch {need}" not in last:
            fail(f"{label}: {' '.join(cmd)} exited {p.returncode}: {p.stderr[-1500:]}")
        if cmd[0] == "torchir" and len(p.stderr.strip().splitlines()) != 1:
            fail(f"{label}: torchir said more than one line: {p.stderr}")
        print(f"{label}: {os.path.basename(cmd[0])}: {last}")


def check_bare_system(wheel, wheelhouse, out):
    """The wheel on a Debian root with only Python and the base system's X11/GL (bare_system.sh)."""
    xvfb, display = start_xvfb()
    try:
        p = subprocess.run([os.path.join(os.path.dirname(os.path.abspath(__file__)), "bare_system.sh"), wheel,
                            wheelhouse, out], capture_output=True, text=True, env=dict(os.environ, DISPLAY=display),
                           timeout=1800)
    finally:
        xvfb.terminate()
        xvfb.wait()
    if p.returncode not in (0, 77):
        fail(f"bare_system.sh exited {p.returncode}:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    print(p.stdout.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--other-torch", default=os.path.expanduser("~/.cache/torchir/venv-torch2.8"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out = os.path.abspath(args.out)

    t0 = time.perf_counter()
    wheel = build_wheel(args.root, out)
    print(f"wheel: {os.path.basename(wheel)}, {os.path.getsize(wheel) / 2**20:.1f} MiB "
          f"({len(zipfile.ZipFile(wheel).namelist())} files), built in {time.perf_counter() - t0:.0f} s")

    work = tempfile.mkdtemp(prefix="torchir-wheel-")  # the user's empty folder, outside the build tree
    try:
        torch_pin = open(f"{args.root}/scripts/requirements.txt").read().split("torch==")[1].split()[0]
        venv = make_venv(f"{work}/env", work)
        wheelhouse = fill_wheelhouse(venv, torch_pin, work)
        t0 = time.perf_counter()
        run([f"{venv}/bin/pip", "install", "-q", "--no-index", "--find-links", wheelhouse, wheel], work,
            clean_env(venv))
        print(f"pip install of the wheel and torch=={torch_pin} (from {wheelhouse}) into a fresh environment: "
              f"{time.perf_counter() - t0:.0f} s")

        version = run(["torchir", "--version"], work, clean_env(venv)).stdout.strip()
        if torch_pin not in version:
            fail(f"torchir --version does not name torch {torch_pin}: {version}")
        print(f"torchir --version: {version}")
        check_ldd(args.root, venv, wheel, work)

        xvfb, display = start_xvfb()
        try:
            script = f"{work}/user.py"
            with open(script, "w") as f:
                f.write(USER_SCRIPT)
            p = run([f"{venv}/bin/python", script, args.fixtures, f"{out}/studio.png"], work,
                    clean_env(venv, DISPLAY=display), timeout=1200)
            print(p.stdout.strip())
        finally:
            xvfb.terminate()
            xvfb.wait()

        if os.path.isdir(args.other_torch):
            check_other_torch(wheel, work, args.other_torch, "another torch", torch_pin)
        else:
            print(f"another torch: not checked: no environment at {args.other_torch}")
        check_other_torch(wheel, work, None, "no torch", torch_pin)
        # The bare root installs torch again (about 5 GiB with its CUDA libraries): the environment
        # above goes first, so that the two never fill the disk together.
        shutil.rmtree(venv)
        check_bare_system(wheel, wheelhouse, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("check_wheel: ok")


if __name__ == "__main__":
    main()
