---- MODULE spc204_unreachable_arm ----
\* CASE arms that can never be chosen (guards are tried in order).
Match(Toleration, Taint) ==
  CASE Toleration.Operator = "Exists" -> TRUE
    [] Toleration.Operator = "Equal" -> Toleration.value = Taint.value
    [] Toleration.Operator = "Exists" -> FALSE
    [] FALSE -> FALSE
    [] OTHER -> FALSE

Always(x) ==
  CASE TRUE -> x
    [] x = 1 -> 1
    [] OTHER -> 0
====
