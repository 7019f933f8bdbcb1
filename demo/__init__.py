"""``make run``: the simulated table played by a scripted dealer (a simulated person, not the product).

    run.py      the demo: simulators, the daemon, the web service and the dealer (``make run``)
    dealer.py   the scripted dealer: works the panel, the bet sensors and the wagering devices as a person would
    link.py     ``make run LINK=1``: two tables on one linked progressive
    cluster.py  a throwaway PostgreSQL server (the tests' and ``make run LINK=1``'s)
"""
