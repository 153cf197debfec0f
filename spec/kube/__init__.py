"""The Kubernetes specs (textbook.tla, scheduler.tla) and the views that show clusters to them."""
