"""Cross-validation of spec, impl and the real kube-scheduler (built in a later issue)."""
