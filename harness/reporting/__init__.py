"""Reports for people and machines: the coverage matrix (Markdown, HTML, JSON, JUnit), the spec author's matrix and
the CI job summary, the version matrix and the compact release files it reads, the known-failure baseline, the
per-check gate, the PR diff, console text and transcript snapshots.

Reporting reads results and records, never implementations: it may import the value model and the spec-row
catalogue (`harness.scenario.spec_rows`), and no adapter, runner or check.
"""
