---- MODULE pool_guard ----
\* A user's rule: nodes of a dedicated pool take only pods that select a pool.
PoolGuardOK(p, n) ≝
  "example.com/pool" ∈ DOMAIN n.metadata.labels ⇒ "example.com/pool" ∈ DOMAIN p.spec.nodeSelector
====
