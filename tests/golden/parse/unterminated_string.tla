---- MODULE unterminated_string ----
\* The closing quote is missing.
Running(Node) == Node.Status.Phase = "Running
Ready(Node) == Running(Node)
====
