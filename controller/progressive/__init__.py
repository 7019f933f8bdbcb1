"""The progressive system's records: hits held for validation, history, the report; the link.

    hits.py   winning hands held for validation, the meters' history and report
    link/     linked progressives on PostgreSQL (docs/linked-progressive.md)
"""
