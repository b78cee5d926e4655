"""The pieces of ``arraygrad.nn.functional``, one family per file (see ``nn/functional.py``)."""
