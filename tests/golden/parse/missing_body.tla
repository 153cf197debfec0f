\* The last definition has no body.
Ready(Node) == Node.Ready
Schedulable(Node) ==
