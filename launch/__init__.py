"""Running the site: locally (``python -m launch``), and the production layout for a try or CI.

Not part of the installed package: these are the developer's and operator's tools,
run from a checkout of the repository (the systemd units run from the release
directory too).
"""
