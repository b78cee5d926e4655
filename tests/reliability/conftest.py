"""Prints the reliability figures (cases tried, fuzzed files, RSS curves, threads) at the end
of the run, so they appear in CI logs even when output is captured."""

import reliability_helpers


def pytest_terminal_summary(terminalreporter):
    if reliability_helpers.FIGURES:
        terminalreporter.section("reliability figures")
        for name, text in reliability_helpers.FIGURES.items():
            terminalreporter.write_line(f"{name}: {text}")
