"""``python -m launch``: the whole site on this machine (see launch/local.py)."""

import sys

from launch.local import main

sys.exit(main())
