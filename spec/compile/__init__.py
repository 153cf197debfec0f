"""Backends: the AST compiled to executable Python (and, later, Z3)."""
