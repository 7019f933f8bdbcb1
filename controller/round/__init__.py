"""One round of play: its phases, its layout, whose turn it is, what may be shown, its settlement.

    machine.py     ``RoundController``: the round's state machine over the journaled facts
    state.py       the phases and transitions, ``Answer`` (may this happen now?), the setup
    actions.py     what can happen now: per phase, each action's buttons, question, handler, trigger, offer
    layout.py      the places of the layout and the cards on them
    decisions.py   whose turn it is and the choices offered (R1, R26)
    view.py        what of a round may be shown, and when (no secret before its reveal)
    settlement.py  the round in the rules engine's forms, and what the engine makes of it
"""
