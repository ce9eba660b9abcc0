"""Catalog governance: import foreign tool lists as cards, lint them, approve them.

`importers` (+ `derive`) turn MCP / OpenAI / Anthropic tool JSON into tool cards;
`lint` runs the rule families (`security_rules`, `quality_rules`, `shadowing`) and
reports `findings`; `approvals` pins reviewed description hashes. `review` holds the
bodies of the `toolsift import`, `lint` and `approve` commands (`serving.cli.catalog`).
"""
