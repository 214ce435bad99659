"""Invitation checks live with the blacklist; this module is the name other apps may import."""

from __future__ import annotations

from accounts.services.blocks import may_invite, may_join_challenge

__all__ = ["may_invite", "may_join_challenge"]
