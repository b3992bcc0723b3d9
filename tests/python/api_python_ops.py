"""torchir_studio.run from a notebook-like Python that built and exported a model whose ops are
defined in Python (a tiny transformers Mixtral: transformers::grouped_mm_fallback): no option names
the Python or its modules, and the run gives eager's logits; open() names the module to the studio. The package is the source tree's
(packaging/wheel/torchir_studio), with the build's binaries.

Usage: api_python_ops.py ROOT TORCHIR_BINARY
"""

import os
import shutil
import sys
import tempfile


def package(root, binary, folder):
    """The torchir_studio package as the wheel lays it out, in `folder`."""
    import torch

    target = os.path.join(folder, "torchir_studio")
    shutil.copytree(os.path.join(root, "packaging", "wheel", "torchir_studio"), target)
    with open(os.path.join(target, "_build.py"), "w") as f:
        f.write(f"VERSION = 'source'\nTORCH_VERSION = {torch.__version__!r}\n")
    os.makedirs(os.path.join(target, "bin"))
    os.symlink(binary, os.path.join(target, "bin", "torchir"))
    sys.path.insert(0, folder)


def main(root, binary):
    import torch
    from transformers import MixtralConfig, MixtralForCausalLM

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as folder:
        package(root, binary, folder)
        import torchir_studio

        sys.path.insert(0, os.path.join(root, "tests", "fixtures"))
        from make_moe import Logits  # the causal LM's logits, as the moe fixtures export them

        torch.manual_seed(1)
        config = MixtralConfig(vocab_size=50, hidden_size=16, intermediate_size=24, num_hidden_layers=2,
                               num_attention_heads=2, num_key_value_heads=1, num_local_experts=3,
                               num_experts_per_tok=2, max_position_embeddings=32)
        model = Logits(MixtralForCausalLM(config)).eval()
        ids = torch.randint(0, 50, (2, 5))
        with torch.no_grad():
            eager = model(ids)
        ep = torch.export.export(model, (ids,))
        assert any("grouped_mm_fallback" in str(n.target) for n in ep.graph.nodes), "the export calls no Python op"
        result = torchir_studio.run(ep, (ids,))
        assert result.get("status") == "finished", result.get("diagnosis", result)
        worst = (result["outputs"][0] - eager).abs().max().item()
        assert worst <= 1e-6, f"logits differ from eager by {worst}"
        print(f"api_python_ops: torchir_studio.run(ep, (ids,)) finished; logits within {worst:.3g} of eager")
        # open() names the same modules to the studio it starts (what it launches, not a window here:
        # tst_studio_e2e runs the studio with TORCHIR_PYTHON_IMPORTS)
        assert launched_imports(torchir_studio, ep, ids) == "transformers.integrations.moe"


def launched_imports(torchir_studio, ep, ids):
    """TORCHIR_PYTHON_IMPORTS in the environment open() starts torchir-studio with."""
    import subprocess

    seen = {}

    class Launch:
        pid, returncode = 0, 0

        def __init__(self, command, env, **_):
            seen.update(env)

        def poll(self):
            return 0

        def wait(self, timeout=None):
            return 0

    real = subprocess.Popen
    subprocess.Popen = Launch
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        torchir_studio.open(ep, (ids,)).close()
    finally:
        subprocess.Popen = real
    return seen.get("TORCHIR_PYTHON_IMPORTS")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
