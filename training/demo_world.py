"""Generate the seeded demo tool world: a ~1,300-tool catalog, traces and labeled queries.

The world exercises the failure modes a tool selector meets in real catalogs: near-duplicate
families (one capability on several servers, and look-alikes across domains), cryptic legacy
tools, cold new tools, multi-part requests and requests that no tool can serve. It is built
from data tables (domains -> entities with synonyms, example values and parameters -> the
operations of `serving.vocab`), so every tool, trace and query is a combination of them.

Everything is drawn from `random.Random` streams derived from the one seed, and every date is
relative to `world_date`, so the same params give byte-identical files. Eval requests are
phrased with templates disjoint from the trace templates: the metrics measure generalisation,
not template recall.

    python -m training.demo_world params.yaml data/demo
"""

from __future__ import annotations

import argparse
import random
import re
import string
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import date, datetime, timedelta
from itertools import accumulate
from pathlib import Path
from typing import Any

from serving.io import write_jsonl
from serving.schema import LabeledQuery, LabeledSubgoal, Requires, ToolCard, Trace
from serving.vocab import READ_OPERATIONS
from training.common import ParamsError, read_section

SECTION = "demo_world"
SLICES = ("single", "multi_subgoal", "no_tool", "new_tool", "cryptic", "near_duplicate",
          "exact_name")
NEW_TOOL_DAYS = 30  # a tool added within this many days before world_date counts as new


# --- params and the result ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Params:
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

    @classmethod
    def from_mapping(cls, data: Any) -> Params:
        if not isinstance(data, Mapping):
            raise ParamsError(f"{SECTION}: expected a mapping of params")
        names = [f.name for f in fields(cls)]
        missing = [n for n in names if n not in data]
        unknown = sorted(set(data) - set(names))
        if missing or unknown:
            raise ParamsError(f"{SECTION}: missing keys {missing}, unknown keys {unknown}")
        kinds = {"int": (int,), "float": (int, float), "str": (str,)}
        values: dict[str, Any] = {}
        for f in fields(cls):
            value = data[f.name]
            if isinstance(value, bool) or not isinstance(value, kinds[str(f.type)]):
                raise ParamsError(f"{SECTION}.{f.name}: expected {f.type}, got {value!r}")
            values[f.name] = float(value) if f.type == "float" else value
        params = cls(**values)
        params.check()
        return params

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


def load_params(path: str | Path) -> Params:
    return Params.from_mapping(read_section(path, SECTION))


@dataclass(frozen=True, slots=True)
class World:
    """The generated world; the two id sets and `near_dups` are the ground truth behind slices."""

    cards: tuple[ToolCard, ...]
    traces: tuple[Trace, ...]
    queries: tuple[LabeledQuery, ...]
    new_tools: frozenset[str] = frozenset()
    cryptic_tools: frozenset[str] = frozenset()
    # tool id -> same-capability tools on other servers, then cross-domain look-alikes
    near_dups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


# --- the data model of the world tables -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class EntitySpec:
    """A thing tools act on, with the words users say and the phrases requests are built from.

    `phrases` maps a phrase kind (obj, objs, hay, q, qry, new, change, dest, msg, upl), or
    `kind_op` for one operation, to phrase templates whose `{slot}`s are drawn from VALUES.
    """

    name: str
    nouns: tuple[str, ...]
    plurals: tuple[str, ...]
    ops: tuple[str, ...]
    scope: str  # the OAuth-style resource: scopes are "<scope>:read|write|admin"
    ctx: str  # where it lives, for summaries ("in a repository")
    keys: tuple[str, ...]  # params naming one instance
    container: tuple[str, ...]  # params naming the collection
    filters: tuple[str, ...]
    fields: tuple[str, ...]  # create/update/send params; a trailing "!" marks required
    token: tuple[str, str]  # (singular, plural) used in tool names
    summaries: Mapping[str, str]
    soft_delete: bool  # delete is reversible (archive, revoke): risk write, not destructive
    phrases: Mapping[str, tuple[str, ...]]

    def phrase(self, kind: str, op: str) -> tuple[str, ...]:
        found = self.phrases.get(f"{kind}_{op}") or self.phrases.get(kind)
        if not found:
            raise KeyError(f"entity {self.name!r} has no {kind!r} phrases for {op!r}")
        return found


@dataclass(frozen=True, slots=True)
class ServerSpec:
    server: str
    product: str  # what users call it; requests name it to disambiguate near-duplicates
    style: str  # tool naming: snake | object | camel | pascal | kebab | cryptic
    connection: str
    entities: tuple[str, ...]  # () = every entity of the domain
    pinned: tuple[str, ...]  # capabilities always implemented
    skip: tuple[str, ...]
    only: tuple[str, ...]  # explicit capability list (legacy servers)
    trust: str
    verbs: Mapping[str, str]
    aliases: Mapping[str, tuple[str, str]]
    names: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class DomainSpec:
    name: str
    owner: str
    entities: tuple[EntitySpec, ...]
    servers: tuple[ServerSpec, ...]


def _e(name: str, nouns: str, plurals: str, ops: str, *, scope: str, ctx: str, keys: str = "",
       container: str = "", filters: str = "", fields: str = "", token: str = "",
       summ: Mapping[str, str] | None = None, soft_delete: bool = False,
       **phrases: Sequence[str]) -> EntitySpec:
    sing, _, plur = (token or f"{name}/{name}s").partition("/")
    return EntitySpec(
        name=name, nouns=tuple(nouns.split("|")), plurals=tuple(plurals.split("|")),
        ops=tuple(ops.split()), scope=scope, ctx=ctx, keys=tuple(keys.split()),
        container=tuple(container.split()), filters=tuple(filters.split()),
        fields=tuple(fields.split()), token=(sing, plur or sing), summaries=dict(summ or {}),
        soft_delete=soft_delete, phrases={k: tuple(v) for k, v in phrases.items()},
    )


def _s(server: str, product: str, style: str, *, connection: str = "", entities: str = "",
       pinned: str = "", skip: str = "", only: str = "", trust: str = "first_party",
       verbs: Mapping[str, str] | None = None, aliases: Mapping[str, str] | None = None,
       names: Mapping[str, str] | None = None) -> ServerSpec:
    return ServerSpec(
        server=server, product=product, style=style, connection=connection or server,
        entities=tuple(entities.split()), pinned=tuple(pinned.split()), skip=tuple(skip.split()),
        only=tuple(only.split()), trust=trust, verbs=dict(verbs or {}),
        aliases={k: tuple(v.split("/")) for k, v in (aliases or {}).items()},  # type: ignore[misc]
        names=dict(names or {}),
    )


# --- the world tables: domains, entities, servers -------------------------------------------
# Phrase kinds per operation: search -> hay + q, list/export -> objs, query -> qry,
# create/schedule -> new, update -> obj + change, send -> dest + msg, upload -> upl, others -> obj.

SOURCE_CONTROL = DomainSpec("source_control", "team-devex", (
    _e("repository", "repository|repo", "repositories|repos", "search list get create delete",
       scope="repo", ctx="in the organisation", keys="repo", container="org",
       filters="visibility language", fields="name! visibility description", token="repo/repos",
       obj=["{repo}", "the {repo} repository"],
       obj_delete=["the repo {old_repo}", "the abandoned repository {old_repo}"],
       objs=["repos in the acme org", "all {lang} repositories owned by acme",
             "private repositories of the {team} team"],
       hay=["the acme org's repositories", "all our repos"], q=["'{repo_kw}'", "{repo_kw}"],
       new=["a private repo called acme/{new_repo}", "a repository acme/{new_repo} for {team}"]),
    _e("commit", "commit|change", "commits|changes", "search list get", scope="repo",
       ctx="in a repository", keys="repo sha", container="repo",
       filters="branch author since until",
       obj=["commit {sha} in {repo}", "{sha} on {repo}"],
       hay=["commits in {repo}", "commit messages across acme repos"],
       q=["'{pr_kw}'", "'fix {bug_kw}'"],
       objs=["commits in {repo} since {date}", "the last {n} commits on {repo}@{branch}",
             "commits by {person} in {repo} this week"]),
    _e("diff", "diff|comparison", "diffs", "get", scope="repo", ctx="between two refs",
       keys="repo base head", container="repo",
       summ={"get": "Compare two commits, branches or tags and show the changed files and lines."},
       obj=["the diff between {tag} and {tag2} in {repo}",
            "the changes from {sha} to {sha2} on {repo}",
            "the comparison of {branch} against main in {repo}"]),
    _e("pull_request", "pull request|PR", "pull requests|PRs",
       "search list get create update merge approve", scope="repo", ctx="in a repository",
       keys="repo number", container="repo", filters="state author base",
       fields="title! head! base body", token="pull_request/pull_requests",
       obj=["PR #{num} in {repo}", "pull request {num} on {repo}"],
       obj_merge=["PR #{num} in {repo}", "pull request #{num} on {repo} with a squash"],
       objs=["open PRs in {repo}", "pull requests by {person} in {repo}",
             "PRs waiting for review on {repo}"],
       hay=["PRs in {repo}", "pull requests across the acme org"], q=["'{pr_kw}'"],
       new=["a PR from {branch} into main on {repo}",
            "a pull request in {repo} titled '{pr_title}'"],
       change=["set the title to '{pr_title}'", "add the label {label}",
               "request review from {handle}"]),
    _e("issue", "issue|GitHub-style issue", "issues", "search list get create update",
       scope="issues", ctx="in a repository", keys="repo number", container="repo",
       filters="state labels assignee", fields="title! body labels assignee",
       obj=["issue #{num} in {repo}", "{repo}#{num}"],
       objs=["open issues in {repo}", "issues labelled {label} in {repo}",
             "issues assigned to {handle} in {repo}"],
       hay=["issues in {repo}", "the issue tracker of {repo}"], q=["'{bug_kw}'"],
       new=["an issue in {repo} titled '{ticket_title}'",
            "a bug report on {repo}: '{ticket_title}'"],
       change=["set the state to closed", "add the label {label}", "set the assignee to {handle}"]),
    _e("repo_file", "file|file contents", "files", "list get update", scope="repo",
       ctx="in a repository", keys="repo path", container="repo", filters="ref",
       fields="content! message! branch", token="file/files",
       obj=["{repo_file} in {repo}", "the contents of {repo_file} on {repo}@{branch}"],
       objs=["files under src/ in {repo}", "the top-level files of {repo}@{branch}"],
       change=["bump the version to {tag}", "replace the base image with python:3.12-slim"]),
    _e("release", "release", "releases", "list get create", scope="repo", ctx="of a repository",
       keys="repo tag", container="repo", fields="tag! name notes draft",
       obj=["release {tag} of {repo}", "the {tag} release in {repo}"],
       objs=["releases of {repo}", "the latest releases in {repo}"],
       new=["a release {tag} on {repo} from main", "a draft release {tag} for {repo}"]),
    _e("branch", "branch", "branches", "list get create delete", scope="repo",
       ctx="in a repository",
       keys="repo branch", container="repo", fields="branch! from_ref",
       obj=["branch {branch} in {repo}", "the {branch} branch on {repo}"],
       obj_delete=["the merged branch {branch} in {repo}", "branch {branch} on {repo}"],
       objs=["branches in {repo}", "stale branches on {repo}"],
       new=["a branch {new_branch} off main in {repo}",
            "a branch {new_branch} in {repo} from {tag}"]),
    _e("review_comment", "review comment", "review comments", "list create", scope="repo",
       ctx="on a pull request", keys="repo number", container="repo number",
       fields="body! path line",
       objs=["review comments on PR #{num} in {repo}", "unresolved review threads on {repo}#{num}"],
       new=["a review comment on PR #{num} in {repo} saying '{review_text}'"]),
    _e("webhook", "webhook|repo hook", "webhooks", "list get create delete",
       scope="admin_repo_hook",
       ctx="of a repository", keys="repo hook_id", container="repo", fields="url! events",
       obj=["webhook {hook_id} on {repo}", "the {hook_url} webhook of {repo}"],
       objs=["webhooks on {repo}", "repo hooks configured for {repo}"],
       new=["a webhook on {repo} pointing to {hook_url}"]),
    _e("code", "code|source code", "code", "search", scope="repo", ctx="across repositories",
       container="repo", filters="language path", token="code/code",
       summ={"search": "Search source code across repositories for a string, symbol or regex."},
       hay=["the {repo} codebase", "code in {repo}", "all acme repos"],
       q=["'{code_term}'", "usages of {code_fn}"]),
    _e("collaborator", "collaborator|repo member", "collaborators", "list create delete",
       scope="admin_org", ctx="of a repository", keys="repo username", container="repo",
       fields="username! permission", soft_delete=True,
       obj=["{handle}'s access to {repo}", "collaborator {handle} on {repo}"],
       objs=["collaborators on {repo}", "people with write access to {repo}"],
       new=["{handle} as a collaborator on {repo} with write access"]),
), (
    _s("github", "GitHub", "snake", pinned="list:commit get:diff search:code",
       names={"get:diff": "compare_commits", "get:repo_file": "get_file_contents"}),
    _s("gitlab", "GitLab", "snake",
       aliases={"pull_request": "merge_request/merge_requests", "repository": "project/projects"},
       names={"get:diff": "compare_refs"}),
    _s("bitbucket", "Bitbucket", "camel", aliases={"repository": "repository/repositories"}),
    _s("azure_repos", "Azure Repos", "camel", skip="search:repository create:repository"),
    _s("sourcegraph", "Sourcegraph", "snake", entities="code repository",
       only="search:code search:repository", names={"search:code": "code_search"}),
    _s("scm_legacy", "the legacy SCM", "cryptic", only=(
        "search:code list:commit get:commit get:diff list:branch list:pull_request "
        "get:pull_request get:repo_file list:repository search:issue")),
))

CI_CD = DomainSpec("ci_cd", "team-release-eng", (
    _e("pipeline_run", "build|pipeline run|CI run", "builds|pipeline runs|CI runs",
       "list get trigger cancel", scope="builds", ctx="of a job or workflow",
       keys="pipeline run_id", container="pipeline", filters="branch status",
       fields="branch parameters", token="run/runs",
       obj=["build #{build} of {job}", "the latest {job} run on {branch}",
            "run {build} of the {workflow} workflow"],
       obj_trigger=["a build of {job} on {branch}",
                    "the {workflow} workflow for {repo} on {branch}",
                    "a fresh run of {job}"],
       obj_cancel=["build #{build} of {job}", "the stuck {workflow} run on {repo}"],
       objs=["failed builds of {job} since {date}", "recent runs of {workflow} on {repo}",
             "builds on {branch} for {job}"]),
    _e("build_log", "build log|CI log|console output", "build logs|CI logs", "get search",
       scope="builds", ctx="of a build", keys="pipeline run_id", filters="step tail_lines",
       token="build_log/build_logs",
       summ={"get": "Fetch the console output of one build or pipeline run."},
       obj=["the console output of build #{build} of {job}",
            "the CI log of run {build} of {workflow}",
            "logs of the failed step in {job} #{build}"],
       hay=["the logs of {job} #{build}", "CI logs of {workflow} runs this week"],
       q=["'{ci_err}'"]),
    _e("artifact", "artifact|build artifact", "artifacts", "list get export", scope="builds",
       ctx="of a build", keys="pipeline run_id name", container="pipeline run_id",
       obj=["the {artifact} artifact from build #{build} of {job}"],
       objs=["artifacts of build #{build} of {job}",
             "the files produced by run {build} of {workflow}"],
       objs_export=["the {artifact} artifact from {job} #{build}",
                    "all artifacts of run {build} of {workflow}"]),
    _e("job", "job|pipeline|workflow", "jobs|pipelines|workflows", "list get create update delete",
       scope="pipelines", ctx="in the CI server", keys="pipeline", container="project",
       fields="name! definition schedule", token="job/jobs",
       obj=["the {job} job", "the {workflow} workflow config of {repo}"],
       objs=["jobs in the {ci_folder} folder", "all pipelines for {repo}", "disabled jobs"],
       new=["a pipeline for {repo} that runs tests on every PR",
            "a nightly job called {new_job} for {repo}"],
       change=["set the schedule to every night at 02:00", "set the timeout to 45 minutes",
               "switch the agent label to linux-large"]),
    _e("deploy", "deploy|deployment", "deploys|deployments", "list trigger rollback approve",
       scope="deploy", ctx="to an environment", keys="app environment", container="app",
       fields="version environment", token="deployment/deployments",
       obj_trigger=["a deploy of {svc} {tag} to {env_name}",
                    "a sync of the {svc} app to {env_name}"],
       obj_rollback=["the {svc} deploy in {env_name} to the previous version",
                     "{svc} in {env_name} back to {tag}"],
       obj_approve=["the pending {env_name} deploy of {svc}",
                    "the deploy of {svc} {tag} waiting for approval"],
       objs=["deploys of {svc} this week", "recent deployments to {env_name}"]),
    _e("deploy_status", "deploy status|deployment health|sync status", "deploy statuses", "get",
       scope="deploy", ctx="of an app", keys="app environment",
       token="deploy_status/deploy_statuses",
       summ={"get": "Check whether a deploy finished, is progressing or is degraded."},
       obj=["the deploy status of {svc} in {env_name}", "the sync status of the {svc} app",
            "the health of the latest {svc} deploy"]),
    _e("test_report", "test report|test results", "test reports", "get", scope="builds",
       ctx="of a build", keys="pipeline run_id",
       obj=["the test results of build #{build} of {job}",
            "failing tests in {workflow} run {build}"]),
    _e("ci_variable", "CI variable|pipeline variable", "CI variables",
       "list get create update delete",
       scope="pipelines", ctx="of a project", keys="project name", container="project",
       fields="name! value! masked", token="variable/variables",
       obj=["the {ci_var} variable on {repo}", "CI variable {ci_var} of {job}"],
       objs=["CI variables of {repo}", "pipeline variables of {job}"],
       new=["a CI variable {ci_var} on {repo}", "a masked variable {ci_var} for {job}"],
       change=["set the value to {ci_val}", "mark the value as masked"]),
), (
    _s("jenkins", "Jenkins", "camel", skip="approve:deploy",
       aliases={"pipeline_run": "build/builds", "deploy": "deployJob/deployJobs"},
       names={"trigger:pipeline_run": "buildJob", "get:build_log": "getConsoleText"}),
    _s("circleci", "CircleCI", "snake", entities="pipeline_run build_log artifact job test_report "
       "ci_variable", aliases={"pipeline_run": "pipeline/pipelines", "job": "project/projects"}),
    _s("github_actions", "GitHub Actions", "snake",
       aliases={"pipeline_run": "workflow_run/workflow_runs", "job": "workflow/workflows"},
       names={"trigger:pipeline_run": "dispatch_workflow"}),
    _s("argocd", "Argo CD", "object", entities="deploy deploy_status",
       verbs={"trigger": "sync"}, aliases={"deploy": "app/apps", "deploy_status": "app_health/"}),
    _s("gitlab_ci", "GitLab CI", "snake", entities="pipeline_run build_log artifact job deploy "
       "test_report ci_variable", aliases={"pipeline_run": "pipeline/pipelines"}),
    _s("buildkite", "Buildkite", "kebab", entities="pipeline_run build_log artifact job",
       aliases={"pipeline_run": "build/builds", "job": "pipeline/pipelines"}),
))

