---- MODULE unbalanced_paren ----
\* One `(` too many.
Fits(Pod, Node) ==
  /\ (Pod.Requests.cpu <= Node.Allocatable.cpu
  /\ Pod.Requests.memory <= Node.Allocatable.memory
====
