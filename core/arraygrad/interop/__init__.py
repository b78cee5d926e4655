"""Handshakes with the libraries around PyTorch that need more than NumPy's array protocol
(which ``arraygrad.tensor_interop`` speaks): einops' backend (``einops_backend``), registered
without importing einops (``einops_hook``). See docs/interop.md."""
