"""The feedback loop (`make loop`): a simulated agent on a real gateway, round after round,
its traces mined and the models retrained between rounds."""
