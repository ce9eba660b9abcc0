"""The lint's security evidence: public tool lists read in place, split by source, and the
study on the demo catalog (poisoned variants, the defenses' rates, their reach)."""
