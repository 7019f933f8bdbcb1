"""The daemon's parts, each with one job; ``controller.daemon`` runs them.

    session.py      the open round, the journal, telling the dealer, publishing status (shared by every part)
    devices.py      the devices: start-up, health, the dealing mode while one is out of order (P43)
    panel.py        the dealer's panel: a (phase, button) -> handler table; presses made during a deal
    life.py         the table's life: opening, idle, closing, between rounds, deck checks (UTH ch.3-ch.5)
    wagers.py       no more bets: the bet sensors read, the wagers placed (UTH ch.7, UTH ch.8 §C)
    lockout.py      the progressive wager lock-out: engaged, confirmed, held, released (UTH ch.8 §C(2))
    deal.py         the deal: stacks or card by card, the streets, the stub count (UTH ch.8-ch.10)
    decisions.py    the players' decisions (R1, UTH ch.11)
    settlement.py   reveal, settle, the order of payment, voiding a round (UTH ch.11, R7a)
    progressive.py  the progressive system: wagers enabled or disabled, the meter signs, wins held
                    for validation (UTH ch.11 §J(2))
    remedies.py     each game's chapter 13: what a device sees, what the dealer reports, devices out of order
    status.py       the public status file, with the structured next action
    refused.py      a press refused (``Refused``); ``ask``: a part asks the round (``can_...``) before it acts
"""
