"""arraygrad's conformance suite: checks any backend, and op plugins, against the reference."""

from arraygrad.conformance.case import CHECK_KINDS, InputMaker, OpCase

__all__ = ["CHECK_KINDS", "InputMaker", "OpCase"]