KUBERNETES = DomainSpec("kubernetes", "team-platform", (
    _e("pod", "pod", "pods", "list get delete", scope="pods", ctx="in a namespace",
       soft_delete=True,
       keys="namespace pod", container="namespace", filters="label_selector status",
       obj=["pod {pod} in {ns}", "the {pod} pod ({ns})"],
       obj_delete=["the stuck pod {pod} in {ns}", "pod {pod} in namespace {ns}"],
       objs=["pods in {ns}", "crashlooping pods in {ns}", "pods of {svc} in {ns} on {cluster}"]),
    _e("pod_log", "pod logs|container logs", "pod logs", "get", scope="pods", ctx="of one pod",
       keys="namespace pod", filters="container since tail_lines previous",
       token="pod_logs/pod_logs",
       summ={"get": "Fetch the logs of one pod (or one container in it) in a namespace."},
       obj=["the logs of pod {pod} in {ns}", "the last {n} log lines from {pod} ({ns})",
            "the previous container's logs for {pod} in {ns}"]),
    _e("deployment", "deployment|k8s deployment", "deployments",
       "list get update restart scale rollback", scope="deployments", ctx="in a namespace",
       keys="namespace deployment", container="namespace", fields="image replicas",
       obj=["the {svc} deployment in {ns}", "deploy/{svc} on {cluster}"],
       obj_restart=["{svc} in {ns}", "the {svc} deployment on {cluster}"],
       obj_scale=["{svc} in {ns} to {replicas} replicas",
                  "the {svc} deployment on {cluster} to {replicas} pods"],
       obj_rollback=["{svc} in {ns} to revision {revision}",
                     "the {svc} deployment in {ns} to the previous ReplicaSet"],
       objs=["deployments in {ns}", "deployments on {cluster} with unavailable replicas"],
       change=["set the image to {svc}:{tag}", "set the memory limit to 1Gi"]),
    _e("rollout_status", "rollout status|rollout", "rollout statuses", "get", scope="deployments",
       ctx="of a deployment", keys="namespace deployment", token="rollout_status/rollout_statuses",
       summ={"get": "Check whether a deployment's rollout finished, is progressing or is stuck."},
       obj=["the rollout status of {svc} in {ns}", "the rollout of deploy/{svc} on {cluster}",
            "rollout progress for {svc} ({ns})"]),
    _e("k8s_service", "service|k8s service", "services", "list get", scope="services",
       ctx="in a namespace", keys="namespace service", container="namespace",
       token="service/services",
       obj=["the {svc} service in {ns}", "svc/{svc} on {cluster}"],
       objs=["services in {ns}", "LoadBalancer services on {cluster}"]),
    _e("namespace", "namespace", "namespaces", "list get create delete", scope="namespaces",
       ctx="on a cluster", keys="namespace", container="cluster", fields="namespace! labels",
       obj=["the namespace {old_ns} on {cluster}", "namespace {old_ns}"],
       objs=["namespaces on {cluster}", "namespaces labelled team={team}"],
       new=["a namespace {new_ns} on {cluster}", "a namespace {new_ns} with team={team}"]),
    _e("node", "node|worker node", "nodes", "list get update", scope="nodes", ctx="of a cluster",
       keys="node", container="cluster", fields="unschedulable taints",
       obj=["node {node}", "the node {node} on {cluster}"],
       objs=["nodes on {cluster}", "NotReady nodes in {cluster}"],
       change=["set unschedulable to true", "add the taint dedicated=gpu:NoSchedule"]),
    _e("k8s_event", "event|k8s event", "events", "list", scope="events", ctx="in a namespace",
       container="namespace", filters="involved_object type", token="event/events",
       objs=["events in {ns} from the last hour", "warning events for {pod} in {ns}"]),
    _e("configmap", "configmap|config map", "configmaps", "list get update", scope="configmaps",
       ctx="in a namespace", keys="namespace name", container="namespace", fields="data",
       obj=["the {svc}-config configmap in {ns}", "configmap {svc}-config on {cluster}"],
       objs=["configmaps in {ns}", "config maps of {svc}"],
       change=["set LOG_LEVEL to debug", "set FEATURE_CACHE to true"]),
    _e("cronjob", "cronjob|cron job", "cronjobs", "list trigger", scope="jobs",
       ctx="in a namespace", keys="namespace name", container="namespace",
       obj=["the {cron} cronjob in {ns} right now", "a manual run of cronjob {cron} ({ns})"],
       objs=["cronjobs in {ns}", "suspended cronjobs on {cluster}"]),
    _e("hpa", "autoscaler|HPA", "autoscalers|HPAs", "get update", scope="deployments",
       ctx="of a deployment", keys="namespace name", fields="min_replicas max_replicas cpu_target",
       obj=["the HPA for {svc} in {ns}", "the autoscaler of {svc} on {cluster}"],
       change=["set max replicas to {replicas}", "set the CPU target to 70%"]),
    _e("helm_release", "helm release|chart release", "helm releases",
       "list get create update rollback delete", scope="releases", ctx="in a namespace",
       keys="namespace release", container="namespace", fields="chart! version values",
       token="release/releases",
       obj=["the {svc} release in {ns}", "helm release {chart} on {cluster}"],
       obj_rollback=["the {svc} release in {ns} to revision {revision}"],
       obj_delete=["the {chart} release in {ns}", "helm release {chart} from {cluster}"],
       objs=["helm releases in {ns}", "releases on {cluster}"],
       new=["a helm install of {chart} into {ns}", "a release of chart {chart} in namespace {ns}"],
       change=["set image.tag to {tag}", "upgrade to chart version {chart_ver}"]),
    _e("chart", "helm chart|chart", "helm charts|charts", "search", scope="releases",
       ctx="in chart repositories", filters="repo_url",
       hay=["the chart repos", "artifact hub"], q=["'{chart}'", "a chart for {chart}"]),
), (
    _s("k8s", "Kubernetes", "snake", connection="kubernetes", skip="search:chart",
       entities="pod pod_log deployment rollout_status k8s_service namespace node k8s_event "
       "configmap cronjob hpa", pinned="get:rollout_status get:pod_log"),
    _s("openshift", "OpenShift", "camel",
       entities="pod pod_log deployment rollout_status k8s_service namespace node k8s_event "
       "configmap cronjob", aliases={"namespace": "project/projects"}),
    _s("rancher", "Rancher", "object", trust="third_party",
       entities="pod pod_log deployment rollout_status namespace node helm_release"),
    _s("helm", "Helm", "snake", entities="helm_release chart",
       verbs={"create": "install", "update": "upgrade", "delete": "uninstall"}),
))

OBSERVABILITY = DomainSpec("observability", "team-sre", (
    _e("log_line", "logs|log lines|log events", "logs|log lines", "search export", scope="logs",
       ctx="across services", container="service", filters="from to index level",
       token="logs/logs",
       summ={"search": "Search log events across services by query, time range and level."},
       hay=["the logs of {svc}", "{svc} logs from {window}", "production logs in namespace {ns}",
            "logs across all services"], q=["'{log_q}'", "{log_q} errors"],
       objs=["{svc} logs from {window}", "error logs of {svc} since {date}"]),
    _e("log_stream", "log stream|log index", "log streams|log indexes", "list", scope="logs",
       ctx="in the log platform", filters="prefix", token="stream/streams",
       objs=["log streams for {svc}", "the log indexes we have"]),
    _e("saved_search", "saved search|saved log query", "saved searches", "list create delete",
       scope="logs", ctx="in the log platform", keys="search_id", fields="name! query!",
       soft_delete=True, token="saved_search/saved_searches",
       obj=["the saved search '{log_q}' for {svc}"],
       objs=["saved log searches", "saved searches of the {team} team"],
       new=["a saved search for '{log_q}' on {svc}"]),
    _e("metric", "metric|timeseries", "metrics", "query list", scope="metrics",
       ctx="for a service", container="source", filters="prefix",
       qry=["the {metric} of {svc} over {window}", "`rate({prom_metric}[5m])` for {svc}",
            "{metric} for {svc} by pod for {window}"],
       objs=["metrics for {svc}", "metric names starting with http_"]),
    _e("dashboard", "dashboard", "dashboards", "search list get create update delete",
       scope="dashboards", soft_delete=True, ctx="in the monitoring tool", keys="dashboard_id",
       filters="tag folder",
       fields="title! panels folder",
       obj=["the '{dashboard}' dashboard", "dashboard {dashboard}"],
       objs=["dashboards tagged {team}", "all dashboards in the {team} folder"],
       hay=["our dashboards", "the shared dashboards"], q=["'{svc}'", "'{dashboard}'"],
       new=["a dashboard '{svc} overview' with latency and error rate panels"],
       change=["add a panel for {metric}", "set the default time range to {window}"]),
    _e("monitor", "monitor|alert rule", "monitors|alert rules", "list get create update delete",
       scope="monitors", ctx="for a service", keys="monitor_id", filters="state tag",
       fields="name! query! threshold",
       obj=["the '{monitor}' monitor", "alert rule '{monitor}'"],
       objs=["monitors for {svc}", "muted monitors", "monitors in alert state"],
       new=["a monitor that fires when {svc} {metric} goes above its threshold"],
       change=["mute for 2 hours", "set the threshold to 5%"]),
    _e("alert", "alert|firing alert", "alerts|firing alerts", "list get", scope="monitors",
       ctx="firing now", keys="alert_id", filters="severity service",
       obj=["alert '{monitor}'", "the alert for {svc} that fired at {time}"],
       objs=["firing alerts for {svc}", "alerts in {ns} from {window}",
             "critical alerts right now"]),
    _e("apm_trace", "trace|distributed trace|APM trace", "traces", "search get", scope="apm",
       ctx="of a service", keys="trace_id", container="service", filters="min_duration_ms status",
       token="trace/traces",
       obj=["trace {trace_id}", "the trace for request {req_id}"],
       hay=["traces of {svc} from {window}", "slow {svc} traces"], q=["'{span}'"]),
    _e("error_issue", "error|exception|crash", "errors|exceptions|crashes",
       "search list get update resolve", scope="errors", ctx="in a project", keys="issue_id",
       container="project", filters="status environment", fields="assignee priority",
       token="issue/issues",
       obj=["error {sentry_id}", "the '{exception}' error in {svc}"],
       objs=["unresolved errors in {svc}", "new exceptions in {svc} since {date}",
             "top crashes in the mobile app this week"],
       hay=["errors in {svc}", "exceptions from {window}"], q=["'{exception}'"],
       change=["set the assignee to {handle}", "set the priority to high"]),
    _e("slo", "SLO|service level objective", "SLOs", "list get", scope="slos", ctx="of a service",
       keys="slo_id", filters="service",
       obj=["the {slo} SLO", "the error budget of {svc}"],
       objs=["SLOs for {svc}", "SLOs burning budget this week"]),
    _e("annotation", "annotation|deploy marker", "annotations", "create", scope="dashboards",
       ctx="on dashboards", fields="text! tags time",
       new=["an annotation 'deployed {svc} {tag}' on the {dashboard} dashboard",
            "a deploy marker for {svc} {tag}"]),
), (
    _s("datadog", "Datadog", "snake", pinned="search:log_line",
       skip="list:log_stream create:saved_search"),
    _s("grafana", "Grafana", "camel", entities="log_line metric dashboard alert annotation",
       aliases={"alert": "alertRule/alertRules"}),
    _s("prometheus", "Prometheus", "snake", entities="metric alert",
       names={"query:metric": "query_range"}),
    _s("logs", "the log platform", "snake", entities="log_line log_stream saved_search",
       pinned="search:log_line export:log_line list:log_stream",
       names={"search:log_line": "search", "export:log_line": "export",
              "list:log_stream": "list_streams"}),
    _s("sentry", "Sentry", "snake", entities="error_issue apm_trace alert"),
    _s("splunk", "Splunk", "snake", entities="log_line saved_search dashboard alert",
       aliases={"log_line": "events/events"}),
    _s("honeycomb", "Honeycomb", "object", trust="third_party",
       entities="apm_trace metric dashboard slo"),
    _s("newrelic", "New Relic", "camel", skip="list:log_stream",
       names={"query:metric": "runNrql"}),
))

INCIDENTS = DomainSpec("incidents", "team-sre", (
    _e("incident", "incident|page|outage", "incidents|pages|outages",
       "search list get create update acknowledge resolve", scope="incidents",
       ctx="for a service", keys="incident_id", container="service", filters="status urgency since",
       fields="title! service! urgency",
       obj=["incident {inc}", "the {svc} incident {inc}", "the open incident for {svc}"],
       objs=["open incidents for {svc}", "incidents from the last 7 days",
             "high-urgency incidents this week"],
       hay=["past incidents", "incidents from last quarter"], q=["'{svc}'", "'{log_q}'"],
       new=["an incident for {svc}: '{inc_title}'", "a SEV2 incident '{inc_title}' on {svc}"],
       change=["set the priority to P1", "set the assignee to {person}",
               "set the status to monitoring"]),
    _e("oncall", "on-call|on-call shift", "on-calls|on-call shifts", "get list",
       scope="schedules", ctx="of a schedule", keys="schedule", token="oncall/oncalls",
       summ={"get": "Find out who is on call for a schedule or service right now."},
       obj=["the current on-call for {schedule}", "the on-call engineer for {svc} this weekend",
            "the on-call for {schedule} on {date_future}"],
       objs=["on-call shifts for {schedule} next week", "everyone on call today"]),
    _e("oncall_override", "on-call override|shift swap", "on-call overrides", "create delete",
       scope="schedules", ctx="on a schedule", keys="schedule override_id",
       fields="user! start! end!", soft_delete=True, token="override/overrides",
       obj=["the override for {person} on {schedule}"],
       new=["an override so {person} covers {schedule} on {date_future}",
            "a shift swap: {person} takes {schedule} from {date_future} for 24h"]),
    _e("escalation_policy", "escalation policy", "escalation policies", "list get update",
       scope="schedules", ctx="for a service", keys="policy_id", fields="rules",
       token="escalation_policy/escalation_policies",
       obj=["the {esc_policy} escalation policy"],
       objs=["escalation policies of the {team} team", "escalation policies for {svc}"],
       change=["add {person} as level 2", "set the escalation delay to 15 minutes"]),
    _e("postmortem", "postmortem|incident review|retro", "postmortems", "get create",
       scope="incidents", ctx="of an incident", keys="incident_id", fields="incident_id! template",
       obj=["the postmortem for {inc}", "the incident review of {inc}"],
       new=["a postmortem for {inc} from the timeline", "a postmortem doc for {inc}"]),
    _e("incident_note", "incident note|timeline note|status update", "incident notes", "create",
       scope="incidents", ctx="on an incident", fields="incident_id! text!",
       token="note/notes",
       new=["a note on {inc}: '{inc_note}'", "a timeline entry on {inc} saying '{inc_note}'"]),
    _e("status_incident", "status page incident|public incident", "status page incidents",
       "list get create update resolve", scope="statuspage", ctx="on the public status page",
       keys="page_id incident_id", container="page_id", fields="name! status body components",
       obj=["the public incident about {svc}", "the status page post for {inc}"],
       objs=["open incidents on the status page", "status page incidents from this month"],
       new=["a public incident '{svc} degraded' on the status page",
            "a status page post saying '{status_text}'"],
       change=["set the status to monitoring", "set the body to '{status_text}'"]),
    _e("status_component", "status page component|component", "components", "list update",
       scope="statuspage", ctx="on the status page", keys="page_id component_id",
       container="page_id", fields="status!", token="component/components",
       obj=["the {status_comp} component", "component {status_comp} on the status page"],
       objs=["components on the status page", "degraded components"],
       change=["set the status to degraded_performance", "set the status to operational"]),
), (
    _s("pagerduty", "PagerDuty", "snake", verbs={"acknowledge": "ack"},
       entities="incident oncall oncall_override escalation_policy postmortem incident_note"),
    _s("opsgenie", "Opsgenie", "camel", aliases={"incident": "alert/alerts"},
       entities="incident oncall oncall_override escalation_policy incident_note"),
    _s("incident_io", "incident.io", "object", trust="third_party",
       entities="incident postmortem incident_note status_incident"),
    _s("statuspage", "Statuspage", "snake", entities="status_incident status_component",
       aliases={"status_incident": "incident/incidents"}),
))

CHAT = DomainSpec("chat", "team-collab", (
    _e("message", "message|chat message|post", "messages", "send search list update delete",
       scope="chat", ctx="in a channel", keys="channel ts", container="channel",
       filters="since until", fields="text! thread_ts",
       obj=["the message {msg_ts} in {channel}", "{handle}'s last message in {channel}"],
       obj_delete=["my last message in {channel}", "the message {msg_ts} in {channel}"],
       objs=["messages in {channel} since {date}", "the last {n} messages in {channel}",
             "today's messages in {channel}"],
       hay=["{channel}", "messages in {channel}", "all channels"], q=["'{chat_kw}'"],
       dest=["{channel}", "the {channel} channel"], msg=["'{msgtext}'"],
       change=["change the text to '{msgtext}'", "fix the wording to say '{msgtext}'"]),
    _e("direct_message", "DM|direct message", "DMs|direct messages", "send", scope="chat",
       ctx="to a person", fields="user! text!", token="direct_message/direct_messages",
       dest=["{handle}", "{person}"], msg=["'{msgtext}'"]),
    _e("thread", "thread|message thread", "threads", "get", scope="chat", ctx="in a channel",
       keys="channel ts", obj=["the thread about {chat_kw} in {channel}",
                               "the replies to {handle}'s message in {channel}"]),
    _e("thread_reply", "reply|thread reply", "replies", "send", scope="chat", ctx="in a thread",
       fields="channel! thread_ts! text!", token="reply/replies",
       dest=["the thread about {chat_kw} in {channel}", "{handle}'s thread in {channel}"],
       msg=["'{msgtext}'"]),
    _e("channel", "channel", "channels", "list get create update delete", scope="channels",
       soft_delete=True,
       ctx="in the workspace", keys="channel", filters="types", fields="name! topic is_private",
       obj=["{channel}", "the {channel} channel"],
       obj_delete=["the channel #{old_channel}", "the old #{old_channel} channel"],
       objs=["channels I'm in", "public channels about {team}", "archived channels"],
       new=["a channel #{new_channel}", "a private channel #{new_channel} for {inc}"],
       change=["set the topic to '{topic}'", "set the name to #{new_channel}"]),
    _e("channel_member", "channel member|member", "channel members|members", "list",
       scope="channels", ctx="of a channel", container="channel", token="member/members",
       objs=["members of {channel}", "the people in {channel}"]),
    _e("reminder", "reminder", "reminders", "create list", scope="reminders", ctx="for a person",
       fields="text! time!",
       objs=["my reminders", "reminders set for {channel}"],
       new=["a reminder for {channel} at 9am tomorrow to '{remind_text}'",
            "a reminder to '{remind_text}' on {date_future}"]),
    _e("chat_user", "user|teammate|person", "users|people", "search list get", scope="users",
       ctx="in the workspace", keys="user", token="user/users",
       obj=["the profile of {handle}", "{person}'s profile"],
       objs=["deactivated users in the workspace", "guests in the workspace"],
       hay=["the workspace directory", "people in the workspace"], q=["'{person}'", "{email}"]),
    _e("user_status", "status|presence", "statuses", "get update", scope="users",
       ctx="of a person", keys="user", fields="status_text emoji expiration",
       token="status/statuses",
       obj=["{handle}'s presence", "my status"],
       change=["set 'heads down' until 15:00", "set 'on call' for the rest of the day"]),
    _e("chat_file", "file|attachment", "files", "upload", scope="files", ctx="to a channel",
       fields="channel! file! title", token="file/files",
       upl=["{file_path} to {channel}", "the {report} report to {channel}"]),
), (
    _s("slack", "Slack", "snake", pinned="send:message", verbs={"send": "post"},
       names={"list:message": "get_channel_history"}),
    _s("teams", "Microsoft Teams", "camel", aliases={"channel": "channel/channels"}),
    _s("discord", "Discord", "snake", trust="third_party"),
    _s("mattermost", "Mattermost", "object", trust="third_party"),
))

EMAIL = DomainSpec("email", "team-collab", (
    _e("email", "email|mail", "emails|mail", "send search list get update delete", scope="mail",
       soft_delete=True,
       ctx="in a mailbox", keys="message_id", container="mailbox", filters="from since unread",
       fields="to! subject! body! cc",
       obj=["the email from {ext_email} about {email_subj}", "the latest email from {person}"],
       obj_delete=["the spam email from {ext_email}",
                   "the email about {email_subj} from {ext_email}"],
       objs=["unread emails from {ext_email}", "emails from {person} since {date}",
             "my unread mail in the inbox"],
       hay=["my inbox", "the shared finance inbox", "mail from the last month"],
       q=["'{email_subj}'", "invoices from {ext_email}"],
       dest=["{email}", "{ext_email}", "{person} ({email})"],
       msg=["'{msgtext}'", "'{email_subj}: {msgtext}'"],
       change=["set the label to {mail_label}", "move to the {mail_label} folder", "mark as read"]),
    _e("draft", "draft|email draft", "drafts", "create list get", scope="mail", ctx="in a mailbox",
       obj=["my draft to {email} about {email_subj}", "the draft reply to {ext_email}"],
       fields="to! subject! body",
       objs=["my drafts", "drafts about {email_subj}"],
       new=["a draft to {email} about '{email_subj}'",
            "a draft reply to {ext_email} about {email_subj}"]),
    _e("mail_label", "label|mail folder", "labels|mail folders", "list create", scope="mail",
       ctx="in a mailbox", fields="name!", token="label/labels",
       objs=["my mail labels", "the folders in the shared inbox"],
       new=["a label called {mail_label}", "a folder '{mail_label}' in my mailbox"]),
    _e("attachment", "attachment|email attachment", "attachments", "get export", scope="mail",
       ctx="of an email", keys="message_id attachment_id",
       obj=["the attachment on the email from {ext_email} about {email_subj}",
            "the PDF attached to {person}'s last email"],
       objs=["the attachments from {ext_email}'s email about {email_subj}",
             "the PDF invoices attached to mail from {ext_email}"]),
    _e("email_template", "email template|template", "email templates|templates",
       "list get create update", scope="templates", ctx="for transactional email",
       keys="template_id", fields="name! subject html", token="template/templates",
       obj=["the '{tmpl}' template", "email template {tmpl}"],
       objs=["our transactional email templates", "templates edited this month"],
       new=["a template '{tmpl}' for password resets"],
       change=["set the subject to '{email_subj}'", "set the sender to support@acme.io"]),
    _e("bounce", "bounce|bounced address", "bounces|bounced addresses", "list delete",
       scope="suppressions", ctx="in the suppression list", keys="email", filters="since",
       soft_delete=True,
       obj=["the bounce entry for {ext_email}", "the suppression of {ext_email}"],
       objs=["bounces since {date}", "hard bounces for {ext_domain}"]),
    _e("delivery_stats", "delivery stats|email stats", "delivery stats", "get", scope="stats",
       ctx="for sent email", filters="start_date end_date", token="stats/stats",
       obj=["delivery stats for {date}", "open and bounce rates for the last week"]),
    _e("campaign", "campaign|newsletter", "campaigns|newsletters", "list create send",
       scope="campaigns", ctx="to an audience", keys="campaign_id",
       fields="name! audience! subject",
       objs=["email campaigns this quarter", "scheduled newsletters"],
       new=["a campaign '{campaign}' to the {audience} audience"],
       dest=["the {audience} audience", "everyone on the {audience} list"],
       msg=["the '{campaign}' campaign", "the '{campaign}' newsletter"]),
    _e("audience", "audience|mailing list", "audiences|mailing lists", "list",
       scope="campaigns", ctx="for campaigns",
       objs=["our mailing lists", "audiences with more than 1,000 contacts"]),
), (
    _s("gmail", "Gmail", "snake", entities="email draft mail_label attachment"),
    _s("outlook_mail", "Outlook", "camel", entities="email draft mail_label attachment",
       aliases={"mail_label": "folder/folders"}),
    _s("sendgrid", "SendGrid", "snake", entities="email email_template bounce delivery_stats",
       only="send:email list:email_template get:email_template create:email_template "
       "update:email_template list:bounce delete:bounce get:delivery_stats"),
    _s("postmark", "Postmark", "snake", entities="email email_template bounce delivery_stats",
       only="send:email list:email_template create:email_template list:bounce delete:bounce "
       "get:delivery_stats"),
    _s("mailchimp", "Mailchimp", "object", trust="third_party",
       entities="campaign audience email_template"),
))

