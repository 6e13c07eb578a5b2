"""Running scenarios: the runner of one scenario × implementation × mode, the suite, turn inputs and the adapter
registry.

May import the value model, `harness.scenario`, `harness.checks`, `harness.reporting.baseline` and the fakes.
Implementations are reached only through the entry-point registry (`harness.run.registry`), never imported.
"""
