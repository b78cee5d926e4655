"""``python -m arraygrad``: the ``arraygrad`` command."""

import sys

from arraygrad.cli import main

sys.exit(main())
