"""torchir studio from Python: open an exported program in the studio, or run, check and compare it
and get the command's JSON back as Python data.

    import torchir_studio
    torchir_studio.open(ep)                      # the studio's window, in the background
    out = torchir_studio.run(ep, inputs)         # out["outputs"]: the output tensors
    torchir_studio.compare(ep, against="float64")["first_divergence"]

Importing it checks that this environment's torch is the one the binaries were built for.
"""

from . import _build
from ._environment import TorchirError, torch_problem

_problem = torch_problem()
if _problem is not None:
    raise ImportError(_problem)

from ._api import Studio, check, compare, open, run  # noqa: E402

__version__ = _build.VERSION
torch_version = _build.TORCH_VERSION

__all__ = ["Studio", "TorchirError", "check", "compare", "open", "run", "torch_version"]
