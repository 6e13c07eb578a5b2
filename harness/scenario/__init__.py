"""The scenario format: the YAML schema, the YAML source with positions, the loader, located errors,
cross-reference checks, matchers and the spec-row catalogue.

May import the value model (`harness.contents`, `harness.contract`, `harness.script`, `harness.errors`, ...) and
nothing that runs or judges a scenario: it knows nothing of running.
"""
