---- MODULE spc101_undefined_operator ----
\* Operators that resolve to nothing: a typo, and a made-up built-in.
Match(Toleration, Taint) == Toleration.key = Taint.key

Tolerates(Pod, Taint) ==
  ∃ Toleration ∈ Pod.Spec.Tolerations : Mach(Toleration, Taint)

Spread(Pods) == Avg({p.Weight : p ∈ Pods})

\* Not findings: a parameter holding a LAMBDA may be applied, and built-ins are operators.
Apply(f, x) == f(x) + Cardinality({x})
====
