"""The table's journal: every event appended and made durable before it takes effect, in a hash chain.

    store.py     ``Journal``: the SQLite file, one transaction per event (docs/journal.md)
    rows.py      a row, its canonical form and its link in the chain; the errors
    reads.py     the reads (events, rounds, derived state)
    state.py     what the daemon reads on every press, kept current as events are appended
    verify.py    checking the chain (P90)
    segments.py  roll-over, archive and retention (P60-P62); sealed segments checked at start (P101)
    trust.py     the table's key, the head's seal, the anchor outside the file, the identity (P99-P102)
"""
