"""The meta backend's conformance facts."""

CAPABILITIES = {
    # no elements: the value checks become shape and dtype checks, those of values skip
    "values": False,
}

XFAIL: dict[str, str] = {}
