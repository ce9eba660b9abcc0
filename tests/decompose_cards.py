"""The small catalog and request the decomposer tests share (not a test module)."""

from __future__ import annotations

from serving.model.schema import ToolCard

CHECKOUT = (
    "The checkout-service deploy failed last night. Find what changed, check the rollout, "
    "and tell the payments channel on Slack."
)


def card(
    tool_id: str, capabilities: list[str], entities: list[str], connection: str, risk: str
) -> ToolCard:
    server, name = tool_id.split(".", 1)
    return ToolCard.from_dict(
        {
            "tool_id": tool_id,
            "server": server,
            "domain": "devops",
            "name": name,
            "summary": name.replace("_", " "),
            "capabilities": capabilities,
            "entities": entities,
            "risk": risk,
            "requires": {"connection": connection, "scopes": []},
        }
    )


R, W = "read_only", "write"
CARDS = [
    card("github.list_commits", ["list:commit"], ["commit", "repository"], "github", R),
    card("github.search_code", ["search:code"], ["code", "repository"], "github", R),
    card("github.list_pull_requests", ["list:pull_request"], ["pull_request"], "github", R),
    card("github.create_pull_request", ["create:pull_request"], ["branch"], "github", W),
    card("k8s.get_rollout_status", ["get:rollout_status"], ["rollout"], "kubernetes", R),
    card("k8s.get_pod_logs", ["get:log"], ["pod", "log"], "kubernetes", R),
    card("k8s.restart_deployment", ["restart:deployment"], ["pod"], "kubernetes", W),
    card("k8s.rollback_deployment", ["rollback:deployment"], ["rollout"], "kubernetes", W),
    card("slack.post_message", ["send:message"], ["message", "channel"], "slack", W),
    card("slack.search_messages", ["search:message"], ["channel"], "slack", R),
    card("jira.create_issue", ["create:issue"], ["issue", "ticket"], "jira", W),
    card("jira.get_issue", ["get:issue"], ["ticket"], "jira", R),
    card("docs.search_docs", ["search:doc"], ["page"], "confluence", R),
]
