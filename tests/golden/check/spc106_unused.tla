---- MODULE spc106_unused ----
\* Bound variables never referenced in their scope (definition parameters are exempt).
Affinity(Term, Node, Objects) ==
  ∃ Other ∈ {Other ∈ Objects : Other.Kind = "Node"} :
    ∃ Pod ∈ Objects : Pod.Kind = "Pod"

Weights(Terms) ==
  ∧ Sum(LAMBDA Term : 1, Terms) > 0
  ∧ {0 : t ∈ Terms} = {0}
  ∧ [t ∈ Terms ↦ 0] = [t ∈ Terms ↦ t.Weight]
====
