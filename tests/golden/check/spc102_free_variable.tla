---- MODULE spc102_free_variable ----
\* Names bound by nothing, each with the hint the checker derives.
Resources(Pod, Node) ==
  ∧ Sum({ i \in DOMAIN p.Spec.Container : Pod.Spec.Container[i].Cpu }) ≤ Node.Cpu
  ∧ Node.Spec.Unschedulable = False
  ∧ _Node.Ready = True
  ∧ Node.Zone ∈ Zones

\* Not findings: a name bound by an earlier bound of the same quantifier, a later definition.
Pairs(S) == ∀ x ∈ S, y ∈ x : y ∈ Later
Later == {1, 2}
====
