---- MODULE gpu_guard ----
\* A user's rule over a label key the checker's default pools never draw.
GpuGuardOK(p, n) ≝
  "gpu" ∈ DOMAIN n.metadata.labels ⇒ "gpu" ∈ DOMAIN p.spec.nodeSelector
====
