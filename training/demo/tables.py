"""Every domain of the world in order, the cross-domain look-alikes, the follow-up steps.
"""

from __future__ import annotations

from training.demo.domains_business import ANALYTICS, CRM, HR, PAYMENTS, SUPPORT
from training.demo.domains_collaboration import CALENDAR, CHAT, DOCS, EMAIL, TICKETS
from training.demo.domains_engineering import (
    CI_CD,
    INCIDENTS,
    KUBERNETES,
    OBSERVABILITY,
    SOURCE_CONTROL,
)
from training.demo.domains_platform import (
    CLOUD,
    DATABASES,
    FEATURE_FLAGS,
    IDENTITY,
    SECRETS,
    STORAGE,
    WEB_SEARCH,
)
from training.demo.spec import DomainSpec

DOMAINS: tuple[DomainSpec, ...] = (
    SOURCE_CONTROL, CI_CD, KUBERNETES, OBSERVABILITY, INCIDENTS, CHAT, EMAIL, CALENDAR, DOCS,
    TICKETS, CRM, PAYMENTS, DATABASES, STORAGE, WEB_SEARCH, SECRETS, IDENTITY, FEATURE_FLAGS,
    CLOUD, ANALYTICS, SUPPORT, HR,
)

# Look-alike capabilities in different domains: a selector confuses them, so they count as
# near-duplicates (menus, failures, the near_duplicate slice, not_for notes).
CROSS_DOMAIN = (
    ("search:log_line", "get:pod_log"),
    ("search:log_line", "get:build_log"),
    ("create:issue", "create:ticket"),
    ("search:issue", "search:ticket"),
    ("send:message", "send:email"),
    ("send:direct_message", "send:email"),
    ("search:page", "search:file"),
    ("search:document", "search:file"),
    ("rollback:deploy", "rollback:deployment"),
    ("get:deploy_status", "get:rollout_status"),
    ("create:incident", "create:ticket"),
    ("list:alert", "list:incident"),
    ("search:web_page", "search:page"),
    ("get:meeting", "get:recording"),
    ("list:error_issue", "list:ticket"),
    ("search:contact", "search:pay_customer"),
    ("search:user", "search:chat_user"),
    ("search:help_article", "search:page"),
    ("list:conversation", "list:ticket"),
    ("send:support_reply", "send:email"),
    ("create:status_incident", "create:incident"),
    ("search:employee", "search:user"),
    ("restart:vm_instance", "restart:deployment"),
)

# Follow-up steps a multi-part request tends to end with.
FOLLOW_UPS = frozenset({
    "send:message", "send:email", "send:direct_message", "send:thread_reply", "create:ticket",
    "create:issue", "create:incident_note", "create:page", "create:ticket_comment",
    "create:doc_comment", "create:incident", "update:ticket",
})
