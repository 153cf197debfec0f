---- MODULE unexpected_character ----
\* `@` is not part of the language.
Fits(Pod, Node) ==
  /\ Pod.Spec.NodeName = Node.Name
  /\ Node.Labels @ "zone"
====
