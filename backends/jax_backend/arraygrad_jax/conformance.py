"""The JAX backend's conformance facts: capabilities and declared expected failures."""

CAPABILITIES: dict = {}

# check id -> why it cannot pass on JAX (filled from the suite's run, one reason each)
XFAIL: dict[str, str] = {}
