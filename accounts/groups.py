"""The channel-layer groups of the notification socket, named once for the consumer and the senders.

Kept apart from accounts.consumers so that whoever announces to a player (messages,
invitations, tournaments, games) names the group without importing the socket.
"""

LOBBY_GROUP = "lobby"  # every open page hears that the list of open challenges changed


def user_group(user_id: int) -> str:
    """Every notification socket of one signed-in player."""
    return f"user.{user_id}"
