"""The learned ranker of `train_ltr`: its params, the replayed groups, the fit, what the
valid groups decide, and the calibration."""
