"""The demo world generator: determinism, the stated proportions, and data hygiene.

The world is generated once per module (a few seconds); every proportion the data README
promises is checked on it, with bounds wide enough to hold for any seed.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from serving.model.io import load_catalog, load_queries, load_traces, write_jsonl
from serving.model.schema import ToolCard
from serving.model.vocab import OPERATIONS, parse_capability
from training import demo_world
from training.core.params import ParamsError, load_params, params_from_mapping
from training.demo import phrasing
from training.demo.cards import build_tools
from training.demo.params import SECTION, SLICES, WorldParams
from training.demo.render import Values, render
from training.demo.tables import DOMAINS
from training.demo.world import World, generate_world, summarize

ROOT = Path(__file__).resolve().parents[1]
PRODUCTS = {s.server: s.product for d in DOMAINS for s in d.servers}
MUTATING_VERBS = sorted({v for op in OPERATIONS.values() if op.mutates for v in op.verbs},
                        key=len, reverse=True)
MUTATING_RE = re.compile(r"\b(" + "|".join(re.escape(v) for v in MUTATING_VERBS) + ")",
                         re.IGNORECASE)


@pytest.fixture(scope="module")
def params() -> WorldParams:
    return load_params(ROOT / "params.yaml", SECTION, WorldParams)


@pytest.fixture(scope="module")
def world(params: WorldParams) -> World:
    return generate_world(params)


@pytest.fixture(scope="module")
def cards(world: World) -> dict[str, ToolCard]:
    return {c.tool_id: c for c in world.cards}


# --- params and determinism -----------------------------------------------------------------


def from_mapping(raw: dict) -> WorldParams:
    return params_from_mapping(WorldParams, raw, SECTION)


def test_params_mirror_the_section_exactly(params):
    raw = {f: getattr(params, f) for f in params.__slots__}
    with pytest.raises(ParamsError, match="missing keys \\['seed'\\]"):
        from_mapping({k: v for k, v in raw.items() if k != "seed"})
    with pytest.raises(ParamsError, match="unknown keys \\['n_tools'\\]"):
        from_mapping({**raw, "n_tools": 5})
    with pytest.raises(ParamsError, match="coverage"):
        from_mapping({**raw, "coverage": "high"})
    with pytest.raises(ParamsError, match="world_date"):
        from_mapping({**raw, "world_date": "next tuesday"})
    assert from_mapping(raw) == params


def test_same_seed_same_world_other_seed_other_world(params):
    small = replace(params, n_trace_requests=1500, n_eval_queries=150)
    a, again = generate_world(small), generate_world(small)
    assert a == again
    b = generate_world(replace(small, seed=small.seed + 1))
    assert a.cards != b.cards and a.traces != b.traces and a.queries != b.queries


def test_main_writes_byte_identical_files_the_loaders_accept(tmp_path, world):
    assert demo_world.main([str(ROOT / "params.yaml"), str(tmp_path / "demo")]) == 0
    # the fixture's world, written the way main writes it, is byte-identical to main's files
    write_jsonl(tmp_path / "ref" / "catalog.jsonl", (c.to_dict() for c in world.cards))
    write_jsonl(tmp_path / "ref" / "traces.jsonl", (t.to_dict() for t in world.traces))
    write_jsonl(tmp_path / "ref" / "eval.jsonl", (q.to_dict() for q in world.queries))
    for name in ("catalog.jsonl", "traces.jsonl", "eval.jsonl"):
        assert (tmp_path / "demo" / name).read_bytes() == (tmp_path / "ref" / name).read_bytes()

    catalog = load_catalog(tmp_path / "demo" / "catalog.jsonl", strict=True)
    known = [c.tool_id for c in catalog.items]
    traces = load_traces(tmp_path / "demo" / "traces.jsonl", known_tools=known, strict=True)
    queries = load_queries(tmp_path / "demo" / "eval.jsonl", known_tools=known, strict=True)
    assert (catalog.n_skipped, traces.n_skipped, queries.n_skipped) == (0, 0, 0)
    assert (len(catalog.items), len(traces.items), len(queries.items)) == (
        len(world.cards), len(world.traces), len(world.queries))


# --- the catalog ----------------------------------------------------------------------------


def test_catalog_scale_and_named_products(world, cards):
    servers = {c.server for c in world.cards}
    assert len(world.cards) >= 1200
    assert len(servers) >= 30
    assert len({c.domain for c in world.cards}) >= 10
    named = {"github", "gitlab", "bitbucket", "jenkins", "circleci", "argocd", "github_actions",
             "k8s", "helm", "datadog", "grafana", "prometheus", "logs", "sentry", "pagerduty",
             "opsgenie", "slack", "teams", "discord", "gmail", "outlook_mail", "sendgrid",
             "confluence", "notion", "gdocs", "jira", "linear", "zendesk", "servicenow",
             "salesforce", "hubspot", "stripe", "paypal", "adyen", "postgres", "mysql",
             "mongodb", "snowflake", "s3", "gcs", "dropbox", "gdrive", "brave", "bing", "serpapi"}
    assert named <= servers
    assert sum(c.trust == "third_party" for c in world.cards) > 0


def test_required_tools_exist_with_their_connections(cards):
    github = [c for c in cards.values() if c.server == "github"]
    for cap in ("list:commit", "get:diff", "search:code"):  # list commits, compare, search code
        assert any(cap in c.capabilities and c.connection == "github" for c in github), cap
    for tool_id in ("k8s.get_rollout_status", "k8s.get_pod_logs"):
        assert cards[tool_id].connection == "kubernetes"
    assert cards["slack.post_message"].connection == "slack"
    assert cards["slack.post_message"].risk == "write"
    assert "search:log_line" in cards["logs.search"].capabilities


def test_servers_use_different_naming_conventions(world):
    names = [c.name for c in world.cards]
    patterns = {"snake verb_object": r"^(list|get|search|create)_[a-z_]+$",
                "object_verb": r"^[a-z_]+_(list|get|search|create)$",
                "camelCase": r"^[a-z]+[A-Z][A-Za-z]+$", "PascalCase": r"^[A-Z][a-z]+[A-Z]\w+$",
                "kebab": r"^[a-z]+-[a-z-]+$"}
    for label, pattern in patterns.items():
        assert any(re.match(pattern, n) for n in names), label


def test_cards_round_trip_and_carry_valid_schemas(world):
    for card in world.cards:
        assert ToolCard.from_dict(card.to_dict()) == card  # runs Draft 2020-12 check_schema
        props = card.input_schema["properties"]
        assert set(card.input_schema.get("required", ())) <= set(props), card.tool_id
        assert card.summary and "\n" not in card.summary
        assert card.description.count(". ") >= 1 or len(card.description) > 60
        assert card.capabilities and card.requires.scopes and card.owner
        assert 0 <= len(card.examples) <= 2
        assert card.env and set(card.env) <= {"prod", "staging"}
        op, _ = parse_capability(card.capabilities[0])
        assert (card.risk == "read_only") == (not OPERATIONS[op].mutates), card.tool_id
        if card.risk == "destructive":
            assert op in ("delete", "rollback"), card.tool_id
    assert sum(bool(c.input_schema.get("required")) for c in world.cards) > 0.8 * len(world.cards)
    assert any("enum" in p for c in world.cards for p in c.input_schema["properties"].values())
    assert Counter(tuple(c.env) for c in world.cards).most_common(1)[0][0] == ("prod", "staging")


def test_risk_mix(world):
    n = len(world.cards)
    risk = Counter(c.risk for c in world.cards)
    assert 0.60 <= risk["read_only"] / n <= 0.70
    assert 0.24 <= risk["write"] / n <= 0.32
    assert 0.03 <= risk["destructive"] / n <= 0.07


def test_near_duplicate_families(world, cards):
    by_cap = defaultdict(list)
    for c in world.cards:
        by_cap[c.capabilities[0]].append(c)
    assert len(by_cap["search:code"]) >= 3
    assert any(cap.startswith("search:") and len(ts) >= 3 for cap, ts in by_cap.items())
    near = world.near_dups["logs.search"]
    assert "k8s.get_pod_logs" in near and "datadog.search_logs" in near
    families = [ts for ts in by_cap.values() if len(ts) > 1]
    annotated = [ts for ts in families if any(c.not_for for c in ts)]
    assert 0.3 <= len(annotated) / len(families) <= 0.7
    for c in world.cards:
        for other in c.prefer_over:
            assert other in world.near_dups[c.tool_id]
    assert any(c.prefer_over for c in world.cards)


def test_cryptic_tools(world, cards):
    n = len(world.cards)
    assert 0.05 <= len(world.cryptic_tools) / n <= 0.10
    implementer = re.compile(r"\b(GET|POST|PATCH|DELETE|shim|endpt|passthru|Wraps)\b")
    for tool_id in world.cryptic_tools:
        card = cards[tool_id]
        assert implementer.search(card.summary), card.summary
        assert implementer.search(card.description) and len(card.description) < 220
    assert any(c.server == "scm_legacy" for c in world.cards)
    assert "jira_legacy.iss_q" in cards
    plain = [cards[t] for t in cards if t not in world.cryptic_tools]
    assert not any(implementer.search(c.summary) for c in plain)


def test_new_tools_are_recent_and_cold(world, params):
    n = len(world.cards)
    assert 0.05 <= len(world.new_tools) / n <= 0.10
    cutoff = (params.day0 - timedelta(days=30)).isoformat()
    for card in world.cards:
        assert (card.added_at >= cutoff) == (card.tool_id in world.new_tools), card.tool_id
        assert card.added_at < params.world_date
    uses = Counter(t.tool_id for t in world.traces)
    assert all(uses[t] <= 3 for t in world.new_tools)


# --- traces ---------------------------------------------------------------------------------


def test_trace_volume_popularity_and_failures(world, cards):
    traces = world.traces
    assert len(traces) >= 30_000
    assert all(t.tool_id in cards for t in traces)
    failure_rate = sum(not t.success for t in traces) / len(traces)
    assert 0.05 <= failure_rate <= 0.10
    uses = Counter(t.tool_id for t in traces).most_common()
    top = sum(n for _, n in uses[: len(cards) // 20])
    assert top / len(traces) > 0.35  # Zipf-like: the top 5% of tools carry a third or more
    by_request = defaultdict(list)
    for t in traces:
        by_request[t.request_id].append(t)
    wrong_pick = 0
    recovered = 0
    for t in traces:
        if t.success:
            continue
        steps = by_request[t.request_id]
        right = [s for s in steps if s.success and s.subgoal == t.subgoal]
        if right and right[0].tool_id != t.tool_id:
            recovered += 1
            wrong_pick += t.tool_id in world.near_dups[right[0].tool_id]
    assert recovered > 0.5 * sum(not t.success for t in traces)
    assert wrong_pick == recovered  # a failed first pick is always a near-duplicate


def test_trace_menus_contexts_and_times(world, cards, params):
    with_menu = [t for t in world.traces if t.menu]
    assert 0.05 <= 1 - len(with_menu) / len(world.traces) <= 0.25
    for t in with_menu:
        assert 5 <= len(t.menu) <= 8 and len(set(t.menu)) == len(t.menu)
        assert t.tool_id in t.menu and all(m in cards for m in t.menu)
    near_in_menu = sum(any(m in world.near_dups[t.tool_id] for m in t.menu) for t in with_menu)
    assert near_in_menu > 0.3 * len(with_menu)
    end = datetime(params.day0.year, params.day0.month, params.day0.day)
    for t in world.traces:
        card = cards[t.tool_id]
        assert card.connection in t.context["connections"]
        assert t.context["env"] in card.env
        stamp = datetime.strptime(t.ts, "%Y-%m-%dT%H:%M:%SZ")
        assert stamp < end and stamp.date().isoformat() >= card.added_at


def test_trace_phrasing_styles_and_multi_part_requests(world):
    subgoals = {t.subgoal for t in world.traces}
    texts = subgoals | {t.request for t in world.traces}
    assert not any("{" in x or "}" in x for x in texts)  # every slot was filled
    terse = sum(bool(re.match(r"^[A-Z]+-\d+: ", s)) for s in subgoals)
    questions = sum(s.endswith("?") for s in subgoals)
    assert terse > 0.1 * len(subgoals) and questions > 0.1 * len(subgoals)
    # the ticket style with concrete ids, e.g. "PAY-4411: refund charge ch_3Nx (duplicate)"
    assert sum(bool(re.search(r"^[A-Z]+-\d+: .*(ch_3N|INC-\d|#\d|acme/)", s))
               for s in subgoals) > 100
    requests = defaultdict(set)
    for t in world.traces:
        requests[t.request_id].add(t.subgoal)
    multi = [r for r, sgs in requests.items() if len(sgs) > 1]
    assert 0.05 <= len(multi) / len(requests) <= 0.3
    for t in world.traces:
        assert t.subgoal in t.request


# --- eval -----------------------------------------------------------------------------------


def test_eval_shape_and_slices(world, cards):
    queries = world.queries
    n = len(queries)
    assert n >= 1000
    assert len({q.query_id for q in queries}) == n
    sl = Counter(s for q in queries for s in q.slices)
    assert set(sl) <= set(SLICES)
    assert sl["multi_subgoal"] / n >= 0.20
    assert sl["no_tool"] / n >= 0.05
    assert sl["new_tool"] >= 40 and sl["cryptic"] >= 40
    assert 0.025 <= sl["exact_name"] / n <= 0.06
    for q in queries:
        if "no_tool" in q.slices:
            assert q.gold == () and q.slices == ("no_tool",)
            continue
        assert ("multi_subgoal" in q.slices) == (len(q.subgoals) > 1)
        assert ("single" in q.slices) == (len(q.subgoals) == 1)
        assert 1 <= len(q.subgoals) <= 3
        assert all(len(sg.gold) == 1 for sg in q.subgoals)
        assert list(q.gold) == [sg.gold[0] for sg in q.subgoals]
        assert all(sg.text[1:] in q.query for sg in q.subgoals)  # bar a capital first letter
        assert ("new_tool" in q.slices) == any(g in world.new_tools for g in q.gold)
        assert ("cryptic" in q.slices) == any(g in world.cryptic_tools for g in q.gold)
        if "exact_name" in q.slices:
            assert any(g in q.query or cards[g].name in q.query for g in q.gold)


def test_gold_is_callable_and_contexts_are_realistic(world, cards):
    for q in world.queries:
        ctx = q.context
        assert 6 <= len(ctx["connections"]) <= 12
        for g in q.gold:
            card = cards[g]
            assert card.connection in ctx["connections"], q.query_id
            assert set(card.requires.scopes) <= set(ctx["scopes"]), q.query_id
            assert ctx["env"] in card.env, q.query_id


def test_connected_near_duplicates_are_disambiguated_by_name(world, cards):
    """A gold with a connected look-alike: the request names the product (or the tool)."""
    for q in world.queries:
        live = set(q.context.get("connections", ()))
        clashes = 0
        for sg in q.subgoals:
            for g in sg.gold:
                near = [n for n in world.near_dups[g] if cards[n].connection in live]
                if near:
                    clashes += 1
                    product = PRODUCTS[cards[g].server].lower()
                    assert product in sg.text.lower() or g in sg.text, (sg.text, g, near)
        assert ("near_duplicate" in q.slices) == (clashes > 0), q.query_id
    share = sum("near_duplicate" in q.slices for q in world.queries) / len(world.queries)
    assert 0.15 <= share <= 0.6


def test_mutating_golds_come_from_requests_that_ask_for_a_change(world, cards):
    for q in world.queries:
        for sg in q.subgoals:
            if sg.gold and cards[sg.gold[0]].risk != "read_only":
                assert MUTATING_RE.search(sg.text), sg.text
    for op, styles in phrasing.EVAL_TEMPLATES.items():
        if OPERATIONS[op].mutates:
            for template in (t for ts in styles.values() for t in ts):
                assert MUTATING_RE.search(template), template


def test_eval_templates_and_texts_are_disjoint_from_traces(world):
    for op in phrasing.TRACE_TEMPLATES:
        trace = {t for ts in phrasing.TRACE_TEMPLATES[op].values() for t in ts}
        ev = {t for ts in phrasing.EVAL_TEMPLATES[op].values() for t in ts}
        assert not trace & ev, op
    assert not set(phrasing.TRACE_MENTIONS) & set(phrasing.EVAL_MENTIONS)
    assert not set(phrasing.TRACE_EXACT) & set(phrasing.EVAL_EXACT)
    assert not {j for js in phrasing.TRACE_JOINS.values() for j in js} & \
        {j for js in phrasing.EVAL_JOINS.values() for j in js}
    seen = {t.request.lower() for t in world.traces} | {t.subgoal.lower() for t in world.traces}
    seen |= {ex.lower() for c in world.cards for ex in c.examples}
    for q in world.queries:
        assert q.query.lower() not in seen, q.query
        assert not any(sg.text.lower() in seen for sg in q.subgoals), q.query
    assert len({q.query for q in world.queries}) == len(world.queries)


def test_validation_requests_share_no_template_or_text_with_traces_or_eval(world, cards):
    for family in (phrasing.TRACE_TEMPLATES, phrasing.EVAL_TEMPLATES):
        for op, styles in phrasing.VALID_TEMPLATES.items():
            assert not {t for ts in styles.values() for t in ts} & \
                {t for ts in family[op].values() for t in ts}, op
    for forms in ("MENTIONS", "EXACT"):
        valid = set(getattr(phrasing, f"VALID_{forms}"))
        assert not valid & set(getattr(phrasing, f"TRACE_{forms}"))
        assert not valid & set(getattr(phrasing, f"EVAL_{forms}"))
    seen = {t.request.lower() for t in world.traces} | {q.query.lower() for q in world.queries}
    assert world.valid and all(q.gold and q.query.lower() not in seen for q in world.valid)
    assert all(g in cards for q in world.valid for g in q.gold)
    for op, styles in phrasing.VALID_TEMPLATES.items():  # a change must say so, as in eval
        if OPERATIONS[op].mutates:
            for template in (t for ts in styles.values() for t in ts):
                assert MUTATING_RE.search(template), template


def test_every_template_renders_for_every_capability(params):
    tools = build_tools(params, random.Random("render-check"))
    one_per_cap = {t.capability: t for t in tools}.values()
    rng = random.Random(0)
    for family in (phrasing.TRACE_TEMPLATES, phrasing.EVAL_TEMPLATES, phrasing.VALID_TEMPLATES):
        for t in one_per_cap:
            for style, templates in family[t.op].items():
                for template in templates:
                    values = Values(rng, params.day0)
                    text = render(t, {t.op: {style: (template,)}}, style, values, rng)
                    assert text and "{" not in text and "}" not in text, (t.tool_id, template)
    for template in phrasing.NO_TOOL_TEMPLATES:
        assert "{" not in template.format_map(Values(rng, params.day0))


def test_summary_reports_the_counts(world):
    text = summarize(world)
    assert f"tools {len(world.cards)}" in text and f"traces {len(world.traces)}" in text
    for name in SLICES:
        assert name in text
