"""Every ``python`` code block of docs/meta.md runs (the blocks share a namespace), and
prints what the guide says."""

from guide_blocks import run_guide_blocks


def test_meta_guide_blocks_run():
    namespace = run_guide_blocks("meta.md", 2)
    model, x = namespace["model"], namespace["x"]
    assert sum(p.numel() for p in model.parameters()) == 126005248
    assert repr(x) == "tensor(..., device='meta', size=(10, 32, 1024))"
    assert x.stride() == (32768, 1024, 1)
    predictions = namespace["predictions"]
    assert predictions.shape == (5, 16, 2) and not predictions.is_meta
    stacked = namespace["torch"].stack([m(b) for m, b in zip(namespace["models"],
                                                             namespace["minibatches"])])
    assert namespace["torch"].allclose(predictions, stacked, atol=1e-6)