CALENDAR = DomainSpec("calendar", "team-collab", (
    _e("meeting", "meeting|event|calendar event", "meetings|events",
       "schedule list get search update cancel", scope="calendar", ctx="on a calendar",
       keys="event_id", container="calendar", filters="time_min time_max",
       fields="title! start! end! attendees location", token="event/events",
       obj=["the {meeting} on {date_future}", "my {time} meeting on {date_future}",
            "the {meeting} with {person}"],
       objs=["my meetings on {date_future}", "{person}'s events this week",
             "meetings on the team calendar next week"],
       hay=["my calendar", "the team calendar"], q=["'{meeting}'"],
       new=["a 30-minute {meeting} with {email} on {date_future} at {time}",
            "a {meeting} for the team on {date_future} at {time}"],
       change=["set the start to {time}", "add {email} as an attendee",
               "set the location to {room}"]),
    _e("availability", "availability|free/busy", "availabilities", "get", scope="calendar",
       ctx="for people", keys="attendees", filters="time_min time_max", token="free_busy/free_busy",
       summ={"get": "Find free and busy slots for one or more people."},
       obj=["{person}'s availability on {date_future}",
            "free slots for {email} and {email2} this week"]),
    _e("room", "meeting room|room", "meeting rooms|rooms", "list schedule", scope="rooms",
       ctx="in an office", keys="room", filters="office capacity",
       objs=["free rooms on {date_future} at {time}", "meeting rooms in the {office} office"],
       new=["{room} for {date_future} {time}-{time2}",
            "a room for 6 people on {date_future} at {time}"]),
    _e("booking_link", "booking link|scheduling link", "booking links", "create list",
       scope="links", ctx="for external bookings", fields="duration! title",
       objs=["my booking links", "active scheduling links of the sales team"],
       new=["a 30-min booking link for customer calls",
            "a scheduling link for {person}'s office hours"]),
    _e("recording", "meeting recording|recording", "recordings", "list get delete",
       scope="recordings", ctx="of a meeting", keys="recording_id", filters="from to",
       obj=["the recording of the {meeting} on {date}", "the {meeting} recording from {date}"],
       objs=["recordings from {date}", "my cloud recordings this month"]),
    _e("meeting_link", "video call|meeting link", "video calls|meeting links", "create",
       scope="meetings", ctx="for a meeting", fields="topic! start duration",
       token="meeting/meetings",
       new=["a video call link for the {meeting} at {time}", "a meeting link for {meeting}"]),
), (
    _s("gcal", "Google Calendar", "snake", connection="google_calendar",
       entities="meeting availability room", verbs={"schedule": "create"}),
    _s("outlook_calendar", "Outlook Calendar", "camel", entities="meeting availability room",
       verbs={"schedule": "create"}),
    _s("calendly", "Calendly", "snake", trust="third_party", entities="booking_link meeting",
       only="create:booking_link list:booking_link list:meeting get:meeting cancel:meeting"),
    _s("calcom", "Cal.com", "snake", trust="third_party", entities="booking_link meeting",
       only="create:booking_link list:booking_link list:meeting get:meeting cancel:meeting "
       "schedule:meeting"),
    _s("zoom", "Zoom", "snake", entities="recording meeting_link meeting",
       only="list:recording get:recording delete:recording create:meeting_link list:meeting"),
))

DOCS = DomainSpec("docs", "team-knowledge", (
    _e("page", "page|wiki page|doc page", "pages|wiki pages",
       "search list get create update delete export", scope="pages", ctx="in a space",
       soft_delete=True,
       keys="page_id", container="space", filters="label", fields="title! body parent_id",
       obj=["the '{doc_title}' page", "the {doc_title} page in the {space} space"],
       obj_delete=["the outdated page '{doc_title}' in {space}", "the '{doc_title}' page"],
       objs=["pages in the {space} space", "child pages of '{doc_title}'",
             "pages I edited this week"],
       objs_export=["the '{doc_title}' page", "the whole {space} space"],
       hay=["the {space} space", "the wiki", "our docs"], q=["'{doc_kw}'", "the {doc_title}"],
       new=["a page '{doc_title}' in {space}", "a new page in {space} titled '{doc_title}'"],
       change=["append the notes from {date}", "set the owner to {person}",
               "add a section on {doc_kw}"]),
    _e("space", "space|teamspace", "spaces|teamspaces", "list get", scope="spaces",
       ctx="in the wiki", keys="space_key",
       obj=["the {space} space", "space {space}"], objs=["all spaces", "spaces I can edit"]),
    _e("doc_comment", "comment", "comments", "list create", scope="comments", ctx="on a page",
       keys="page_id", container="page_id", fields="body!", token="comment/comments",
       objs=["comments on '{doc_title}'", "unresolved comments on the {doc_title} page"],
       new=["a comment on '{doc_title}' saying '{review_text}'"]),
    _e("document", "document|doc", "documents|docs", "search get create update", scope="docs",
       ctx="in the drive", keys="document_id", fields="title! content",
       obj=["the '{doc_title}' doc", "the doc {person} shared about {doc_kw}"],
       hay=["my docs", "documents shared with me"], q=["'{doc_kw}'"],
       new=["a doc called '{doc_title}'", "a document '{doc_title}' from the RFC template"],
       change=["insert the Q4 numbers table at the end", "set the title to '{doc_title}'"]),
    _e("page_version", "page version|page history", "page versions", "list rollback",
       scope="pages", ctx="of a page", keys="page_id version", container="page_id",
       token="page_version/page_versions",
       objs=["the version history of '{doc_title}'", "edits to '{doc_title}' since {date}"],
       obj=["'{doc_title}' to the version from {date}",
            "the {doc_title} page to version {revision}"]),
    _e("doc_database", "database|tracker", "databases|trackers", "query list", scope="databases",
       objs=["databases in the workspace", "trackers shared with the {team} team"],
       ctx="in the workspace", container="database_id", filters="filter sorts",
       token="database/databases",
       qry=["the {notion_db} database for items owned by {person}",
            "open rows in the {notion_db} tracker"]),
    _e("db_entry", "database entry|tracker item", "database entries", "create update",
       scope="databases", ctx="in a database", keys="entry_id", container="database_id",
       fields="properties!", token="entry/entries",
       obj=["the '{ticket_title}' entry in {notion_db}"],
       new=["an entry in {notion_db} titled '{ticket_title}'",
            "a row in the {notion_db} tracker for '{ticket_title}'"],
       change=["set Status to Done", "set the owner to {person}"]),
), (
    _s("confluence", "Confluence", "snake", entities="page space doc_comment page_version"),
    _s("notion", "Notion", "kebab", entities="page doc_comment doc_database db_entry",
       skip="export:page"),
    _s("gdocs", "Google Docs", "camel", connection="google_docs", entities="document doc_comment"),
    _s("sharepoint", "SharePoint", "camel", entities="page document doc_comment page_version",
       aliases={"page": "sitePage/sitePages"}),
    _s("coda", "Coda", "object", trust="third_party", entities="document doc_database db_entry",
       aliases={"doc_database": "table/tables", "db_entry": "row/rows"}),
))

TICKETS = DomainSpec("tickets", "team-devex", (
    _e("ticket", "ticket|issue|bug", "tickets|issues|bugs",
       "search list get create update delete resolve export", scope="tickets", ctx="in a project",
       keys="ticket_key", container="project", filters="status assignee sprint",
       fields="summary! description priority assignee labels",
       obj=["{tkey}", "ticket {tkey}", "the {tkey} bug"],
       obj_delete=["the duplicate ticket {tkey}", "ticket {tkey} (spam)"],
       obj_resolve=["{tkey} as fixed", "ticket {tkey}"],
       objs=["open tickets in {project}", "tickets assigned to {person} in {project}",
             "P1 bugs in {project} from this sprint"],
       objs_export=["all {project} tickets from this quarter", "the {sprint} tickets"],
       hay=["{project} tickets", "the {project} backlog", "all tickets"],
       q=["'{bug_kw}'", "'{ticket_title}'"],
       new=["a ticket in {project}: '{ticket_title}'",
            "a bug in {project} titled '{ticket_title}' with priority {prio}"],
       change=["set the status to In Review", "set the assignee to {person}",
               "set the priority to {prio}", "add the label {label}"]),
    _e("ticket_comment", "comment|ticket comment", "comments", "list create", scope="tickets",
       ctx="on a ticket", keys="ticket_key", container="ticket_key", fields="body!",
       token="comment/comments",
       objs=["comments on {tkey}", "the discussion on ticket {tkey}"],
       new=["a comment on {tkey} saying '{review_text}'",
            "a note on ticket {tkey}: '{review_text}'"]),
    _e("sprint", "sprint|iteration|cycle", "sprints|iterations|cycles", "list get create update",
       scope="boards", ctx="of a board", keys="sprint_id", container="board",
       fields="name! start_date end_date goal",
       obj=["{sprint}", "the current sprint of {project}"],
       objs=["sprints of {project}", "upcoming sprints for the {team} board"],
       new=["a sprint '{new_sprint}' for {project} starting {date_future}"],
       change=["set the end date to {date_future}", "set the goal to '{sprint_goal}'"]),
    _e("project", "project", "projects", "list get", scope="projects", ctx="in the tracker",
       keys="project_key",
       obj=["the {project} project", "project {project}"],
       objs=["all projects", "projects I'm a member of"]),
    _e("change_request", "change request|CR", "change requests|CRs", "get create approve",
       scope="changes", ctx="in change management", keys="change_id",
       fields="short_description! start_date risk",
       obj=["change {chg}", "the change request for the {dbname} upgrade"],
       new=["a change request for '{ticket_title}' on {date_future}"]),
    _e("worklog", "worklog|time entry", "worklogs|time entries", "create list", scope="tickets",
       ctx="on a ticket", keys="ticket_key", container="ticket_key", fields="time_spent! comment",
       objs=["my worklogs this week", "time logged on {tkey}"],
       new=["a worklog of 2h on {tkey}", "a worklog of 30m on {tkey} for code review"]),
    _e("sla", "SLA|SLA status", "SLAs", "get", scope="tickets", ctx="of a ticket",
       keys="ticket_key", obj=["the SLA status of {tkey}", "the time to breach for {tkey}"]),
    _e("ticket_link", "issue link|ticket link", "issue links", "create", scope="tickets",
       ctx="between tickets", fields="from! to! type!", token="link/links",
       new=["a 'blocks' link from {tkey} to {tkey2}",
            "a 'duplicates' link from {tkey} to {tkey2}"]),
), (
    _s("jira", "Jira", "snake", entities="ticket ticket_comment sprint project worklog ticket_link",
       aliases={"ticket": "issue/issues"}),
    _s("linear", "Linear", "camel", entities="ticket ticket_comment sprint project ticket_link",
       aliases={"ticket": "issue/issues", "sprint": "cycle/cycles"}),
    _s("zendesk", "Zendesk", "snake", entities="ticket ticket_comment sla"),
    _s("asana", "Asana", "camel", entities="ticket ticket_comment project",
       aliases={"ticket": "task/tasks", "ticket_comment": "story/stories"}),
    _s("servicenow", "ServiceNow", "object",
       entities="ticket ticket_comment change_request sla worklog",
       aliases={"ticket": "incident_record/incident_records"}),
    _s("jira_legacy", "the old Jira", "cryptic", only=(
        "search:ticket get:ticket create:ticket update:ticket list:ticket_comment "
        "create:ticket_comment list:project get:sprint")),
))

CRM = DomainSpec("crm", "team-revops", (
    _e("contact", "contact|person", "contacts", "search list get create update delete merge",
       scope="contacts", ctx="in the CRM", keys="contact_id", fields="email! name company phone",
       soft_delete=True, objs=["contacts at {account}", "contacts created this week"],
       obj=["the contact {ext_email}", "{cust_person} at {account}"],
       obj_delete=["the duplicate contact {ext_email}", "the test contact {ext_email}"],
       obj_merge=["the duplicate contacts for {ext_email}", "the two {cust_person} contacts"],
       hay=["CRM contacts", "contacts at {account}"], q=["'{cust_person}'", "{ext_email}"],
       new=["a contact {cust_person} ({ext_email}) at {account}"],
       change=["set the phone to {phone}", "set the title to VP Finance",
               "set the owner to {person}"]),
    _e("account", "account|company", "accounts|companies", "search list get create update",
       objs=["accounts owned by {person}", "enterprise accounts"],
       scope="accounts", ctx="in the CRM", keys="account_id", fields="name! domain tier owner",
       obj=["the {account} account", "the company {account}"],
       hay=["accounts", "companies in the CRM"], q=["'{account}'"],
       new=["an account for {account} ({ext_domain})"],
       change=["set the tier to Enterprise", "set the owner to {person}"]),
    _e("deal", "deal|opportunity", "deals|opportunities", "list get create update delete",
       scope="deals", soft_delete=True, ctx="in the pipeline", keys="deal_id",
       filters="stage owner close_before",
       fields="name! amount stage close_date",
       obj=["the {deal} deal", "the {account} renewal opportunity"],
       obj_delete=["the test deal '{deal}'", "the duplicate {deal} deal"],
       objs=["open deals for {account}", "deals closing this month",
             "opportunities in Negotiation owned by {person}"],
       new=["a deal '{deal}' worth {amount} for {account}"],
       change=["set the stage to {deal_stage}", "set the amount to {amount}",
               "set the close date to {date_future}"]),
    _e("lead", "lead|prospect", "leads|prospects", "list get create update", scope="leads",
       ctx="in the CRM", keys="lead_id", filters="status source", fields="email! name company",
       obj=["the lead {ext_email}", "the {account} lead"],
       objs=["new leads from {date}", "unassigned leads"],
       new=["a lead for {cust_person} at {account}"],
       change=["set the status to Qualified", "set the owner to {person}"]),
    _e("crm_note", "note|account note", "notes", "create", scope="notes", ctx="on a record",
       fields="record_id! body!", token="note/notes",
       new=["a note on the {account} account: '{crm_note}'",
            "a call note for {cust_person}: '{crm_note}'"]),
    _e("activity", "activity|logged call", "activities|logged calls", "list", scope="activities",
       ctx="on a record", filters="record_id type since", token="activity/activities",
       objs=["activities on the {account} account this month", "my logged calls this week"]),
    _e("crm_task", "follow-up task|task", "tasks", "create list", scope="tasks", ctx="for a rep",
       objs=["my open tasks", "follow-up tasks due this week"],
       fields="subject! due_date owner", token="task/tasks",
       new=["a follow-up task to call {cust_person} on {date_future}"]),
    _e("crm_report", "report|CRM report", "reports", "query export", scope="reports",
       ctx="in the CRM", container="report_id", filters="period", token="report/reports",
       qry=["the '{crm_report}' report for this quarter", "pipeline by stage for {person}"],
       objs=["the '{crm_report}' report", "this quarter's '{crm_report}' report"]),
), (
    _s("salesforce", "Salesforce", "camel",
       aliases={"deal": "opportunity/opportunities", "crm_report": "report/reports"}),
    _s("hubspot", "HubSpot", "snake", aliases={"account": "company/companies"}),
    _s("pipedrive", "Pipedrive", "object", trust="third_party",
       aliases={"account": "organization/organizations"}, skip="merge:contact"),
))

PAYMENTS = DomainSpec("payments", "team-payments", (
    _e("charge", "charge|payment|transaction", "charges|payments|transactions",
       "list get search refund", scope="charges", ctx="for a customer", keys="charge_id",
       container="customer", filters="created_gte status", fields="amount reason",
       obj=["charge {charge_id}", "the {amount} charge from {customer}"],
       obj_refund=["{charge_id} for {customer}", "the {amount} charge {charge_id} for {customer}",
                   "charge {charge_id} (duplicate)"],
       objs=["charges for {customer} since {date}", "failed payments today",
             "charges over {amount} this week"],
       hay=["payments", "charges from this month"], q=["'{customer}'", "card ending {last4}"]),
    _e("refund", "refund", "refunds", "list get", scope="charges", ctx="of a charge",
       keys="refund_id", filters="charge_id created_gte",
       obj=["refund {refund_id}", "the refund for {charge_id}"],
       objs=["refunds issued this week", "refunds for {customer}"]),
    _e("pay_customer", "customer|billing customer", "customers", "search get create update delete",
       scope="customers", ctx="in billing", keys="customer_id", fields="email! name description",
       token="customer/customers",
       obj=["customer {cus_id}", "the billing customer for {customer}"],
       obj_delete=["the test customer {cus_id}", "the duplicate billing customer {cus_id}"],
       hay=["billing customers", "customers"], q=["{ext_email}", "'{customer}'"],
       new=["a customer for {customer} with email {ext_email}"],
       change=["set the billing email to {ext_email}",
               "set the default payment method to card ending {last4}"]),
    _e("invoice", "invoice|bill", "invoices|bills", "list get create send cancel",
       scope="invoices", ctx="for a customer", keys="invoice_id", container="customer",
       filters="status due_before", fields="customer! items! due_date",
       obj=["invoice {inv_id}", "the latest invoice for {customer}"],
       obj_cancel=["invoice {inv_id} for {customer}", "the draft invoice {inv_id}"],
       objs=["open invoices for {customer}", "overdue invoices", "invoices from {date}"],
       new=["an invoice for {customer} for {amount}"],
       dest=["{ext_email}", "{customer}'s billing contact"], msg=["invoice {inv_id}",
                                                                 "the {amount} invoice"]),
    _e("subscription", "subscription|plan subscription", "subscriptions", "list get update cancel",
       scope="subscriptions", ctx="of a customer", keys="subscription_id", filters="plan status",
       fields="plan quantity",
       obj=["subscription {sub_id}", "{customer}'s subscription"],
       obj_cancel=["{customer}'s subscription at period end", "subscription {sub_id}"],
       objs=["active subscriptions on the {plan} plan", "subscriptions renewing this week"],
       change=["set the plan to {plan}", "set the quantity to {n} seats"]),
    _e("payout", "payout|settlement", "payouts|settlements", "list get", scope="payouts",
       ctx="to the bank", keys="payout_id", filters="status arrival_after",
       obj=["payout {po_id}", "yesterday's payout"], objs=["payouts this month",
                                                           "pending payouts"]),
    _e("balance", "balance|account balance", "balances", "get", scope="balance",
       ctx="of the merchant account", filters="currency",
       summ={"get": "Show the available and pending balance of the merchant account."},
       obj=["our current balance", "the available balance in EUR"]),
    _e("dispute", "dispute|chargeback", "disputes|chargebacks", "list get update",
       scope="disputes", ctx="on a charge", keys="dispute_id", filters="status",
       fields="evidence submit",
       obj=["dispute {dp_id}", "the chargeback on {charge_id}"],
       objs=["open disputes", "chargebacks from {date}"],
       change=["attach the receipt for {charge_id} as evidence", "submit the evidence"]),
    _e("payment_link", "payment link|checkout link", "payment links", "create list",
       objs=["active payment links", "payment links created this month"],
       scope="links", ctx="for a price", fields="price! quantity",
       new=["a payment link for {amount} for {customer}", "a payment link for the {plan} plan"]),
    _e("price", "price|plan price", "prices", "create list", scope="products", ctx="of a product",
       fields="product! unit_amount! currency! interval",
       objs=["prices of the {plan} plan", "active prices in EUR"],
       new=["a price of {amount}/month for the {plan} plan"]),
), (
    _s("stripe", "Stripe", "snake"),
    _s("paypal", "PayPal", "camel", aliases={"charge": "transaction/transactions"}),
    _s("adyen", "Adyen", "object", trust="third_party", aliases={"charge": "payment/payments"}),
    _s("billing_legacy", "the legacy billing system", "cryptic", only=(
        "list:charge get:charge refund:charge get:pay_customer search:pay_customer "
        "list:invoice get:invoice")),
))

