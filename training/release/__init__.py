"""Release: a selection bundle written from trained models (and its ONNX graphs), the bundle
registry that promote and the loop use, and the cold start from a servers list."""
