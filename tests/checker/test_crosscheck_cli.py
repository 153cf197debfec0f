"""`schedspec crosscheck`: the table, --json, exit codes, counterexamples, regressions."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import itf_py
import pytest

from schedspec.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_real_spec_agrees_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "crosscheck", "--examples", "30", "--seed", "3", "--accept-vacuous", "all"
    )
    assert code == 0
    assert "crosscheck scheduler: 30 clusters (1–10 nodes, 1–10 pods), seed 3" in out
    assert "0 undeclared disagreement(s)" in out
    assert any(line.startswith("TaintsOK") for line in out.splitlines())


def test_json_carries_the_contract_fields(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "crosscheck", "--examples", "10", "--json", "--nodes", "2:3", "--accept-vacuous",
        "all",
    )  # fmt: skip
    data = json.loads(out)
    assert code == 0
    assert data["examples"] == 10 and data["disagreements"] == 0
    assert data["sizes"] == {"nodes": [2, 3], "pods": [1, 10]}
    assert data["by_predicate"]["Feasible"]["checked"] > 0


def test_textbook_disagrees_exit_1_and_writes_regressions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_dir = tmp_path / "found"
    code, out, _ = run(
        capsys, "crosscheck", "--spec", "textbook", "--examples", "15", "--out", str(out_dir),
        "--write-regressions",
    )  # fmt: skip
    assert code == 1
    assert "FilterLifecycle" in out and "kind: Node" in out
    yaml_files = sorted(out_dir.glob("*.yaml"))
    tests = sorted(out_dir.glob("test_*.py"))
    assert yaml_files and len(tests) == len(yaml_files)
    # each counterexample also as a one-state ITF trace, the verdicts in its #meta
    traces = sorted(out_dir.glob("*.itf.json"))
    assert [t.name.removesuffix(".itf.json") for t in traces] == [y.stem for y in yaml_files]
    data = json.loads(traces[0].read_text("utf-8"))
    state = itf_py.trace_from_json(data).states[0].values
    assert set(state) == {"nodes", "pods"} and state["nodes"]
    assert data["#meta"]["disagreements"]
    # the written regression fails while the textbook still disagrees
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests[0])],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stdout
    assert "spec" in done.stdout and "impl" in done.stdout


def test_regressions_name_a_spec_file_relative_to_themselves(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / "specs").mkdir(parents=True)
    spec = project / "specs" / "textbook.tla"
    spec.write_text(
        (Path(__file__).parents[2] / "spec" / "kube" / "textbook.tla").read_text("utf-8"), "utf-8"
    )
    out_dir = project / "found"
    code, _, _ = run(
        capsys, "crosscheck", "--spec", str(spec), "--examples", "15", "--out", str(out_dir),
        "--write-regressions",
    )  # fmt: skip
    assert code == 1
    tests = sorted(out_dir.glob("test_*.py"))
    assert tests and str(tmp_path) not in tests[0].read_text("utf-8")
    moved = tmp_path / "elsewhere"
    project.rename(moved)  # another machine, another checkout
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(moved / "found")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stdout
    assert "no such spec file" not in done.stdout and "impl" in done.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--examples", "0"], "--examples must be at least 1"),
        (["--write-regressions"], "--write-regressions needs --out DIR"),
    ],
)
def test_bad_usage_is_exit_2_with_a_message(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, "crosscheck", *argv)
    assert code == 2
    assert message in err


def test_bad_sizes_are_rejected_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["crosscheck", "--nodes", "5:2"])
    assert stop.value.code == 2
    assert "want 0 ≤ MIN ≤ MAX" in capsys.readouterr().err


def test_parallel_campaign_is_its_workers_campaigns_merged() -> None:
    from schedspec.checker.campaign import run_campaign, run_parallel

    sizes = {"nodes": (1, 3), "pods": (1, 4)}
    merged = run_parallel(13, seed=5, jobs=2, shrink=False, shard_size=7, **sizes)
    # two shards of at most 7: shard k draws under seed 5 * 2 + k; the first takes the odd one
    parts = [run_campaign(7, 10, shrink=False, **sizes), run_campaign(6, 11, shrink=False, **sizes)]
    assert merged.examples == 13 and merged.jobs == 2
    assert merged.checked == parts[0].checked + parts[1].checked
    for counts in ("compared", "agreed"):
        assert getattr(merged.totals.agreement, counts) == sum(
            (getattr(p.totals.agreement, counts) for p in parts), Counter()
        )
    # one job is exactly the campaign under the seed itself
    assert run_parallel(7, seed=10, jobs=1, **sizes).checked == parts[0].checked


def test_a_campaign_leaves_the_garbage_collector_as_it_found_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    from schedspec.checker.campaign import run_campaign
    from schedspec.checker.differential import Checker

    thresholds, frozen = gc.get_threshold(), gc.get_freeze_count()
    seen: list[tuple[int, int]] = []
    checker = Checker()
    real_check = checker.check

    def check(cluster: object) -> object:
        # while the campaign runs: the heap it started with is frozen, young objects
        # are collected less often
        seen.append((gc.get_threshold()[0], gc.get_freeze_count()))
        return real_check(cluster)  # type: ignore[arg-type]

    monkeypatch.setattr(checker, "check", check)
    run_campaign(3, 1, nodes=(1, 2), pods=(1, 2), shrink=False, checker=checker)
    assert seen and all(t > thresholds[0] and n > 0 for t, n in seen)
    assert (gc.get_threshold(), gc.get_freeze_count()) == (thresholds, frozen)

    def crash(cluster: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(checker, "check", crash)
    with pytest.raises(RuntimeError, match="boom"):
        run_campaign(3, 1, nodes=(1, 2), pods=(1, 2), shrink=False, checker=checker)
    assert (gc.get_threshold(), gc.get_freeze_count()) == (thresholds, frozen)


def test_jobs_split_the_textbook_campaign_and_report_each_rule_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "crosscheck", "--spec", "textbook", "--examples", "12",
                       "--jobs", "2", "--no-shrink", "--json")  # fmt: skip
    data = json.loads(out)
    assert code == 1 and data["jobs"] == 2 and data["examples"] == 12
    rules = [c["predicate"] for c in data["counterexamples"]]
    assert rules and len(rules) == len(set(rules))
    failing = {p for p, row in data["by_predicate"].items() if row["disagreements"]}
    assert set(rules) == failing
    code, out, _ = run(capsys, "crosscheck", "--examples", "4", "--jobs", "2", "--nodes", "1:2",
                       "--accept-vacuous", "all")  # fmt: skip
    assert code == 0 and "seed 0, 2 jobs" in out
    code, _, err = run(capsys, "crosscheck", "--jobs", "0")
    assert code == 2 and "--jobs must be at least 1" in err


def test_preemption_strategy_is_named_and_reaches_the_pdb_rows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "crosscheck", "--strategy", "preemption", "--examples", "40")
    assert code == 0
    assert "40 clusters (preemption strategy: 1–4 nodes, 1–15 pods)" in out
    code, out, _ = run(
        capsys, "crosscheck", "--strategy", "preemption", "--examples", "40", "--json"
    )
    data = json.loads(out)
    assert data["strategy"] == "preemption"
    assert data["by_predicate"]["NumPDBViolations"]["checked"] > 0


def test_scoring_strategy_is_named_and_compares_scores_on_most_pairs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "crosscheck", "--strategy", "scoring", "--examples", "40",
                       "--accept-vacuous", "ScoreError")  # fmt: skip
    assert code == 0
    assert "40 clusters (scoring strategy: 2–6 nodes, 1–21 pods)" in out
    code, out, _ = run(capsys, "crosscheck", "--strategy", "scoring", "--examples", "40", "--json")
    data = json.loads(out)
    assert data["strategy"] == "scoring"
    rows = data["by_predicate"]
    # scores are compared on feasible nodes only: here most pairs are
    assert rows["PodTopologySpreadScore"]["checked"] >= 0.5 * rows["Feasible"]["checked"]


def test_a_predicate_that_took_one_value_fails_the_campaign_unless_accepted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The default strategy never draws an invalid preferred node term or ScheduleAnyway
    # selector, so ScoreError is FALSE on every pair: that comparison asked nothing.
    code, out, _ = run(capsys, "crosscheck", "--examples", "30", "--seed", "3")
    assert code == 1 and "0 undeclared disagreement(s)" in out
    assert re.search(r"vacuous: ScoreError was FALSE on all [\d,]+ pairs\n", out)
    assert re.search(r"vacuous: NodeNameOK was TRUE on all [\d,]+ pairs \(structural\)", out)
    code, out, _ = run(
        capsys, "crosscheck", "--examples", "30", "--seed", "3", "--accept-vacuous", "all",
        "--json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)["vacuous"]
    assert data["ScoreError"]["value"] == "FALSE" and data["ScoreError"]["verdict"] == "accepted"
    assert data["NodeNameOK"]["verdict"] == "structural"
    assert "TaintsOK" not in data  # took both values


def test_a_spec_given_as_a_path_has_its_own_label_keys_drawn(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A user's rules that read a key the pools lack ("gpu"): a bug over it is found, because
    the campaign draws clusters in the spec's own terms (checker/question.py's spec_terms)."""
    real = (Path(__file__).parents[2] / "spec" / "kube" / "scheduler.tla").read_text("utf-8")
    rule = "TaintsOK(p, n) ≝ ∀ x ∈ n.spec.taints : FilteringTaint(x) ⇒ Tolerated(p, x)"
    assert real.count(rule) == 1
    spec = tmp_path / "scheduler.tla"
    mutant = rule.replace("≝ ∀", "≝ (∀") + ') ∧ "gpu" ∉ DOMAIN Labels(n)'
    spec.write_text(real.replace(rule, mutant), "utf-8")
    code, out, _ = run(
        capsys, "crosscheck", "--spec", str(spec), "--examples", "30", "--seed", "1",
        "--accept-vacuous", "all", "--no-shrink",
    )  # fmt: skip
    assert code == 1, out
    row = re.search(r"^TaintsOK +(\d+) +(\d+) +(\d+)", out, re.M)
    assert row and int(row[2]) > 0 and int(row[3]) == 0, out  # differs, and undeclared
