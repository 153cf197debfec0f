---- MODULE spc301 ----
VARIABLES where, attempts
Init == where = "none" /\ attempts = 0
Pop == /\ where = "activeQ"
       /\ where' = "inFlight"
Fail == IF attempts > 3 THEN where' = "backoffQ" /\ UNCHANGED attempts
        ELSE where' = "unschedulable"
Next == Pop \/ Fail \/ UNCHANGED <<where, attempts>>
====
