---- MODULE tab_indentation ----
\* Junction lists align by column: the second bullet is indented with a tab.
Ready(Node) ==
  /\ Node.Ready
	/\ Node.Schedulable
====
