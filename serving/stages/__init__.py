"""The pipeline stages a subgoal runs through, in order: retrieve (dense, BM25,
capability; fused), filter, rerank (the learned ranker and its features), the no-tool
decision and the menu cut, what the session lacks, and disclosure of the menu."""
