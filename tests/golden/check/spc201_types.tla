---- MODULE spc201_types ----
\* Kind errors where both kinds are known; unknown kinds (parameters, fields) never report.
Arithmetic(Node) ==
  ∧ Node.Cpu + "100m" ≤ 4000
  ∧ TRUE < 1
  ∧ {i ∈ {1, 2} : i + 1} = {}
  ∧ 1 = "1"
  ∧ Node.Zone ∈ 3
  ∧ DOMAIN "labels" = {}
  ∧ IF 1 THEN TRUE ELSE FALSE
  ∧ CASE Node.Ready -> TRUE [] "yes" -> FALSE
  ∧ Cardinality(<<1, 2>>) = 2
  ∧ Weight ∧ TRUE

Weight == 5

\* Not findings: unknown kinds, a sequence compared with a function.
Fine(r, x) == r.a + x > 0 ∧ <<1>> = [i ∈ {1} ↦ i]
====
