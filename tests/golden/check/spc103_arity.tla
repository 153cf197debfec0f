---- MODULE spc103_arity ----
\* Wrong numbers of arguments: definitions, built-ins, a definition used as a value.
BoundTo(Pod, Node, Snapshot) ==
  ∧ Pod ∈ Snapshot
  ∧ Pod.Spec.NodeName = Node.Name

Placed(Pod, Node, Snapshot) ==
  ∧ BoundTo(Pod, Node)
  ∧ Max(Snapshot, Snapshot) > 0
  ∧ Snapshot ⊆ BoundTo
  ∧ Sum(1, 2, 3) = 6
  ∧ Pod ∈ Int(1)
====
