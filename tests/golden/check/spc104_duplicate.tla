---- MODULE spc104_duplicate ----
\* The seed defined five operators all named Filter; the checker keeps the first.
Filter(Pod, Node) == Node.Spec.Unschedulable = FALSE

Filter(Pod, Node) == Pod.Spec.NodeName = Node.Name

Fits(Pod, Node) ==
  LET Cpu == Pod.Cpu
      Cpu == Pod.Spec.Cpu
  IN Cpu ≤ Node.Cpu
====
