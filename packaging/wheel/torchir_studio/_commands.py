"""The `torchir` and `torchir-studio` commands of the wheel: check the environment's torch, then
become the binary."""

import os
import sys

from . import _environment


def _exec(name):
    problem = _environment.torch_problem()
    if problem is not None:
        print(f"{name}: error: {problem}", file=sys.stderr)
        sys.exit(2)
    path = _environment.binary(name)
    os.execve(path, [name] + sys.argv[1:], _environment.child_environment())


def torchir():
    _exec("torchir")


def studio():
    _exec("torchir-studio")