DATABASES = DomainSpec("databases", "team-data-platform", (
    _e("table", "table", "tables", "query list get export create delete", scope="db",
       ctx="in a database", keys="table", container="database", fields="columns!",
       summ={"query": "Run a read-only SQL query and return the rows.",
             "get": "Describe a table: columns, types, indexes and row count."},
       qry=["`SELECT count(*) FROM {table} WHERE created_at > '{date}'`",
            "the number of new rows in {table} since {date}",
            "the top 10 customers by revenue from {table}"],
       obj=["the schema of {table}", "the columns of {table}"],
       obj_delete=["the table {old_table} in {dbname}", "the unused table {old_table}"],
       objs=["tables in {dbname}", "tables in the {schema} schema"],
       objs_export=["{table} rows from {date}", "the result of the revenue query on {table}"],
       new=["a table {new_table} in {dbname}", "a table {new_table} with id and payload columns"]),
    _e("row", "row|record", "rows|records", "update delete", scope="db", ctx="in a table",
       keys="table where", fields="set", token="rows/rows",
       obj=["the row with id {n} in {table}", "the {ext_email} record in public.users"],
       obj_delete=["the rows in {table} older than {date}", "the test rows in {table}"],
       change=["set status = 'inactive'", "set plan = '{plan}'"]),
    _e("db_index", "index", "indexes", "list create", scope="db", ctx="on a table",
       keys="table", container="table", fields="columns! concurrently", token="index/indexes",
       objs=["indexes on {table}", "unused indexes in {dbname}"],
       new=["an index on {table}(created_at)", "a concurrent index on {table}(customer_id)"]),
    _e("query_plan", "query plan|EXPLAIN", "query plans", "get", scope="db", ctx="for a query",
       keys="sql", token="query_plan/query_plans",
       obj=["the query plan for the slow orders query",
            "the EXPLAIN ANALYZE of `SELECT * FROM {table} WHERE customer_id = 42`"]),
    _e("slow_query", "slow query", "slow queries", "list", scope="db", ctx="on a database",
       container="database", filters="min_duration_ms since", token="slow_query/slow_queries",
       objs=["slow queries on {dbname} from {window}", "the slowest queries today"]),
    _e("db_session", "session|running query", "sessions|running queries", "list cancel",
       scope="db_admin", ctx="on a database", keys="pid", container="database",
       token="session/sessions",
       obj=["the long-running query pid {pid} on {dbname}", "session {pid} on {dbname}"],
       objs=["active sessions on {dbname}", "queries running longer than 5 minutes"]),
    _e("backup", "backup|snapshot", "backups|snapshots", "list create rollback", scope="db_admin",
       ctx="of a database", keys="database backup_id", container="database", fields="label",
       summ={"rollback": "Restore a database from a backup (overwrites current data)."},
       obj=["{dbname} to the backup from {date}", "{dbname} to last night's snapshot"],
       objs=["backups of {dbname}", "last night's snapshots"],
       new=["a backup of {dbname}", "an on-demand snapshot of {dbname} before the migration"]),
    _e("db_document", "document|record", "documents|records", "search get create update delete",
       scope="db", ctx="in a collection", keys="collection id", container="collection",
       fields="document!", token="document/documents",
       obj=["the document {oid} in {mongo_coll}", "{mongo_coll} document {oid}"],
       hay=["the {mongo_coll} collection", "{mongo_coll}"], q=["'{ext_email}'", "status 'failed'"],
       new=["a document in {mongo_coll} for {ext_email}"],
       change=["set status to 'shipped'", "set retries to 0"]),
    _e("collection", "collection", "collections", "list", scope="db", ctx="in a database",
       container="database", objs=["collections in {dbname}", "the collections of the orders db"]),
    _e("warehouse", "warehouse|compute warehouse", "warehouses", "list scale", scope="db_admin",
       ctx="in the account", keys="warehouse", fields="size!",
       obj=["the {wh} warehouse to LARGE", "{wh} up to X-LARGE for the backfill"],
       objs=["warehouses and their sizes", "suspended warehouses"]),
    _e("query_history", "query history|past query", "past queries", "list", scope="db",
       ctx="in the account", filters="warehouse since user", token="query_history/query_history",
       objs=["my query history for today", "queries that ran on {wh} since {date}"]),
), (
    _s("postgres", "Postgres", "snake", entities="table row db_index query_plan slow_query "
       "db_session backup", names={"query:table": "run_query", "get:query_plan": "explain_query"}),
    _s("mysql", "MySQL", "snake", entities="table row db_index query_plan slow_query db_session",
       names={"query:table": "execute_query"}),
    _s("mongodb", "MongoDB", "camel", entities="db_document collection db_index backup",
       verbs={"search": "find"}),
    _s("snowflake", "Snowflake", "snake", entities="table warehouse query_history row",
       names={"query:table": "execute_sql"}),
    _s("bigquery", "BigQuery", "camel", entities="table query_history query_plan",
       names={"query:table": "runQuery"}),
))

STORAGE = DomainSpec("storage", "team-data-platform", (
    _e("file", "file|object", "files|objects", "list search get export upload update delete",
       scope="files", ctx="in a bucket or folder", keys="path", container="bucket",
       filters="prefix modified_after", fields="name parent",
       summ={"export": "Download a file's contents.", "get": "Show a file's metadata."},
       obj=["{file_path} in {bucket}", "the file {file_path}"],
       obj_delete=["{file_path} from {bucket}", "the old export {file_path}"],
       objs=["files in {bucket}/{prefix}", "objects under {prefix} in {bucket}",
             "files in the {folder} folder"],
       objs_export=["{file_path} from {bucket}", "the {folder}/{file_name} file"],
       hay=["{bucket}", "the {folder} folder", "my drive"], q=["'{file_kw}'"],
       upl=["{file_path} to {bucket}", "the {report} export to the {folder} folder"],
       change=["set the name to {file_name}", "move to {folder}"]),
    _e("bucket", "bucket|folder", "buckets|folders", "list create delete", scope="buckets",
       ctx="in the account", keys="bucket", fields="name! region",
       obj=["the empty bucket {old_bucket}", "the folder '{folder}'"],
       objs=["buckets in the prod account", "folders under {folder}"],
       new=["a bucket {new_bucket} in eu-west-1", "a folder '{new_folder}' under {folder}"]),
    _e("share_link", "share link|sharing link", "share links", "create list", scope="sharing",
       objs=["share links I created", "public links in {folder}"],
       ctx="for a file", fields="path! expires_in access", token="shared_link/shared_links",
       new=["a share link for {file_path} that expires in 7 days",
            "a view-only link to {folder}/{file_name}"]),
    _e("permission", "permission|access", "permissions", "list update delete", scope="sharing",
       ctx="on a file or folder", keys="path", fields="user! role!", soft_delete=True,
       obj=["the sharing on {folder}", "{ext_email}'s access to {folder}"],
       objs=["who has access to {folder}", "the sharing settings of {file_path}"],
       change=["set {email} to viewer", "set {ext_email} to editor"]),
    _e("file_version", "file version|version", "file versions|versions", "list rollback",
       scope="files", ctx="of a file", keys="path version_id", container="path",
       token="version/versions",
       objs=["versions of {file_path}", "older versions of {folder}/{file_name}"],
       obj=["{file_path} to the version from {date}",
            "{folder}/{file_name} to yesterday's version"]),
    _e("storage_usage", "storage usage|space used", "storage usage", "get", scope="buckets",
       ctx="of a bucket or drive", keys="bucket", token="usage/usage",
       obj=["the storage usage of {bucket}", "the size of the {folder} folder"]),
), (
    _s("s3", "S3", "pascal", aliases={"file": "Object/Objects"},
       names={"export:file": "GetObject", "get:file": "HeadObject", "upload:file": "PutObject",
              "create:share_link": "GeneratePresignedUrl", "list:file": "ListObjectsV2"},
       skip="search:file"),
    _s("gcs", "Google Cloud Storage", "snake", aliases={"file": "object/objects"},
       skip="search:file"),
    _s("dropbox", "Dropbox", "object", aliases={"bucket": "folder/folders"}),
    _s("gdrive", "Google Drive", "camel", connection="google_drive",
       aliases={"bucket": "folder/folders"}),
    _s("box", "Box", "snake", trust="third_party", aliases={"bucket": "folder/folders"}),
    _s("onedrive", "OneDrive", "camel", aliases={"bucket": "folder/folders", "file": "driveItem/"
       "driveItems"}),
))

WEB_SEARCH = DomainSpec("web_search", "team-ai-tools", (
    _e("web_page", "web page|web result", "web pages|web results", "search get", scope="search",
       ctx="on the public web", keys="url", filters="country freshness count", token="web/web",
       summ={"get": "Fetch a web page by URL and return its readable text."},
       obj=["the page at {url}", "{url}"],
       hay=["the web", "the internet", "public docs online"], q=["'{web_q}'", "{web_q}"]),
    _e("news", "news|news article", "news|news articles", "search", scope="search",
       ctx="in recent news", filters="freshness country", token="news/news",
       hay=["the news", "news from the last week"], q=["'{news_q}'"]),
    _e("image", "image", "images", "search", scope="search", ctx="on the web",
       filters="size license", hay=["images on the web", "image results"], q=["'{img_q}'"]),
    _e("place", "place|local business", "places|local businesses", "search", scope="search",
       ctx="on maps", filters="location radius",
       hay=["maps", "local listings"], q=["coffee shops near the {office} office",
                                          "'coworking space {office}'"]),
    _e("paper", "paper|scholarly article", "papers|scholarly articles", "search", scope="search",
       ctx="in academic indexes", filters="year_from", token="scholar/scholar",
       hay=["academic papers", "research papers"], q=["'{paper_q}'"]),
), (
    _s("brave", "Brave Search", "snake", entities="web_page news image place"),
    _s("bing", "Bing", "camel", entities="web_page news image"),
    _s("serpapi", "SerpApi", "snake", trust="third_party"),
    _s("google_cse", "Google Programmable Search", "camel", entities="web_page image news"),
    _s("tavily", "Tavily", "object", trust="third_party", entities="web_page news"),
))

SECRETS = DomainSpec("secrets", "team-security", (
    _e("secret", "secret|credential", "secrets|credentials", "get list create update delete",
       scope="secrets", ctx="in the secret store", keys="path", container="mount",
       fields="value! rotation_days",
       obj=["the secret at {secret_path}", "the {secret_name} secret of {svc}"],
       obj_delete=["the secret {secret_path}", "the unused {secret_name} secret of {svc}"],
       objs=["secrets under {secret_prefix}", "secrets of {svc} in prod"],
       new=["a secret {secret_path} for {svc}"],
       change=["set a newly generated value", "set the rotation period to 30 days"]),
    _e("secret_version", "secret version", "secret versions", "list rollback", scope="secrets",
       ctx="of a secret", keys="path version", container="path",
       token="secret_version/secret_versions",
       objs=["versions of {secret_path}", "the version history of {secret_path}"],
       obj=["{secret_path} to version {revision}",
            "the {secret_name} secret to its previous version"]),
    _e("access_policy", "policy|access policy", "policies|access policies", "list get update",
       scope="policies", ctx="in the secret store", keys="policy", token="policy/policies",
       obj=["the {policy} policy", "access policy {policy}"],
       objs=["policies attached to {svc}", "all access policies"],
       change=["add read access to {secret_prefix}", "remove write access to {secret_prefix}"]),
    _e("token", "token|access token", "tokens|access tokens", "create list delete", scope="tokens",
       objs=["tokens of {svc}", "tokens expiring this week"],
       ctx="for a service", keys="accessor", fields="policies! ttl", soft_delete=True,
       obj=["the token for {svc}", "the leaked token of {svc}"],
       new=["a token for {svc} with the {policy} policy and a 24h TTL"]),
), (
    _s("vault", "Vault", "object", aliases={"secret": "kv/kv"}),
    _s("aws_secrets", "AWS Secrets Manager", "pascal", skip="create:token delete:token",
       names={"get:secret": "GetSecretValue", "update:secret": "RotateSecret"}),
    _s("doppler", "Doppler", "snake", trust="third_party", skip="list:access_policy"),
))

IDENTITY = DomainSpec("identity", "team-security", (
    _e("user", "user|account|employee account", "users|accounts",
       "search list get create update delete", objs=["users in {group}",
                                                     "users created since {date}"],
       scope="users", ctx="in the directory", keys="user_id", fields="email! first_name last_name "
       "department manager",
       obj=["the user {email}", "{person}'s account"],
       obj_delete=["the account of {email} (offboarding)", "the user {email}"],
       hay=["the directory", "users"], q=["'{person}'", "{email}"],
       new=["a user for {new_person} ({new_email})"],
       change=["set the department to Finance", "set the manager to {person}"]),
    _e("group", "group", "groups", "list get create update", scope="groups",
       ctx="in the directory", keys="group_id", fields="name! description members",
       obj=["the {group} group", "group {group}"],
       objs=["groups {person} belongs to", "groups with no members"],
       new=["a group {new_group}", "a group {new_group} for the {team} team"],
       change=["add {email}", "remove {email}"]),
    _e("app_assignment", "app assignment|app access", "app assignments", "list", scope="apps",
       ctx="for a user or app", filters="user app", token="app_assignment/app_assignments",
       objs=["apps assigned to {email}", "who has access to the {sso_app} app"]),
    _e("session", "session|login session", "sessions", "list delete", scope="sessions",
       ctx="of a user", keys="user_id", container="user_id",
       obj=["all sessions of {email}", "{person}'s active sessions"],
       objs=["active sessions of {email}", "sessions of {person} from unknown devices"]),
    _e("mfa_factor", "MFA factor|2FA device", "MFA factors|2FA devices", "list delete",
       scope="factors", ctx="of a user", keys="user_id factor_id", container="user_id",
       soft_delete=True, token="factor/factors",
       obj=["the lost phone factor of {email}", "{person}'s 2FA device"],
       objs=["MFA factors of {email}", "enrolled 2FA devices for {person}"]),
    _e("audit_event", "audit log|sign-in event", "audit logs|sign-in events", "list",
       scope="logs", ctx="in the directory", filters="user since event_type",
       token="log/logs",
       objs=["sign-in events of {email} since {date}", "failed logins today"]),
), (
    _s("okta", "Okta", "snake", verbs={"delete": "deactivate"}),
    _s("auth0", "Auth0", "camel"),
    _s("azure_ad", "Entra ID", "object", aliases={"user": "user/users"}),
))

FEATURE_FLAGS = DomainSpec("feature_flags", "team-platform", (
    _e("flag", "feature flag|flag|toggle", "feature flags|flags|toggles",
       "list get create update delete rollback", scope="flags", ctx="in a project",
       keys="flag_key", container="project", filters="environment tag",
       fields="key! name variations",
       obj=["the {flag} flag", "flag {flag} in {flag_env}"],
       obj_delete=["the stale flag {flag}", "the old {flag} toggle"],
       obj_rollback=["{flag} to yesterday's targeting", "the {flag} flag to the previous rules"],
       objs=["flags in {flag_env}", "stale flags older than 90 days", "flags owned by {team}"],
       new=["a flag {new_flag} off by default", "a boolean flag {new_flag} for {team}"],
       change=["set the rollout to 10%", "set the {flag_env} state to off",
               "target the {segment} segment"]),
    _e("segment", "segment|audience segment", "segments", "list get update", scope="segments",
       ctx="in a project", keys="segment_key", fields="included rules",
       obj=["the {segment} segment", "segment {segment} in {flag_env}"],
       objs=["segments in {flag_env}", "segments that target {account}"],
       change=["add {ext_email}", "add the {account} account"]),
    _e("experiment", "experiment|A/B test", "experiments|A/B tests", "get", scope="experiments",
       ctx="in a project", keys="experiment_key",
       obj=["the results of the {flag} experiment", "the {flag} A/B test results"]),
    _e("flag_audit", "flag change|audit entry", "flag changes|audit entries", "list",
       scope="flags", ctx="in a project", filters="environment since", token="audit_log/audit_log",
       objs=["flag changes in {flag_env} since {date}", "who toggled {flag} this week"]),
), (
    _s("launchdarkly", "LaunchDarkly", "snake"),
    _s("unleash", "Unleash", "camel", aliases={"flag": "feature/features"}),
    _s("flagsmith", "Flagsmith", "object", trust="third_party", entities="flag segment"),
))

CLOUD = DomainSpec("cloud", "team-infra", (
    _e("vm_instance", "instance|VM|virtual machine", "instances|VMs",
       "list get create restart scale delete", scope="compute", ctx="in a region",
       keys="instance_id", container="region", filters="state tag",
       fields="image! instance_type! name", token="instance/instances",
       obj=["instance {instance_id}", "the {svc} VM in {region}"],
       obj_scale=["instance {instance_id} to {instance_type}",
                  "the {svc} VM up to {instance_type}"],
       obj_delete=["the stopped instance {instance_id}",
                   "the old bastion VM {instance_id} in {region}"],
       objs=["instances in {region}", "stopped VMs tagged team={team}",
             "instances of {svc} in {region}"],
       new=["a {instance_type} instance in {region} from the ubuntu-24.04 image",
            "a VM named {svc}-canary in {region}"]),
    _e("volume", "volume|disk", "volumes|disks", "list get create delete", scope="compute",
       ctx="in a region", keys="volume_id", container="region", fields="size_gb! type",
       obj=["volume {volume_id}", "the unattached disk {volume_id}"],
       objs=["unattached volumes in {region}", "disks larger than 500 GB"],
       new=["a 200 GB volume in {region}", "a gp3 volume for {svc}"]),
    _e("disk_snapshot", "disk snapshot|volume snapshot", "disk snapshots", "list create",
       scope="compute", ctx="of a volume", keys="snapshot_id", container="volume_id",
       fields="volume_id! description", token="snapshot/snapshots",
       objs=["snapshots of volume {volume_id}", "disk snapshots older than 30 days"],
       new=["a snapshot of volume {volume_id}", "a snapshot of the {svc} data disk"]),
    _e("security_group", "security group|firewall rule", "security groups|firewall rules",
       "list get update", scope="network", ctx="in a VPC", keys="group_id", container="region",
       fields="ingress egress",
       obj=["security group {sg_id}", "the firewall rules of {svc}"],
       objs=["security groups in {region}", "firewall rules open to 0.0.0.0/0"],
       change=["allow port 443 from the office VPN", "remove the SSH rule for 0.0.0.0/0"]),
    _e("load_balancer", "load balancer|LB", "load balancers|LBs", "list get", scope="network",
       ctx="in a region", keys="lb_name", container="region",
       obj=["the {svc} load balancer", "load balancer {svc}-lb in {region}"],
       objs=["load balancers in {region}", "LBs with unhealthy targets"]),
    _e("cloud_cost", "cloud cost|cost report|cloud bill", "cloud costs|cost reports",
       "get query export", scope="billing", ctx="of the cloud account",
       filters="start_date end_date group_by", token="cost_report/cost_reports",
       summ={"get": "Show cloud spend for a period, optionally grouped by service or tag."},
       obj=["this month's cloud bill", "the cost of {svc} last month"],
       qry=["cloud spend by service for October", "the daily cost of {region} over {window}"],
       objs=["the October cost breakdown by team", "last month's spend by service"]),
    _e("dns_record", "DNS record|record", "DNS records|records", "list create update delete",
       scope="dns", ctx="in a zone", keys="zone name", container="zone",
       fields="name! type! value! ttl", token="record/records",
       obj=["the {dns_name} record", "the CNAME {dns_name}"],
       objs=["DNS records in {zone}", "A records for {zone}"],
       new=["a CNAME {dns_new} pointing to {svc}.{zone}", "an A record {dns_new} for the new LB"],
       change=["set the TTL to 300", "set the value to 10.0.4.12"]),
    _e("function", "function|cloud function|lambda", "functions|lambdas",
       "list get trigger update", scope="functions", ctx="in a region", keys="function_name",
       container="region", fields="code version memory",
       obj=["the {fn} function", "function {fn} in {region}"],
       obj_trigger=["the {fn} function with a test payload", "an invocation of {fn}"],
       objs=["functions in {region}", "functions on the python3.9 runtime"],
       change=["set the memory to 1024 MB", "set the timeout to 30s"]),
    _e("iam_role", "IAM role|role", "IAM roles|roles", "list get", scope="iam",
       ctx="in the account", keys="role_name", token="role/roles",
       obj=["the {iam_role} role", "IAM role {iam_role}"],
       objs=["roles that can read {bucket}", "IAM roles unused for 90 days"]),
), (
    _s("aws", "AWS", "pascal", names={
        "list:vm_instance": "DescribeInstances", "create:vm_instance": "RunInstances",
        "restart:vm_instance": "RebootInstances", "delete:vm_instance": "TerminateInstances",
        "scale:vm_instance": "ModifyInstanceType", "get:cloud_cost": "GetCostAndUsage",
        "trigger:function": "InvokeFunction", "list:dns_record": "ListResourceRecordSets"}),
    _s("gcp", "Google Cloud", "snake", aliases={"function": "cloud_function/cloud_functions"}),
    _s("azure", "Azure", "camel", aliases={"vm_instance": "virtualMachine/virtualMachines"}),
))

ANALYTICS = DomainSpec("analytics", "team-growth", (
    _e("product_event", "event|tracked event|product event", "events|tracked events",
       "query list", scope="analytics", ctx="in a project", container="project",
       filters="from to where", token="event/events",
       qry=["daily active users of {product_area} over {window}",
            "the count of '{event_name}' events since {date}",
            "'{event_name}' events by country for {window}"],
       objs=["tracked events in the web project", "events we track for {product_area}"]),
    _e("funnel", "funnel|conversion funnel", "funnels", "get create list", scope="analytics",
       ctx="in a project", keys="funnel_id", fields="steps! name",
       obj=["the {funnel} funnel for {window}", "conversion of the {funnel} funnel this week"],
       objs=["our saved funnels", "funnels for {product_area}"],
       new=["a funnel from '{event_name}' to 'Order Completed'"]),
    _e("cohort", "cohort|user cohort", "cohorts", "list create export", scope="analytics",
       ctx="in a project", keys="cohort_id", fields="definition! name",
       objs=["our saved cohorts", "cohorts used in the {flag} experiment"],
       objs_export=["the '{cohort}' cohort", "members of the '{cohort}' cohort"],
       new=["a cohort of users who did '{event_name}' in the last 30 days"]),
    _e("user_profile", "user profile|user activity", "user profiles", "get search",
       scope="analytics", ctx="in a project", keys="distinct_id", token="profile/profiles",
       obj=["the activity timeline of {ext_email}", "the analytics profile of {ext_email}"],
       hay=["user profiles", "tracked users"], q=["{ext_email}", "'{cust_person}'"]),
    _e("insight", "chart|saved insight|saved report", "charts|saved insights", "list get",
       scope="analytics", ctx="in a project", keys="insight_id", token="insight/insights",
       obj=["the '{insight}' chart", "saved insight '{insight}'"],
       objs=["saved insights on {product_area}", "charts on the growth board"]),
), (
    _s("mixpanel", "Mixpanel", "snake"),
    _s("amplitude", "Amplitude", "camel", aliases={"insight": "chart/charts"}),
    _s("posthog", "PostHog", "object", trust="third_party"),
))

