"""The bot bridge: one outside engine (UAI or UGI) playing on the site through the Play API.

Like lichess-bot, for this site's games. It is not part of the site and imports
nothing of it (an import-linter contract): it talks HTTP only, with the standard
library. Run it as ``python -m bots --config bot.toml`` (bots/README.md).
"""
