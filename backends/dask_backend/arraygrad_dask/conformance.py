"""The Dask backend's conformance facts: capabilities and declared expected failures."""

CAPABILITIES: dict = {}

# check id -> why it cannot pass on Dask (filled from the suite's run, one reason each)
XFAIL: dict[str, str] = {}
