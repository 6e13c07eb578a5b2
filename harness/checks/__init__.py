"""Judging a run: the universal invariants, the approval invariants and the scenario's own expectations.

Checks read records of what happened (`harness.records`) and the scenario's expectations; they may import the value
model and `harness.scenario`, and never an adapter, the runner or the fakes: they judge transcripts, not
implementations.
"""
