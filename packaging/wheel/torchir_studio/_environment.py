"""Where the installed binaries are, and whether this environment's torch is the one they need.

Nothing here imports torch: the check reads the installed distribution's metadata, so a command
answers in one line even where torch is missing, of another version, or cannot be imported.
"""

import importlib.metadata
import importlib.util
import os
import sys

from . import _build

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
BIN_DIR = os.path.join(PACKAGE_DIR, "bin")


class TorchirError(RuntimeError):
    """A torchir command failed; the message is its one-line error."""


def _base(version):
    """2.14.1 of 2.14.1+cu130: builds of one version for other CUDA versions share the C++ ABI."""
    return version.split("+", 1)[0]


def torch_problem():
    """Why this environment's torch cannot serve the binaries, in one line, or None."""
    need = _base(_build.TORCH_VERSION)
    fix = f"pip install torch=={need}"
    where = f"this environment ({sys.prefix})"
    try:
        have = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return f"torchir-studio {_build.VERSION} needs torch {need}; {where} has no torch: {fix}"
    if _base(have) != need:
        return f"torchir-studio {_build.VERSION} was built for torch {need}; {where} has torch {have}: {fix}"
    lib = libtorch_dir()
    if lib is None or not os.path.isfile(os.path.join(lib, "libtorch_cpu.so")):
        return f"torch {have} in {where} has no lib/libtorch_cpu.so: reinstall it ({fix})"
    return None


def libtorch_dir():
    """The environment's torch/lib, found without importing torch, or None."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], "lib")


def binary(name):
    return os.path.join(BIN_DIR, name)


def child_environment():
    """The environment a binary runs in: this environment's libtorch (unless the user named another
    with TORCHIR_LIBTORCH, a CUDA build of the same version, say) and this Python for ops defined in
    Python (unless TORCHIR_PYTHON names another)."""
    env = dict(os.environ)
    lib = libtorch_dir()
    if lib is not None:
        env.setdefault("TORCHIR_LIBTORCH", lib)
    env.setdefault("TORCHIR_PYTHON", sys.executable)
    return env
