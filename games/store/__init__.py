"""How games are stored and read: the move path's precompiled SQL and the read-side queries.

The tables themselves are Django models in ``games/models.py``, where Django looks for them.
"""
