"""Game protection: the table watches its own cards and its own odds (issue 28; docs/protection.md).

* ``shuffle``    the shuffle monitor: statistics a weak, rigged or replayed shuffle fails, over the cards
                 the rules have revealed (pure: observations in, findings out, its state serialisable).
* ``witnesses``  the shuffler's delivery, the shoe's reads and the scored hands reconciled card by card.
* ``hold``       each wager's result against its par sheet's expectation, with a band; streaks.
* ``report``     what ``tablectl protection report`` prints.

Every finding is journaled as ``controller.events.ProtectionFinding`` and raised as an alarm to the floor.
"""
