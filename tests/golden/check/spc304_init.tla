---- MODULE spc304 ----
VARIABLES now, where
Init == now = 0
Next == now' = now + 1 /\ UNCHANGED where
====
