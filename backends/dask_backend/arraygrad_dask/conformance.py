"""The Dask backend's conformance facts: capabilities and declared expected failures."""

CAPABILITIES = {
    # array-api-compat's Dask namespace has the standard's dtypes only
    "lacks": {"float16": "not an Array API standard dtype: array-api-compat's Dask namespace "
                         "has no float16",
              "bfloat16": "not an Array API standard dtype: array-api-compat's Dask namespace "
                          "has no bfloat16"},
}

# check id -> why it cannot pass on Dask (filled from the suite's run, one reason each)
XFAIL: dict[str, str] = {}
