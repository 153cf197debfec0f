---- MODULE spc105_rebound ----
\* Binders that hide an enclosing variable or parameter, and repeated parameters.
Bound(Pod, Snapshot) ==
  ∃ Pod ∈ Snapshot : Pod.Kind = "Pod"

Twice(x, x) == x

Nested(S) ==
  ∀ s ∈ S : ∃ t ∈ s : LET F(s) == s + t IN F(1) > 0
====
