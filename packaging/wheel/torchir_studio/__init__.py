"""torchir studio from Python: open an exported program in the studio, or run, check and compare it
and get the command's JSON back as Python data.

    import torchir_studio
    torchir_studio.open(ep)                      # the studio's window, in the background
    out = torchir_studio.run(ep, inputs)         # out["outputs"]: the output tensors
    torchir_studio.compare(ep, against="float64")["first_divergence"]

Importing it checks that this environment's torch is the one the binaries were built for.
"""

import os as _os
import sys as _sys

from . import _build
from ._environment import TorchirError, torch_problem


def _imported_by_our_command():
    """pip's wrappers of the torchir and torchir-studio commands import this package on their way
    to ._commands, which says what is wrong itself, as the command's one line."""
    main = _sys.modules.get("__main__")
    return _os.path.basename(getattr(main, "__file__", None) or "") in ("torchir", "torchir-studio")


_problem = torch_problem()
if _problem is not None and not _imported_by_our_command():
    raise ImportError(_problem)

from ._api import Studio, check, compare, open, run  # noqa: E402

__version__ = _build.VERSION
torch_version = _build.TORCH_VERSION

__all__ = ["Studio", "TorchirError", "check", "compare", "open", "run", "torch_version"]
