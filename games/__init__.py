"""The rules engine: the four games by the Maryland rules, pure rules: no devices, no journal, no I/O.

Each game's module declares everything its rules say (``games.game.Game``); ``games.registry`` names them.
The controller asks; nothing here asks the controller.
"""
