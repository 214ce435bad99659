"""Who acts in the tests' stories: the identity of a registered player (fixtures: tests/conftest.py)."""

from accounts.identity import Identity


def me(user) -> Identity:
    """The identity ``user`` acts with, as a request or a socket of theirs would carry it."""
    return Identity(user=user, guest=None)
