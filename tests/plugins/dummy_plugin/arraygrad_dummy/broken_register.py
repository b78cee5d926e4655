"""A plugin that imports fine but raises inside its registration hook.

It fails only when ``ARRAYGRAD_TEST_BROKEN_PLUGINS=1`` (the plugin tests set it);
otherwise it registers nothing.
"""

import os

from arraygrad.plugins import hookimpl


@hookimpl
def arraygrad_register_backends(register):
    """Fail on purpose, before registering anything (when the tests ask for it)."""
    if os.environ.get("ARRAYGRAD_TEST_BROKEN_PLUGINS") == "1":
        raise RuntimeError("arraygrad_dummy.broken_register: simulated failure while registering")
