---- MODULE spc302 ----
VARIABLES now
Init == now = 0 /\ now' = 1
Tick == now' = now + 1
Next == Tick
MonotonicInv == now' >= now
====
