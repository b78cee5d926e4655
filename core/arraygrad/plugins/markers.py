"""The pluggy markers for arraygrad's hooks (project name ``"arraygrad"``)."""

import pluggy

PROJECT_NAME = "arraygrad"
hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)
