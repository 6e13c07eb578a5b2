"""Generated conversations: Hypothesis strategies that write scenarios in the loader's own form, the oracles that
judge them without hand-written expectations (the invariants against the baseline and fuzz allowances, what the
spec asks of hosted approvals, and a differential check against the reference loop), stream-split fuzzing of
bundled scenarios, and the `fuzz` command that shrinks each failure and exports it as a scenario file.

It may import the value model, `harness.scenario`, the runner and registry (`harness.run`) and the baseline of
`harness.reporting`; it drives implementations only through the runner, never an adapter's internals.
"""
