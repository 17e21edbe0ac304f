"""A Thunder that fails to import in any way (here AttributeError, as Thunder's main branch on a torch too new for it)
leaves the Inductor targets working: a worker starts, and the Thunder targets say why they are unavailable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BROKEN_THUNDER = """import torch
__version__ = "0.2.7.dev0"
raise AttributeError("type object 'Tensor' has no attribute 'align_as'")
"""

CHECK = """
import json
from numfuzz.program.generator import GenConfig
from numfuzz.run_spec import RunSpec
from numfuzz.targets import resolve
from numfuzz.workers.settings import WorkerSettings
from numfuzz.workers.worker_tasks import WorkerTasks

# what a worker does on start: resolve its targets and set up the compiler line tracer
settings = WorkerSettings((RunSpec("inductor", "cpu", samples=1),), GenConfig(max_nodes=2, max_dim=2, ops=("tanh",)), trace_share=1.0)
worker = WorkerTasks(settings, None)
print(json.dumps({
    "started": sorted(worker.target_info()),
    "traced": sorted(worker.tracer.roots.values()),
    "inductor": resolve("inductor").available(),
    "thunder": resolve("thunder:torchcompile").available(),
    "thunderfx": resolve("thunderfx").available(),
}))
"""


def test_a_thunder_raising_attribute_error_on_import_leaves_inductor_working(tmp_path: Path):
    (tmp_path / "thunder").mkdir()
    (tmp_path / "thunder" / "__init__.py").write_text(BROKEN_THUNDER)
    tree = str(Path(__file__).resolve().parents[3])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), tree])}
    done = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["started"] == ["inductor"] and "torch/_inductor" in found["traced"]
    assert found["inductor"] == [True, ""]
    for name in ("thunder", "thunderfx"):
        available, why = found[name]
        assert not available and "does not import" in why and "AttributeError: type object 'Tensor' has no attribute 'align_as'" in why
