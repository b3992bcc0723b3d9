"""open, run, check and compare from Python: thin over the torchir command line and the studio.

A program given as an object (an ExportedProgram, a pytorch-ir IR) is written to a folder of its
own first (torch.export.save, IR.save), and tensors given as objects (inputs, weights) as
safetensors; the command then runs on those files exactly as it would from a shell, and its --json
comes back as Python data.
"""

import builtins
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from ._environment import TorchirError, binary, child_environment, torch_problem

_STAGING_PREFIX = "torchir-open-"


def _require_torch_binaries():
    problem = torch_problem()
    if problem is not None:
        raise TorchirError(problem)


def _torch():
    try:
        import torch
    except Exception as e:  # a broken install raises more than ImportError
        raise TorchirError(f"torch cannot be imported in this environment ({sys.prefix}): {e}") from e
    return torch


class _Files:
    """The folder that holds what an object stands for as a file, made on first use."""

    def __init__(self):
        self.folder = None

    def path(self, name):
        if self.folder is None:
            self.folder = tempfile.mkdtemp(prefix=_STAGING_PREFIX)
        return os.path.join(self.folder, name)

    def remove(self):
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def program(self, program, name):
        """A path to the program: itself when it is one, else the file written for it."""
        if isinstance(program, (str, os.PathLike)):
            return os.fspath(program)
        torch = _torch()
        if isinstance(program, torch.export.ExportedProgram):
            path = self.path(name + ".pt2")
            torch.export.save(program, path)
            return path
        if type(program).__module__.split(".")[0] == "torch_ir" and hasattr(program, "save"):
            path = self.path(name + ".json")  # pytorch-ir's IR: its weights come apart (weights=)
            program.save(path)
            return path
        raise TypeError(
            f"program: expected an ExportedProgram, a pytorch-ir IR or a path, not {type(program).__name__}")

    def tensors(self, tensors, name, what, program=None):
        """A path to a .safetensors file for inputs or weights given as a path, a dict of tensors
        (by name) or, for inputs, a tensor or a tuple or list of them (input_0, input_1, ...) as
        `program` takes them (_run_inputs)."""
        if tensors is None:
            return None
        if isinstance(tensors, (str, os.PathLike)):
            return os.fspath(tensors)
        torch = _torch()
        if isinstance(tensors, dict):
            named = dict(tensors)
        elif what == "inputs":
            named = {f"input_{i}": t for i, t in enumerate(_run_inputs(torch, program, tensors))}
        else:
            raise TypeError(f"{what}: expected a path or a dict of tensors, not {type(tensors).__name__}")
        return _save_tensors(torch, named, self.path(name + ".safetensors"), what)


def _run_inputs(torch, program, inputs):
    """The inputs a run is given, in the program's order: its tensors, and each number it takes at
    run time (an int exported with Dim.DYNAMIC) as a 0-d tensor. The constants an ExportedProgram was
    specialised on (a str, a static int) are left out, as the program holds them; another value
    than the one it holds is refused as ep.module() refuses it."""
    leaves = [inputs] if isinstance(inputs, torch.Tensor) else torch.utils._pytree.tree_leaves(inputs)
    signature = getattr(program, "graph_signature", None)
    constants = None  # by user input: the ConstantArgument it was specialised on, else None
    if signature is not None:
        from torch.export.graph_signature import ConstantArgument, InputKind

        constants = [s.arg if isinstance(s.arg, ConstantArgument) else None
                     for s in signature.input_specs if s.kind == InputKind.USER_INPUT]
    out = []
    for i, value in enumerate(leaves):
        constant = constants[i] if constants is not None and i < len(constants) else None
        if constant is not None:
            if value != constant.value:
                raise TorchirError(f"inputs: {constant.name} is {value!r}, but the program was specialised on "
                                   f"{constant.value!r} (torch: Guard failed: {constant.name} == {constant.value!r})")
            continue
        out.append(torch.tensor(value) if isinstance(value, (bool, int, float)) else value)
    return out


