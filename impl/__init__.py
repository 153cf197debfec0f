"""The operational scheduler (built in a later issue); it never imports schedspec.spec."""
