"""``tablectl``: one module per group of subcommands; ``main`` dispatches (controller/cli/main.py)."""
