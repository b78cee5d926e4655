"""Test plugins for arraygrad: ``good`` works, ``broken_import`` and ``broken_register`` fail.

Nothing is imported here, so loading one entry point never drags in another.
"""
