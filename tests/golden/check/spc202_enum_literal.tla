---- MODULE spc202_enum_literal ----
\* schema: textbook
\* String literals a field of the textbook view can never hold.
Match_NS(Req, Node) ==
  CASE Req.Operator = "Exits" -> Req.Key ∈ DOMAIN(Node.Labels)
    [] "notin" = Req.Operator -> TRUE
    [] OTHER -> FALSE

Phase(Pod) == Pod.Status.Phase # "Runing" ∧ Pod.Kind = "Pods"

\* Not findings: values the view produces, and fields without an enumeration.
Ok(Pod) == Pod.Status.Phase = "Running" ∧ Pod.Name = "Exits"
====
