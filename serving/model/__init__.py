"""The data model: tool cards, labeled queries and traces (their formats and readers),
a subgoal's selection as it moves through the stages, runtime config and the vocabulary."""
