---- MODULE missing_else ----
\* IF needs an ELSE; the next definition arrives instead.
Weight(Term) == IF Term.Weight > 0 THEN Term.Weight
Total(Terms) == Sum(Terms)
====
