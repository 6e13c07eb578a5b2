"""What a fresh interpreter learns from building an adapter: its loop modules and which modules it brings in.

Run as ``python -m harness.power.probe NAME`` so the answer does not depend on what the calling process has
imported already. A mutant child must import the loop modules, and everything that depends on them, afresh; the
probe names those modules so the child can drop them from its inherited `sys.modules` first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass

from harness.errors import HarnessError


class ProbeError(HarnessError):
    """The implementation could not be built in a fresh interpreter."""


@dataclass(frozen=True)
class Probe:
    implementation: str
    loop_modules: tuple[tuple[str, str], ...]  # (module name, installed source path)
    fresh: tuple[str, ...]  # top-level packages (or the harness adapter package) a child must import afresh


def _top(name: str) -> str:
    parts = name.split(".")
    # Our own adapters live inside the harness package, which the parent keeps loaded: only the adapter's own
    # package is fresh there.
    return ".".join(parts[:3]) if parts[:2] == ["harness", "adapters"] else parts[0]


def _main(name: str) -> None:
    import harness.run.runner as runner  # what every child has loaded before it builds the adapter
    from harness.power.loop_modules import loop_modules
    from harness.run.registry import load_adapter

    before = set(sys.modules) | {runner.__name__}
    adapter = load_adapter(name)
    modules = loop_modules(adapter)
    brought = {m for m in set(sys.modules) - before if m.split(".")[0] not in sys.stdlib_module_names}
    tops = {_top(m) for m in brought} | {_top(m.name) for m in modules} | {_top(type(adapter).__module__)}
    # A package the harness had already loaded (pydantic, the harness itself) stays shared with the parent.
    fresh = sorted(t for t in tops if t not in {_top(m) for m in before} or t.startswith("harness.adapters."))
    print(json.dumps({"loop_modules": [[m.name, str(m.path)] for m in modules], "fresh": fresh}))


def probe(name: str, timeout: float = 300.0) -> Probe:
    """Build implementation `name` in a fresh interpreter and report its loop modules and fresh packages."""
    command = [sys.executable, "-m", "harness.power.probe", name]
    # The child finds the harness (and any module:factory adapter) where this process does.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        raise ProbeError(f"building the {name} implementation took longer than {timeout:g}s") from None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise ProbeError(f"the {name} implementation could not be built: {tail}")
    answer = json.loads(lines[-1])
    return Probe(name, tuple((str(n), str(p)) for n, p in answer["loop_modules"]), tuple(answer["fresh"]))


def forget_fresh(fresh: tuple[str, ...]) -> None:
    """Drop every inherited module under the fresh packages, so the next import loads them again."""
    for module in list(sys.modules):
        if any(module == top or module.startswith(top + ".") for top in fresh):
            del sys.modules[module]


if __name__ == "__main__":
    try:
        _main(sys.argv[1])
    except HarnessError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
