---- MODULE spc203_unknown_field ----
\* schema: textbook
\* Fields no record of the textbook view has, and one variable's field spelt two ways.
IsPod(Pod) == Pod.kind = "Pod" ∧ Pod.Spec.Toleration = {}

Match_LS(LabelSelectorRequirement, Labels) ==
  ∧ LabelSelectorRequirement.Key ∈ DOMAIN(Labels)
  ∧ Labels[LabelSelectorRequirement.key] ∈ LabelSelectorRequirement.Values

\* Not findings: a field of a record literal of this module.
Extra == [Score ↦ 1].Score
====
