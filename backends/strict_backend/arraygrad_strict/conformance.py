"""The strict backend's conformance facts: capabilities, and the standard's gaps it exposes."""

CAPABILITIES = {
    # float16 is not in the Array API standard, so array_api_strict has no float16:
    # the dtypes checks run in float32 and float64 only.
    "dtypes": ("float32", "float64", "uint8", "int8", "int16", "int32", "int64", "uint16",
               "uint32", "uint64", "bool"),
    "float64": True,
    "device_types": ("strict",),
    # the dtypes array_api_strict does not define (the standard's integers it has, all eight)
    "lacks": {"float16": "not an Array API standard dtype: array_api_strict has no float16",
              "bfloat16": "not an Array API standard dtype: array_api_strict has no bfloat16"},
}

# No expected failures: wherever the core relied on NumPy-only behaviour
# (advanced indexing forms, setitem with integer arrays or None, keys with
# fewer indices than dimensions), it was rewritten against the standard.
XFAIL: dict[str, str] = {}
