"""Running scenarios: the runner of one scenario × implementation × mode, the suite, turn inputs and the adapter
registry; and isolation: the judge here (`isolation`, `host`, `channel`), the loop in a run process forked from its
implementation's template (`worker`, `child`), and what crosses between them (`codec`).

May import the value model, `harness.scenario`, `harness.checks`, `harness.reporting.baseline` and the fakes.
Implementations are reached only through the entry-point registry (`harness.run.registry`), never imported.
"""