SUPPORT = DomainSpec("support", "team-support", (
    _e("conversation", "conversation|support conversation", "conversations|support conversations",
       "search list get update resolve", scope="conversations", ctx="in the support inbox",
       keys="conversation_id", filters="status assignee", fields="assignee priority tags",
       obj=["conversation {conv_id}", "the conversation with {ext_email}"],
       objs=["open conversations assigned to {person}", "unassigned conversations from today",
             "conversations tagged {support_tag}"],
       hay=["support conversations", "the support inbox"], q=["'{bug_kw}'", "{ext_email}"],
       change=["set the assignee to {person}", "add the tag {support_tag}"]),
    _e("support_reply", "reply|customer reply", "replies", "send", scope="conversations",
       ctx="in a conversation", fields="conversation_id! body!", token="reply/replies",
       dest=["the conversation with {ext_email}", "conversation {conv_id}"],
       msg=["'{support_text}'"]),
    _e("help_article", "help article|KB article", "help articles|KB articles",
       "search get create update", scope="articles", ctx="in the help center",
       keys="article_id", fields="title! body state", token="article/articles",
       obj=["the '{article}' article", "help article '{article}'"],
       hay=["the help center", "KB articles"], q=["'{doc_kw}'", "'{article}'"],
       new=["a help article '{article}'", "a KB article on {doc_kw}"],
       change=["add a section on {doc_kw}", "set the state to published"]),
    _e("macro", "macro|saved reply", "macros|saved replies", "list create", scope="macros",
       ctx="in the support tool", fields="title! body!",
       objs=["our macros", "saved replies for refunds"],
       new=["a macro '{macro}' for refund requests", "a saved reply '{macro}'"]),
), (
    _s("intercom", "Intercom", "snake"),
    _s("freshdesk", "Freshdesk", "camel", aliases={"conversation": "ticket/tickets"}),
    _s("helpscout", "Help Scout", "object", trust="third_party"),
))

HR = DomainSpec("hr", "team-people", (
    _e("employee", "employee|worker", "employees|workers", "search get update list",
       scope="workers", ctx="in the HR system", keys="employee_id", fields="manager job_title",
       obj=["{person}'s employee record", "the employee profile of {email}"],
       objs=["employees in the {team} team", "new hires starting this month"],
       hay=["the employee directory", "HR records"], q=["'{person}'"],
       change=["set the manager to {person}", "set the job title to Staff Engineer"]),
    _e("time_off", "time off|PTO|leave request", "time off|PTO requests",
       "list create approve cancel", scope="time_off", ctx="for an employee",
       keys="request_id", fields="start! end! type", token="time_off_request/time_off_requests",
       obj_approve=["{person}'s PTO request for {date_future}", "the leave request of {person}"],
       obj_cancel=["my time off on {date_future}", "{person}'s PTO on {date_future}"],
       objs=["who is out next week", "{person}'s PTO this month"],
       new=["PTO for {person} from {date_future} for 3 days", "a day off for me on {date_future}"]),
    _e("org_chart", "org chart|reporting line", "org charts", "get", scope="workers",
       ctx="of a manager", keys="employee_id", token="org_chart/org_charts",
       obj=["the org chart under {person}", "the reporting line of {person}"]),
    _e("job_opening", "job opening|req|position", "job openings|reqs", "list create",
       scope="recruiting", ctx="in recruiting", fields="title! team! location",
       token="job/jobs",
       objs=["open reqs for the {team} team", "job openings in {office}"],
       new=["a job opening for a Senior SRE on {team}", "a req for a data engineer in {office}"]),
    _e("candidate", "candidate|applicant", "candidates|applicants", "search get update",
       scope="recruiting", ctx="in recruiting", keys="candidate_id", fields="stage",
       obj=["candidate {new_person}", "the application of {new_person}"],
       hay=["applicants", "the candidate pipeline"], q=["'{new_person}'"],
       change=["set the stage to Onsite", "set the stage to Offer"]),
), (
    _s("workday", "Workday", "camel", entities="employee time_off org_chart job_opening",
       aliases={"employee": "worker/workers"}),
    _s("bamboohr", "BambooHR", "snake", entities="employee time_off org_chart"),
    _s("greenhouse", "Greenhouse", "snake", trust="third_party", entities="job_opening candidate"),
))

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


# --- example values: every {slot} of a phrase or template ------------------------------------

Gen = Callable[[random.Random, date], str]


def _hex(n: int) -> Gen:
    return lambda rng, _: "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _alnum(prefix: str, n: int) -> Gen:
    chars = string.ascii_letters + string.digits
    return lambda rng, _: prefix + "".join(rng.choice(chars) for _ in range(n))


def _int(lo: int, hi: int, fmt: str = "{}") -> Gen:
    return lambda rng, _: fmt.format(rng.randint(lo, hi))


def _day(lo: int, hi: int) -> Gen:
    """An ISO date `lo..hi` days after world_date (negative: before)."""
    return lambda rng, day0: (day0 + timedelta(days=rng.randint(lo, hi))).isoformat()


_PEOPLE = ("Maria Lopez", "Dev Patel", "Jin Chen", "Sam Okafor", "Lena Fischer", "Tom Becker",
           "Aisha Khan", "Noah Kim", "Priya Raman", "Lucas Martin")
_SERVICES = ("checkout-api", "payments-worker", "search-indexer", "auth-service", "cart-service",
             "notification-svc", "billing-api", "inventory-sync", "frontend-web", "ledger-service")

VALUES: dict[str, tuple[str, ...] | Gen] = {
    "repo": ("acme/checkout", "acme/payments-api", "acme/web", "acme/mobile-app", "acme/infra",
             "acme/search-svc", "acme/auth-service", "acme/data-pipeline", "acme/billing",
             "acme/docs-site", "acme/ledger", "acme/notifications"),
    "old_repo": ("acme/old-landing-page", "acme/hackweek-2024", "acme/prototype-graphql",
                 "acme/tmp-migration-scripts"),
    "new_repo": ("pricing-engine", "feature-store", "edge-proxy", "design-tokens", "ml-serving"),
    "repo_kw": ("terraform", "payments", "react", "grpc", "airflow", "helm"),
    "lang": ("Go", "Python", "TypeScript", "Kotlin", "Rust"),
    "team": ("payments", "platform", "search", "growth", "data", "sre", "mobile"),
    "branch": ("main", "develop", "release/2026.11", "feature/faster-checkout",
               "hotfix/login-timeout", "feature/apple-pay", "chore/bump-deps"),
    "new_branch": ("feature/refund-api", "fix/null-currency", "spike/grpc-gateway",
                   "release/2026.12"),
    "sha": _hex(7),
    "num": _int(120, 4800),
    "n": _int(5, 50),
    "person": _PEOPLE,
    "new_person": ("Elena Rossi", "Kwame Mensah", "Yuki Tanaka", "Oliver Smith", "Fatima Zahra"),
    "new_email": ("elena.rossi@acme.io", "kwame.mensah@acme.io", "yuki.tanaka@acme.io",
                  "oliver.smith@acme.io"),
    "handle": ("@maria", "@dev.patel", "@jchen", "@sam.o", "@lena.f", "@tbecker", "@aisha"),
    "email": tuple(p.lower().replace(" ", ".") + "@acme.io" for p in _PEOPLE),
    "ext_email": ("ap@globex.com", "billing@initech.com", "ops@umbrella.co", "finance@hooli.com",
                  "jane.doe@stark.com", "m.garcia@wayne-ent.com"),
    "ext_domain": ("globex.com", "initech.com", "umbrella.co", "hooli.com"),
    "cust_person": ("Jane Doe", "Miguel Garcia", "Hannah Berg", "Raj Mehta", "Chloe Dubois"),
    "pr_kw": ("flaky test", "bump", "refactor auth", "migration", "dark mode"),
    "pr_title": ("Add retry to webhook handler", "Fix currency rounding", "Bump grpc to 1.66",
                 "Remove legacy cart endpoint"),
    "label": ("bug", "p1", "needs-triage", "regression", "security", "tech-debt"),
    "bug_kw": ("timeout", "null pointer", "500 on checkout", "login loop", "double charge",
               "memory leak"),
    "ticket_title": ("Login times out on mobile", "Refund button missing for EU customers",
                     "Upgrade Postgres to 16", "Flaky test in checkout e2e",
                     "Rotate Stripe API keys", "Add SSO for contractors",
                     "Search returns stale results"),
    "repo_file": ("src/checkout/cart.py", "services/payments/webhook.go", "web/src/App.tsx",
                  "charts/checkout/values.yaml", ".github/workflows/ci.yml", "Dockerfile"),
    "tag": ("v2.14.0", "v2.14.1", "v2.15.0", "v3.0.0-rc1", "v1.9.3"),
    "review_text": ("can we add a test for the empty cart case?", "nit: rename this variable",
                    "this needs a migration note", "LGTM once CI is green"),
    "hook_id": _int(100000, 999999),
    "hook_url": ("https://hooks.acme.io/ci", "https://deploy-bot.acme.io/github",
                 "https://audit.acme.io/events"),
    "code_term": ("'retry_backoff'", "'TODO(perf)'", "'parseInvoice'", "'X-Request-Id'",
                  "'STRIPE_API_KEY'", "'max_connections'", "'useFeatureFlag'", "'idempotency_key'"),
    "code_fn": ("parseInvoice()", "retryWithBackoff()", "NewLedgerClient", "handle_webhook()"),
    "build": _int(1200, 9800),
    "job": ("checkout-ci", "nightly-e2e", "deploy-payments", "release-mobile", "integration-tests"),
    "new_job": ("contract-tests", "load-test-weekly", "sbom-scan", "db-migrations-check"),
    "workflow": ("ci.yml", "deploy.yml", "nightly.yml", "release.yml", "lint.yml"),
    "ci_folder": ("payments", "platform", "mobile", "release"),
    "ci_err": ("exit code 137", "npm ERR! code ELIFECYCLE", "timed out after 60m",
               "could not resolve host", "AssertionError"),
    "artifact": ("coverage-report", "app-release.apk", "sbom.json", "dist.tar.gz"),
    "ci_var": ("SENTRY_DSN", "DOCKER_REGISTRY", "NPM_TOKEN", "DEPLOY_ENV"),
    "ci_val": ("registry.acme.io", "staging", "https://o42.ingest.sentry.io/7"),
    "env_name": ("production", "staging", "qa"),
    "svc": _SERVICES,
    "ns": ("payments", "checkout", "platform", "search", "default", "data-jobs", "ingress"),
    "old_ns": ("hackweek", "tmp-loadtest", "preview-pr-812", "legacy-batch"),
    "new_ns": ("pricing", "feature-store", "preview-pr-1203", "ml-serving"),
    "pod": ("{svc}-{pod_hash}",),
    "pod_hash": lambda rng, _: f"{_hex(9)(rng, _)}-{_alnum('', 5)(rng, _).lower()}",
    "cluster": ("prod-eu-1", "prod-us-2", "staging-eu-1"),
    "replicas": _int(2, 12),
    "revision": _int(17, 64),
    "chart": ("ingress-nginx", "cert-manager", "redis", "kube-prometheus-stack", "external-dns"),
    "chart_ver": ("4.11.2", "1.15.1", "19.6.0", "62.3.0"),
    "node": lambda rng, _: f"ip-10-0-{rng.randint(1, 254)}-{rng.randint(1, 254)}.ec2.internal",
    "cron": ("nightly-report", "cleanup-sessions", "sync-inventory", "rotate-logs"),
    "log_q": ("timeout", "status:500", "OOMKilled", "connection reset by peer", "deadline exceeded",
              "panic:", "level:error"),
    "window": ("the last hour", "the last 6 hours", "the last 24 hours", "the past 7 days",
               "since midnight"),
    "metric": ("p99 latency", "error rate", "CPU usage", "memory usage", "request rate",
               "queue depth"),
    "prom_metric": ("http_requests_total", "container_cpu_usage_seconds_total",
                    "kube_pod_container_status_restarts_total"),
    "dashboard": ("Checkout Overview", "API Latency", "Payments SLOs", "K8s Cluster Health",
                  "Search Quality", "Kafka Lag"),
    "monitor": ("High 5xx rate on {svc}", "Disk usage > 90% on db-primary",
                "p99 latency > 800ms on {svc}", "Pod restarts in {ns}"),
    "time": ("09:30", "10:00", "11:00", "13:30", "14:00", "15:30", "16:00"),
    "trace_id": _hex(16),
    "req_id": _alnum("req_", 10),
    "span": ("POST /v1/checkout", "GET /v2/search", "db.query orders", "redis GET cart:*"),
    "sentry_id": lambda rng, _: f"{rng.choice(('CHECKOUT', 'WEB', 'MOBILE', 'API'))}-"
                                f"{_hex(3)(rng, _).upper()}",
    "exception": ("TypeError: Cannot read properties of undefined", "ConnectionRefusedError",
                  "KeyError: 'currency'", "NullPointerException in InvoiceService"),
    "slo": ("checkout availability", "payments latency", "search availability", "login success"),
    "inc": _int(1200, 9900, "INC-{}"),
    "inc_title": ("Checkout errors above 5%", "Payments webhook backlog", "Search latency spike",
                  "Login failures in EU"),
    "inc_note": ("rolled back to the previous version", "error rate is recovering",
                 "root cause looks like a bad config push", "customer comms sent"),
    "schedule": ("Platform Primary", "Payments On-call", "SRE Secondary", "Data On-call"),
    "esc_policy": ("Payments Escalation", "Platform Default", "Database Team"),
    "channel": ("#deploys", "#incidents", "#payments-eng", "#sre-oncall", "#general",
                "#release-train", "#data-eng", "#support-escalations", "#frontend"),
    "old_channel": ("hackweek-2024", "proj-apollo", "tmp-migration", "offsite-planning"),
    "new_channel": ("inc-checkout-errors", "proj-pricing", "release-2026-11", "oncall-handover"),
    "msg_ts": lambda rng, _: f"{rng.randint(1760000000, 1790000000)}.{rng.randint(100000, 999999)}",
    "msgtext": ("deploy of {svc} is done", "{svc} error rate is back to normal",
                "release {tag} is out", "postmortem for {inc} is ready for review",
                "please review PR #{num}", "maintenance on {dbname} tonight at 22:00 UTC",
                "standup moved to {time}"),
    "chat_kw": ("rollback", "feature freeze", "flaky tests", "on-call swap", "the outage"),
    "topic": ("Release train for November", "Incident {inc} war room", "Payments eng chatter"),
    "remind_text": ("submit the on-call handover", "review the postmortem",
                    "update the status page", "check the nightly build"),
    "file_path": ("reports/2026-10/revenue.csv", "exports/customers.json",
                  "design/Q4-roadmap.pdf", "backups/orders_db.sql.gz", "logs/app-2026-10-28.log"),
    "report": ("weekly revenue", "churn", "on-call", "SLA"),
    "email_subj": ("Q3 invoice", "contract renewal", "outage follow-up", "access request",
                   "November release notes"),
    "mail_label": ("Invoices", "Vendors", "Follow-up", "Receipts", "Recruiting"),
    "tmpl": ("password-reset", "welcome-email", "invoice-ready", "weekly-digest"),
    "campaign": ("November product update", "Black Friday", "Webinar invite", "Churn win-back"),
    "audience": ("customers-eu", "newsletter", "trial-users", "enterprise-admins"),
    "meeting": ("sprint planning", "1:1", "incident review", "Q4 planning", "design review",
                "vendor call"),
    "date": _day(-45, -1),
    "date_future": _day(1, 21),
    "room": ("Room Oslo", "Room Lisbon", "Room Kyoto", "Room Nairobi", "Room Lima"),
    "office": ("Berlin", "London", "Austin", "Singapore"),
    "doc_title": ("Q4 Roadmap", "On-call Runbook", "Checkout Architecture", "Release Checklist",
                  "Onboarding Guide", "Incident Review {inc}", "Payments RFC"),
    "doc_kw": ("rate limits", "SSO setup", "data retention", "canary deploys", "PCI scope"),
    "space": ("ENG", "SRE", "PAY", "PRODUCT", "SEC"),
    "notion_db": ("Roadmap", "Hiring Pipeline", "Bug Triage", "Launch Tracker"),
    "tkey": lambda rng, _: f"{rng.choice(('PAY', 'OPS', 'PLAT', 'WEB', 'SUP', 'DATA'))}-"
                           f"{rng.randint(100, 9999)}",
    "tk": lambda rng, _: f"{rng.choice(('PAY', 'OPS', 'PLAT', 'WEB', 'SUP', 'INFRA'))}-"
                         f"{rng.randint(100, 9999)}",
    "project": ("PAY", "OPS", "PLAT", "WEB", "SUP", "DATA"),
    "prio": ("P1", "P2", "P3", "Highest", "Low"),
    "sprint": ("Sprint 44", "PAY Sprint 12", "Platform Sprint 7", "Cycle 31"),
    "new_sprint": ("Sprint 45", "PAY Sprint 13", "Hardening week"),
    "sprint_goal": ("ship refunds v2", "burn down P1 bugs", "finish the Postgres upgrade"),
    "chg": _int(10000, 99999, "CHG00{}"),
    "dbname": ("orders_db", "analytics", "users_prod", "billing_db", "events"),
    "account": ("Globex", "Initech", "Umbrella Co", "Hooli", "Stark Industries",
                "Wayne Enterprises"),
    "deal": ("Globex enterprise renewal", "Initech expansion", "Hooli pilot", "Umbrella upsell"),
    "deal_stage": ("Negotiation", "Proposal", "Closed Won", "Closed Lost"),
    "amount": ("$4,800", "$129.00", "$42.50", "$12,000", "€990", "$1,250"),
    "phone": ("+1 415 555 0142", "+44 20 7946 0958", "+49 30 901820"),
    "crm_note": ("asked for a security review", "wants SSO before renewal",
                 "budget approved for Q1", "champion is leaving"),
    "crm_report": ("Pipeline by Stage", "Closed Won This Quarter", "Renewals at Risk"),
    "customer": ("acme-retail", "globex", "initech", "umbrella", "hooli", "stark-industries"),
    "charge_id": _alnum("ch_3N", 8),
    "refund_id": _alnum("re_3N", 8),
    "cus_id": _alnum("cus_", 12),
    "inv_id": _alnum("in_1O", 8),
    "sub_id": _alnum("sub_1O", 8),
    "po_id": _alnum("po_1O", 8),
    "dp_id": _alnum("dp_1O", 8),
    "last4": _int(1000, 9999),
    "plan": ("Pro", "Team", "Enterprise", "Starter"),
    "table": ("analytics.orders", "public.users", "billing.invoices", "events.page_views",
              "public.sessions"),
    "old_table": ("tmp_backfill_2024", "orders_old", "users_bak", "staging_import"),
    "new_table": ("feature_snapshots", "refund_requests", "audit_events_v2"),
    "schema": ("public", "analytics", "billing", "events"),
    "pid": _int(10000, 65000),
    "mongo_coll": ("orders", "sessions", "audit_events", "carts"),
    "oid": _hex(24),
    "wh": ("ANALYTICS_WH", "ETL_WH", "REPORTING_WH"),
    "bucket": ("acme-prod-backups", "acme-data-lake", "acme-static-assets", "acme-logs-archive"),
    "old_bucket": ("acme-tmp-2024", "acme-hackweek-assets", "acme-old-exports"),
    "new_bucket": ("acme-ml-features", "acme-audit-exports", "acme-eu-reports"),
    "prefix": ("exports/2026-10/", "raw/events/", "invoices/", "tmp/"),
    "folder": ("Finance/Reports", "Engineering/RFCs", "Marketing/Assets", "Legal/Contracts"),
    "new_folder": ("Q4 Board Deck", "Vendor Contracts 2026", "Offsite"),
    "file_name": ("budget-2027.xlsx", "roadmap.pdf", "msa-globex.pdf", "brand-kit.zip"),
    "file_kw": ("budget", "contract", "roadmap", "invoice", "logo"),
    "url": ("https://kubernetes.io/docs/concepts/workloads/controllers/deployment/",
            "https://stripe.com/docs/api/idempotent_requests",
            "https://www.postgresql.org/docs/16/",
            "https://status.aws.amazon.com"),
    "web_q": ("kubernetes 1.31 release notes", "stripe idempotency keys",
              "postgres 16 logical replication", "CVE-2026-1234",
              "helm chart testing best practices"),
    "news_q": ("AWS outage", "EU AI Act", "Stripe pricing change", "Kubernetes security advisory"),
    "img_q": ("kubernetes architecture diagram", "acme logo", "data center"),
    "paper_q": ("learned sparse retrieval", "tool use in language models",
                "reciprocal rank fusion"),
    "secret_path": ("secret/payments/stripe", "kv/prod/checkout/db-password",
                    "kv/prod/search/api-key", "secret/ci/npm-token"),
    "secret_prefix": ("kv/prod/checkout/", "secret/payments/", "kv/staging/"),
    "secret_name": ("db-password", "api-key", "signing-key", "oauth-client-secret"),
    "policy": ("payments-read", "ci-deployer", "checkout-app", "break-glass"),
    "group": ("eng-oncall", "finance-admins", "contractors", "payments-eng"),
    "new_group": ("pricing-team", "soc2-auditors", "ml-platform"),
    "sso_app": ("GitHub", "AWS SSO", "Salesforce", "Figma"),
    "flag": ("new-checkout-flow", "dark-mode", "search-v2", "enable-apple-pay"),
    "new_flag": ("refunds-v2", "smart-retries", "eu-pricing"),
    "flag_env": ("production", "staging"),
    "segment": ("beta-testers", "eu-customers", "internal-staff"),
    "region": ("eu-west-1", "us-east-1", "europe-west3", "westeurope"),
    "instance_id": _alnum("i-0", 12),
    "instance_type": ("m7g.large", "c6i.2xlarge", "n2-standard-8", "Standard_D4s_v5"),
    "volume_id": _alnum("vol-0", 12),
    "sg_id": _alnum("sg-0", 10),
    "zone": ("acme.io", "acme-internal.net", "shop.acme.io"),
    "dns_name": ("api.acme.io", "status.acme.io", "checkout.shop.acme.io"),
    "dns_new": ("pricing.acme.io", "grafana.acme-internal.net", "beta.shop.acme.io"),
    "fn": ("resize-images", "stripe-webhook-handler", "nightly-export", "slack-notifier"),
    "iam_role": ("ci-deployer", "data-reader", "break-glass-admin", "lambda-exec"),
    "product_area": ("checkout", "onboarding", "search", "the mobile app"),
    "event_name": ("Signed Up", "Added to Cart", "Checkout Started", "Invite Sent"),
    "funnel": ("signup to first order", "trial to paid", "cart to checkout"),
    "cohort": ("power users", "churned in October", "EU trial users"),
    "insight": ("Weekly Active Users", "Checkout Conversion", "Retention by Plan"),
    "conv_id": _int(100000, 999999),
    "support_tag": ("refund", "bug", "billing", "vip"),
    "support_text": ("we've issued the refund, it should land in 5-7 days",
                     "thanks for the report, our engineers are on it",
                     "could you send a screenshot of the error?"),
    "article": ("How refunds work", "Setting up SSO", "Exporting your data", "Resetting 2FA"),
    "macro": ("Refund issued", "Escalated to engineering", "Need more info"),
    "status_text": ("we are investigating elevated error rates on checkout",
                    "a fix has been deployed and we are monitoring"),
    "status_comp": ("API", "Checkout", "Dashboard", "Webhooks"),
    # no-tool requests
    "city": ("Lisbon", "Berlin", "Tokyo", "Austin", "Toronto", "Madrid"),
    "restaurant": ("Nopa", "Dishoom", "Tacos El Gordo", "Sweetgreen"),
    "n_people": _int(4, 12),
}


