"""The `demo_world` params (types checked by `training.core.params.load_params`, ranges
here) and the world's constants: its slices and the new-tool window."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import date

from training.core.params import ParamsError

SECTION = "demo_world"
SLICES = ("single", "multi_subgoal", "no_tool", "new_tool", "cryptic", "near_duplicate",
          "exact_name")
NEW_TOOL_DAYS = 30  # a tool added within this many days before world_date counts as new


@dataclass(frozen=True, slots=True)
class WorldParams:
    """Mirror of the `demo_world` section of params.yaml (every key required, no extras)."""

    seed: int
    world_date: str
    coverage: float  # chance a server implements a read capability of its domain (unless pinned)
    write_coverage: float  # the same for mutating capabilities: servers expose fewer writes
    new_share: float  # share of tools added in the last NEW_TOOL_DAYS days
    cryptic_share: float  # share of tools with terse, implementer-voice descriptions
    annotated_family_share: float  # near-duplicate families with not_for / prefer_over filled
    n_trace_requests: int
    trace_days: int
    zipf_s: float  # tool popularity ~ 1 / rank**zipf_s
    trace_multi_share: float
    trace_failure_rate: float  # subgoals whose first pick is a near-duplicate that fails
    trace_menu_share: float  # traces that record the menu shown (the rest: menu unknown)
    n_eval_queries: int
    eval_multi_share: float
    eval_no_tool_share: float
    eval_exact_name_share: float
    eval_near_dup_share: float  # gold subgoals whose sibling server is deliberately connected
    eval_new_share: float  # eval requests whose first gold is a new tool
    eval_cryptic_share: float  # eval requests whose first gold is a cryptic tool
    # requests no tool serves, in families unlike the eval's (features.no_tool): the
    # tune_menus stage fits and thresholds the no-tool decision on them
    n_no_tool_queries: int
    # requests with gold in a third phrasing family (neither the traces' nor the eval's):
    # tune_menus chooses the menu bars and the no-tool threshold on them
    n_valid_queries: int

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        try:
            date.fromisoformat(self.world_date)
        except ValueError:
            raise ParamsError(
                f"{SECTION}.world_date: {self.world_date!r} is not an ISO date") from None
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "float" and not 0.0 <= value <= (5.0 if f.name == "zipf_s" else 1.0):
                raise ParamsError(f"{SECTION}.{f.name}: {value} is out of range")
            if f.name.startswith(("n_", "trace_days")) and value < 1:
                raise ParamsError(f"{SECTION}.{f.name}: must be positive")
        for a, b in (("eval_no_tool_share", "eval_multi_share"),
                     ("eval_new_share", "eval_cryptic_share")):
            if getattr(self, a) + getattr(self, b) > 1.0:
                raise ParamsError(f"{SECTION}: {a} + {b} exceed 1")

    @property
    def day0(self) -> date:
        return date.fromisoformat(self.world_date)

