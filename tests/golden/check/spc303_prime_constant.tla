---- MODULE spc303 ----
CONSTANTS Pods
VARIABLES placed
Init == placed = {}
Next == placed' = placed /\ Pods' = Pods
====
