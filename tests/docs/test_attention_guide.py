"""Every ``python`` code block of docs/attention.md runs (the blocks share a namespace)."""

from guide_blocks import run_guide_blocks


def test_attention_guide_blocks_run():
    run_guide_blocks("attention.md", 4)
