---- MODULE spc107_recursion ----
\* The backends evaluate definitions by substitution: recursion is rejected.
Depth(Tree) == IF Tree = {} THEN 0 ELSE 1 + Depth(Tree)

Even(n) == IF n = 0 THEN TRUE ELSE Odd(n - 1)
Odd(n) == IF n = 0 THEN FALSE ELSE Even(n - 1)

Loop == LET Again == Again IN Again

\* Not a cycle: a diamond of references.
Top == Left + Right
Left == Bottom
Right == Bottom
Bottom == 1
====