# --- phrasing templates: traces and eval never share one ------------------------------------
# Styles: imperative, question, terse (ticket style); eval adds contextual. Slots: the phrase
# kinds of the entity (see above) and {tk}, a ticket key prefix.

Templates = Mapping[str, Mapping[str, tuple[str, ...]]]

TRACE_TEMPLATES: Templates = {
    "search": {"imperative": ("search {hay} for {q}", "find {q} in {hay}"),
               "question": ("can you search {hay} for {q}?", "where does {q} show up in {hay}?"),
               "terse": ("{tk}: search {hay} for {q}", "{q} in {hay}?")},
    "list": {"imperative": ("list {objs}", "show me {objs}"),
             "question": ("can you list {objs}?", "what are {objs}?"),
             "terse": ("{tk}: {objs}", "{objs} pls")},
    "get": {"imperative": ("get {obj}", "show me {obj}"),
            "question": ("what's {obj}?", "can you pull up {obj}?"),
            "terse": ("{tk}: {obj}", "{obj}?")},
    "query": {"imperative": ("query {qry}", "run a query for {qry}"),
              "question": ("can you query {qry}?", "can you get me {qry}?"),
              "terse": ("{tk}: query {qry}", "{qry} - need numbers")},
    "export": {"imperative": ("export {objs}", "download {objs}"),
               "question": ("can you export {objs}?", "could I get a download of {objs}?"),
               "terse": ("{tk}: export {objs}", "dump {objs}")},
    "create": {"imperative": ("create {new}", "add {new}"),
               "question": ("can you create {new}?", "could you add {new}?"),
               "terse": ("{tk}: create {new}", "new: {new}")},
    "update": {"imperative": ("update {obj}: {change}", "on {obj}, {change}"),
               "question": ("can you update {obj} and {change}?",
                            "could you change {obj}? {change}"),
               "terse": ("{tk}: {obj} - {change}", "{obj}: {change}")},
    "delete": {"imperative": ("delete {obj}", "remove {obj}"),
               "question": ("can you delete {obj}?", "could you remove {obj}?"),
               "terse": ("{tk}: delete {obj}", "rm {obj}")},
    "send": {"imperative": ("send {msg} to {dest}", "post to {dest}: {msg}"),
             "question": ("can you send {msg} to {dest}?", "could you message {dest} with {msg}?"),
             "terse": ("{tk}: notify {dest} - {msg}", "{dest} <- {msg}")},
    "trigger": {"imperative": ("trigger {obj}", "kick off {obj}"),
                "question": ("can you trigger {obj}?", "could you start {obj}?"),
                "terse": ("{tk}: trigger {obj}", "run {obj} pls")},
    "cancel": {"imperative": ("cancel {obj}", "stop {obj}"),
               "question": ("can you cancel {obj}?", "could you abort {obj}?"),
               "terse": ("{tk}: cancel {obj}", "kill {obj}")},
    "restart": {"imperative": ("restart {obj}", "do a rolling restart of {obj}"),
                "question": ("can you restart {obj}?", "could you bounce {obj}?"),
                "terse": ("{tk}: restart {obj}", "bounce {obj}")},
    "rollback": {"imperative": ("roll back {obj}", "revert {obj}"),
                 "question": ("can you roll back {obj}?", "could you revert {obj}?"),
                 "terse": ("{tk}: rollback {obj}", "revert {obj} asap")},
    "scale": {"imperative": ("scale {obj}", "resize {obj}"),
              "question": ("can you scale {obj}?", "could you resize {obj}?"),
              "terse": ("{tk}: scale {obj}", "scale {obj} pls")},
    "merge": {"imperative": ("merge {obj}", "go ahead and merge {obj}"),
              "question": ("can you merge {obj}?", "could you merge {obj}?"),
              "terse": ("{tk}: merge {obj}", "merge {obj} pls")},
    "approve": {"imperative": ("approve {obj}", "sign off on {obj}"),
                "question": ("can you approve {obj}?", "could you sign off on {obj}?"),
                "terse": ("{tk}: approve {obj}", "lgtm, approve {obj}")},
    "acknowledge": {"imperative": ("acknowledge {obj}", "ack {obj}"),
                    "question": ("can you ack {obj}?", "could you acknowledge {obj}?"),
                    "terse": ("{tk}: ack {obj}", "ack {obj} - on it")},
    "resolve": {"imperative": ("resolve {obj}", "mark {obj} as resolved"),
                "question": ("can you resolve {obj}?", "could you mark {obj} resolved?"),
                "terse": ("{tk}: resolve {obj}", "close out {obj}")},
    "refund": {"imperative": ("refund {obj}", "issue a refund for {obj}"),
               "question": ("can you refund {obj}?", "could you issue a refund for {obj}?"),
               "terse": ("{tk}: refund {obj}", "refund {obj} pls")},
    "upload": {"imperative": ("upload {upl}", "put {upl}"),
               "question": ("can you upload {upl}?", "could you put {upl}?"),
               "terse": ("{tk}: upload {upl}", "upload {upl} pls")},
    "schedule": {"imperative": ("schedule {new}", "set up {new}"),
                 "question": ("can you schedule {new}?", "could you set up {new}?"),
                 "terse": ("{tk}: schedule {new}", "sched {new}")},
}

EVAL_TEMPLATES: Templates = {
    "search": {"imperative": ("look through {hay} for {q}", "dig through {hay} and locate {q}"),
               "question": ("is there anything matching {q} in {hay}?",
                            "do we have hits for {q} in {hay}?"),
               "terse": ("need hits for {q} in {hay}", "grep {hay}: {q}"),
               "contextual": ("before I file a bug, check {hay} for {q}",
                              "I'm debugging something; look for {q} in {hay}")},
    "list": {"imperative": ("give me a list of {objs}", "enumerate {objs}"),
             "question": ("could you pull together {objs}?", "do you have a list of {objs}?"),
             "terse": ("need {objs}", "{objs}, list please"),
             "contextual": ("for the weekly review I need {objs}",
                            "quick sanity check: list out {objs}")},
    "get": {"imperative": ("look up {obj}", "bring up {obj}"),
            "question": ("how does {obj} look right now?", "could you fetch {obj} for me?"),
            "terse": ("need {obj}", "{obj} - details please"),
            "contextual": ("before the standup I'd like to see {obj}",
                           "someone asked about {obj}; check it")},
    "query": {"imperative": ("compute {qry}", "pull the numbers for {qry}"),
              "question": ("could you run {qry} for me?", "any chance you can count {qry}?"),
              "terse": ("numbers: {qry}", "need {qry} asap"),
              "contextual": ("for the board deck, work out {qry}",
                             "finance is asking: calculate {qry}")},
    "export": {"imperative": ("save a copy of {objs}", "grab a download of {objs}"),
               "question": ("could you give me a file with {objs}?", "can I get {objs} as a file?"),
               "terse": ("need an export of {objs}", "file of {objs} please"),
               "contextual": ("for the audit, export {objs} to a file",
                              "legal wants {objs} as a download")},
    "create": {"imperative": ("go ahead and create {new}", "make {new}"),
               "question": ("would you be able to create {new}?", "could we get {new} created?"),
               "terse": ("pls create {new}", "todo: create {new}"),
               "contextual": ("so we don't forget, create {new}",
                              "following up on the meeting, create {new}")},
    "update": {"imperative": ("edit {obj} to {change}", "modify {obj}: {change}"),
               "question": ("would you update {obj} to {change}?",
                            "is it ok to update {obj}? {change}"),
               "terse": ("{obj} needs an edit: {change}", "edit {obj} -> {change}"),
               "contextual": ("per the review feedback, update {obj}: {change}",
                              "we agreed to {change} for {obj}; please update it")},
    "delete": {"imperative": ("purge {obj}", "permanently remove {obj}"),
               "question": ("would you delete {obj}?", "is it ok to delete {obj}? please go ahead"),
               "terse": ("pls delete {obj}", "cleanup: remove {obj}"),
               "contextual": ("it's no longer needed, so delete {obj}",
                              "as part of the cleanup, drop {obj}")},
    "send": {"imperative": ("drop {dest} a note saying {msg}", "message {dest}: {msg}"),
             "question": ("would you message {dest} saying {msg}?", "mind sending {dest} {msg}?"),
             "terse": ("ping {dest}: {msg}", "to {dest} - {msg}, please send"),
             "contextual": ("so everyone is in the loop, send {dest} {msg}",
                            "once you're done, notify {dest}: {msg}")},
    "trigger": {"imperative": ("get {obj} started", "launch {obj}"),
                "question": ("would you trigger {obj}?",
                             "is it ok to kick off {obj}? please go ahead"),
                "terse": ("pls run {obj}", "start {obj} now"),
                "contextual": ("the fix is merged, so trigger {obj}",
                               "to verify the change, launch {obj}")},
    "cancel": {"imperative": ("abort {obj}", "halt {obj}"),
               "question": ("would you cancel {obj}?", "mind stopping {obj}?"),
               "terse": ("pls cancel {obj}", "abort {obj} now"),
               "contextual": ("that was started by mistake; cancel {obj}",
                              "we don't need it anymore, so stop {obj}")},
    "restart": {"imperative": ("reboot {obj}", "recycle {obj}"),
                "question": ("would you restart {obj}?", "mind giving {obj} a restart?"),
                "terse": ("pls restart {obj}", "recycle {obj} now"),
                "contextual": ("it's leaking memory again; restart {obj}",
                               "after the config change, restart {obj}")},
    "rollback": {"imperative": ("do a rollback of {obj}", "revert {obj} right away"),
                 "question": ("would you roll back {obj}?", "mind doing a rollback of {obj}?"),
                 "terse": ("pls roll back {obj}", "rollback needed: {obj}"),
                 "contextual": ("the last change broke things, so roll back {obj}",
                                "errors spiked after the change; revert {obj}")},
    "scale": {"imperative": ("change the size of {obj}", "increase replicas of {obj}"),
              "question": ("would you scale {obj}?", "is it ok to scale {obj}? please go ahead"),
              "terse": ("pls scale {obj}", "capacity change, scale {obj}"),
              "contextual": ("traffic is spiking, so scale {obj}",
                             "for the sale tonight, scale {obj}")},
    "merge": {"imperative": ("merge {obj} now", "complete the merge of {obj}"),
              "question": ("would you merge {obj}?", "is it ok to merge {obj}? please go ahead"),
              "terse": ("pls merge {obj}", "ready to merge: {obj}"),
              "contextual": ("checks are green, so merge {obj}", "everyone agreed; merge {obj}")},
    "approve": {"imperative": ("approve {obj} on my behalf", "accept {obj}"),
                "question": ("would you approve {obj}?",
                             "is it ok to approve {obj}? please go ahead"),
                "terse": ("pls approve {obj}", "approve pls: {obj}"),
                "contextual": ("I reviewed it and it's fine; approve {obj}",
                               "the checks passed, so approve {obj}")},
    "acknowledge": {"imperative": ("claim {obj}", "take ownership of {obj} and acknowledge it"),
                    "question": ("would you acknowledge {obj}?", "mind acking {obj}?"),
                    "terse": ("pls ack {obj}", "ack needed: {obj}"),
                    "contextual": ("I'm looking into it now; acknowledge {obj}",
                                   "so it stops paging, ack {obj}")},
    "resolve": {"imperative": ("mark {obj} resolved now", "close out {obj} as done"),
                "question": ("would you resolve {obj}?", "can we resolve {obj} already?"),
                "terse": ("pls resolve {obj}", "fixed: resolve {obj}"),
                "contextual": ("the fix is deployed, so resolve {obj}",
                               "it's been quiet for an hour; resolve {obj}")},
    "refund": {"imperative": ("reimburse {obj}", "give back the money for {obj}"),
               "question": ("would you refund {obj}?", "is it ok to refund {obj}? please go ahead"),
               "terse": ("pls refund {obj}", "refund needed: {obj}"),
               "contextual": ("the customer was double charged, so refund {obj}",
                              "support approved it; refund {obj}")},
    "upload": {"imperative": ("store {upl}", "attach {upl}"),
               "question": ("would you upload {upl}?", "is it ok to upload {upl}? please go ahead"),
               "terse": ("pls upload {upl}", "upload needed: {upl}"),
               "contextual": ("so the team can see it, upload {upl}",
                              "for safekeeping, store {upl}")},
    "schedule": {"imperative": ("book {new}", "put {new} on the calendar"),
                 "question": ("would you schedule {new}?",
                              "is it ok to schedule {new}? please go ahead"),
                 "terse": ("pls schedule {new}", "calendar: schedule {new}"),
                 "contextual": ("we need to sync, so schedule {new}",
                                "to unblock the launch, book {new}")},
}

# How a request names the product (to tell near-duplicates apart) and the tool itself.
TRACE_MENTIONS = ("{text} on {product}", "{text} in {product}", "{product}: {text}")
EVAL_MENTIONS = ("{text} using {product}", "{text} (this is in {product})",
                 "in {product}: {text}", "{text}, over in {product}")
TRACE_EXACT = ("{text} via {tool_id}", "run {tool_id}: {text}")
EVAL_EXACT = ("use {tool_id} to {text}", "{text} with the {tool_id} tool",
              "call {tool_id} and {text}")
TRACE_JOINS = {2: ("{a}; {b}", "{a}, also {b}", "{a} + {b}"),
               3: ("{a}; {b}; {c}", "{a}, {b}, also {c}")}
EVAL_JOINS = {2: ("{a}, then {b}", "{a} and {b}", "{A}. After that, {b}", "{A}. {B}"),
              3: ("first {a}, then {b}, and finally {c}", "{a}, {b} and {c}",
                  "{A}. Then {b}. Finally, {c}")}

# Requests no tool in the world can serve (gold = []); some borrow tool words on purpose.
NO_TOOL_TEMPLATES = (
    "book a flight to {city} on {date_future}", "order lunch for the team from {restaurant}",
    "reserve a table for {n_people} at {restaurant} on Friday",
    "get me a taxi to the airport at {time}", "order {n} more laptop stands from Amazon",
    "buy a birthday present for {person}", "find me a hotel in {city} for the offsite",
    "rent a car in {city} for next week", "renew my passport",
    "print the Q4 deck on the 3rd floor printer", "water the plants in the {office} office",
    "ship the old laptop back to IT with FedEx", "write a haiku about Kubernetes",
    "what's 17% of 2,340?", "translate 'thank you for your patience' into Portuguese",
    "tell me a joke about on-call", "sign the NDA from {account} with DocuSign",
    "submit my expense report in Expensify", "renew the acme.io domain at the registrar",
    "order pizza for the incident war room", "change my seat on the {city} flight to an aisle",
    "get a quote for cleaning the {office} office", "order new business cards for {person}",
    "call {person}'s mobile phone", "fax the signed contract to {account}",
    "pay my parking ticket from {date}", "order a replacement badge for {person}",
    "how many days are there between {date} and {date_future}?",
    "book a massage for the team offsite in {city}",
    "buy {n_people} tickets for the {city} marathon",
)

SUMMARIES: Mapping[str, tuple[str, ...]] = {
    "search": ("Search {ents} {ctx} by keyword.", "Find {ents} {ctx} that match a query."),
    "list": ("List {ents} {ctx}.", "Show all {ents} {ctx}, newest first."),
    "get": ("Get one {ent} {ctx} by id.", "Show the details of {a_ent} {ctx}."),
    "query": ("Run a read-only query over {ents} {ctx}.", "Query {ents} {ctx} and return rows."),
    "export": ("Export {ents} {ctx} to CSV or JSON.", "Download {ents} {ctx} as a file."),
    "create": ("Create {a_ent} {ctx}.", "Add a new {ent} {ctx}."),
    "update": ("Change fields of an existing {ent} {ctx}.", "Edit {a_ent} {ctx}."),
    "delete": ("Delete {a_ent} {ctx}.", "Permanently remove {a_ent} {ctx}."),
    "send": ("Send {a_ent} {ctx}.", "Post {a_ent} {ctx}."),
    "trigger": ("Start a new {ent} {ctx}.", "Trigger {a_ent} {ctx}."),
    "cancel": ("Cancel {a_ent} {ctx}.", "Stop a running or pending {ent} {ctx}."),
    "restart": ("Restart {a_ent} {ctx} with a rolling restart.", "Restart {a_ent} {ctx}."),
    "rollback": ("Roll {a_ent} {ctx} back to an earlier revision.",
                 "Revert {a_ent} {ctx} to a previous version."),
    "scale": ("Scale {a_ent} {ctx} up or down.", "Change the size of {a_ent} {ctx}."),
    "merge": ("Merge {a_ent} {ctx}.", "Merge {ents} {ctx} into one."),
    "approve": ("Approve {a_ent} {ctx}.", "Give the required approval for {a_ent} {ctx}."),
    "acknowledge": ("Acknowledge {a_ent} so it stops escalating.", "Ack {a_ent} {ctx}."),
    "resolve": ("Mark {a_ent} {ctx} as resolved.", "Resolve {a_ent} {ctx}."),
    "refund": ("Refund {a_ent}, fully or partly.", "Give money back for {a_ent} {ctx}."),
    "upload": ("Upload {a_ent} {ctx}.", "Store {a_ent} {ctx}."),
    "schedule": ("Schedule {a_ent} {ctx} and invite people.", "Book {a_ent} {ctx}."),
}

# Implementer voice: abbreviations, HTTP verbs, ticket refs (the cryptic legacy tools).
OP_ABBR = {"search": "q", "list": "idx", "get": "rd", "query": "qry", "export": "dmp",
           "create": "mk", "update": "upd", "delete": "rm", "send": "snd", "trigger": "trg",
           "cancel": "cxl", "restart": "rst", "rollback": "rbk", "scale": "scl", "merge": "mrg",
           "approve": "apv", "acknowledge": "ack", "resolve": "rslv", "refund": "rfnd",
           "upload": "put", "schedule": "sched"}
ENTITY_ABBR = {"commit": "cmt", "repository": "repo", "pull_request": "pr", "issue": "iss",
               "ticket": "iss", "code": "src", "branch": "br", "diff": "cmp", "repo_file": "blob",
               "charge": "chg", "pay_customer": "cust", "invoice": "inv", "ticket_comment": "cmnt",
               "project": "proj", "sprint": "spr"}
CRYPTIC_SUMMARIES = (
    "Wraps {method} /v{ver}/{abbr} {opabbr}; ret {ret}. see {ref}",
    "{abbr}.{opabbr} shim ({method} /api/{abbr}); {note}",
    "legacy {abbr} {opabbr} endpt - {note}. {ref}",
    "{method} {abbr}/{opabbr} passthru, {ret}, {note}",
)
CRYPTIC_RETURNS = ("paged arr", "obj|null", "202 + job id", "raw JSON", "ids only", "csv blob")
CRYPTIC_NOTES = ("no auth refresh", "deprecated, do not extend", "cursor in hdr X-Nxt",
                 "rate ltd 5rps", "tz=UTC only", "owner left, ask #infra", "v1 compat")


# --- parameters of the generated input schemas ------------------------------------------------

