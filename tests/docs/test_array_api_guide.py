"""Every ``python`` code block of docs/array-api.md runs (the blocks share a namespace)."""

from guide_blocks import run_guide_blocks


def test_array_api_guide_blocks_run():
    run_guide_blocks("array-api.md", 1)
