"""The selection bundle: its files, manifest and hashes, signatures, and the encoders
(torch or ONNX) it ships."""
