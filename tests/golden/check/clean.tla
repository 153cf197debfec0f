---- MODULE clean ----
\* schema: textbook
\* A module without findings: the empty .expected file.
Fits(Pod, Node) ==
  ∧ Node.Spec.Unschedulable = FALSE
  ∧ ∀ Taint ∈ Node.Spec.Taints :
      ∃ Toleration ∈ Pod.Spec.Tolerations : Tolerates(Toleration, Taint)
  ∧ Requested(Pod, "cpu") ≤ Node.Status.Allocatable["cpu"]

Tolerates(Toleration, Taint) ==
  CASE Toleration.Operator = "Exists" -> Toleration.key = Taint.key
    [] Toleration.Operator = "Equal" -> Toleration.key = Taint.key ∧ Toleration.value = Taint.value
    [] OTHER -> FALSE

Requested(Pod, Name) ==
  LET Needs(c) == IF Name ∈ DOMAIN c.Resources.Required THEN c.Resources.Required[Name] ELSE 0
  IN Sum(LAMBDA i : Needs(Pod.Spec.Container[i]), DOMAIN Pod.Spec.Container)
====
