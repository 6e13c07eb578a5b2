"""A toy function-calling loop (`toy_loop.loop`) and its loop-conformance adapter (`toy_loop.conformance`).

The worked example of docs/tutorials/plug-in-your-loop.md: an outside package that registers an adapter under the
``loop_conformance.adapters`` entry-point group. The loop supports the core of the contract (calls, results, rounds,
streaming, limits) and passes reasoning through; it has no approvals, user input, sessions or runtime tool changes,
so the adapter declares only ``reasoning`` and scenarios needing more report n/a.
"""