_DATE = {"type": "string", "format": "date"}
_STAMP = {"type": "string", "format": "date-time"}
PARAM_SCHEMAS: dict[str, dict[str, Any]] = {
    **{k: {"type": "integer", "minimum": 0} for k in (
        "number", "replicas", "revision", "tail_lines", "run_id", "pid", "min_replicas",
        "max_replicas", "cpu_target", "duration", "capacity", "rotation_days", "line", "quantity",
        "unit_amount", "year_from", "radius", "min_duration_ms", "hook_id", "count", "version")},
    **{k: {"type": "boolean"} for k in (
        "previous", "draft", "masked", "is_private", "unschedulable", "concurrently", "submit",
        "dry_run", "unread")},
    **{k: {"type": "array", "items": {"type": "string"}} for k in (
        "labels", "attendees", "events", "taints", "tags", "items", "policies", "members",
        "included", "variations", "columns", "duplicate_ids", "cc")},
    **{k: {"type": "object"} for k in (
        "parameters", "values", "data", "properties", "document", "definition", "rules",
        "evidence", "set", "filter", "sorts", "panels")},
    **{k: _DATE for k in ("start_date", "end_date", "due_date", "close_date", "due_before",
                          "close_before", "arrival_after")},
    **{k: _STAMP for k in ("since", "until", "time_min", "time_max", "created_gte", "from", "to",
                           "start", "end", "modified_after", "expiration", "time")},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 25},
    "amount": {"type": "number", "minimum": 0},
    "threshold": {"type": "number"},
    "state": {"type": "string", "enum": ["open", "closed", "merged", "all"]},
    "status": {"type": "string", "enum": ["open", "in_progress", "resolved", "closed"]},
    "visibility": {"type": "string", "enum": ["public", "private", "internal"]},
    "urgency": {"type": "string", "enum": ["high", "low"]},
    "severity": {"type": "string", "enum": ["critical", "error", "warning", "info"]},
    "priority": {"type": "string", "enum": ["P1", "P2", "P3", "P4"]},
    "format": {"type": "string", "enum": ["csv", "json", "ndjson"], "default": "csv"},
    "permission": {"type": "string", "enum": ["read", "triage", "write", "admin"]},
    "role": {"type": "string", "enum": ["viewer", "commenter", "editor", "owner"]},
    "reason": {"type": "string", "enum": ["duplicate", "fraudulent", "requested_by_customer"]},
    "method": {"type": "string", "enum": ["merge", "squash", "rebase"], "default": "merge"},
    "size": {"type": "string", "enum": ["XSMALL", "SMALL", "MEDIUM", "LARGE", "XLARGE"]},
    "level": {"type": "string", "enum": ["debug", "info", "warn", "error"]},
    "interval": {"type": "string", "enum": ["month", "year"]},
    "freshness": {"type": "string", "enum": ["day", "week", "month"]},
    "environment": {"type": "string", "enum": ["production", "staging"]},
    "risk": {"type": "string", "enum": ["low", "moderate", "high"]},
    "type": {"type": "string", "enum": ["Normal", "Warning", "blocks", "duplicates", "relates"]},
    "access": {"type": "string", "enum": ["view", "edit"]},
}
PARAM_DOCS = {
    "repo": "Repository as owner/name, e.g. acme/web.", "org": "Organisation login.",
    "sha": "Full or abbreviated commit SHA.", "base": "Base ref (branch, tag or SHA).",
    "head": "Head ref to compare or merge from.", "namespace": "Kubernetes namespace.",
    "query": "Free-text query; supports quoted phrases.", "limit": "Maximum results per page.",
    "cursor": "Opaque pagination cursor from the previous page.",
    "since": "Only items after this ISO-8601 time.", "channel": "Channel id or #name.",
    "text": "Message text (markdown).", "format": "Output file format.",
    "dry_run": "Validate only; change nothing.", "amount": "Amount in minor units; omit for all.",
    "replicas": "Desired replica count.", "ticket_key": "Issue key such as PAY-4411.",
    "path": "Object key or file path.", "bucket": "Bucket or drive folder id.",
    "from": "Start of the time range (ISO-8601).", "to": "End of the time range (ISO-8601).",
    "until": "Only items before this ISO-8601 time.", "service": "Service name as tagged.",
    "pod": "Pod name.", "container": "Container name; defaults to the first one.",
    "deployment": "Deployment name.", "name": "Human-readable name.", "pipeline":
    "Job, pipeline or workflow name.", "run_id": "Build or run number.", "branch": "Branch name.",
    "author": "Author login or email.", "number": "Pull request or issue number.",
    "state": "Filter by state.", "status": "Filter by status.", "title": "Title shown in lists.",
    "body": "Body text (markdown).", "user": "User id, handle or email.", "email":
    "Email address.", "project": "Project key or id.", "customer": "Customer id or name.",
    "environment": "Target environment.", "cluster": "Cluster name.", "region": "Cloud region.",
    "page_id": "Page id.", "space": "Space key.", "level": "Minimum log level.",
    "tail_lines": "Return only the last N lines.", "previous": "Logs of the previous container.",
    "label_selector": "Kubernetes label selector, e.g. app=web.", "database": "Database name.",
    "table": "Fully qualified table name.", "ts": "Message timestamp id.", "app": "App name.",
    "version": "Version id or number.", "revision": "Revision to return to; default previous.",
    "note": "Optional note recorded with the change.", "method": "How to merge.",
    "reason": "Why (shown to the customer).", "to_": "Recipient address.", "subject":
    "Subject line.", "start": "Start time (ISO-8601).", "end": "End time (ISO-8601).",
}
_CONCEPTS = {"repo": "repository", "sha": "commit", "ns": "namespace", "pod": "pod",
             "ticket_key": "ticket", "tail_lines": "line count", "ts": "message timestamp"}
_ARTICLE_RE = re.compile(r"^[aeiouAEIOU]|^(SLO|MFA|HPA|API|SLA)")


def _a(noun: str) -> str:
    return ("an " if _ARTICLE_RE.match(noun) else "a ") + noun


