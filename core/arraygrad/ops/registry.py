"""Old path of the op registry (now ``arraygrad.plugins.registry``), while plugins/special uses it."""
from arraygrad.plugins.registry import *  # noqa: F401,F403  (remove once nothing imports this path)