def _save_tensors(torch, named, path, what):
    from safetensors.torch import save_file

    out, storages = {}, set()
    for key, t in named.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{what}: {key} is a {type(t).__name__}, not a tensor")
        t = t.detach().cpu().contiguous()
        # safetensors refuses tensors that share memory (tied weights, views of one input)
        storage = t.untyped_storage().data_ptr()
        if storage in storages:
            t = t.clone()
        storages.add(storage)
        out[str(key)] = t
    save_file(out, path)
    return path


def _one_line(stderr, fallback):
    """The command's error line (`error: FILE: what`), else the line that says what could not be
    done (Qt's "Could not load the Qt platform plugin ..."), else the last line, else `fallback`."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    failures = [line for line in lines if "could not" in line.lower() or "cannot" in line.lower()]
    return (errors or failures[:1] or lines or [fallback])[-1]


def _threads(threads):
    """The intra-op thread count: the caller's torch's by default, for eager's bits."""
    if threads is None and "torch" in sys.modules:
        threads = sys.modules["torch"].get_num_threads()
    return [] if threads is None else ["--threads", str(int(threads))]


def _command(verb, arguments):
    """Runs `torchir VERB ARGUMENTS --json`; a finished command's JSON (also when it reports a failing
    node or a divergence, exit 1), else TorchirError with its one-line error. The folders the
    modules it names with --python-import came from go on the worker's PYTHONPATH."""
    _require_torch_binaries()
    env = _with_module_folders(child_environment(), list(arguments))
    process = subprocess.run([binary("torchir"), verb, *arguments, "--json"], capture_output=True, text=True,
                             env=env)
    if process.returncode not in (0, 1) or not process.stdout.strip():
        raise TorchirError(_one_line(process.stderr, f"torchir {verb} exited with {process.returncode}"))
    try:
        return json.loads(process.stdout)
    except json.JSONDecodeError as e:
        raise TorchirError(f"torchir {verb} printed no JSON: {e}") from e


def _option(name, value):
    return [] if value is None else [name, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]


def _python_imports(programs, options):
    """--python-import for each module of this process that registered an op the programs call
    outside torch (torch.library.custom_op, Library.define), so that the worker the command starts
    in this Python defines them too: a notebook that ran the model runs its export. Nothing when the
    caller names the Python's modules in `options`."""
    if any(str(o) in ("--python", "--python-import") for o in options):
        return []
    torch = sys.modules.get("torch")
    if torch is None:
        return []
    ops, files = set(), None
    modules = []
    for program in programs:
        if not isinstance(program, torch.export.ExportedProgram):
            continue
        for graph_module in program.graph_module.modules():
            graph = getattr(graph_module, "graph", None)
            for node in getattr(graph, "nodes", ()):
                op = node.target
                if node.op != "call_function" or not isinstance(op, torch._ops.OpOverload) or op in ops:
                    continue
                ops.add(op)
                if files is None:  # the files this process imported, by real path: made once
                    files = _imported_files()
                module = _module_defining(torch, op, files)
                if module is not None and module not in modules:
                    modules.append(module)
    return [part for module in modules for part in ("--python-import", module)]


def _imported_files():
    files = {}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and file.endswith(".py"):
            files.setdefault(os.path.realpath(file), name)
    return files


def _module_defining(torch, op, files):
    """The module of this process that defined `op`, or None for torch's own and C++ ones."""
    try:
        qualified = op._schema.name  # "namespace::name"
    except Exception:
        return None
    if qualified.split("::", 1)[0] in ("aten", "prims", "prim"):
        return None
    module = None
    try:
        from torch._library import custom_ops

        opdef = custom_ops.OPDEFS.get(qualified)  # torch.library.custom_op: its function's module
        module = getattr(getattr(opdef, "_init_fn", None), "__module__", None)
    except Exception:
        module = None
    if module is None:  # Library.define: the file the schema was registered from
        try:
            found = re.search(r"^debug: registered at (.+):\d+$", torch._C._dispatch_dump(qualified), re.M)
        except Exception:
            found = None
        module = files.get(os.path.realpath(found.group(1))) if found and found.group(1).endswith(".py") else None
    # the worker cannot import a notebook's __main__; torch's own ops need no import
    if not isinstance(module, str) or module == "__main__" or module == "torch" or module.startswith("torch."):
        return None
    return module


