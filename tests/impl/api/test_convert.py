"""impl/api/convert.py: manifests the loader accepts (with a warning) convert without crashing."""

from __future__ import annotations

from schedspec.impl.api.convert import node_from_dict, pod_from_dict


def test_a_selector_requirement_without_key_or_operator_converts() -> None:
    # The loader only warns about such a requirement (the API server would refuse it), and
    # kube-scheduler then matches nothing; the converter must carry it, not raise KeyError.
    pod = pod_from_dict(
        {
            "metadata": {"name": "p", "namespace": "default"},
            "spec": {
                "containers": [],
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [{"matchExpressions": [{"operator": "Exists"}]}]
                        }
                    }
                },
                "topologySpreadConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "zone",
                        "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": {"matchExpressions": [{}]},
                    }
                ],
            },
        }
    )
    [constraint] = pod.topology_spread_constraints
    assert constraint.label_selector is not None
    [req] = constraint.label_selector.match_expressions
    assert (req.key, req.operator, req.values) == ("", "", ())
    assert node_from_dict({"metadata": {"name": "n"}}).name == "n"
