"""A table's configuration: one TOML file plus ``TABLE_*`` environment, validated whole.

    table.py        ``TableConfig``, ``load_config`` and ``check`` (every problem, each citing its clause)
    values.py       the value types (money, hours, addresses) shared by the sections
    dealing.py      [dealing]: shuffler, shoe, procedure, decks (chapters 5 and 8 of each game)
    devices.py      [devices]: where each device answers
    wagers.py       [wagers]: the side wagers offered and their paytable letters
    progressive.py  [progressive]: units, meters, link
    payout.py       the payout limit (RULINGS R6)
    problems.py     a refusal in the operator's words, naming the key
"""
