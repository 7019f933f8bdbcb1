"""The daemon's parts, each with one job; ``controller.daemon`` builds and runs them.

Each part is given, when it is built, the parts it calls, and reaches no other; they are listed here
in the order they are built (a part calls only parts above it; the deal reaches the panel, below it,
only through the ``on_press`` callback it is given).  ``tests/test_service_wiring.py`` checks it.

    session.py      the table's context (configuration, journal, the open round) and the dealer's channel
                    (telling the dealer, the buzzer, the supervisor's key, publishing status): every part's
    devices.py      the devices: start-up, health, the dealing mode while one is out of order (P43)
    progressive.py  the progressive system: wagers enabled or disabled, the meter signs, wins held
                    for validation (UTH ch.11 §J(2))
    lockout.py      the progressive wager lock-out: engaged, confirmed, held, released (UTH ch.8 §C(2))
    life.py         the table's life: opening, idle, closing, between rounds, deck checks (UTH ch.3-ch.5)
    wagers.py       no more bets: the bet sensors read, the wagers placed (UTH ch.7, UTH ch.8 §C)
    deal.py         the deal: stacks or card by card, the streets, the stub count (UTH ch.8-ch.10);
                    what it finds that voids the round it returns (``Found``)
    settlement.py   reveal, settle, the order of payment, voiding a round (UTH ch.11, R7a, P40)
    remedies.py     each game's chapter 13: what a device sees, what the dealer reports, devices out of order
    decisions.py    the players' decisions (R1, UTH ch.11)
    panel.py        the dealer's panel: a (phase, button) -> handler table; presses made during a deal
    status.py       the public status file, with the structured next action
    refused.py      a press refused (``Refused``); ``ask``: a part asks the round (``can_...``) before it acts
"""
