"""The spec language (grammar, parser, checker, backends) and the specs written in it."""
