---- MODULE unexpected_token ----
\* A bullet whose item starts with a binary operator.
Ready(Node) ==
  /\ Node.Status.Phase = "Running"
  /\ * Node.Spec.Unschedulable = FALSE
====
