"""Command families of the `damas` CLI, one module each."""
