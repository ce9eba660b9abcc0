"""The lint's security evidence: public tool lists read in place, split by source."""
