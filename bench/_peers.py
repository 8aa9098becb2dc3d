"""Peer draughts libraries for benchmarks only: each in its own virtualenv, called, never copied.

`py-draughts` (GPL) and `pydraughts` (MIT) both import as `draughts`, so each lives in
`bench/.venvs/<name>/`, created on first use.  Benchmarks run small scripts in them as
subprocesses and exchange JSON over stdin/stdout.
"""

from __future__ import annotations

import fcntl
import subprocess
import sys
import venv
from pathlib import Path

PEERS = {
    "py-draughts": "py-draughts==1.10.1",
    "pydraughts": "pydraughts==0.6.7",
}
VENVS = Path(__file__).resolve().parent / ".venvs"


def peer_python(name: str) -> Path:
    """The python of the peer's virtualenv, creating and installing it on first use."""
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}; known: {', '.join(PEERS)}")
    env_dir = VENVS / name
    python = env_dir / "bin" / "python"
    marker = env_dir / ".installed"
    if marker.exists():
        return python
    VENVS.mkdir(parents=True, exist_ok=True)
    with open(VENVS / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two benchmarks may start at once
        if not marker.exists():
            print(f"[peers] creating {env_dir} with {PEERS[name]} ...", file=sys.stderr,
                  flush=True)
            if not python.exists():
                venv.EnvBuilder(with_pip=True).create(env_dir)
            subprocess.run([str(python), "-m", "pip", "install", "--quiet", PEERS[name]],
                           check=True)
            marker.write_text(PEERS[name] + "\n")
    return python


def run_peer(name: str, script: str, *args: str, timeout_s: float = 3600) -> str:
    """Run `script` (Python source) with the peer's interpreter and return its stdout."""
    python = peer_python(name)
    out = subprocess.run([str(python), "-c", script, *args], check=True, capture_output=True,
                         text=True, timeout=timeout_s)
    return out.stdout
