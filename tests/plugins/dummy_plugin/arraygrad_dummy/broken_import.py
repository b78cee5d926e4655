"""A plugin whose module cannot even be imported (as with a missing dependency).

It breaks only when ``ARRAYGRAD_TEST_BROKEN_PLUGINS=1`` (the plugin tests set it),
so a development environment with the test plugins installed stays quiet.
"""

import os

if os.environ.get("ARRAYGRAD_TEST_BROKEN_PLUGINS") == "1":
    raise ImportError("arraygrad_dummy.broken_import: simulated missing dependency")
