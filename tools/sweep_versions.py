"""Run the suite against every released agent-framework-core from 1.10.0 on, each in its own environment.

Used by the `versions` nox session; writes one results file per release under reports/versions/, then the
version matrix. Needs the package registry, so it never runs in CI or in the tests.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRST = (1, 10, 0)


def released_versions() -> list[str]:
    output = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "agent-framework-core"],
                            check=True, capture_output=True, text=True).stdout
    line = next(line for line in output.splitlines() if line.startswith("Available versions:"))
    versions = [v.strip() for v in line.split(":", 1)[1].split(",")]
    stable = [v for v in versions if v.replace(".", "").isdigit()]
    def key(version: str) -> tuple[int, ...]:
        return tuple(map(int, version.split(".")))

    return sorted((v for v in stable if key(v) >= FIRST), key=key)


def run_one(version: str, envs: Path, out: Path) -> None:
    env = envs / version
    if not (env / "bin" / "python").exists():
        venv.create(env, with_pip=True)
    python = str(env / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--quiet", "-e", str(ROOT), f"agent-framework-core=={version}"],
                   check=True)
    target = out / f"{version}.json"
    # Both callers: one that passes its session back, and the stateless one that keeps its own history only.
    result = subprocess.run([python, "-m", "harness.cli", "run", "--impl", "agent_framework",
                             "--impl", "agent_framework_stateless", "--json", str(target), "--no-reports"],
                            capture_output=True, text=True)
    summary = result.stdout.strip().splitlines()[-3:]
    print(f"{version}: exit {result.returncode}; " + " | ".join(summary), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("versions", nargs="*", help="releases to run (default: every release from 1.10.0 on)")
    parser.add_argument("--envs", type=Path, default=ROOT / ".nox" / "versions")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "versions")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    versions = args.versions or released_versions()
    for version in versions:
        run_one(version, args.envs, args.out)
    (args.out / "index.json").write_text(json.dumps({"versions": versions}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
