"""Rate limits per user: which budgets there are, whose bucket a call draws on, and the refusal.

Each budget is a token bucket (graphmem.stores.ratelimit: the port and its in-process and Redis
adapters): a burst up to the per-minute limit, then a steady rate, which suits agents that write
several memories at the end of a turn and then go quiet.

Each user has two budgets, `write` and `search`, and every tool that writes or reads memory
content draws on one of them. The budget belongs to the user, not to the tool: if each tool had
its own bucket, a caller that used up `memory_write` would carry on writing through
`memory_observe` or `memory_update`, and one whose searches were refused would read the same
content through `memory_forget(query, dry_run=True)`; the limit would be the number of tools
times the advertised one. Two budgets rather than one, so a chatty search loop cannot starve
writes. One user cannot exhaust another's budget.

A refused call raises `RateLimitExceeded`, whose message says how long to wait.
"""

from __future__ import annotations

from typing import Literal

from graphmem.errors import GraphmemError
from graphmem.stores.ratelimit import RateDecision

Budget = Literal["write", "search"]
BUDGETS: tuple[Budget, ...] = ("write", "search")


class RateLimitExceeded(GraphmemError):
    """A user's budget cannot pay for this call. `retry_after_s` says when it will."""

    def __init__(
        self,
        user_id: str,
        tool: str,
        decision: RateDecision,
        cost: float = 1,
        budget: str = "write",
    ) -> None:
        limit = decision.limit_per_minute
        if cost > limit:
            msg = (
                f"rate_limit: this {tool} call costs {cost:g} from the {budget} budget, which"
                f" holds {limit:g} per minute per user; split it into batches of at most"
                f" {limit:g}"
            )
        else:
            msg = (
                f"rate_limit: the {budget} budget of {limit:g} per minute per user, shared by"
                f" every tool that {'writes' if budget == 'write' else 'reads'} memories, is"
                f" used up ({tool} needs {cost:g}); retry in {decision.retry_after_s:.2f} s"
            )
        super().__init__(msg)
        self.field = "rate_limit"
        self.message = msg
        self.user_id = user_id
        self.tool = tool
        self.budget = budget
        self.cost = cost
        self.retry_after_s = decision.retry_after_s
        self.decision = decision


def bucket_key(user_id: str, budget: str) -> str:
    """One bucket per (user, budget). Budget names never contain ':', so putting the budget
    first keeps the key unambiguous whatever the user id contains."""
    return f"{budget.replace(':', '_')}:{user_id}"


__all__ = ["BUDGETS", "Budget", "RateLimitExceeded", "bucket_key"]