def _with_module_folders(env, options):
    """`env` with the folders of the modules `options` import (--python-import) first on PYTHONPATH."""
    folders = _module_folders(options)
    if folders:
        env["PYTHONPATH"] = os.pathsep.join(folders + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def _module_folders(options):
    """The sys.path entries the --python-import modules in `options` were imported from, for the
    worker's PYTHONPATH: a module a notebook imported from a folder it put on sys.path."""
    import site
    import sysconfig

    # the environment's own folders are on the worker's path already, behind the standard library
    # that a PYTHONPATH entry would come before
    known = {os.path.abspath(p) for p in sysconfig.get_paths().values()}
    try:
        known.update(os.path.abspath(p) for p in site.getsitepackages() + [site.getusersitepackages()])
    except AttributeError:  # a virtualenv's old site module
        pass
    folders = []
    names = [options[i + 1] for i, o in enumerate(options[:-1]) if o == "--python-import"]
    for name in names:
        top = sys.modules.get(name.split(".", 1)[0])
        file = getattr(top, "__file__", None)
        if not isinstance(file, str):
            continue
        folder = os.path.dirname(os.path.dirname(file)) if os.path.basename(file) == "__init__.py" else os.path.dirname(file)
        folder = os.path.abspath(folder)
        if folder not in folders and folder not in known:
            folders.append(folder)
    return folders


def run(program, inputs=None, *, weights=None, constants=None, threads=None, options=()):
    """Runs the program node by node. Returns `torchir run --json` as a dict whose "outputs" are the
    output tensors (a finished run) and whose "diagnosis" explains the node where a run stopped.

    program: an ExportedProgram, a pytorch-ir IR or a path; inputs: tensors (a tensor, a tuple or list
    of them as the program takes them, a dict by input name) or a .safetensors path; None runs the
    program's example inputs. weights, constants: a dict of tensors or a file. options: further
    command-line options (["--stop-on", "nan"], say). The program's ops defined in Python by modules
    this process imported (a model's custom ops) run in a worker of this Python that imports those
    modules, unless options name --python or --python-import."""
    files = _Files()
    try:
        path = files.program(program, "program")
        outputs = files.path("outputs.safetensors")
        result = _command("run", [path, *_option("--inputs", files.tensors(inputs, "inputs", "inputs", program)),
                                  *_option("--weights", files.tensors(weights, "weights", "weights")),
                                  *_option("--constants", files.tensors(constants, "constants", "constants")),
                                  *_threads(threads), "--save-outputs", outputs,
                                  *_python_imports([program], options), *options])
        if result.get("status") == "finished" and os.path.exists(outputs):
            from safetensors.torch import load_file

            saved = load_file(outputs)
            result["outputs"] = [saved[f"output_{i}"] for i in range(len(result.get("outputs", [])))]
        return result
    finally:
        files.remove()


def check(program, inputs=None, *, weights=None, constants=None, options=()):
    """What would stop a run, found without running it: `torchir check --json` as a dict."""
    files = _Files()
    try:
        return _command("check", [files.program(program, "program"),
                                  *_option("--inputs", files.tensors(inputs, "inputs", "inputs", program)),
                                  *_option("--weights", files.tensors(weights, "weights", "weights")),
                                  *_option("--constants", files.tensors(constants, "constants", "constants")),
                                  *_python_imports([program], options), *options])
    finally:
        files.remove()


def compare(a, b=None, against="float64", inputs=None, *, weights=None, weights_b=None, constants=None,
            inputs_b=None, tolerance=None, sensitivity=False, threads=None, options=()):
    """Runs `a` in lockstep with a reference: `b` (another program, an older export say) or `a` itself
    in `against` (float64, float32, float16, bfloat16, cuda). Returns `torchir compare --json`: the
    first divergence, the first NaN/Inf, the worst nodes, every node's metrics."""
    files = _Files()
    try:
        programs = [files.program(a, "program")]
        if b is not None:
            programs.append(files.program(b, "reference"))
        return _command("compare", [*programs, *_option("--against", None if b is not None else against),
                                    *_option("--inputs", files.tensors(inputs, "inputs", "inputs", a)),
                                    *_option("--inputs-b", files.tensors(inputs_b, "inputs_b", "inputs", b)),
                                    *_option("--weights", files.tensors(weights, "weights", "weights")),
                                    *_option("--weights-b", files.tensors(weights_b, "weights_b", "weights")),
                                    *_option("--constants", files.tensors(constants, "constants", "constants")),
                                    *_option("--tolerance", tolerance), *(["--sensitivity"] if sensitivity else []),
                                    *_threads(threads), *_python_imports([a, b], options), *options])
    finally:
        files.remove()


class Studio:
    """A torchir-studio window started by open(). Its files live until it exits."""

    def __init__(self, process, files, log):
        self._process, self._files, self._log = process, files, log

    @property
    def pid(self):
        return self._process.pid

    def running(self):
        return self._process.poll() is None

    def wait(self, timeout=None):
        """Waits for the window to close; raises TorchirError with the studio's error line when it failed."""
        code = self._process.wait(timeout)
        with _read(self._log) as log:
            stderr = log.read()
        self._files.remove()
        if code != 0:
            raise TorchirError(_one_line(stderr, f"torchir-studio exited with {code}"))
        return code

    def close(self):
        """Closes the window (the user's unsaved work with it) and removes its files."""
        if self.running():
            self._process.terminate()
        try:
            self.wait()
        except TorchirError:
            pass

    def __repr__(self):
        state = "running" if self.running() else f"exited ({self._process.returncode})"
        return f"<torchir_studio.Studio pid {self.pid}, {state}>"


def _read(path):
    return builtins.open(path, encoding="utf-8", errors="replace")  # open() below is ours


def _remove_finished_stagings():
    """The folders of earlier open() calls whose studio has exited."""
    root = tempfile.gettempdir()
    for entry in os.listdir(root):
        folder = os.path.join(root, entry)
        if not entry.startswith(_STAGING_PREFIX) or not os.path.isfile(os.path.join(folder, "studio.pid")):
            continue
        try:
            with _read(os.path.join(folder, "studio.pid")) as f:
                os.kill(int(f.read()), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except (OSError, ValueError):
            pass


def open(program, inputs=None, *, weights=None, constants=None, block=False, name="program", screenshot=None):
    """Opens the program in torchir-studio. Returns a Studio at once (block=False) or when its window
    closes (block=True).

    program: an ExportedProgram, a pytorch-ir IR or a path (.pt2 or IR JSON); inputs: as for run();
    weights: the IR's weights (a state dict or a file); name: the file name the window shows;
    screenshot: save a PNG of the window once the program is shown, then close."""
    _require_torch_binaries()
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                                                  or os.environ.get("QT_QPA_PLATFORM")):
        raise TorchirError("torchir-studio needs a display: DISPLAY is not set")
    _remove_finished_stagings()
    files = _Files()
    try:
        arguments = [files.program(program, name),
                     *_option("--inputs", files.tensors(inputs, "inputs", "inputs", program)),
                     *_option("--weights", files.tensors(weights, "weights", "weights")),
                     *_option("--constants", files.tensors(constants, "constants", "constants")),
                     *_option("--screenshot", screenshot)]
        log = files.path("studio.log")
        # the modules of this process that define the program's ops, for this launch's worker
        imports = _python_imports([program], ())
        env = _with_module_folders(child_environment(), imports)
        if imports:
            env["TORCHIR_PYTHON_IMPORTS"] = ",".join(imports[1::2])
        with builtins.open(log, "w") as stderr:
            process = subprocess.Popen([binary("torchir-studio"), *arguments], stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=stderr, env=env,
                                       start_new_session=True)
        with builtins.open(files.path("studio.pid"), "w") as f:
            f.write(str(process.pid))
    except BaseException:
        files.remove()
        raise
    studio = Studio(process, files, log)
    if block:
        studio.wait()
    return studio
