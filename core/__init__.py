"""What every app of the site builds on and nothing of the site's own: no app imports flow into it.

The apps (games, accounts, chat, ratings, tournaments, api) and config all import
from here; ``core`` imports none of them (an import-linter contract, pyproject.toml).
"""