def _words(token: str) -> list[str]:
    return [w for w in re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", token).lower().split("_") if w]


def _join_words(words: Sequence[str], style: str) -> str:
    if style == "camel":
        return words[0] + "".join(w.capitalize() for w in words[1:])
    if style == "pascal":
        return "".join(w.capitalize() for w in words)
    if style == "kebab":
        return "-".join(words)
    return "_".join(words)


def tool_name(server: ServerSpec, entity: EntitySpec, op: str) -> str:
    """The tool's name on its server, in that server's naming convention."""
    cap = f"{op}:{entity.name}"
    if cap in server.names:
        return server.names[cap]
    if server.style == "cryptic":
        return f"{ENTITY_ABBR.get(entity.name, entity.name[:4])}_{OP_ABBR[op]}"
    sing, plur = server.aliases.get(entity.name, entity.token)
    obj = (plur or sing) if op in ("search", "list", "export") else sing
    verb = _words(server.verbs.get(op, op))
    words = _words(obj) + verb if server.style == "object" else verb + _words(obj)
    return _join_words(words, "snake" if server.style == "object" else server.style)


def _param_name(name: str, style: str) -> str:
    return _join_words(_words(name), style) if style in ("camel", "pascal") else name


def _schema_params(entity: EntitySpec, op: str) -> list[tuple[str, bool]]:
    """(param, required) in schema order for one capability."""
    out: list[tuple[str, bool]] = []
    req_fields = [(f.rstrip("!"), f.endswith("!")) for f in entity.fields]
    if op in ("search", "list", "export", "query"):
        out += [(c, op != "search") for c in entity.container]
        if op in ("search", "query"):
            out.append(("query", True))
        out += [(f, False) for f in entity.filters]
        out += [("limit", False), ("cursor", False)] if op in ("search", "list") else []
        out += [("format", False)] if op == "export" else []
    elif op in ("create", "schedule", "send", "upload"):
        out += [(c, True) for c in entity.container] + req_fields
        if op == "upload" and not any(r for _, r in req_fields):
            out += [("path", True), ("content", True)]
    elif op == "update":
        out += [(k, True) for k in entity.keys] + [(f, False) for f, _ in req_fields]
    else:
        out += [(k, True) for k in entity.keys]
        if op == "get":
            out += [(f, False) for f in entity.filters]
        elif op == "scale":
            out += req_fields if any(r for _, r in req_fields) else [("replicas", True)]
        elif op == "trigger":
            out += [(f, False) for f, _ in req_fields]
        elif op == "merge":
            pr = entity.name == "pull_request"
            out += [("method", False)] if pr else [("duplicate_ids", True)]
        elif op == "refund":
            out += [("amount", False), ("reason", False)]
        elif op == "rollback":
            if "version" not in entity.keys and entity.name != "backup":
                out.append(("revision", False))
        elif op in ("acknowledge", "resolve", "approve"):
            out += [("note", False)]
    seen: dict[str, bool] = {}
    for name, req in out:
        seen[name] = seen.get(name, False) or req
    return list(seen.items())


def input_schema(entity: EntitySpec, op: str, style: str, *, destructive: bool) -> dict[str, Any]:
    params = _schema_params(entity, op) + ([("dry_run", False)] if destructive else [])
    props: dict[str, Any] = {}
    for name, _ in params:
        spec = dict(PARAM_SCHEMAS.get(name, {"type": "string"}))
        spec["description"] = PARAM_DOCS.get(name, f"The {name.replace('_', ' ')}.")
        props[_param_name(name, style)] = spec
    required = [_param_name(n, style) for n, req in params if req]
    schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def risk_of(entity: EntitySpec, op: str) -> str:
    if op in READ_OPERATIONS:
        return "read_only"
    if op == "rollback" or (op == "delete" and not entity.soft_delete):
        return "destructive"
    return "write"


# --- building the catalog -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Tool:
    """A chosen (server, capability) with everything the later stages need about it."""

    tool_id: str
    name: str
    domain: DomainSpec
    server: ServerSpec
    entity: EntitySpec
    op: str
    risk: str
    scopes: tuple[str, ...]
    env: tuple[str, ...]
    added_at: str
    new: bool
    cryptic: bool

    @property
    def capability(self) -> str:
        return f"{self.op}:{self.entity.name}"

    @property
    def connection(self) -> str:
        return self.server.connection


REQUIRED_TOOLS = ("github.list_commits", "github.compare_commits", "github.search_code",
                  "k8s.get_rollout_status", "k8s.get_pod_logs", "slack.post_message",
                  "logs.search", "datadog.search_logs")
_OP_LATENCY_MS = {"search": 350, "list": 180, "get": 120, "query": 1400, "export": 3200,
                  "create": 420, "update": 380, "delete": 300, "send": 260, "trigger": 900,
                  "cancel": 300, "restart": 1500, "rollback": 2200, "scale": 800, "merge": 700,
                  "approve": 250, "acknowledge": 200, "resolve": 220, "refund": 650,
                  "upload": 1800, "schedule": 450}
_HTTP = {"search": "GET", "list": "GET", "get": "GET", "query": "POST", "export": "GET",
         "update": "PATCH", "delete": "DELETE"}


def _choose_capabilities(p: Params, rng: random.Random) -> list[tuple[DomainSpec, ServerSpec,
                                                                      EntitySpec, str]]:
    chosen = []
    for dom in DOMAINS:
        known = {e.name for e in dom.entities}
        for srv in dom.servers:
            unknown = set(srv.entities) - known
            if unknown:
                raise ValueError(f"server {srv.server}: unknown entities {sorted(unknown)}")
            for ent in dom.entities:
                if srv.entities and ent.name not in srv.entities:
                    continue
                for op in ent.ops:
                    cap = f"{op}:{ent.name}"
                    if srv.only:
                        keep = cap in srv.only
                    elif cap in srv.skip:
                        keep = False
                    else:
                        chance = p.coverage if op in READ_OPERATIONS else p.write_coverage
                        keep = rng.random() < chance or cap in srv.pinned
                    if keep:
                        chosen.append((dom, srv, ent, op))
        # every capability of the domain lives somewhere: the first server that may hold it
        have = {(e.name, op) for d, _, e, op in chosen if d is dom}
        for ent in dom.entities:
            for op in ent.ops:
                if (ent.name, op) in have:
                    continue
                for srv in dom.servers:
                    if (not srv.entities or ent.name in srv.entities) and not srv.only and \
                            f"{op}:{ent.name}" not in srv.skip:
                        chosen.append((dom, srv, ent, op))
                        break
    return chosen


def build_tools(p: Params, rng: random.Random) -> list[_Tool]:
    """Choose capabilities per server, name the tools, and mark the new and cryptic ones."""
    draft = []
    for dom, srv, ent, op in _choose_capabilities(p, rng):
        name = tool_name(srv, ent, op)
        risk = risk_of(ent, op)
        level = {"read_only": "read", "write": "write", "destructive": "admin"}[risk]
        u = rng.random()
        env = ("prod", "staging") if u < 0.85 else ("prod",) if u < 0.95 else ("staging",)
        age = rng.randint(700, 2000) if srv.style == "cryptic" else rng.randint(45, 1100)
        tool_id = f"{srv.server}.{name}"
        draft.append(_Tool(
            tool_id=tool_id, name=name, domain=dom, server=srv, entity=ent, op=op, risk=risk,
            scopes=(f"{ent.scope}:{level}",),
            env=("prod", "staging") if tool_id in REQUIRED_TOOLS else env,
            added_at=(p.day0 - timedelta(days=age)).isoformat(), new=False,
            cryptic=srv.style == "cryptic"))
    counts = Counter(t.tool_id for t in draft)
    dupes = sorted(i for i, k in counts.items() if k > 1)
    if dupes:
        raise ValueError(f"tool ids collide: {dupes}")
    missing = [t for t in REQUIRED_TOOLS if t not in counts]
    if missing:
        raise ValueError(f"required tools missing from the world tables: {missing}")

    n = len(draft)
    open_idx = [i for i, t in enumerate(draft) if not t.cryptic and t.tool_id not in REQUIRED_TOOLS]
    extra = max(0, round(p.cryptic_share * n) - sum(t.cryptic for t in draft))
    cryptic = set(rng.sample(open_idx, min(extra, len(open_idx))))
    fresh_pool = [i for i in open_idx if i not in cryptic]
    new = set(rng.sample(fresh_pool, min(round(p.new_share * n), len(fresh_pool))))
    tools = []
    for i, t in enumerate(draft):
        if i in cryptic:
            t = replace(t, cryptic=True)
        elif i in new:
            added = p.day0 - timedelta(days=rng.randint(1, NEW_TOOL_DAYS - 1))
            t = replace(t, new=True, added_at=added.isoformat())
        tools.append(t)
    return tools


def near_duplicates(tools: Sequence[_Tool]) -> dict[str, tuple[str, ...]]:
    """Same capability on another server, then look-alike capabilities of other domains."""
    by_cap: dict[str, list[_Tool]] = defaultdict(list)
    for t in tools:
        by_cap[t.capability].append(t)
    partners: dict[str, list[str]] = defaultdict(list)
    for a, b in CROSS_DOMAIN:
        partners[a].append(b)
        partners[b].append(a)
    out = {}
    for t in tools:
        same = [s.tool_id for s in by_cap[t.capability] if s.server is not t.server]
        cross = [s.tool_id for cap in partners.get(t.capability, ()) for s in by_cap[cap]]
        out[t.tool_id] = tuple(same + cross)
    return out


def _families(tools: Sequence[_Tool]) -> list[tuple[str, list[_Tool], list[_Tool]]]:
    """(key, members, look-alikes): same-capability families and cross-domain pairs."""
    by_cap: dict[str, list[_Tool]] = defaultdict(list)
    for t in tools:
        by_cap[t.capability].append(t)
    fams: list[tuple[str, list[_Tool], list[_Tool]]] = [
        (cap, ts, []) for cap, ts in by_cap.items() if len(ts) > 1]
    fams += [(f"{a}~{b}", by_cap[a], by_cap[b]) for a, b in CROSS_DOMAIN
             if by_cap.get(a) and by_cap.get(b)]
    return fams


def _plain_summary(t: _Tool, rng: random.Random) -> str:
    ent = t.entity
    own = ent.summaries.get(t.op)
    if own:
        return own
    ctx = ent.ctx + (f" on {t.server.product}" if rng.random() < 0.4 else "")
    text = rng.choice(SUMMARIES[t.op]).format(ent=ent.nouns[0], ents=ent.plurals[0],
                                               a_ent=_a(ent.nouns[0]), ctx=ctx)
    return text[0].upper() + text[1:]


def _cryptic_text(t: _Tool, schema: Mapping[str, Any], rng: random.Random) -> tuple[str, str]:
    abbr = ENTITY_ABBR.get(t.entity.name, t.entity.name[:4])
    ref = f"{rng.choice(('INFRA', 'OPS', 'BILL', 'SCM', 'PLAT'))}-{rng.randint(100, 999)}"
    summary = rng.choice(CRYPTIC_SUMMARIES).format(
        method=_HTTP.get(t.op, "POST"), ver=rng.randint(1, 3), abbr=abbr, opabbr=OP_ABBR[t.op],
        ret=rng.choice(CRYPTIC_RETURNS), note=rng.choice(CRYPTIC_NOTES), ref=ref)
    required = set(schema.get("required", ()))
    params = ", ".join(k[:6] + ("*" if k in required else "") for k in schema["properties"])
    tail = rng.choice(CRYPTIC_NOTES)
    return summary, f"{summary}. p: {params}. {tail}; {ref}"


def _description(t: _Tool, summary: str, schema: Mapping[str, Any], rng: random.Random) -> str:
    props = schema["properties"]
    required = set(schema.get("required", ()))
    sing, plur = t.server.aliases.get(t.entity.name, t.entity.token)
    path = f"/{rng.choice(('api/v1', 'api/v2', 'v3', 'rest/api/2'))}/{plur or sing}"
    if t.op not in ("search", "list", "export", "query", "create", "send", "upload",
                    "schedule") and t.entity.keys:
        path += "/{" + _param_name(t.entity.keys[-1], t.server.style) + "}"
    notes = "; ".join(
        f"`{k}`{' (required)' if k in required else ''}: {v['description'].rstrip('.')}"
        + (f" (one of {', '.join(map(str, v['enum']))})" if "enum" in v else "")
        for k, v in list(props.items())[:4])
    risk = {"read_only": "Read-only; large results are paginated.",
            "write": f"Changes data in {t.server.product}.",
            "destructive": "Irreversible: the data cannot be recovered afterwards."}[t.risk]
    product = t.server.product
    api = f"{product} API" if product.startswith("the ") else f"the {product} API"
    return f"{summary} Calls {_HTTP.get(t.op, 'POST')} {path} on {api}. " \
           f"Parameters: {notes}. {risk}"


def build_cards(tools: Sequence[_Tool], p: Params, rng: random.Random) -> tuple[ToolCard, ...]:
    by_id = {t.tool_id: t for t in tools}
    plain = {t.tool_id: _plain_summary(t, rng) for t in tools}
    not_for: dict[str, list[str]] = defaultdict(list)
    prefer: dict[str, list[str]] = defaultdict(list)
    for _, members, lookalikes in sorted(_families(tools), key=lambda f: f[0]):
        if rng.random() >= p.annotated_family_share:
            continue
        if lookalikes:  # cross-domain: each side points at the other
            for side, other in ((members, lookalikes), (lookalikes, members)):
                for t in side:
                    o = rng.choice(other)
                    text = plain[o.tool_id].rstrip(".")
                    not_for[t.tool_id].append(f"{text[0].lower()}{text[1:]} (use {o.tool_id})")
            continue
        for t in members:
            sibs = [s for s in members if s is not t]
            for s in rng.sample(sibs, min(2, len(sibs))):
                not_for[t.tool_id].append(
                    f"{t.entity.plurals[0]} in {s.server.product} (use {s.tool_id})")
            if t.server.trust == "first_party" and not t.cryptic:
                prefer[t.tool_id] += [s.tool_id for s in sibs
                                      if s.cryptic or s.server.trust == "third_party"]
    examples_rng = random.Random(f"{p.seed}/examples")
    cards = []
    for t in tools:
        schema = input_schema(t.entity, t.op, t.server.style, destructive=t.risk == "destructive")
        if t.cryptic:
            summary, description = _cryptic_text(t, schema, rng)
            n_examples = rng.choice((0, 0, 1))
        else:
            summary = plain[t.tool_id]
            description = _description(t, summary, schema, rng)
            n_examples = rng.choice((1, 2))
        examples = []
        for _ in range(n_examples):
            values = _Values(examples_rng, p.day0)
            style = examples_rng.choice(tuple(TRACE_TEMPLATES[t.op]))
            text = render(t, TRACE_TEMPLATES, style, values, examples_rng)
            examples.append(text[0].upper() + text[1:])
        concepts = [_CONCEPTS.get(k, k.replace("_", " ")) for k, _ in _schema_params(t.entity, t.op)
                    if k not in ("limit", "cursor", "format")]
        cost = 0.0
        if t.domain.name == "web_search":
            cost = round(rng.uniform(0.002, 0.01), 4)
        elif t.op == "query" and t.server.server in ("snowflake", "bigquery"):
            cost = round(rng.uniform(0.01, 0.05), 4)
        elif t.op == "send" and t.domain.name == "email":
            cost = 0.0008
        cards.append(ToolCard(
            tool_id=t.tool_id, server=t.server.server, domain=t.domain.name, name=t.name,
            summary=summary, capabilities=(t.capability,),
            entities=tuple(dict.fromkeys((t.entity.name, *[_CONCEPTS.get(c, c) for c in
                                                            t.entity.container]))),
            input_concepts=tuple(dict.fromkeys(concepts)),
            prefer_over=tuple(x for x in dict.fromkeys(prefer[t.tool_id]) if x in by_id),
            not_for=tuple(not_for[t.tool_id]), examples=tuple(examples),
            requires=Requires(connection=t.connection, scopes=t.scopes), risk=t.risk, cost=cost,
            p50_ms=float(round(_OP_LATENCY_MS[t.op] * rng.uniform(0.6, 1.7)
                               * (1.8 if t.cryptic else 1.0))),
            owner=f"vendor:{t.server.server}" if t.server.trust == "third_party"
            else t.domain.owner,
            schema_version=rng.choice(("1", "1", "1", "2")), input_schema=schema,
            env=t.env, added_at=t.added_at, trust=t.server.trust, description=description,
        ))
    return tuple(cards)


# --- rendering requests ---------------------------------------------------------------------

PHRASE_KINDS = frozenset({"obj", "objs", "hay", "q", "qry", "new", "change", "dest", "msg", "upl"})
_FORMATTER = string.Formatter()


class _Values(dict):
    """Slot values drawn on first use, so the subgoals of one request share them.

    A slot ending in "2" (tag2, email2) draws from its base slot, avoiding the base's value.
    """

    def __init__(self, rng: random.Random, day0: date) -> None:
        super().__init__()
        self._rng = rng
        self._day0 = day0

    def __missing__(self, key: str) -> str:
        base = key[:-1] if key.endswith("2") and key not in VALUES else key
        gen = VALUES.get(base)
        if gen is None:
            raise KeyError(f"no example values for slot {{{key}}}")
        if callable(gen):
            value = gen(self._rng, self._day0)
        else:
            options = [v for v in gen if base == key or v != self[base]] or list(gen)
            value = self._rng.choice(options)
        if "{" in value:
            value = value.format_map(self)
        self[key] = value
        return value


class _Local(dict):
    """One subgoal's phrases over the request's shared values."""

    def __init__(self, values: _Values) -> None:
        super().__init__()
        self._values = values

    def __missing__(self, key: str) -> str:
        return self._values[key]


def _fields_of(template: str) -> list[str]:
    return [f for _, f, _, _ in _FORMATTER.parse(template) if f]


def render(t: _Tool, templates: Templates, style: str, values: _Values,
           rng: random.Random) -> str:
    """One subgoal for tool `t` in `style`, from the given template family."""
    template = rng.choice(templates[t.op][style])
    local = _Local(values)
    for name in _fields_of(template):
        if name in PHRASE_KINDS and name not in local:
            local[name] = rng.choice(t.entity.phrase(name, t.op)).format_map(values)
    return " ".join(template.format_map(local).split())


def _mention(text: str, product: str, forms: Sequence[str], rng: random.Random) -> str:
    form = rng.choice(forms)
    if form.startswith("{text}") and text.endswith("?"):
        return form.format(text=text[:-1], product=product) + "?"
    return form.format(text=text, product=product)


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


def _join(parts: Sequence[str], forms: Mapping[int, Sequence[str]], rng: random.Random) -> str:
    if len(parts) == 1:
        return parts[0]
    kw = {}
    for key, part in zip("abc", parts, strict=False):
        kw[key], kw[key.upper()] = part, _cap(part)
    return rng.choice(forms[len(parts)]).format(**kw)


# --- traces ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Org:
    """Lookup tables shared by trace and eval generation."""

    tools: tuple[_Tool, ...]
    by_id: Mapping[str, _Tool]
    near: Mapping[str, tuple[str, ...]]
    connections: tuple[str, ...]
    by_connection: Mapping[str, tuple[_Tool, ...]]
    read_scopes: Mapping[str, tuple[str, ...]]
    write_scopes: Mapping[str, tuple[str, ...]]
    age_s: Mapping[str, int]  # seconds a tool has existed at world_date

    @classmethod
    def of(cls, tools: Sequence[_Tool], day0: date) -> _Org:
        by_conn: dict[str, list[_Tool]] = defaultdict(list)
        for t in tools:
            by_conn[t.connection].append(t)
        read = {c: tuple(sorted({s for t in ts if t.risk == "read_only" for s in t.scopes}))
                for c, ts in by_conn.items()}
        write = {c: tuple(sorted({s for t in ts if t.risk != "read_only" for s in t.scopes}))
                 for c, ts in by_conn.items()}
        return cls(tuple(tools), {t.tool_id: t for t in tools}, near_duplicates(tools),
                   tuple(sorted(by_conn)), {c: tuple(ts) for c, ts in by_conn.items()}, read,
                   write, {t.tool_id: _age_s([t], day0) for t in tools})

    def context(self, conns: Iterable[str], must: Iterable[_Tool], env: str,
                rng: random.Random) -> dict[str, Any]:
        """Connections, their read scopes, some write scopes, and every scope `must` needs."""
        conns = sorted(set(conns))
        scopes = {s for c in conns for s in self.read_scopes[c]}
        scopes |= {s for c in conns for s in self.write_scopes[c] if rng.random() < 0.35}
        scopes |= {s for t in must for s in t.scopes}
        return {"connections": conns, "scopes": sorted(scopes), "env": env}

    def pad(self, conns: list[str], size: int, avoid: set[str], rng: random.Random) -> list[str]:
        pool = [c for c in self.connections if c not in conns and c not in avoid]
        rng.shuffle(pool)
        return conns + pool[: max(0, size - len(conns))]


def _pick_env(tools: Sequence[_Tool], rng: random.Random) -> str | None:
    common = [e for e in ("prod", "staging") if all(e in t.env for t in tools)]
    if not common:
        return None
    return "prod" if "prod" in common and (len(common) == 1 or rng.random() < 0.8) else common[-1]


def _menu(chosen: _Tool, gold: _Tool, org: _Org, conns: Sequence[str], env: str, before: int,
          rng: random.Random) -> tuple[str, ...]:
    """5-8 callable tools that existed `before` seconds ago: the chosen and right ones,
    near-duplicates, then tools of the same connection or another connected one."""
    size = rng.randint(5, 8)
    menu = list(dict.fromkeys((chosen.tool_id, gold.tool_id)))
    live = set(conns)
    near = [i for i in org.near[gold.tool_id] if org.by_id[i].connection in live
            and env in org.by_id[i].env and org.age_s[i] >= before]
    rng.shuffle(near)
    menu += [i for i in near[:3] if i not in menu]
    tries = 0
    while len(menu) < size and tries < 60:
        tries += 1
        conn = gold.connection if tries % 2 else rng.choice(conns)
        cand = rng.choice(org.by_connection[conn])
        if cand.tool_id not in menu and env in cand.env and org.age_s[cand.tool_id] >= before:
            menu.append(cand.tool_id)
    rng.shuffle(menu)
    return tuple(menu)


def _popularity_order(tools: Sequence[_Tool], rng: random.Random) -> list[_Tool]:
    """A seeded ranking that favours main servers and reads (weighted random permutation)."""
    def weight(t: _Tool) -> float:
        rank = t.domain.servers.index(t.server)
        w = 3.0 if rank == 0 else 1.6 if rank == 1 else 1.0
        w *= 0.6 if t.server.trust == "third_party" else 1.0
        w *= 0.5 if t.cryptic else 4.0 if t.tool_id in REQUIRED_TOOLS else 1.0
        w *= {"get": 2.0, "list": 2.0, "search": 2.0, "query": 1.5, "send": 1.2, "create": 1.2,
              "update": 1.2}.get(t.op, 0.3 if t.risk == "destructive" else 0.8)
        return w

    keyed = [(rng.random() ** (1.0 / weight(t)), i) for i, t in enumerate(tools)]
    return [tools[i] for _, i in sorted(keyed, reverse=True)]


def _zipf_picker(tools: Sequence[_Tool], s: float,
                 rng: random.Random) -> Callable[[], _Tool]:
    order = _popularity_order(tools, rng)
    cum = list(accumulate(1.0 / (rank + 1) ** s for rank in range(len(order))))
    return lambda: rng.choices(order, cum_weights=cum)[0]


def _age_s(tools: Sequence[_Tool], day0: date) -> int:
    """Seconds since the youngest of `tools` was added: no trace may predate a tool."""
    return min((day0 - date.fromisoformat(t.added_at)).days for t in tools) * 86400 - 60


def _stamp(day0: date, seconds_before: int) -> str:
    moment = datetime(day0.year, day0.month, day0.day) - timedelta(seconds=seconds_before)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _trace_subgoals(golds: Sequence[_Tool], org: _Org, rng: random.Random,
                    values: _Values) -> list[str]:
    texts = []
    for i, g in enumerate(golds):
        styles = ("imperative", "question", "terse") if len(golds) == 1 else \
            ("imperative", "terse") if i == 0 else ("imperative",)
        text = render(g, TRACE_TEMPLATES, rng.choice(styles), values, rng)
        if len(golds) > 1:
            text = text.rstrip("?")  # a question mark mid-request reads wrong
        u = rng.random()
        if u < 0.02 and (i == 0 or len(golds) == 1):
            text = rng.choice(TRACE_EXACT).format(text=text, tool_id=g.tool_id)
        elif u < 0.25:
            text = _mention(text, g.server.product, TRACE_MENTIONS, rng)
        texts.append(text)
    return texts


def generate_traces(org: _Org, p: Params, rng: random.Random) -> tuple[Trace, ...]:
    """Zipf-popular tools, near-duplicate failures, menus, multi-part requests."""
    warm = [t for t in org.tools if not t.new]
    pick = _zipf_picker(warm, p.zipf_s, rng)
    follow = [t for t in warm if t.capability in FOLLOW_UPS]
    window = p.trace_days * 86400
    plans: list[tuple[int, list[_Tool]]] = []  # (seconds before world_date, golds)
    for _ in range(p.n_trace_requests):
        n_sub = 1 if rng.random() >= p.trace_multi_share else rng.choice((2, 2, 3))
        golds = [pick()]
        for _ in range(20):
            if len(golds) == n_sub:
                break
            t = rng.choice(follow) if rng.random() < 0.5 else pick()
            if t not in golds and _pick_env([*golds, t], rng) is not None:
                golds.append(t)
        plans.append((rng.randint(60, min(window, _age_s(golds, p.day0))), golds))
    for t in sorted((t for t in org.tools if t.new), key=lambda t: t.tool_id):
        plans += [(rng.randint(60, _age_s([t], p.day0)), [t]) for _ in range(rng.randint(0, 3))]
    plans.sort(key=lambda plan: -plan[0])  # oldest first: request ids follow time

    traces: list[Trace] = []
    for n, (before, golds) in enumerate(plans):
        env = _pick_env(golds, rng) or "prod"
        steps: list[tuple[_Tool, _Tool, bool]] = []  # (chosen, right tool, success)
        for g in golds:
            wrong = [org.by_id[i] for i in org.near[g.tool_id]]
            wrong = [w for w in wrong
                     if not w.new and env in w.env and org.age_s[w.tool_id] >= before]
            u = rng.random()
            if wrong and u < p.trace_failure_rate:
                steps.append((rng.choice(wrong), g, False))
                if rng.random() < 0.75:
                    steps.append((g, g, True))
            elif u > 0.99 and not g.new:  # the right tool failing transiently, then retried
                steps += [(g, g, False)] + ([(g, g, True)] if rng.random() < 0.8 else [])
            else:
                steps.append((g, g, True))
        conns = list(dict.fromkeys(t.connection for c, g, _ in steps for t in (c, g)))
        for g in golds:
            sibs = [org.by_id[i].connection for i in org.near[g.tool_id]]
            if sibs and rng.random() < 0.3:
                conns.append(rng.choice(sibs))
        conns = org.pad(list(dict.fromkeys(conns)), rng.randint(4, 10), set(), rng)
        context = org.context(conns, [c for c, _, _ in steps], env, rng)
        values = _Values(rng, p.day0)
        texts = _trace_subgoals(golds, org, rng, values)
        request = _join(texts, TRACE_JOINS, rng)
        text_of = {g.tool_id: text for g, text in zip(golds, texts, strict=True)}
        request_id = f"req-{n:06d}"
        for k, (chosen, gold, ok) in enumerate(steps):
            menu = _menu(chosen, gold, org, context["connections"], env, before, rng) \
                if rng.random() < p.trace_menu_share else ()
            traces.append(Trace(
                subgoal=text_of[gold.tool_id], tool_id=chosen.tool_id, success=ok,
                request_id=request_id, request=request,
                ts=_stamp(p.day0, max(1, before - 7 * k)), menu=menu, context=context))
    return tuple(traces)


# --- labeled eval queries -------------------------------------------------------------------


def generate_queries(org: _Org, p: Params, rng: random.Random,
                     taken: set[str]) -> tuple[LabeledQuery, ...]:
    """Eval requests from the eval templates; `taken` holds texts they must not repeat."""
    regular = [t for t in org.tools if not t.new and not t.cryptic]
    rng_order = _popularity_order(regular, rng)
    cum = list(accumulate(1.0 / (rank + 1) ** (p.zipf_s / 2) for rank in range(len(rng_order))))
    new = [t for t in org.tools if t.new]
    cryptic = [t for t in org.tools if t.cryptic]
    follow = [t for t in regular if t.capability in FOLLOW_UPS]

    def pick_gold(focus: str = "") -> _Tool:
        if focus == "new" and new:
            return rng.choice(new)
        if focus == "cryptic" and cryptic:
            return rng.choice(cryptic)
        return rng.choices(rng_order, cum_weights=cum)[0]

    seen = {t.lower() for t in taken}
    queries = []
    for qi, plan in enumerate(_query_plans(p, rng)):
        for _ in range(200):  # the plan is fixed, so retries cannot skew the mix
            q = _eval_query(f"q-{qi:05d}", plan, org, p, rng, pick_gold, follow)
            texts = [q.query.lower(), *(sg.text.lower() for sg in q.subgoals)]
            if not any(t in seen for t in texts):
                seen.update(texts)
                queries.append(q)
                break
        else:
            raise RuntimeError(f"could not phrase a fresh eval query {qi}")
    return tuple(queries)


_EVAL_STYLES = ("imperative", "imperative", "question", "terse", "contextual")


@dataclass(frozen=True, slots=True)
class _QueryPlan:
    n_sub: int  # gold subgoals; 0 = a request no tool can serve
    focus: str  # "new" | "cryptic" | "": the pool the first gold comes from
    exact: bool  # one subgoal names its tool id verbatim


def _query_plans(p: Params, rng: random.Random) -> list[_QueryPlan]:
    """Exact counts per kind, shuffled: the slice sizes follow the params, not luck."""
    n = p.n_eval_queries
    n_none = round(p.eval_no_tool_share * n)
    n_multi = min(round(p.eval_multi_share * n), n - n_none)
    sizes = [0] * n_none + [rng.choice((2, 2, 3)) for _ in range(n_multi)]
    sizes += [1] * (n - len(sizes))
    rng.shuffle(sizes)
    with_tools = [i for i, size in enumerate(sizes) if size]
    order = rng.sample(with_tools, len(with_tools))
    k_new = round(p.eval_new_share * n)
    k_cryptic = round(p.eval_cryptic_share * n)
    focus = {i: "new" for i in order[:k_new]}
    focus |= {i: "cryptic" for i in order[k_new:k_new + k_cryptic]}
    exact = set(rng.sample(with_tools, min(len(with_tools), round(p.eval_exact_name_share * n))))
    return [_QueryPlan(size, focus.get(i, ""), i in exact) for i, size in enumerate(sizes)]


def _eval_query(query_id: str, plan: _QueryPlan, org: _Org, p: Params, rng: random.Random,
                pick_gold: Callable[..., _Tool], follow: Sequence[_Tool]) -> LabeledQuery:
    """One eval request phrased from the eval templates, following `plan`."""
    n_sub = plan.n_sub
    values = _Values(rng, p.day0)
    if n_sub == 0:
        text = rng.choice(NO_TOOL_TEMPLATES).format_map(values)
        conns = org.pad([], rng.randint(6, 12), set(), rng)
        return LabeledQuery(query_id, text, (), (LabeledSubgoal(text, ()),),
                            org.context(conns, (), rng.choice(("prod", "prod", "staging")), rng),
                            ("no_tool",))
    golds = [pick_gold(plan.focus)]
    for _ in range(50):
        if len(golds) == n_sub:
            break
        t = rng.choice(follow) if rng.random() < 0.5 else pick_gold()
        if t not in golds and _pick_env([*golds, t], rng) is not None:
            golds.append(t)
    env = _pick_env(golds, rng) or "prod"
    conns = list(dict.fromkeys(g.connection for g in golds))
    near_conns = {org.by_id[i].connection for g in golds for i in org.near[g.tool_id]}
    for g in golds:  # deliberately connect a sibling: the request must then name the product
        sibs = [org.by_id[i].connection for i in org.near[g.tool_id]]
        if sibs and rng.random() < p.eval_near_dup_share:
            conns.append(rng.choice(sibs))
    conns = org.pad(list(dict.fromkeys(conns)), rng.randint(6, 12), near_conns, rng)
    context = org.context(conns, golds, env, rng)
    live = set(context["connections"])
    exact_at = rng.randrange(len(golds)) if plan.exact else -1
    texts, slices = [], {"single" if len(golds) == 1 else "multi_subgoal"}
    for i, g in enumerate(golds):
        styles = _EVAL_STYLES if len(golds) == 1 else \
            ("imperative", "imperative", "contextual") if i == 0 else ("imperative",)
        style = "imperative" if i == exact_at else rng.choice(styles)
        text = render(g, EVAL_TEMPLATES, style, values, rng)
        clash = any(org.by_id[n].connection in live for n in org.near[g.tool_id])
        if i == exact_at:
            text = rng.choice(EVAL_EXACT).format(text=text, tool_id=g.tool_id)
            slices.add("exact_name")
        elif clash or rng.random() < 0.15:
            text = _mention(text, g.server.product, EVAL_MENTIONS, rng)
        slices |= {"near_duplicate"} if clash else set()
        slices |= {"new_tool"} if g.new else set()
        slices |= {"cryptic"} if g.cryptic else set()
        texts.append(text)
    query = _join(texts, EVAL_JOINS, rng)
    return LabeledQuery(
        query_id=query_id, query=query, gold=tuple(g.tool_id for g in golds),
        subgoals=tuple(LabeledSubgoal(t, (g.tool_id,)) for t, g in zip(texts, golds, strict=True)),
        context=context, slices=tuple(s for s in SLICES if s in slices))


# --- the world ------------------------------------------------------------------------------


def generate_world(params: Params) -> World:
    """Build the catalog, traces and eval queries; pure and deterministic in `params`."""
    tools = build_tools(params, random.Random(f"{params.seed}/catalog"))
    cards = build_cards(tools, params, random.Random(f"{params.seed}/cards"))
    org = _Org.of(tools, params.day0)
    traces = generate_traces(org, params, random.Random(f"{params.seed}/traces"))
    taken = {t.request for t in traces} | {t.subgoal for t in traces}
    taken |= {ex for c in cards for ex in c.examples}
    queries = generate_queries(org, params, random.Random(f"{params.seed}/eval"), taken)
    return World(
        cards=cards, traces=traces, queries=queries,
        new_tools=frozenset(t.tool_id for t in tools if t.new),
        cryptic_tools=frozenset(t.tool_id for t in tools if t.cryptic),
        near_dups=org.near,
    )


# --- summary and CLI ------------------------------------------------------------------------


def summarize(world: World) -> str:
    """A plain-text table of what the world contains (printed by main)."""
    cards, traces, queries = world.cards, world.traces, world.queries
    n = len(cards)
    lines = [f"tools {n} on {len({c.server for c in cards})} servers in "
             f"{len({c.domain for c in cards})} domains; new {len(world.new_tools)} "
             f"({len(world.new_tools) / n:.1%}), cryptic {len(world.cryptic_tools)} "
             f"({len(world.cryptic_tools) / n:.1%})"]
    risk = Counter(c.risk for c in cards)
    lines.append("risk    " + "  ".join(f"{r} {risk[r]} ({risk[r] / n:.1%})"
                                         for r in ("read_only", "write", "destructive")))
    lines.append("domain            tools servers")
    by_domain: dict[str, list[ToolCard]] = defaultdict(list)
    for c in cards:
        by_domain[c.domain].append(c)
    for d, cs in sorted(by_domain.items()):
        lines.append(f"  {d:<16}{len(cs):>6}{len({c.server for c in cs}):>8}")
    n_t = len(traces)
    requests = Counter(t.request_id for t in traces)
    multi_req = len({t.request_id for t in traces if t.request != t.subgoal})
    lines.append(f"traces {n_t} in {len(requests)} requests; failures "
                 f"{sum(not t.success for t in traces) / n_t:.1%}; multi-part requests "
                 f"{multi_req / len(requests):.1%}; menu unknown "
                 f"{sum(not t.menu for t in traces) / n_t:.1%}; tools used "
                 f"{len({t.tool_id for t in traces})}")
    n_q = len(queries)
    sl = Counter(s for q in queries for s in q.slices)
    lines.append(f"eval {n_q} queries; multi-subgoal {sl['multi_subgoal'] / n_q:.1%}; "
                 f"no-tool {sl['no_tool'] / n_q:.1%}")
    lines.append("slice             queries share")
    for s in SLICES:
        lines.append(f"  {s:<16}{sl[s]:>7} {sl[s] / n_q:>6.1%}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.demo_world", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("params", help="params.yaml (reads the demo_world section)")
    parser.add_argument("out_dir", help="directory for catalog.jsonl, traces.jsonl, eval.jsonl")
    args = parser.parse_args(argv)
    params = load_params(args.params)
    started = time.perf_counter()
    world = generate_world(params)
    out = Path(args.out_dir)
    n_cards = write_jsonl(out / "catalog.jsonl", (c.to_dict() for c in world.cards))
    n_traces = write_jsonl(out / "traces.jsonl", (t.to_dict() for t in world.traces))
    n_queries = write_jsonl(out / "eval.jsonl", (q.to_dict() for q in world.queries))
    print(summarize(world))
    print(f"demo_world: wrote {n_cards} cards, {n_traces} traces, {n_queries} eval queries to "
          f"{out} in {time.perf_counter() - started:.1f}s (seed {params.seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
