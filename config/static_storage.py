"""Static files as production serves them: hashed names, compressed copies, and ES modules that
import each other by their hashed names.

Django rewrites the names in CSS, but in JavaScript only when asked. Left alone,
``play.<hash>.js`` imported ``./text.js`` by its plain name, which whitenoise serves with a
60-second max-age: for up to a minute after a release a browser could run the new
``play.js`` with the ``text.js`` it had cached before, and every page load asked for eleven
plain-named modules again.
"""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
