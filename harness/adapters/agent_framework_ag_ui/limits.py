"""The bundled scenarios whose caller input has no form in the AG-UI protocol, each with the reason: the run is
n/a for this implementation, never a pass (`harness.contract.adapter_unexpressible`)."""

from __future__ import annotations

# AG-UI's canonical interrupts: an approval is a decision on an interrupt the endpoint issued and holds as server
# state; a run after a pause must answer every open interrupt (RUN_ERROR APPROVAL_RESUME_REQUIRED otherwise).
_HANDWRITTEN = ("the caller decides on approval requests it wrote into its own history; AG-UI takes decisions only "
                "as resume entries for interrupts the endpoint issued and holds")
_UNANSWERED = ("the caller leaves pending approvals unanswered in a turn (a new message, or decisions on only some of "
               "them); the AG-UI interrupt protocol requires a resume entry for every open interrupt before any "
               "other run of the thread")

# A pause for more input keeps the approval pending at the endpoint, which takes no client-authored result for a
# pending occurrence (it removes it, spec "Approval control content") and answers the pause only by a resume entry.
_INPUT_AS_RESULT = ("the caller answers an approved call's input request with a result of its own; the AG-UI "
                    "endpoint keeps that approval pending, discards client-authored results for it and takes only a "
                    "resume entry for its interrupt")

UNEXPRESSIBLE: dict[str, str] = {
    "correlation.follow-up.closes-one-occurrence": _INPUT_AS_RESULT,
    "correlation.follow-up.only-the-follow-up-closes": _HANDWRITTEN,
    "correlation.historical-response.new-round": _HANDWRITTEN,
    "correlation.later-turn.resolved-approval-inert": _HANDWRITTEN,
    "correlation.multi-content.reused-id-same-turn": _HANDWRITTEN,
    "correlation.reused-id.handwritten-history": _HANDWRITTEN,
    "correlation.replayed-wrapper.duplicated-request": _HANDWRITTEN,
    "correlation.replayed-wrapper.resurfaced-request": _UNANSWERED,
    "correlation.request-ids.differ-from-call-ids": _HANDWRITTEN,
    "mixed.held-calls.unrelated-turn": _UNANSWERED,
    "mixed.held-calls.abandoned-batches": _UNANSWERED,
}
