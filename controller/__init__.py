"""The table controller: what joins the rules (``games``) and the devices (``drivers``) at one table.

The round, the journal, the configuration, the daemon and its parts, the command line, each in a room of its
own: docs/architecture.md maps them.
"""
