"""The strict backend's conformance facts: capabilities, and the standard's gaps it exposes."""

CAPABILITIES = {
    # float16 is not in the Array API standard, so array_api_strict has no float16:
    # the dtypes checks run in float32 and float64 only.
    "dtypes": ("float32", "float64", "int32", "int64", "bool"),
    "float64": True,
    "device_types": ("strict",),
}

# No expected failures: wherever the core relied on NumPy-only behaviour
# (advanced indexing forms, setitem with integer arrays or None, keys with
# fewer indices than dimensions), it was rewritten against the standard.
XFAIL: dict[str, str] = {}
